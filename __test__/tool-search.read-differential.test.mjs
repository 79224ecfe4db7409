// Property-read differential, ToolSearchProcessor (every tested release; issue
// 19): seeded random runs where the tools record, each tool object, the
// request context (a Proxy around a real RequestContext that logs each `get`
// and its key) and, with `storage: 'context'`, the messages are recording
// Proxies. A run constructs a processor, takes a step, runs `search_tools`
// and `load_tool`, and takes the next step (with the meta-tools' results in
// its messages), on the release's own processor and on ours.
//
// Per phase (constructor, step, search, load, next step): ours reads no
// property the release does not. And the user-visible getter reads (a tool
// object's own properties, `requestContext.get` keys) come in the same order:
// the sequence of their first reads in the phase is compared exactly. Repeated
// reads are not: the release reads a tool's `id` again at each lookup (its
// scan of every tool, where ours resolves ids through its tables and reads
// only the keys of the names it looks up: docs/differences.md, "A tools
// record edited after construction") and re-reads what ours keeps analysed.
// That scan also reads the ids in key order where ours reads the ones it needs
// in the order it needs them, so from `search_tools` on (every phase that
// looks a name up, and the first step where `injectCatalog` lists the
// catalog, which ours lists from its tables) a tool's `id` is left out of the order (its reads are still
// held to the release's by the first rule); its other properties and the
// request context's keys are not.
//
// On 1.59.0 two of 1.60.0's fixes are adopted (docs/differences.md, first
// item), and the reads they make are allowed there, and only there: the thread
// falls back to `requestContext.get('MastraMemory')`, and the 'context' store
// reads a `load_tool` result's `toolName` (and `success` beside a string one),
// so that on the next step the tool loaded is one, looked up in the record
// (its key and its tool's properties read) where the release drops it.
//
// `load_tool`'s suggestions (a name not found, or not allowed) read the
// record's keys alone, then look up each key that matches as the release
// does: with a `filter`, a tool's `id` is read only while a matching key is
// looked up, never every tool's for the list (issue 19).
//
// More cases: TS_READS_CASES=1000 node --test __test__/tool-search.read-differential.test.mjs

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { TESTED_RELEASES } from './helpers/releases.mjs'
import { createRng, sfc32 } from './helpers/random.mjs'
import { recorder } from './helpers/recording-proxy.mjs'
import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { hash32 } from './helpers/tool-search/builders.mjs'
import { cases } from './helpers/counts.mjs'

// The same count in npm test and npm run test:all (helpers/counts.mjs).
const CASES = cases('TS_READS_CASES', { quick: 200, all: 200 })

const WORDS = ['weather', 'forecast', 'email', 'send', 'issue', 'github', 'query', 'database', 'slack', 'channel', 'report', 'export']
const KEYS = ['getWeather', 'sendEmail', 'createIssue', 'runQuery', 'postSlack', 'exportReport', 'listChannels', 'mergePR']

/** A real RequestContext behind a Proxy that logs `get(key)` (and any other method by name). */
function recordingContext(rc, sink) {
  return new Proxy(rc, {
    get(target, key) {
      const v = Reflect.get(target, key, target)
      if (typeof v !== 'function') return v
      return (...args) => {
        sink.log.push(key === 'get' ? `rc.get(${String(args[0])})` : `rc.${String(key)}()`)
        return v.apply(target, args)
      }
    },
  })
}

/** User-visible getter reads: a tool object's own properties and `requestContext.get` keys. */
const visible = (read) => /^tool:[^.]+\.[^.]+$/.test(read) || read.startsWith('rc.get(')

function genCase(rng, referenceHas) {
  const keys = rng.sample(KEYS, rng.int(2, 6))
  const tools = keys.map((key) => ({
    key,
    id: rng.bool(0.8) ? key : `${key}_tool`,
    description: `${rng.sample(WORDS, rng.int(1, 3)).join(' ')} tool`,
    schema: rng.bool(0.6),
  }))
  const options = {}
  if (rng.bool(0.3)) options.search = { autoLoad: true }
  if (rng.bool(0.4)) options.filter = rng.pick(['sync', 'async'])
  options.storage = rng.pick(['in-memory', 'context'])
  if (rng.bool(0.3)) options.includeResolvedTools = true
  if (referenceHas.injectCatalog && rng.bool(0.3)) options.injectCatalog = true
  return {
    tools,
    options,
    stepTools: options.includeResolvedTools ? rng.subset(keys, 0.6) : null,
    threadId: rng.weighted([
      [3, 't1'],
      [1, undefined],
    ]),
    memoryThread: rng.bool(0.3) ? 'mem1' : undefined,
    query: rng.sample(WORDS, rng.int(1, 2)).join(' '),
    load: rng.weighted([
      [3, rng.pick(keys)],
      [1, 'nothing_here'],
    ]),
  }
}

async function run(kit, P, c) {
  const { z } = kit
  const sink = { log: [] }
  // Messages are wrapped all the way down; a tool only its own level.
  const wrap = recorder((read) => sink.log.push(read))
  const objects = c.tools.map((t) => {
    const tool = { id: t.id, description: t.description, execute: async () => ({ ran: t.key }) }
    if (t.schema) tool.inputSchema = z.object({ q: z.string().optional() })
    return [t.key, wrap(tool, `tool:${t.key}`, false)]
  })
  const record = wrap(Object.fromEntries(objects), 'record', false)
  const stepTools = c.stepTools ? wrap(Object.fromEntries(objects.filter(([key]) => c.stepTools.includes(key))), 'stepTools', false) : undefined
  const filter =
    c.options.filter === 'sync'
      ? ({ toolName }) => hash32(String(toolName)) % 4 !== 0
      : c.options.filter === 'async'
        ? async ({ toolName }) => hash32(String(toolName)) % 4 !== 0
        : undefined
  const rc = recordingContext(kit.makeRequestContext({ threadId: c.threadId, memoryThreadId: c.memoryThread }), sink)
  const phases = []
  const phase = async (label, fn) => {
    sink.log = []
    let value
    try {
      value = await fn()
    } catch (error) {
      sink.log.push(`threw ${error?.name}`)
    }
    phases.push({ label, reads: sink.log })
    return value
  }
  const processor = await phase('constructor', () => new P({ ttl: 0, ...c.options, filter, tools: record }))
  if (!processor) return phases
  const messages = [kit.userMessage('hello', { id: 'u1' })]
  const step = (n, list) =>
    processor.processInputStep({
      messages: list,
      messageList: kit.makeMessageList({ messages: list }).messageList,
      tools: stepTools,
      requestContext: rc,
      state: {},
      stepNumber: n,
      steps: [],
      systemMessages: [],
      retryCount: 0,
      abort: (reason) => {
        throw new Error(`abort: ${reason}`)
      },
    })
  const deepMessages = (list) => list.map((m) => wrap(m, m.id, true))
  const first = await phase('step', () => step(0, deepMessages(messages)))
  const exec = (name, input) => first?.tools?.[name]?.execute(input, { requestContext: rc })
  const found = await phase('search_tools', () => exec('search_tools', { query: c.query }))
  const loaded = await phase('load_tool', () => exec('load_tool', { toolName: c.load }))
  messages.push(
    kit.toolInvocationMessage(
      [
        { toolName: 'search_tools', toolCallId: 'c1', args: { query: c.query }, result: found },
        { toolName: 'load_tool', toolCallId: 'c2', args: { toolName: c.load }, result: loaded },
      ],
      { id: 'a1' },
    ),
  )
  await phase('next step', () => step(1, deepMessages(messages)))
  return phases
}

/**
 * The reads a release without 1.60.0's fixes does not make and ours does (docs/differences.md, first item):
 * with a hook, the lookup of the loaded tool by id reads the tools before it and their ids, as the release's
 * lookups do (issue 29).
 */
const adopted = (referenceHas, c) => (read, label) =>
  !referenceHas.memoryThread &&
  (read === 'rc.get(MastraMemory)' ||
    /\.toolInvocation\.result\.(toolName|success)$/.test(read) ||
    (c.options.storage === 'context' &&
      label === 'next step' &&
      (read === `record.${c.load}` || read.startsWith(`tool:${c.load}.`) || (c.options.filter !== undefined && /^(record\.[^.]+|tool:[^.]+\.id)$/.test(read)))))

/** Phases in which the release scans every tool's id to look a name up (see the header); the first step too where it lists its catalog. */
const SCANS = new Set(['search_tools', 'load_tool', 'next step'])
const scans = (label, c) => SCANS.has(label) || (label === 'step' && c.options.injectCatalog === true)

const firstReads = (reads, allowed, label, c) => [
  ...new Set(reads.filter((read) => visible(read) && !allowed(read, label) && !(scans(label, c) && /^tool:[^.]+\.id$/.test(read)))),
]

async function differences(version) {
  const kit = await toolSearchKit(version)
  const extras = []
  const orders = []
  let compared = 0
  for (let seed = 1; seed <= CASES && extras.length + orders.length < 6; seed++) {
    const c = genCase(createRng(seed, sfc32), kit.referenceHas)
    const ref = await run(kit, kit.Ref, c)
    const got = await run(kit, kit.Ours, genCase(createRng(seed, sfc32), kit.referenceHas))
    const allowed = adopted(kit.referenceHas, c)
    const tag = `seed ${seed} ${JSON.stringify(c.options)}`
    for (const [i, { label, reads }] of ref.entries()) {
      const ours = got[i]?.reads ?? []
      const refSet = new Set(reads)
      const extra = [...new Set(ours)].filter((read) => !refSet.has(read) && !allowed(read, label))
      if (extra.length) extras.push(`${tag} ${label}: ours read ${extra.slice(0, 6).join(', ')}`)
      const [a, b] = [firstReads(ours, allowed, label, c), firstReads(reads, allowed, label, c)]
      if (a.join() !== b.join()) orders.push(`${tag} ${label}: ours ${a.join(' ')} | release ${b.join(' ')}`)
      compared += reads.length
    }
  }
  // The loop stops at six differences; a run of every case must have compared enough.
  if (extras.length + orders.length === 0) assert.ok(compared > CASES * 5, `the release read too little to compare (${compared} reads)`)
  return { extras, orders }
}

for (const version of TESTED_RELEASES) {
  describe(`${version}: ToolSearchProcessor reads what the release reads, in its order`, () => {
    test(`${CASES} seeded runs (step, search_tools, load_tool, next step): no read beyond the release's`, async () => {
      assert.deepEqual(await differences(version), { extras: [], orders: [] })
    })
  })
}
