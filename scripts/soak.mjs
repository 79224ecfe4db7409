// Soak test: `npm run soak`. One million mixed calls into both processors of
// both host stages (searches, loads, filter hooks sync and async, both
// stores, resolved tools, the injected catalog, a tools record changed as it
// goes, ToolCallFilter's processInput/processInputStep of 1.59 and
// processLLMRequest of 1.71), over 100,000 threads with a short ttl on a fake
// clock, so thread state is made and swept again and again. Heap and RSS are
// measured after warm-up at intervals and must stay within the bounds below,
// no processor may hold more threads than its ttl allows, and the process
// must then exit by itself (no timer may keep it alive).
//
//   npm run soak                       1,000,000 calls (about a minute)
//   npm run soak -- --calls 200000     fewer
//
// The run happens in a child process (with --expose-gc); this parent prints
// its report, and checks that it exits on its own once done.

import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const argv = process.argv.slice(2)
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback)
const CALLS = option('--calls', 1_000_000)
const THREADS = option('--threads', 100_000)

/** After warm-up, the heap may vary by at most this much across the samples
 *  (measured: 0.1 MiB; a leak of 3 bytes a call would pass it). */
const HEAP_BOUND_MIB = 2
/** RSS likewise (measured: within 6.4 MiB; with the 'context' store's
 *  supplemental state never swept, as before issue 7, it rose steadily by
 *  34 MiB, and the thread bound below failed too). */
const RSS_BOUND_MIB = 16
/** The share of requests on one of the hot threads, and how many there are;
 *  the others go to the 100,000 cold threads in turn. */
const HOT_SHARE = 0.3
const HOT_THREADS = 1_000
/** Fake time per call. */
const MS_PER_CALL = 2
/** Margin over the most threads ttl sweeping lets a processor hold (see the end). */
const THREADS_MARGIN = 1.25
/** How long the child may take to exit once it has finished. */
const EXIT_WITHIN_MS = 15_000

if (!argv.includes('--child')) await parent()
else await child()

async function parent() {
  const script = fileURLToPath(import.meta.url)
  const started = Date.now()
  const proc = spawn(process.execPath, ['--expose-gc', script, '--child', ...argv], { stdio: ['ignore', 'pipe', 'inherit'] })
  let finishedAt
  let report
  let buffered = ''
  proc.stdout.on('data', (chunk) => {
    buffered += chunk
    let newline
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      if (line.startsWith('SOAK-REPORT ')) {
        report = JSON.parse(line.slice('SOAK-REPORT '.length))
        finishedAt = Date.now()
      } else {
        console.log(line)
      }
    }
  })
  const killer = setInterval(() => {
    if (finishedAt !== undefined && Date.now() - finishedAt > EXIT_WITHIN_MS) proc.kill('SIGKILL')
  }, 500)
  const code = await new Promise((resolve) => proc.on('exit', (status, signal) => resolve(signal ?? status)))
  clearInterval(killer)
  const exitMs = finishedAt === undefined ? undefined : Date.now() - finishedAt
  const failures = [...(report?.failures ?? [])]
  if (report === undefined) failures.push(`the soak did not finish (exit ${code})`)
  else if (code !== 0) failures.push(`the soak process did not exit by itself within ${EXIT_WITHIN_MS} ms (${code})`)
  console.log(`\nexit: ${code === 0 ? `by itself, ${exitMs} ms after the last call` : code}; wall time ${((Date.now() - started) / 1000).toFixed(1)} s`)
  if (failures.length > 0) {
    console.log(`\nFAILED:\n  ${failures.join('\n  ')}`)
    process.exitCode = 1
  } else {
    console.log('\nOK: heap, RSS and the threads held stayed within their bounds, and the process exited by itself')
  }
}

async function child() {
  const require = createRequire(import.meta.url)
  const { ToolCallFilter, ToolSearchProcessor } = require('../index.js')
  const { processorsFor } = require('../lib/processors.js')
  const { hostRelease } = require('../lib/host.js')
  const v159 = processorsFor(hostRelease('1.59.0', () => require('mastra-core-1.59.0/tools')))
  const { createTool } = require('@mastra/core/tools')
  const { RequestContext } = require('@mastra/core/request-context')
  const { z } = require('zod')

  // A fake clock, 2 ms per call, and the processors' sweep timers fired on
  // it: they are real timers too (so an un-unref'd one would keep this
  // process alive), but a real minute is too long to wait for.
  const realNow = Date.now
  let now = realNow()
  Date.now = () => now
  const sweeps = []
  const realSetInterval = globalThis.setInterval
  globalThis.setInterval = (callback, ms, ...rest) => {
    sweeps.push({ callback, ms, next: now + ms })
    return realSetInterval(callback, ms, ...rest)
  }
  let sweepsRun = 0
  const tick = () => {
    now += MS_PER_CALL
    for (const sweep of sweeps) {
      while (now >= sweep.next) {
        sweep.callback()
        sweep.next += sweep.ms
        sweepsRun++
      }
    }
  }

  let seed = 0x5eed
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const pick = (list) => list[Math.floor(random() * list.length)]

  const WORDS = ['weather', 'email', 'github', 'issue', 'database', 'query', 'invoice', 'calendar', 'file', 'search', 'translate', 'report']
  const schema = z.object({ q: z.string().optional() })
  const makeTool = (id) =>
    createTool({ id, description: `${pick(WORDS)} ${pick(WORDS)} tool ${id} for ${pick(WORDS)}`, inputSchema: schema, execute: async () => ({ ok: id }) })
  const catalog = (prefix, n) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}_${i}_${WORDS[i % WORDS.length]}`, null]).map(([key]) => [key, makeTool(key)]))
  const names = (record) => Object.keys(record)

  const staticTools = catalog('tool', 300)
  const mutable = { ...catalog('live', 60) }
  const resolvedSets = [catalog('mcp_a', 40), catalog('mcp_b', 40), catalog('mcp_c', 40)]
  const allNames = [...names(staticTools), ...names(mutable), ...resolvedSets.flatMap(names), 'no_such_tool']
  const queries = ['weather forecast', 'send email', 'github issue', 'database query', 'invoice calendar', 'quantum flux', 'translate report']

  const syncHook = ({ toolName }) => !toolName.endsWith('7')
  const asyncHook = ({ toolName, phase }) => Promise.resolve(phase === 'search' || !toolName.endsWith('3'))
  const TTL = 120_000
  const searchProcessors = [
    { label: '1.71 in-memory', p: new ToolSearchProcessor({ tools: staticTools, ttl: TTL }) },
    { label: '1.71 context + sync hook', p: new ToolSearchProcessor({ tools: staticTools, storage: 'context', ttl: TTL, filter: syncHook }) },
    { label: '1.59 in-memory + async hook', p: new v159.ToolSearchProcessor({ tools: staticTools, ttl: TTL, filter: asyncHook }) },
    {
      label: '1.71 context, resolved tools, injected catalog, live record',
      p: new ToolSearchProcessor({ tools: mutable, storage: 'context', ttl: TTL, includeResolvedTools: true, injectCatalog: true, search: { autoLoad: true } }),
      resolved: true,
    },
  ]
  const filter159 = new v159.ToolCallFilter({ filterAfterToolSteps: 1, preserveModelOutput: true })
  const filter171 = new ToolCallFilter({ exclude: ['searchDatabase', 'load_tool'] })

  /** A short history: user turns and assistant turns with tool results (search/load ones too). */
  function history(n) {
    const messages = []
    for (let i = 0; i < n; i++) {
      if (i % 3 === 0) {
        messages.push({ id: `u${i}`, role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: 'hello' }], content: 'hello' } })
        continue
      }
      const toolName = pick(['searchDatabase', 'sendEmail', 'load_tool', 'search_tools'])
      const result =
        toolName === 'load_tool'
          ? { success: true, message: 'ok', loaded: [pick(allNames), pick(allNames)] }
          : toolName === 'search_tools'
            ? { results: [{ name: pick(allNames), description: 'd', score: 1 }], message: 'm' }
            : { rows: [i, i + 1] }
      const invocation = { state: 'result', toolCallId: `c${i}`, toolName, args: { q: 'x' }, result }
      const part = { type: 'tool-invocation', toolInvocation: invocation }
      if (i % 4 === 0) part.providerMetadata = { mastra: { modelOutput: { type: 'text', value: 'kept' } } }
      messages.push({
        id: `a${i}`,
        role: 'assistant',
        createdAt: new Date(0),
        content: { format: 2, parts: [{ type: 'step-start' }, part], toolInvocations: [{ ...invocation }] },
      })
    }
    return messages
  }
  function prompt(n) {
    const out = [{ role: 'system', content: 'You are helpful.' }]
    for (let i = 0; i < n; i++) {
      const toolName = pick(['searchDatabase', 'sendEmail', 'load_tool'])
      out.push({ role: 'user', content: [{ type: 'text', text: `q${i}` }] })
      out.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName, input: { q: i } }] })
      out.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName, output: { type: 'json', value: { ok: i } } }] })
    }
    return out
  }

  const messageList = { addSystem() {}, get: { all: { db: () => [] } } }
  const context = (thread) => {
    const requestContext = new RequestContext()
    requestContext.set('mastra__threadId', thread)
    return requestContext
  }

  const counts = {}
  const count = (kind) => {
    counts[kind] = (counts[kind] ?? 0) + 1
    calls++
    tick()
  }
  let calls = 0
  let coldThread = 0
  const WARMUP = Math.floor(CALLS / 5)
  const SAMPLE_EVERY = Math.max(10_000, Math.floor(CALLS / 20))
  const samples = []
  let nextSample = WARMUP
  let nextTurn = 100
  const MIB = 1024 * 1024
  const sample = () => {
    globalThis.gc()
    globalThis.gc()
    const { heapUsed, rss, external } = process.memoryUsage()
    const threads = searchProcessors.map(({ p }) => p.getStateStats().threadCount)
    samples.push({ calls, heapMiB: heapUsed / MIB, rssMiB: rss / MIB, externalMiB: external / MIB, threads })
  }

  const started = realNow()
  while (calls < CALLS) {
    const roll = random()
    if (roll < 0.12) {
      // ToolCallFilter, 1.59 stage: processInput, then a step of the loop.
      const messages = history(6 + Math.floor(random() * 10))
      const list = { get: { all: { db: () => messages }, response: { db: () => messages.slice(-2) } } }
      await filter159.processInput({ messages, messageList: list, abort() {} })
      count('ToolCallFilter 1.59 processInput')
      await filter159.processInputStep({ messages, messageList: list, state: {}, stepNumber: 1, steps: [], abort() {} })
      count('ToolCallFilter 1.59 processInputStep')
      continue
    }
    if (roll < 0.2) {
      await filter171.processLLMRequest({ prompt: prompt(3 + Math.floor(random() * 6)), state: {} })
      count('ToolCallFilter 1.71 processLLMRequest')
      continue
    }
    // A request on a thread: a step, then some meta-tool calls.
    const thread = random() < HOT_SHARE ? `hot_${Math.floor(random() * HOT_THREADS)}` : `thread_${coldThread++ % THREADS}`
    const requestContext = context(thread)
    const { p, resolved } = pick(searchProcessors)
    if (resolved && random() < 0.01) {
      // The caller changes the record now and then: a swap, an addition, a deletion.
      const key = pick(Object.keys(mutable))
      const change = random()
      if (change < 0.4) mutable[key] = makeTool(mutable[key].id)
      else if (change < 0.7 && Object.keys(mutable).length < 80) mutable[`added_${calls}`] = makeTool(`added_${calls}`)
      else if (Object.keys(mutable).length > 40) delete mutable[key]
    }
    const stepTools = resolved ? pick(resolvedSets) : {}
    const messages = p.getStateStats && random() < 0.5 ? history(4) : []
    const step = await p.processInputStep({ messages, messageList, tools: stepTools, requestContext, state: {}, stepNumber: 0, steps: [], abort() {} })
    count('ToolSearch processInputStep')
    const { search_tools: search, load_tool: load } = step.tools
    for (let k = Math.floor(random() * 3); k > 0; k--) {
      await search.execute({ query: pick(queries) }, { requestContext })
      count('search_tools')
    }
    if (load && random() < 0.6) {
      await load.execute(random() < 0.5 ? { toolName: pick(allNames) } : { toolNames: [pick(allNames), pick(allNames)] }, { requestContext })
      count('load_tool')
    }
    if (random() < 0.1) {
      await p.getLoadedToolsForRequestContext({ requestContext, tools: stepTools })
      count('getLoadedToolsForRequestContext')
    }
    // Let the event loop turn now and then, as a server's does between
    // requests: Node runs the finalizers of collected native objects there.
    if (calls >= nextTurn) {
      await new Promise((resolve) => setImmediate(resolve))
      nextTurn += 100
    }
    if (calls >= nextSample) {
      sample()
      nextSample += SAMPLE_EVERY
    }
  }
  const seconds = (realNow() - started) / 1000
  sample()
  Date.now = realNow
  globalThis.setInterval = realSetInterval

  const spread = (values) => Math.max(...values) - Math.min(...values)
  const heapSpread = spread(samples.map((s) => s.heapMiB))
  const rssSpread = spread(samples.map((s) => s.rssMiB))
  const mostThreads = Math.max(...samples.flatMap((s) => s.threads))
  // A thread idle for ttl goes at the next sweep: none is held longer than
  // ttl plus the sweep period, a window of this many calls. In it a processor
  // serves its share of the steps (each picks one at random), each on a new
  // cold thread or one of the hot ones.
  const windowCalls = (TTL + Math.max(...sweeps.map((sweep) => sweep.ms))) / MS_PER_CALL
  const stepsInWindow = (windowCalls * counts['ToolSearch processInputStep']) / calls / searchProcessors.length
  const hotTouched = HOT_THREADS * (1 - Math.exp((-stepsInWindow * HOT_SHARE) / HOT_THREADS))
  const THREADS_BOUND = Math.ceil(THREADS_MARGIN * (stepsInWindow * (1 - HOT_SHARE) + hotTouched))
  const failures = []
  if (heapSpread > HEAP_BOUND_MIB) failures.push(`the heap varied by ${heapSpread.toFixed(1)} MiB after warm-up (bound ${HEAP_BOUND_MIB} MiB)`)
  if (rssSpread > RSS_BOUND_MIB) failures.push(`RSS varied by ${rssSpread.toFixed(1)} MiB after warm-up (bound ${RSS_BOUND_MIB} MiB)`)
  if (mostThreads > THREADS_BOUND) failures.push(`a processor held ${mostThreads} threads (bound ${THREADS_BOUND})`)

  const fmt = (n) => n.toLocaleString('en-US')
  console.log(`soak: ${fmt(calls)} calls in ${seconds.toFixed(1)} s (${fmt(Math.round(calls / seconds))}/s), node ${process.version}`)
  console.log(
    `  threads: ${fmt(THREADS)} cold (in turn) + ${fmt(HOT_THREADS)} hot (${HOT_SHARE * 100}% of requests), ttl ${fmt(TTL)} ms on a fake clock ` +
      `(${MS_PER_CALL} ms per call, ${fmt((calls * MS_PER_CALL) / 1000)} s in all); ${fmt(sweepsRun)} sweeps ran`,
  )
  console.log('  ToolSearchProcessor: ' + searchProcessors.map(({ label }) => label).join('; '))
  console.log('  ToolCallFilter: 1.59 { filterAfterToolSteps: 1, preserveModelOutput: true }; 1.71 { exclude: [searchDatabase, load_tool] }')
  console.log('  calls:')
  for (const [kind, n] of Object.entries(counts)) console.log(`    ${kind.padEnd(40)} ${fmt(n).padStart(9)}`)
  console.log(`  memory after warm-up (${fmt(WARMUP)} calls), after a full GC, every ${fmt(SAMPLE_EVERY)} calls and at the end:`)
  console.log('        calls   heap MiB    RSS MiB   external MiB   threads held (per processor above)')
  for (const s of samples) {
    console.log(
      `    ${fmt(s.calls).padStart(9)}  ${s.heapMiB.toFixed(1).padStart(9)}  ${s.rssMiB.toFixed(1).padStart(9)}  ${s.externalMiB.toFixed(1).padStart(13)}   ${s.threads.map(fmt).join(' / ')}`,
    )
  }
  console.log(
    `  after warm-up: heap within ${heapSpread.toFixed(1)} MiB (bound ${HEAP_BOUND_MIB}), RSS within ${rssSpread.toFixed(1)} MiB (bound ${RSS_BOUND_MIB}), ` +
      `at most ${fmt(mostThreads)} threads held by one processor (bound ${fmt(THREADS_BOUND)}: ${THREADS_MARGIN} x what ttl sweeping allows)`,
  )
  console.log(`SOAK-REPORT ${JSON.stringify({ calls, seconds, heapSpread, rssSpread, mostThreads, failures })}`)
  // No process.exit: the parent checks that nothing keeps this process alive.
}
