// Several servers behind a load balancer on one PostgreSQL, one of them killed
// mid-run (docs/servers.md). Three Node processes (multi-instance/server.mjs),
// each an Agent with ToolSearchProcessor({ storage: 'context' }) and a Memory on
// PostgresStore (@mastra/pg); a scripted model searches for, loads and calls
// tools. Each of 100 threads loads a tool, uses it, loads a second, uses both;
// requests go round-robin with many in flight, and halfway through the busiest
// server is killed with SIGKILL: the client sends its in-flight requests again
// to another. Every later turn of a thread must be offered the tools its
// completed turns loaded, wherever it lands, and every completed turn must be
// in memory. The control: with storage: 'in-memory' a tool loaded on one server
// is not offered on another (as documented). Prints requests per second on one
// server and on three.
//
// The database is the one DATABASE_URL names, else a real PostgreSQL started
// for the test (helpers/postgres.mjs). MNP_PG_THREADS sets the number of
// threads (100).

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { startPostgres } from './helpers/postgres.mjs'
import { ServerGone, WORDS, startServer } from './multi-instance/client.mjs'

const THREADS = Number(process.env.MNP_PG_THREADS ?? 100)
/** Requests the client keeps in flight at once, over all servers. */
const IN_FLIGHT = 24
const CATALOG = `words:${WORDS.length}`
const META = new Set(['search_tools', 'load_tool'])

let database
let memoryStore
let closeStore
const servers = []

before(async () => {
  database = await startPostgres()
  const { PostgresStore } = await import('@mastra/pg')
  // The test's own reader of the servers' memory, which also makes the schema and tables once.
  const store = new PostgresStore({ id: 'mnp-test-reader', connectionString: database.url, schemaName: database.schema })
  await store.init()
  memoryStore = await store.getStore('memory')
  closeStore = () => store.close()
})

after(async () => {
  await Promise.all(servers.map((server) => server.stop()))
  await closeStore?.()
  await database?.stop()
})

/** Starts `count` servers with this store, all at once. */
async function startServers(prefix, storage, count) {
  const url = new URL(database.url)
  url.searchParams.set('schema', database.schema)
  const started = await Promise.all(
    Array.from({ length: count }, (_, at) => startServer({ name: `${prefix}-${at + 1}`, storage, url: url.href, catalog: CATALOG })),
  )
  servers.push(...started)
  return started
}

const tool = (at) => `${WORDS[at % WORDS.length]}Lookup`
const load = (at) => ({ kind: 'load', tool: tool(at), query: WORDS[at % WORDS.length] })

/** A thread's turns: load a tool, use it, load another, use both. */
function fourTurns(thread, at) {
  const first = tool(at)
  const second = tool(at + 7)
  return [load(at), { kind: 'use', tools: [first] }, load(at + 7), { kind: 'use', tools: [first, second] }].map((turn, n) => ({
    ...turn,
    thread,
    turn: `${thread}#${n + 1}`,
  }))
}

/**
 * Sends every thread's turns in order, a thread's next turn once its last
 * answered, keeping up to IN_FLIGHT requests in flight, each to the next live
 * server in turn. A request whose server ends under it is sent again to the
 * next live one. `whenDone(count)` is called after each answer. Resolves with
 * the answers in the order they came ({ request, reply, attempts }) and the
 * number of requests sent again.
 */
function drive(live, threads, whenDone = () => {}) {
  live = [...live]
  const answers = []
  let retried = 0
  let next = 0
  let active = 0
  const ready = threads.map((turns) => ({ turns, at: 0 }))
  return new Promise((resolve, reject) => {
    const pump = () => {
      while (active < IN_FLIGHT && ready.length) send(ready.shift(), 1)
      if (active === 0 && !ready.length) resolve({ answers, retried })
    }
    const send = (thread, attempts) => {
      if (!live.length) return reject(new Error('no server left'))
      const server = live[next++ % live.length]
      const request = thread.turns[thread.at]
      active++
      server.request(request).then(
        (reply) => {
          active--
          answers.push({ request, reply, attempts })
          if (++thread.at < thread.turns.length) ready.push(thread)
          whenDone(answers.length)
          pump()
        },
        (error) => {
          active--
          if (!(error instanceof ServerGone)) return reject(error)
          live = live.filter((other) => other !== server)
          retried++
          send(thread, attempts + 1)
        },
      )
    }
    pump()
  })
}

/** Offered on a reply's first model call, the meta-tools left out. */
const offeredFirst = (reply) => reply.calls[0].filter((name) => !META.has(name)).sort()

describe("storage: 'context', three servers on one PostgreSQL, one killed with SIGKILL mid-run", () => {
  let three
  let run
  let killed
  after(() => Promise.all(three.map((server) => server.stop())))

  before(async () => {
    three = await startServers('context', 'context', 3)
    const threads = Array.from({ length: THREADS }, (_, at) => fourTurns(`thread-${at}`, at))
    const total = threads.length * 4
    let at = 0
    run = await drive(three, threads, (done) => {
      if (killed || done < total / 2) return
      // The busiest server at this moment, with its requests in flight.
      killed = three.reduce((busiest, server) => (server.inFlight > busiest.inFlight ? server : busiest))
      killed.inFlightWhenKilled = killed.inFlight
      killed.kill('SIGKILL')
      at = done
    })
    killed.killedAfter = at
  })

  test('the server was killed with requests in flight, and they were sent again', async (t) => {
    assert.equal(await killed.exited, 'SIGKILL')
    assert.ok(killed.inFlightWhenKilled > 0, 'the killed server had requests in flight')
    assert.ok(run.retried >= killed.inFlightWhenKilled, `${run.retried} retried, ${killed.inFlightWhenKilled} in flight`)
    t.diagnostic(`on ${database.where}`)
    t.diagnostic(
      `${killed.name} killed after ${killed.killedAfter} of ${THREADS * 4} answers, with ${killed.inFlightWhenKilled} in flight; ${run.retried} requests retried on another server`,
    )
  })

  test("every turn is offered the tools its thread's earlier turns loaded, wherever it lands, and they run there", (t) => {
    assert.equal(run.answers.length, THREADS * 4)
    const loadedOn = new Map()
    let later = 0
    let elsewhere = 0
    for (const { request, reply, attempts } of run.answers) {
      const loaded = loadedOn.get(request.thread) ?? new Map()
      loadedOn.set(request.thread, loaded)
      const expected = [...loaded.keys()].sort()
      const offered = offeredFirst(reply)
      if (request.kind === 'load' && attempts > 1) {
        // A retried load may find its own tool already loaded by the killed server's partial turn.
        assert.deepEqual(
          offered.filter((name) => name !== request.tool),
          expected,
          `${request.turn} on ${reply.server}`,
        )
      } else {
        assert.deepEqual(offered, expected, `${request.turn} on ${reply.server}`)
      }
      if (expected.length) {
        later++
        if ([...loaded.values()].some((server) => server !== reply.server)) elsewhere++
      }
      if (request.kind === 'load') {
        assert.deepEqual(reply.text, `${request.tool} is loaded. [${request.turn}]`)
        loaded.set(request.tool, reply.server)
      } else {
        assert.deepEqual(
          reply.toolResults,
          request.tools.map((name) => [name, { tool: name, turn: request.turn, server: reply.server }]),
        )
        assert.equal(reply.text, `Used ${request.tools.join(', ')}. [${request.turn}]`)
      }
    }
    assert.equal(later, THREADS * 3)
    assert.ok(elsewhere > later / 2, `${elsewhere} of ${later} on another server than a tool's load`)
    t.diagnostic(`${later} later turns offered their thread's loaded tools, ${elsewhere} of them on another server than a load`)
  })

  test('every answered turn is in memory: its question and its answer', async (t) => {
    let turns = 0
    let repeated = 0
    const byThread = new Map()
    for (const answer of run.answers) byThread.set(answer.request.thread, [...(byThread.get(answer.request.thread) ?? []), answer])
    for (const [thread, answers] of byThread) {
      const { messages } = await memoryStore.listMessages({ threadId: thread, perPage: false })
      const texts = messages.map((message) => `${message.role}: ${textOf(message)}`)
      for (const { request, reply } of answers) {
        const asked = texts.filter((text) => text.startsWith('user: ') && text.endsWith(`[${request.turn}]`)).length
        assert.ok(asked >= 1, `${request.turn}'s question`)
        // A retried turn's question may be there twice: the killed server had saved it.
        if (asked > 1) repeated++
        assert.ok(texts.includes(`assistant: ${reply.text}`), `${request.turn}'s answer`)
        turns++
      }
    }
    assert.equal(turns, THREADS * 4)
    assert.ok(repeated <= run.retried)
    t.diagnostic(`${byThread.size} threads checked in memory, ${turns} turns found; ${repeated} retried turns also left their first question there`)
  })
})

describe("storage: 'in-memory', the control: a tool loaded on one server is not offered on another", () => {
  test('each thread loads on one server and is answered by the next without its tool', async (t) => {
    const three = await startServers('in-memory', 'in-memory', 3)
    const count = Math.min(THREADS, 30)
    let lost = 0
    await Promise.all(
      Array.from({ length: count }, async (_, at) => {
        const thread = `in-memory-${at}`
        const loadedOn = three[at % 3]
        const next = three[(at + 1) % 3]
        const loaded = await loadedOn.request({ ...load(at), thread, turn: `${thread}#1` })
        assert.equal(loaded.text, `${tool(at)} is loaded. [${thread}#1]`)
        const used = await next.request({ kind: 'use', tools: [tool(at)], thread, turn: `${thread}#2` })
        assert.deepEqual(offeredFirst(used), [])
        assert.deepEqual(used.toolResults, [])
        // The server that loaded it still has it, in its own memory.
        const again = await loadedOn.request({ kind: 'use', tools: [tool(at)], thread, turn: `${thread}#3` })
        assert.deepEqual(offeredFirst(again), [tool(at)])
        lost++
      }),
    )
    t.diagnostic(`${lost} of ${count} threads lost their tool on another server`)
    await Promise.all(three.map((server) => server.stop()))
  })
})

describe('requests per second', () => {
  for (const count of [1, 3]) {
    test(`on ${count} server${count > 1 ? 's' : ''}`, async (t) => {
      const started = await startServers(`rate-${count}`, 'context', count)
      // Warm: each process compiles Mastra's and our code on its first requests.
      await drive(
        started,
        Array.from({ length: 8 * count }, (_, at) => fourTurns(`warm-${count}-${at}`, at)),
      )
      const threads = Array.from({ length: 40 }, (_, at) => fourTurns(`rate-${count}-${at}`, at).slice(0, 2))
      const since = performance.now()
      const { answers } = await drive(started, threads)
      const seconds = (performance.now() - since) / 1000
      assert.equal(answers.length, 80)
      t.diagnostic(`${count} server(s): ${answers.length} requests in ${seconds.toFixed(1)} s, ${(answers.length / seconds).toFixed(1)} requests/s`)
      await Promise.all(started.map((server) => server.stop()))
    })
  }
})

/** A stored message's text parts, joined. */
function textOf(message) {
  const { content } = message
  if (typeof content === 'string') return content
  return (content?.parts ?? [])
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('')
}
