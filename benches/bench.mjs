// Benchmark: native processors vs @mastra/core's own, in one process: the
// message-list ToolCallFilter against 1.59.0's, the prompt ToolCallFilter and
// ToolSearchProcessor against 1.71.0's (what `npm install @mastra/core` gives).
//
//   npm run bench                      (node --expose-gc benches/bench.mjs)
//   npm run bench -- --help            the options (benches/options.mjs): --only <group>,
//                                      --filter <text>, --sizes <n,...>, --quick, --json, --chart
//
// Each workload runs in a Node process of its own (this script, started again
// with --workload N), so no row inherits another's heap or allocator state: a
// 100,000-tool catalog or a 34 s reference step leaves a process that makes
// later rows allocating new indexes measurably slower. Within a workload both
// implementations run alternately (ref, ours, ours, ref, ...) so machine
// noise lands on both. Each row reports the median time per operation. Before a
// row is timed, both implementations are run once on the same input and their
// outputs compared; a mismatch throws (we would be timing different work).
// Nothing here asserts anything about time.
//
// ToolCallFilter is timed as a server runs it: whole requests (the two model
// calls of a run on 1.60+, the input step and first agent-loop step on 1.59),
// one a sample, each row beside one with a full gc() before every request.
// A collection empties the CPU's caches and frees what only weak references
// hold; a filter that leaves its compiled code to such things is several
// times slower after one, which the rows without it never show.

import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { isDeepStrictEqual } from 'node:util'

import { createRequire } from 'node:module'

import { speedupChart } from './chart.mjs'
import { USAGE, groupOf, parseOptions } from './options.mjs'

// ---------------------------------------------------------------------------
// Command line and settings. Parsed before @mastra/core and the addon load
// (seconds), so that --help and a usage error answer at once.

const parsed = parseOptions(process.argv.slice(2))
if (parsed.help) {
  console.log(USAGE)
  process.exit(0)
}
if (parsed.error) {
  console.error(`bench: ${parsed.error}\n\n${USAGE}`)
  process.exit(2)
}
const OPTIONS = parsed.options

const { ToolCallFilter: RefPromptToolCallFilter, ToolSearchProcessor: RefToolSearchProcessor } = await import('@mastra/core/processors')
const { RequestContext } = await import('@mastra/core/request-context')
const { createTool } = await import('@mastra/core/tools')
const { ToolCallFilter: RefMessageListToolCallFilter } = await import('mastra-core-1.59.0/processors')
const { z } = await import('zod')
const { ToolCallFilter: OursPromptToolCallFilter, ToolSearchProcessor: OursToolSearchProcessor } = await import('../index.mjs')
const { endToEndWorkloads } = await import('./end-to-end.mjs')
const { mixedLoad, stepLoad, stepLoadTools } = await import('./mixed-load.mjs')
const RefProcessors159 = await import('mastra-core-1.59.0/processors')
const { RequestContext: RequestContext159 } = await import('mastra-core-1.59.0/request-context')
const { MessageList: MessageList159 } = await import('mastra-core-1.59.0/agent')

const require = createRequire(import.meta.url)
const { hostRelease } = require('../lib/host.js')
const { processorsFor } = require('../lib/processors.js')
// Ours as the package builds it next to @mastra/core 1.59.0.
const OursProcessors159 = processorsFor(hostRelease('1.59.0', () => require('mastra-core-1.59.0/tools')))
const { ToolCallFilter: OursMessageListToolCallFilter } = OursProcessors159

const QUICK = OPTIONS.quick
const JSON_OUT = OPTIONS.json
const CHART_OUT = OPTIONS.chart
// Set in the child process that runs one workload (see Main).
const ONLY_WORKLOAD = OPTIONS.workload
const FILTER = OPTIONS.filter

const SETTINGS = QUICK
  ? { minSamples: 7, minSideMs: 50, sampleMs: 5, warmupMs: 50, capMs: 3_000, maxSamples: 500, requestSamples: 21 }
  : { minSamples: 15, minSideMs: 300, sampleMs: 10, warmupMs: 200, capMs: 20_000, maxSamples: 2_000, requestSamples: 101 }

const SIZES = [100, 1_000, 10_000]
const gc = globalThis.gc ?? (() => {})

// ---------------------------------------------------------------------------
// Seeded PRNG and input builders

function mulberry32(seed) {
  return function () {
    seed |= 0
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = (
  'search database query records send email message weather forecast city github issue pull request ' +
  'repository create update delete list fetch calendar event schedule meeting invoice payment customer ' +
  'order shipping inventory product translate text language document file upload download image resize ' +
  'convert pdf report analytics metrics dashboard user account profile permission slack channel notify ' +
  'alert ticket support summarize news stock price currency exchange map route location timezone contact ' +
  'crm lead deal spreadsheet row column sql vector embedding index cache log error deploy build pipeline ' +
  'secret token webhook subscribe'
).split(' ')

const pick = (rand, list) => list[Math.floor(rand() * list.length)]

/** A sentence of roughly `min`..`max` characters built from WORDS. */
function sentence(rand, min, max) {
  const target = min + Math.floor(rand() * (max - min + 1))
  let text = pick(rand, WORDS)
  text = text[0].toUpperCase() + text.slice(1)
  for (;;) {
    const word = pick(rand, WORDS)
    const sep = rand() < 0.1 ? ', ' : ' '
    if (text.length + sep.length + word.length + 1 > target) break
    text += sep + word
  }
  return text + '.'
}

const sharedInputSchema = z.object({ query: z.string(), limit: z.number().optional() })

/** N tools made with createTool: ids `<prefix>_<i>_<word>`, 80-120 char descriptions. */
function buildTools(n, prefix = 'tool', seed = 1) {
  const rand = mulberry32(seed)
  const tools = {}
  for (let i = 0; i < n; i++) {
    const id = `${prefix}_${i}_${pick(rand, WORDS)}`
    tools[id] = createTool({
      id,
      // Flat, as descriptions arrive in practice (literals, parsed JSON); the
      // string built word by word here would be a rope that every reader
      // must walk.
      description: JSON.parse(JSON.stringify(sentence(rand, 92, 120))),
      inputSchema: sharedInputSchema,
      execute: async () => ({ ok: true }),
    })
  }
  return tools
}

const TOOL_NAMES = ['searchDatabase', 'sendEmail', 'getWeather', 'createIssue', 'readFile', 'webSearch', 'calendarLookup', 'translateText']

function modelOutputFor(rand, i) {
  switch (Math.floor(rand() * 4)) {
    case 0:
      return { type: 'text', value: sentence(rand, 40, 120) }
    case 1:
      return { type: 'json', value: { count: i % 17, items: [`item-${i}`, `item-${i + 1}`] } }
    case 2:
      return sentence(rand, 30, 80)
    default:
      return [{ type: 'text', text: sentence(rand, 20, 60) }, `note ${i}`]
  }
}

/** N MastraDB format-2 messages: user turns and assistant turns with tool results. */
function buildMessages(n, seed = 2) {
  const rand = mulberry32(seed)
  const base = Date.UTC(2025, 0, 1)
  const messages = []
  for (let i = 0; i < n; i++) {
    const common = {
      id: `msg_${i}`,
      createdAt: new Date(base + i * 1000),
      threadId: 'thread_bench',
      resourceId: 'user_bench',
    }
    if (rand() < 0.35) {
      const text = sentence(rand, 20, 160)
      messages.push({
        ...common,
        role: 'user',
        content: { format: 2, parts: [{ type: 'text', text }], content: text },
      })
      continue
    }

    // assistant: 25% text only, 45% text + tools, 30% tools only
    const kind = rand()
    const text = kind < 0.7 ? sentence(rand, 30, 200) : undefined
    const toolCount = kind < 0.25 ? 0 : 1 + Math.floor(rand() * 3)
    const parts = [{ type: 'step-start' }]
    if (text) parts.push({ type: 'text', text })
    const toolInvocations = []
    for (let j = 0; j < toolCount; j++) {
      const toolName = pick(rand, TOOL_NAMES)
      const invocation = {
        state: 'result',
        step: j,
        toolCallId: `call_${i}_${j}`,
        toolName,
        args: { query: sentence(rand, 10, 40), limit: 1 + Math.floor(rand() * 20) },
        result: {
          ok: true,
          count: j + 1,
          rows: [
            { id: i * 10 + j, title: sentence(rand, 10, 40) },
            { id: i * 10 + j + 1, title: sentence(rand, 10, 40) },
          ],
        },
      }
      const part = { type: 'tool-invocation', toolInvocation: invocation }
      if (rand() < 0.3) part.providerMetadata = { mastra: { modelOutput: modelOutputFor(rand, i) } }
      parts.push(part)
      toolInvocations.push({ ...invocation })
    }
    const content = { format: 2, parts }
    if (text) content.content = text
    if (toolInvocations.length > 0) content.toolInvocations = toolInvocations
    messages.push({ ...common, role: 'assistant', content })
  }
  return messages
}

/**
 * The provider prompt the Agent sends for stored messages: user turns, and
 * assistant turns whose tool calls are answered in a tool message; results
 * with a stored model output carry it in `providerOptions.mastra`.
 */
function promptOf(messages) {
  const prompt = [{ role: 'system', content: 'You are a helpful assistant.' }]
  for (const message of messages) {
    if (message.role === 'user') {
      prompt.push({ role: 'user', content: [{ type: 'text', text: message.content.content }] })
      continue
    }
    const content = []
    const results = []
    for (const part of message.content.parts) {
      if (part.type === 'text') content.push({ type: 'text', text: part.text })
      if (part.type !== 'tool-invocation') continue
      const { toolCallId, toolName, args, result } = part.toolInvocation
      content.push({ type: 'tool-call', toolCallId, toolName, input: args })
      const modelOutput = part.providerMetadata?.mastra?.modelOutput
      results.push({
        type: 'tool-result',
        toolCallId,
        toolName,
        output: modelOutput === undefined ? { type: 'json', value: result } : { type: 'text', value: JSON.stringify(modelOutput) },
        ...(modelOutput === undefined ? {} : { providerOptions: { mastra: { modelOutput } } }),
      })
    }
    if (content.length > 0) prompt.push({ role: 'assistant', content })
    if (results.length > 0) prompt.push({ role: 'tool', content: results })
  }
  return prompt
}

/**
 * `turns` turns of a conversation as stored messages (format 2): a user
 * question; an assistant text with one tool call and its result (every
 * third with a stored model output); an assistant answer. As a provider
 * prompt each turn is four messages: the tool's result is one of its own.
 * Call ids start with `prefix`.
 */
function buildTurns(turns, { seed = 4, prefix = 'call' } = {}) {
  const rand = mulberry32(seed)
  const base = Date.UTC(2025, 0, 1)
  const messages = []
  const message = (role, content) => {
    const i = messages.length
    messages.push({ id: `${prefix}_msg_${i}`, createdAt: new Date(base + i * 1000), threadId: 'thread_bench', resourceId: 'user_bench', role, content })
  }
  for (let t = 0; t < turns; t++) {
    const question = sentence(rand, 20, 120)
    message('user', { format: 2, parts: [{ type: 'text', text: question }], content: question })
    const text = sentence(rand, 30, 120)
    const invocation = {
      state: 'result',
      step: 0,
      toolCallId: `${prefix}_${t}`,
      toolName: TOOL_NAMES[t % TOOL_NAMES.length],
      args: { query: sentence(rand, 10, 40), limit: 1 + (t % 20) },
      result: { ok: true, count: t % 7, rows: [{ id: t, title: sentence(rand, 10, 40) }] },
    }
    const part = { type: 'tool-invocation', toolInvocation: invocation }
    if (t % 3 === 0) part.providerMetadata = { mastra: { modelOutput: modelOutputFor(rand, t) } }
    message('assistant', { format: 2, parts: [{ type: 'step-start' }, { type: 'text', text }, part], content: text, toolInvocations: [{ ...invocation }] })
    const answer = sentence(rand, 30, 200)
    message('assistant', { format: 2, parts: [{ type: 'text', text: answer }], content: answer })
  }
  return messages
}

// Queries for search_tools, used in rotation (the last one matches nothing).
const QUERIES = ['weather forecast', 'send email message', 'github issue', 'database query records', 'invoice payment customer', 'quantum flux']

function memo(build) {
  const cache = new Map()
  return (size) => {
    if (!cache.has(size)) cache.set(size, build(size))
    return cache.get(size)
  }
}

const catalogTools = memo((n) => buildTools(n, 'tool', 1))
const resolvedTools = memo((n) => buildTools(n, 'mcp', 3))
// Equal to resolvedTools in every id and description, but other objects.
const otherResolvedTools = memo((n) => buildTools(n, 'mcp', 3))
const historyMessages = memo((n) => buildMessages(n, 2))

function makeRequestContext(threadId = 'thread_bench') {
  const requestContext = new RequestContext()
  requestContext.set('mastra__threadId', threadId)
  return requestContext
}

/** What processInputStep touches: messageList.addSystem (recorded here), args.messages, args.tools. */
function stepArgs(tools, requestContext, systemLog) {
  const messageList = {
    addSystem(message) {
      systemLog?.push(message)
    },
    get: { all: { db: () => [] } },
  }
  return { messages: [], messageList, tools, requestContext, state: {}, stepNumber: 0, steps: [], abort() {} }
}

// ---------------------------------------------------------------------------
// Sanity check (same output) and timing

function assertSame(label, refOut, oursOut) {
  if (isDeepStrictEqual(refOut, oursOut)) return
  const show = (v) => JSON.stringify(v, null, 1)?.slice(0, 600)
  throw new Error(`${label}: outputs differ, refusing to time different work.\nref:  ${show(refOut)}\nours: ${show(oursOut)}`)
}

/** Comparable view of a processInputStep result: tool keys with their id/description, plus system messages. */
function stepView(result, systemLog) {
  const tools = Object.entries(result?.tools ?? {}).map(([key, tool]) => [key, tool?.id, tool?.description])
  return { tools, system: systemLog }
}

async function warmup(fn) {
  const times = []
  const start = performance.now()
  for (let i = 0; times.length < 2 || performance.now() - start < SETTINGS.warmupMs; i++) {
    const t0 = performance.now()
    await fn(i)
    times.push(performance.now() - t0)
  }
  const later = times.slice(Math.floor(times.length / 2)).sort((a, b) => a - b)
  return later[Math.floor(later.length / 2)]
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * Untimed, before each sample: a turn of the event loop, as an agent's steps
 * have between them (a model call). Node runs native objects' finalizers
 * there, so without it a side that keeps memory outside the JS heap (ours)
 * would run every later sample in memory it cannot reuse.
 */
const betweenSamples = () => new Promise((resolve) => setImmediate(resolve))

/**
 * Times refFn and oursFn alternately. Each sample runs a batch of calls sized so
 * one sample takes about SETTINGS.sampleMs; `fn(k)` gets the call's index within
 * the batch. `batchMultiple` rounds batches up (used to cover every query in a
 * rotation), `resetRef`/`resetOurs` run untimed before every sample.
 */
async function measure(name, size, refFn, oursFn, { batchMultiple = 1, resetRef, resetOurs } = {}) {
  const sides = [
    { key: 'ref', fn: refFn, reset: resetRef, times: [], total: 0 },
    { key: 'ours', fn: oursFn, reset: resetOurs, times: [], total: 0 },
  ]
  for (const side of sides) {
    side.reset?.()
    const perCall = Math.max(await warmup(side.fn), 1e-4)
    const batch = Math.max(1, Math.ceil(SETTINGS.sampleMs / perCall))
    side.batch = Math.ceil(batch / batchMultiple) * batchMultiple
  }
  gc()

  const start = performance.now()
  for (let round = 0; ; round++) {
    for (const side of round % 2 ? [sides[1], sides[0]] : sides) {
      await betweenSamples()
      await side.reset?.()
      const t0 = performance.now()
      for (let k = 0; k < side.batch; k++) await side.fn(k)
      const elapsed = performance.now() - t0
      side.times.push(elapsed / side.batch)
      side.total += elapsed
    }
    const samples = round + 1
    const enough = samples >= SETTINGS.minSamples && sides.every((s) => s.total >= SETTINGS.minSideMs)
    if (enough || samples >= SETTINGS.maxSamples || performance.now() - start > SETTINGS.capMs) break
  }
  for (const side of sides) await side.reset?.()

  const [ref, ours] = sides
  const refMs = median(ref.times)
  const oursMs = median(ours.times)
  return {
    workload: name,
    size,
    refMs,
    oursMs,
    speedup: refMs / oursMs,
    samples: ref.times.length,
    batch: { ref: ref.batch, ours: ours.batch },
  }
}

/**
 * Times one operation a sample, alternating the sides, after a turn of the
 * event loop and, with `collect`, a full collection, both untimed. Each side
 * first runs until V8 has compiled what runs hot (SETTINGS.warmupMs).
 */
async function measureRequests(name, size, refFn, oursFn, { collect }) {
  const sides = [
    { fn: refFn, times: [] },
    { fn: oursFn, times: [] },
  ]
  for (const side of sides) await warmup(side.fn)
  const start = performance.now()
  for (let round = 0; ; round++) {
    for (const side of round % 2 ? [sides[1], sides[0]] : sides) {
      await betweenSamples()
      if (collect) gc()
      const t0 = performance.now()
      await side.fn()
      side.times.push(performance.now() - t0)
    }
    const samples = round + 1
    if (samples >= SETTINGS.requestSamples || performance.now() - start > SETTINGS.capMs) break
  }
  const [ref, ours] = sides
  const refMs = median(ref.times)
  const oursMs = median(ours.times)
  return { workload: name, size, refMs, oursMs, speedup: refMs / oursMs, samples: ref.times.length }
}

/**
 * Throughput of a request loop: samples of `batch` requests, the sides
 * alternating, each sample after a turn of the event loop; with `collect`, a
 * full collection (untimed) before every request, as a server that collects
 * between requests. Reports the median time per request, and prints each
 * side's requests per second.
 */
async function measureThroughput(name, size, refFn, oursFn, { collect, batch, warmupRequests }) {
  const sides = [
    { label: 'Mastra', fn: refFn, times: [] },
    { label: 'ours', fn: oursFn, times: [] },
  ]
  for (const side of sides) for (let i = 0; i < warmupRequests; i++) await side.fn()
  gc()
  const start = performance.now()
  for (let round = 0; ; round++) {
    for (const side of round % 2 ? [sides[1], sides[0]] : sides) {
      await betweenSamples()
      let elapsed = 0
      for (let k = 0; k < batch; k++) {
        if (collect) gc()
        const t0 = performance.now()
        await side.fn()
        elapsed += performance.now() - t0
      }
      side.times.push(elapsed / batch)
    }
    const samples = round + 1
    if (samples >= SETTINGS.minSamples && performance.now() - start > 2 * SETTINGS.minSideMs) break
    if (samples >= SETTINGS.maxSamples || performance.now() - start > SETTINGS.capMs) break
  }
  const [ref, ours] = sides.map((side) => median(side.times))
  const perSecond = (ms) => Math.round(1000 / ms).toLocaleString('en-US')
  console.log(
    `note: ${name}, ${size} tools: Mastra ${perSecond(ref)} steps/s, ours ${perSecond(ours)} steps/s (medians of ${sides[0].times.length} samples of ${batch})`,
  )
  return { workload: name, size, refMs: ref, oursMs: ours, speedup: ref / ours, samples: sides[0].times.length }
}

// ---------------------------------------------------------------------------
// Workloads. Each `run(size)` builds its input, checks both sides agree, then measures.

/**
 * A server's mixed load on a 1.59 host (benches/mixed-load.mjs): per request,
 * the 1.59 ToolCallFilter's input step, a processInputStep over 100,000
 * threads (in-memory store, a third on the 'context' store), a search_tools
 * every second request and a load_tool every fourth. Throughput, Mastra
 * 1.59.0's processors against ours; with `collect`, a full collection
 * between requests.
 */
function mixedLoadWorkload(name, { collect }) {
  return {
    name,
    group: 'step',
    sizes: [100],
    async run(size) {
      const tools = catalogTools(size)
      const ref = mixedLoad({ processors: RefProcessors159, RequestContext: RequestContext159, tools })
      const ours = mixedLoad({ processors: OursProcessors159, RequestContext: RequestContext159, tools })
      for (let i = 0; i < 12; i++) assertSame(`${name} ${size} request ${i}`, await ref.request(), await ours.request())
      return measureThroughput(name, size, ref.request, ours.request, {
        collect,
        batch: collect ? 10 : 200,
        warmupRequests: QUICK ? 500 : 3_000,
      })
    },
  }
}

/**
 * A server's steady agent-loop steps on a 1.59 host (benches/mixed-load.mjs
 * `stepLoad`, issue 36): two processors over 1,000 tools keyed apart from
 * their ids (one in-memory with `ttl: 2000`, one 'context' whose histories
 * carry completed meta-tool calls), a real MessageList a step, 100,000
 * threads, a search every 5th step and its load_tool two steps later, a 1.59
 * ToolCallFilter every 10th. Throughput, Mastra 1.59.0's processors against
 * ours; with `collect`, a full collection between steps.
 */
function stepLoadWorkload(name, { collect }) {
  return {
    name,
    group: 'step',
    sizes: [1_000],
    async run(size) {
      const tools = stepLoadTools(createTool, size)
      const sides = [RefProcessors159, OursProcessors159].map((processors) =>
        stepLoad({ processors, RequestContext: RequestContext159, MessageList: MessageList159, tools }),
      )
      const [ref, ours] = sides
      for (let i = 0; i < 20; i++) assertSame(`${name} ${size} step ${i}`, await ref.step(), await ours.step())
      return measureThroughput(name, size, ref.step, ours.step, {
        collect,
        batch: collect ? 10 : 200,
        warmupRequests: QUICK ? 500 : 3_000,
      })
    },
  }
}

const RUN_STEPS = 20
const RUN_STEP_MESSAGES = 3

/**
 * The messages a run adds, RUN_STEP_MESSAGES a step: like the history's, with
 * tool-call ids of their own.
 */
const runMessages = memo((n) => {
  const messages = buildMessages(n, 3)
  for (const message of messages) {
    message.id = `run_${message.id}`
    for (const part of message.content.parts ?? []) {
      if (part.type === 'tool-invocation') part.toolInvocation.toolCallId = `run_${part.toolInvocation.toolCallId}`
    }
    for (const invocation of message.content.toolInvocations ?? []) invocation.toolCallId = `run_${invocation.toolCallId}`
  }
  return messages
})

/**
 * 1.59's filter over a whole agent run: RUN_STEPS `processInputStep` calls on
 * a history of `size` messages, each step's list the previous one (the same
 * message objects, as `messageList.get.all.db()` hands them out) plus
 * RUN_STEP_MESSAGES new ones. Reported per step. The lists are built before
 * timing: Mastra builds its own array for each step whichever filter runs.
 */
function messageListRunWorkload(name, options) {
  return {
    name,
    sizes: [10_000],
    async run(size) {
      const history = historyMessages(size)
      const added = runMessages(RUN_STEPS * RUN_STEP_MESSAGES)
      const steps = Array.from({ length: RUN_STEPS }, (_, step) => {
        const response = added.slice(0, (step + 1) * RUN_STEP_MESSAGES)
        const all = history.concat(response)
        return { all, response, messageList: { get: { all: { db: () => all }, response: { db: () => response } } } }
      })
      const runOnce = async (filter) => {
        const state = {}
        const outputs = []
        for (let stepNumber = 0; stepNumber < RUN_STEPS; stepNumber++) {
          const { all, messageList } = steps[stepNumber]
          outputs.push(await filter.processInputStep({ messages: all, messageList, state, stepNumber, steps: [], abort() {} }))
        }
        return outputs
      }
      const ref = new RefMessageListToolCallFilter(options)
      const ours = new OursMessageListToolCallFilter(options)
      assertSame(`${name} ${size}`, await runOnce(ref), await runOnce(ours))
      const r = await measure(
        name,
        size,
        () => runOnce(ref),
        () => runOnce(ours),
      )
      return { ...r, refMs: r.refMs / RUN_STEPS, oursMs: r.oursMs / RUN_STEPS }
    },
  }
}

/**
 * The input of a request of a history of about `size` messages, and what a
 * run adds to it: one turn's assistant tool call and its result. `prompt`:
 * the provider prompts of the request's two model calls; `list`: the stored
 * messages of its input step and first agent-loop step, and the response.
 */
const requestInput = memo((key) => {
  const [stage, size] = key.split(':')
  // A turn is four prompt messages (after the system message) or three stored ones.
  const turns = stage === 'prompt' ? Math.max(1, Math.round((size - 1) / 4)) : Math.max(1, Math.round(size / 3))
  const history = buildTurns(turns)
  const run = buildTurns(1, { seed: 9, prefix: 'run' }).slice(0, 2)
  if (stage === 'list') return { history, all: history.concat(run), response: run.slice(1) }
  const first = promptOf(history)
  // The run's own call and its result, as the second model call sees them.
  return { first, second: first.concat(promptOf(run).slice(2)) }
})

/**
 * One request of the filter of a release, as its Agent makes it: on 1.60
 * and later, the two model calls of a run that calls one tool
 * (`processLLMRequest` on the history, then on the history with the run's
 * call and result, one `state` for both); on 1.59, the input step and the
 * run's first agent-loop step (`processInput`, then `processInputStep`).
 * Resolves to the outputs of both calls.
 */
function requestOf(stage, size) {
  const input = requestInput(`${stage}:${size}`)
  // The arguments are built as Mastra's runners build them, with spreads of
  // per-request context (so their hidden classes die with the request, as in
  // a server).
  const context = () => ({ tracingContext: {}, requestContext: {} })
  if (stage === 'prompt') {
    return async (filter) => {
      const state = {}
      return [
        await filter.processLLMRequest({ prompt: input.first, stepNumber: 0, state, ...context() }),
        await filter.processLLMRequest({ prompt: input.second, stepNumber: 1, state, ...context() }),
      ]
    }
  }
  const messageList = (all) => ({ get: { all: { db: () => all }, response: { db: () => input.response } } })
  return async (filter) => [
    await filter.processInput({ ...context(), messages: input.history, messageList: messageList(input.history), abort() {} }),
    await filter.processInputStep({ ...context(), messages: input.all, messageList: messageList(input.all), state: {}, stepNumber: 0, steps: [], abort() {} }),
  ]
}

/**
 * ToolCallFilter in a server's rhythm: whole requests ([`requestOf`]), one a
 * sample, each after a turn of the event loop, the sides alternating. With
 * `collect`, a full garbage collection (untimed) before each request, as a
 * server runs between requests: it empties the CPU's caches of everything
 * the filter uses, and frees what only weak references hold (hidden classes
 * and compiled code that nothing live keeps). The prompt filter is 1.71.0's
 * against ours, the message-list filter 1.59.0's.
 */
function requestWorkload(name, { stage, options, collect = false }) {
  return {
    name,
    async run(size) {
      const request = requestOf(stage, size)
      const [Ref, Ours] =
        stage === 'prompt' ? [RefPromptToolCallFilter, OursPromptToolCallFilter] : [RefMessageListToolCallFilter, OursMessageListToolCallFilter]
      const ref = new Ref(options)
      const ours = new Ours(options)
      assertSame(`${name} ${size}`, await request(ref), await request(ours))
      return measureRequests(
        name,
        size,
        () => request(ref),
        () => request(ours),
        { collect },
      )
    },
  }
}

/**
 * For another ranking of ours, whose answers differ: the same number of
 * results as the reference's ('hybrid' may find a tool by meaning alone where
 * the reference finds none: at least as many), so the rows time the same work.
 */
function assertSameWork(label, ranking, refAnswer, oursAnswer) {
  const [ref, ours] = [refAnswer.results.length, oursAnswer.results.length]
  if (ranking === 'hybrid') assertSame(`${label} (at least the result count)`, true, ours >= ref)
  else assertSame(`${label} (result count)`, ref, ours)
}

/**
 * search_tools of ours against the reference's own search over the same tools.
 * With another `ranking` of ours the answers differ, so instead of equal
 * outputs the check is that both answer every query with the same number of
 * results (we would otherwise be timing different work).
 */
function searchWorkload(name, { withFilter = false, ranking, sizes } = {}) {
  return {
    name,
    sizes,
    async run(size) {
      const tools = catalogTools(size)
      const options = withFilter ? { tools, filter: ({ toolName }) => !toolName.endsWith('7') } : { tools }
      const requestContext = makeRequestContext()
      const ctx = { requestContext }
      const getSearch = async (processor) => (await processor.processInputStep(stepArgs({}, requestContext))).tools.search_tools
      const refSearch = await getSearch(new RefToolSearchProcessor(options))
      const oursSearch = await getSearch(new OursToolSearchProcessor(ranking === undefined ? options : { ...options, search: { ranking } }))
      for (const query of QUERIES) {
        const [refAnswer, oursAnswer] = [await refSearch.execute({ query }, ctx), await oursSearch.execute({ query }, ctx)]
        if (ranking === undefined) assertSame(`${name} ${size} "${query}"`, refAnswer, oursAnswer)
        else assertSameWork(`${name} ${size} "${query}"`, ranking, refAnswer, oursAnswer)
      }
      return measure(
        name,
        size,
        (k) => refSearch.execute({ query: QUERIES[k % QUERIES.length] }, ctx),
        (k) => oursSearch.execute({ query: QUERIES[k % QUERIES.length] }, ctx),
        { batchMultiple: QUERIES.length },
      )
    },
  }
}

/**
 * processInputStep on a processor built from `options`, with `stepTools` as args.tools.
 * With `thenSearch`, each operation also runs one search_tools query (always the
 * first of QUERIES) on the step's tools, so an implementation that defers indexing
 * to the first search pays for it here.
 */
function stepWorkload(name, { options, stepTools, thenSearch = false, sizes }) {
  return {
    name,
    sizes,
    async run(size) {
      const opts = options(size)
      const tools = stepTools(size)
      // A function hands out a new tools record per step, separately for each side.
      const source = () => (typeof tools === 'function' ? tools() : () => tools)
      const nextTools = new Map()
      const requestContext = makeRequestContext()
      const ref = new RefToolSearchProcessor(opts)
      const ours = new OursToolSearchProcessor(opts)
      nextTools.set(ref, source())
      nextTools.set(ours, source())

      const views = []
      for (const processor of [ref, ours]) {
        const system = []
        const result = await processor.processInputStep(stepArgs(nextTools.get(processor)(), requestContext, system))
        const search = await result.tools.search_tools.execute({ query: QUERIES[0] }, { requestContext })
        views.push({ ...stepView(result, system), search })
        processor.clearAllState()
      }
      assertSame(`${name} ${size}`, views[0], views[1])

      const step = async (processor) => {
        const result = await processor.processInputStep(stepArgs(nextTools.get(processor)(), requestContext))
        if (thenSearch) await result.tools.search_tools.execute({ query: QUERIES[0] }, { requestContext })
        return result
      }
      return measure(
        name,
        size,
        () => step(ref),
        () => step(ours),
        {
          resetRef: () => ref.clearAllState(),
          resetOurs: () => ours.clearAllState(),
        },
      )
    },
  }
}

const STATIC_20 = () => catalogTools(20)

/** The catalog the 'context' store rows load from. */
const CONTEXT_CATALOG = () => catalogTools(100)

/**
 * `messages` with one tool invocation in `every` made a search_tools or
 * load_tool result naming tools of CONTEXT_CATALOG (the three shapes the
 * store reads, in turn), on copies: the messages given are not changed.
 */
function withMetaResults(messages, every, seed) {
  const rand = mulberry32(seed)
  const ids = Object.keys(CONTEXT_CATALOG())
  let n = 0
  return messages.map((message) => {
    if (!message.content.parts.some((part) => part.type === 'tool-invocation')) return message
    const parts = message.content.parts.map((part) => {
      if (part.type !== 'tool-invocation' || n++ % every !== 0) return part
      const name = () => pick(rand, ids)
      const shape = n % 3
      const toolName = shape === 0 ? 'search_tools' : 'load_tool'
      const result =
        shape === 0
          ? {
              results: [
                { name: name(), description: 'd', score: 1 },
                { name: name(), description: 'd', score: 0.5 },
              ],
              message: 'found',
            }
          : shape === 1
            ? { success: true, message: 'loaded', toolName: name() }
            : { success: true, message: 'loaded', loadedCount: 2, loaded: [name(), name()] }
      return { ...part, toolInvocation: { ...part.toolInvocation, toolName, args: {}, result } }
    })
    return { ...message, content: { ...message.content, parts } }
  })
}

const contextHistory = memo((n) => withMetaResults(historyMessages(n), 20, 5))
const contextRunMessages = memo((n) => withMetaResults(runMessages(n), 10, 6))

/**
 * The 'context' store over an agent run: RUN_STEPS `processInputStep` calls,
 * each on a new array holding the previous step's messages (the same
 * objects) plus RUN_STEP_MESSAGES new ones, after a history of `size`
 * messages in which one tool invocation in 20 is a search_tools / load_tool
 * result. Reported per step. Each run starts as a new request does, its
 * history read afresh: ours is told to forget the lists it remembered
 * (`clearAllState()`, a no-op for the reference's context store), so every
 * run's first step reads the whole history.
 */
function contextRunWorkload(name) {
  return {
    name,
    async run(size) {
      const history = contextHistory(size)
      const added = contextRunMessages(RUN_STEPS * RUN_STEP_MESSAGES)
      const lists = Array.from({ length: RUN_STEPS }, (_, step) => history.concat(added.slice(0, (step + 1) * RUN_STEP_MESSAGES)))
      const requestContext = makeRequestContext('thread_context_run')
      const options = { tools: CONTEXT_CATALOG(), storage: 'context' }
      const ref = new RefToolSearchProcessor(options)
      const ours = new OursToolSearchProcessor(options)
      const runOnce = async (processor, views) => {
        processor.clearAllState()
        for (const messages of lists) {
          const args = { ...stepArgs({}, requestContext), messages }
          const result = await processor.processInputStep(args)
          views?.push(stepView(result, []))
        }
      }
      const views = [[], []]
      await runOnce(ref, views[0])
      await runOnce(ours, views[1])
      if (!views[0].some((view) => view.tools.length > 2)) throw new Error(`${name} ${size}: no tool was loaded`)
      assertSame(`${name} ${size}`, views[0], views[1])
      const r = await measure(
        name,
        size,
        () => runOnce(ref),
        () => runOnce(ours),
      )
      return { ...r, refMs: r.refMs / RUN_STEPS, oursMs: r.oursMs / RUN_STEPS }
    },
  }
}

/** One step of `processor`, then one search; what a first request does. */
async function stepAndSearch(processor, requestContext, query) {
  const { tools: stepTools } = await processor.processInputStep(stepArgs({}, requestContext))
  return stepTools.search_tools.execute({ query }, { requestContext })
}

/**
 * Construction of a processor over N tools. Ours indexes large catalogs on a
 * thread of its own while the constructor returns, so without `thenSearch` the
 * row is the time the caller's event loop is blocked, and the untimed reset
 * runs a search on each processor built (waiting for its index) so that no
 * build overlaps a later sample. With `thenSearch` a step and a search are
 * timed too, index included.
 */
function constructWorkload(name, { thenSearch, ranking, sizes, newTexts = false }) {
  return {
    name,
    sizes,
    async run(size) {
      const tools = catalogTools(size)
      const oursOptions = ranking === undefined ? { tools } : { tools, search: { ranking } }
      const requestContext = makeRequestContext()
      const freshRef = () => stepAndSearch(new RefToolSearchProcessor({ tools }), requestContext, QUERIES[3])
      // `newTexts`: every processor of ours gets descriptions no processor had
      // before (copies of the tools, made in the timed call), so that nothing
      // made for an earlier one (the built-in model's vectors) serves it.
      let made = 0
      const renamed = () => {
        const suffix = ` (${++made})`
        return Object.fromEntries(Object.entries(tools).map(([k, t]) => [k, { ...t, description: t.description + suffix }]))
      }
      const freshOurs = () =>
        stepAndSearch(new OursToolSearchProcessor(newTexts ? { ...oursOptions, tools: renamed() } : oursOptions), requestContext, QUERIES[3])
      // Same work check: a fresh processor of each kind answers the same query
      // identically (with the same number of results, for another ranking).
      const [refAnswer, oursAnswer] = [await freshRef(), await freshOurs()]
      if (ranking === undefined) assertSame(`${name} ${size}`, refAnswer, oursAnswer)
      else assertSameWork(`${name} ${size}`, ranking, refAnswer, oursAnswer)
      if (thenSearch) return measure(name, size, freshRef, freshOurs)
      const built = []
      return measure(
        name,
        size,
        () => new RefToolSearchProcessor({ tools }),
        () => built.push(new OursToolSearchProcessor(oursOptions)),
        {
          resetOurs: async () => {
            for (const processor of built.splice(0)) await stepAndSearch(processor, requestContext, QUERIES[0])
          },
        },
      )
    },
  }
}

/** Times `fn` alone, as `measure` times each side (warmup, batches, medians); for rows whose reference is estimated. */
async function measureOurs(fn, { reset } = {}) {
  await reset?.()
  const perCall = Math.max(await warmup(fn), 1e-4)
  const batch = Math.max(1, Math.ceil(SETTINGS.sampleMs / perCall))
  gc()
  const times = []
  let total = 0
  const start = performance.now()
  while (times.length < SETTINGS.maxSamples) {
    await betweenSamples()
    await reset?.()
    const t0 = performance.now()
    for (let k = 0; k < batch; k++) await fn(k)
    const elapsed = performance.now() - t0
    times.push(elapsed / batch)
    total += elapsed
    if ((times.length >= SETTINGS.minSamples && total >= SETTINGS.minSideMs) || performance.now() - start > SETTINGS.capMs) break
  }
  await reset?.()
  return { ms: median(times), samples: times.length }
}

/** One timing of `fn`, in ms. */
async function once(fn) {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

/**
 * The reference at a large size, estimated: it builds its index in time that
 * grows faster than the catalog (522 ms at 10,000 tools), so 100,000 tools
 * would take minutes. It is timed once at 10,000 and 30,000 tools instead,
 * and `t = a * n^p` through those two points gives the figure at `size`.
 */
const referenceAtScale = memo(async (size) => {
  const fit = (t10, t30) => t30 * (size / 30_000) ** (Math.log(t30 / t10) / Math.log(3))
  const requestContext = makeRequestContext()
  const construct = []
  const search = []
  for (const n of [10_000, 30_000]) {
    const tools = catalogTools(n)
    gc()
    let processor
    construct.push(await once(() => (processor = new RefToolSearchProcessor({ tools }))))
    const { tools: stepTools } = await processor.processInputStep(stepArgs({}, requestContext))
    let total = 0
    for (const query of QUERIES) total += await once(() => stepTools.search_tools.execute({ query }, { requestContext }))
    search.push(total / QUERIES.length)
    if (n === 30_000) {
      // Same work: ours answers as the reference does at the largest size it is run at.
      const ours = new OursToolSearchProcessor({ tools })
      for (const query of QUERIES) {
        assertSame(`reference at 30,000 "${query}"`, await stepAndSearch(processor, requestContext, query), await stepAndSearch(ours, requestContext, query))
      }
    }
  }
  return { constructMs: fit(...construct), searchMs: fit(...search) }
})

/**
 * Rows at catalog sizes where the reference is estimated (see
 * `referenceAtScale`): `construct` (the caller blocked; builds are waited for
 * between samples), `ready` (construct, a step and a search) and `search`
 * (search_tools, the queries in rotation). Also prints the memory a processor
 * holds per tool once its index is built.
 */
function largeCatalogWorkload(name, { kind, sizes }) {
  return {
    name,
    sizes,
    async run(size) {
      const tools = catalogTools(size)
      const requestContext = makeRequestContext()
      const reference = await referenceAtScale(size)
      let ours
      if (kind === 'construct') {
        const built = []
        ours = await measureOurs(() => built.push(new OursToolSearchProcessor({ tools })), {
          reset: async () => {
            for (const processor of built.splice(0)) await stepAndSearch(processor, requestContext, QUERIES[0])
          },
        })
      } else if (kind === 'ready') {
        ours = await measureOurs(() => stepAndSearch(new OursToolSearchProcessor({ tools }), requestContext, QUERIES[3]))
      } else {
        // Memory: what each processor after the first adds (the first also
        // warms the allocator and V8's heap, which a fresh process would
        // count against it), its index built, over the same tools.
        const processors = []
        const build = async () => {
          const processor = new OursToolSearchProcessor({ tools })
          await stepAndSearch(processor, requestContext, QUERIES[0])
          processors.push(processor)
        }
        await build()
        gc()
        const before = process.memoryUsage()
        for (let i = 0; i < MEMORY_PROCESSORS; i++) await build()
        gc()
        const after = process.memoryUsage()
        const perTool = (key) => `${Math.round((after[key] - before[key]) / (MEMORY_PROCESSORS * size))} B`
        console.log(
          `note: a processor over ${size.toLocaleString('en-US')} tools, index built, holds per tool ${perTool('rss')} of RSS ` +
            `(native index and text included) and ${perTool('heapUsed')} of JS heap (the mean of ${MEMORY_PROCESSORS} built after a first)`,
        )
        processors.length = 0
        const { tools: stepTools } = await new OursToolSearchProcessor({ tools }).processInputStep(stepArgs({}, requestContext))
        ours = await measureOurs((k) => stepTools.search_tools.execute({ query: QUERIES[k % QUERIES.length] }, { requestContext }))
      }
      const refMs = kind === 'construct' ? reference.constructMs : kind === 'ready' ? reference.constructMs + reference.searchMs : reference.searchMs
      return { workload: name, size, refMs, oursMs: ours.ms, speedup: refMs / ours.ms, samples: ours.samples }
    },
  }
}

/** The filter's options in the modes timed, by the name the rows give them. */
const FILTER_MODES = [
  ['exclude all', undefined],
  ['exclude list', { exclude: ['searchDatabase', 'sendEmail'] }],
  ['preserveModelOutput', { preserveModelOutput: true }],
  ['filterAfterToolSteps', { filterAfterToolSteps: 2 }],
]

/** Both stages in each mode, a row without collections and one with a gc() before each request. */
function toolCallFilterRequestWorkloads() {
  return [
    ['ToolCallFilter 1.59', 'list'],
    ['ToolCallFilter prompt', 'prompt'],
  ].flatMap(([stageName, stage]) =>
    FILTER_MODES.flatMap(([mode, options]) => [
      requestWorkload(`${stageName} ${mode}, request`, { stage, options }),
      requestWorkload(`${stageName} ${mode}, request after gc()`, { stage, options, collect: true }),
    ]),
  )
}

const LARGE = [100_000]
/** How many processors the memory note of the large search row averages over. */
const MEMORY_PROCESSORS = 3

const WORKLOADS = [
  ...toolCallFilterRequestWorkloads(),
  messageListRunWorkload(`ToolCallFilter 1.59 ${RUN_STEPS}-step run, per step`, { filterAfterToolSteps: 2 }),
  constructWorkload('ToolSearch construct', { thenSearch: false }),
  constructWorkload('ToolSearch construct + first search', { thenSearch: true }),
  constructWorkload("ToolSearch construct, ranking 'fielded'", { thenSearch: false, ranking: 'fielded', sizes: [1_000, 10_000] }),
  constructWorkload("ToolSearch construct + first search, ranking 'fielded'", {
    thenSearch: true,
    ranking: 'fielded',
    sizes: [1_000, 10_000],
  }),
  searchWorkload('search_tools'),
  searchWorkload('search_tools + filter hook', { withFilter: true }),
  searchWorkload("search_tools, ranking 'fielded'", { ranking: 'fielded', sizes: [1_000, 10_000] }),
  // 'hybrid' with the built-in model (the model package): the tools' vectors
  // are made beside the index, off the caller's thread.
  constructWorkload("ToolSearch construct, ranking 'hybrid'", { thenSearch: false, ranking: 'hybrid', sizes: [1_000, 10_000] }),
  constructWorkload("ToolSearch construct + first search, ranking 'hybrid'", {
    thenSearch: true,
    ranking: 'hybrid',
    sizes: [1_000, 10_000],
  }),
  constructWorkload("ToolSearch construct + first search, ranking 'hybrid', texts new to the process", {
    thenSearch: true,
    ranking: 'hybrid',
    newTexts: true,
    sizes: [1_000, 10_000],
  }),
  searchWorkload("search_tools, ranking 'hybrid'", { ranking: 'hybrid', sizes: [1_000, 10_000] }),
  // The reference takes minutes to index 100,000 tools: its figures in these rows are estimated.
  largeCatalogWorkload('ToolSearch construct (reference estimated)', { kind: 'construct', sizes: LARGE }),
  largeCatalogWorkload('ToolSearch construct + first search (reference estimated)', { kind: 'ready', sizes: LARGE }),
  largeCatalogWorkload('search_tools (reference estimated)', { kind: 'search', sizes: LARGE }),
  stepWorkload('processInputStep static catalog', {
    options: (size) => ({ tools: catalogTools(size) }),
    stepTools: () => ({}),
  }),
  // The catalog in the system prompt (1.67+): every step lists the tools, each
  // asked of the filter hook in the 'search' phase when there is one.
  stepWorkload('processInputStep injectCatalog', {
    options: (size) => ({ tools: catalogTools(size), injectCatalog: true }),
    stepTools: () => ({}),
  }),
  // (The reference takes over 30 s a step at 10,000 tools: measured in the row above.)
  stepWorkload('processInputStep injectCatalog + filter hook', {
    sizes: [100, 1_000],
    options: (size) => ({ tools: catalogTools(size), injectCatalog: true, filter: ({ toolName }) => !toolName.endsWith('7') }),
    stepTools: () => ({}),
  }),
  contextRunWorkload(`processInputStep 'context' store, growing history, per step`),
  mixedLoadWorkload('processInputStep mixed server load (1.59), per step', { collect: false }),
  mixedLoadWorkload('processInputStep mixed server load (1.59), per step, gc() between requests', { collect: true }),
  stepLoadWorkload('processInputStep steady server steps (1.59), per step', { collect: false }),
  stepLoadWorkload('processInputStep steady server steps (1.59), per step, gc() between steps', { collect: true }),
  stepWorkload('processInputStep includeResolved', {
    options: () => ({ tools: STATIC_20(), includeResolvedTools: true }),
    stepTools: (size) => resolvedTools(size),
  }),
  stepWorkload('processInputStep includeResolved + search', {
    options: () => ({ tools: STATIC_20(), includeResolvedTools: true }),
    stepTools: (size) => resolvedTools(size),
    thenSearch: true,
  }),
  // Per-request tools (say, MCP tools bound to each caller's credentials) are new
  // objects every time: two such sets alternate, so nothing indexed for one
  // request can serve the next. The search makes each step's index complete
  // (ours builds it on a thread) before the next sample starts.
  stepWorkload('processInputStep includeResolved + search, new tools each step', {
    options: () => ({ tools: STATIC_20(), includeResolvedTools: true }),
    stepTools: (size) => alternating([resolvedTools(size), otherResolvedTools(size)]),
    thenSearch: true,
  }),
  // Tools resolved per request from one pool (say, each user's subset of an
  // MCP server's tools): each step a different selection of the same tool
  // objects, so what was read of each tool can serve again.
  stepWorkload('processInputStep includeResolved + search, random selection of a pool each step', {
    options: () => ({ tools: STATIC_20(), includeResolvedTools: true }),
    stepTools: (size) => alternating(poolSelections(size)),
    thenSearch: true,
  }),
]

/**
 * `POOL_SELECTIONS` seeded random selections of a pool of `n` tools, each
 * about `POOL_SHARE` of them in a random key order.
 */
const POOL_SELECTIONS = 16
const POOL_SHARE = 0.9
const poolSelections = memo((n) => {
  const pool = Object.entries(buildTools(n, 'mcp', 5))
  const rand = mulberry32(23)
  return Array.from({ length: POOL_SELECTIONS }, () => {
    const picked = pool.filter(() => rand() < POOL_SHARE)
    for (let i = picked.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[picked[i], picked[j]] = [picked[j], picked[i]]
    }
    return Object.fromEntries(picked)
  })
})

/** Each call gives a function that hands out `records` in turn. */
function alternating(records) {
  return () => {
    let next = 0
    return () => records[next++ % records.length]
  }
}

// A whole agent.generate, Mastra's processors against ours (benches/end-to-end.mjs).
WORKLOADS.push(...endToEndWorkloads({ catalogTools, resolvedTools, measure, assertSame, history: OPTIONS.history }))

// ---------------------------------------------------------------------------
// Opt-in options of ours (issue 22): filterConcurrency and search.syntax 'regex'.
// Kept in a section of their own, added to WORKLOADS at its end.

/** How long the stand-in permission lookup of the rows below waits. */
const HOOK_WAIT_MS = 2
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
/** The index `i` of a bench tool's id `<prefix>_<i>_<word>`. */
const toolIndex = (toolName) => Number(toolName.split('_')[1])

/**
 * A filter hook that is I/O, as a permission lookup in a database or an
 * authorisation service is: it answers after HOOK_WAIT_MS, allowing the tools
 * `allow` names. Mastra asks it one tool at a time; ours as many at once as
 * `filterConcurrency` says.
 */
const waitingHook =
  (allow) =>
  async ({ toolName }) => {
    await wait(HOOK_WAIT_MS)
    return allow(toolName)
  }

/**
 * `search_tools` with a waiting hook that allows 1 tool in 20, so a search
 * asks it about many tools before it has topK: ours with `filterConcurrency`
 * against the reference, which asks one at a time. The answers must be equal.
 */
function waitingHookSearchWorkload(name, { filterConcurrency, sizes }) {
  return {
    name,
    sizes,
    async run(size) {
      const tools = catalogTools(size)
      const filter = waitingHook((toolName) => toolIndex(toolName) % 20 === 0)
      const requestContext = makeRequestContext()
      const ctx = { requestContext }
      const getSearch = async (processor) => (await processor.processInputStep(stepArgs({}, requestContext))).tools.search_tools
      const refSearch = await getSearch(new RefToolSearchProcessor({ tools, filter }))
      const oursSearch = await getSearch(new OursToolSearchProcessor({ tools, filter, filterConcurrency }))
      for (const query of QUERIES) {
        assertSame(`${name} ${size} "${query}"`, await refSearch.execute({ query }, ctx), await oursSearch.execute({ query }, ctx))
      }
      return measure(
        name,
        size,
        (k) => refSearch.execute({ query: QUERIES[k % QUERIES.length] }, ctx),
        (k) => oursSearch.execute({ query: QUERIES[k % QUERIES.length] }, ctx),
        { batchMultiple: QUERIES.length },
      )
    },
  }
}

/**
 * Patterns for `search: { syntax: 'regex' }`, in rotation: the topics of
 * QUERIES as a model might write them, one that is exponential for a
 * backtracking engine on every text it fails on (`(\w+\s?)+!$`: all of
 * them), and one that matches nothing. `finds`: whether it finds any tool.
 */
const PATTERNS = [
  { pattern: 'weather|forecast', finds: true },
  { pattern: 'send.*(email|message)', finds: true },
  { pattern: '^tool_1\\d*_', finds: true },
  { pattern: 'invoice|payment|customer', finds: true },
  { pattern: '(\\w+\\s?)+!$', finds: false },
  { pattern: 'quantum.?flux', finds: false },
]

/**
 * `search_tools` taking a pattern. The reference has no such syntax: its
 * column is its own search of words (QUERIES) over the same tools, what the
 * model would run without the option. The check is that every pattern compiles
 * and finds tools or not as PATTERNS says.
 */
function regexSearchWorkload(name, { sizes }) {
  return {
    name,
    sizes,
    async run(size) {
      const tools = catalogTools(size)
      const requestContext = makeRequestContext()
      const ctx = { requestContext }
      const getSearch = async (processor) => (await processor.processInputStep(stepArgs({}, requestContext))).tools.search_tools
      const refSearch = await getSearch(new RefToolSearchProcessor({ tools }))
      const oursSearch = await getSearch(new OursToolSearchProcessor({ tools, search: { syntax: 'regex' } }))
      for (const { pattern, finds } of PATTERNS) {
        const { results, message } = await oursSearch.execute({ query: pattern }, ctx)
        assertSame(`${name} ${size} /${pattern}/ (compiles, finds tools)`, [true, finds], [!message.startsWith('Invalid'), results.length > 0])
      }
      return measure(
        name,
        size,
        (k) => refSearch.execute({ query: QUERIES[k % QUERIES.length] }, ctx),
        (k) => oursSearch.execute({ query: PATTERNS[k % PATTERNS.length].pattern }, ctx),
        { batchMultiple: QUERIES.length },
      )
    },
  }
}

const OPT_IN_WORKLOADS = [
  // Every step asks the hook about every tool (the 'search' phase), one at a
  // time in the reference: 1,000 x 2 ms. The reference's time is the same in
  // both rows (it ignores filterConcurrency); each row measures it anew.
  ...[1, 32].map((filterConcurrency) =>
    stepWorkload(`processInputStep injectCatalog + hook waiting ${HOOK_WAIT_MS} ms, filterConcurrency ${filterConcurrency}`, {
      sizes: [1_000],
      options: (size) => ({
        tools: catalogTools(size),
        injectCatalog: true,
        filter: waitingHook((toolName) => !toolName.endsWith('7')),
        filterConcurrency,
      }),
      stepTools: () => ({}),
    }),
  ),
  ...[1, 32].map((filterConcurrency) =>
    waitingHookSearchWorkload(`search_tools + hook waiting ${HOOK_WAIT_MS} ms allowing 1 in 20, filterConcurrency ${filterConcurrency}`, {
      filterConcurrency,
      sizes: [10_000],
    }),
  ),
  regexSearchWorkload("search_tools, syntax 'regex' (reference: words)", { sizes: [1_000, 10_000] }),
]
WORKLOADS.push(...OPT_IN_WORKLOADS)

// ---------------------------------------------------------------------------
// Table output

function formatTime(ms) {
  if (ms < 1e-3) return `${(ms * 1e6).toPrecision(3)} ns`
  if (ms < 1) return `${(ms * 1e3).toPrecision(3)} µs`
  if (ms < 1e3) return `${ms.toPrecision(3)} ms`
  return `${(ms / 1e3).toPrecision(3)} s`
}

const nameWidth = Math.max(...WORKLOADS.map((w) => w.name.length), 'workload'.length)
const COLUMNS = [
  ['workload', nameWidth, 'left'],
  ['size', 6],
  ['reference', 10],
  ['native', 10],
  ['speedup', 8],
  ['samples', 7],
]

function row(cells) {
  return cells
    .map((cell, i) => {
      const [, width, align] = COLUMNS[i]
      return align === 'left' ? String(cell).padEnd(width) : String(cell).padStart(width)
    })
    .join('  ')
}

// ---------------------------------------------------------------------------
// Main

/** Whether `workload` has a row at `size` that --only and --filter keep. */
const selected = (workload, size) =>
  (!OPTIONS.only || OPTIONS.only.includes(groupOf(workload))) && (!FILTER || `${workload.name} ${size}`.toLowerCase().includes(FILTER))
const sizesOf = (workload) => OPTIONS.sizes ?? workload.sizes ?? SIZES
/** Every row this run times, in order: `{ index, workload, size }`. */
const PLAN = WORKLOADS.flatMap((workload, index) =>
  sizesOf(workload)
    .filter((size) => selected(workload, size))
    .map((size) => ({ index, workload, size })),
)
const RESULT_PREFIX = 'bench-result '

if (ONLY_WORKLOAD !== undefined) {
  // A child: run one workload's rows and hand each result to the parent;
  // progress on stderr, which it shares with the parent.
  const workload = WORKLOADS[ONLY_WORKLOAD]
  for (const size of sizesOf(workload)) {
    if (!selected(workload, size)) continue
    const n = PLAN.findIndex((row) => row.index === ONLY_WORKLOAD && row.size === size) + 1
    process.stderr.write(`bench: row ${n} of ${PLAN.length}: ${workload.name}, ${size.toLocaleString('en-US')} (${groupOf(workload)})\n`)
    console.log(RESULT_PREFIX + JSON.stringify(await workload.run(size)))
  }
  process.exit(0)
}
if (PLAN.length === 0) {
  console.error(`bench: no row is chosen by ${process.argv.slice(2).join(' ')}`)
  process.exit(2)
}

const cpus = os.cpus()
console.log(`node ${process.version} (${process.platform} ${process.arch})`)
console.log(`cpu  ${cpus[0]?.model ?? 'unknown'} x${cpus.length}`)
console.log(
  `mode ${QUICK ? 'quick' : 'full'}: >= ${SETTINGS.minSamples} alternating samples and >= ${SETTINGS.minSideMs} ms per side` +
    (OPTIONS.only ? `, only ${OPTIONS.only.join(', ')}` : '') +
    (FILTER ? `, filter "${FILTER}"` : '') +
    (OPTIONS.sizes ? `, sizes ${OPTIONS.sizes.join(', ')}` : '') +
    (globalThis.gc ? '' : ' (run with --expose-gc for a gc() before each row)'),
)
const load = os.loadavg()[0]
if (load > cpus.length * 0.75) {
  console.log(`note: load average ${load.toFixed(1)} on ${cpus.length} cores; other work competes for the CPU, expect noisy rows`)
}
console.log('median time per operation; speedup = reference / native; each workload in a process of its own\n')
console.log(row(COLUMNS.map((c) => c[0])))
console.log(row(COLUMNS.map((c) => '-'.repeat(c[1]))))

const results = []
const benchStart = performance.now()
const chosen = [...new Set(PLAN.map((row) => row.index))]
process.stderr.write(`bench: ${PLAN.length} rows of ${chosen.length} workloads, each workload in a process of its own\n`)
for (const index of chosen) {
  const workload = WORKLOADS[index]
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2), '--workload', String(index)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 << 20,
  })
  for (const line of child.stdout.split('\n')) {
    if (!line.startsWith(RESULT_PREFIX)) {
      // The child's own notes (memory per tool, say).
      if (line.trim() !== '') console.log(line)
      continue
    }
    const r = JSON.parse(line.slice(RESULT_PREFIX.length))
    results.push(r)
    console.log(row([r.workload, r.size.toLocaleString('en-US'), formatTime(r.refMs), formatTime(r.oursMs), `${r.speedup.toFixed(2)}x`, r.samples]))
  }
  if (child.status !== 0) throw new Error(`workload "${workload.name}" failed (${child.error ?? `exit ${child.status}`})`)
}
const totalSeconds = (performance.now() - benchStart) / 1e3
console.log(`\n${results.length} rows in ${totalSeconds.toFixed(1)} s`)

if (JSON_OUT) {
  const file = new URL('./results.json', import.meta.url)
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    mode: QUICK ? 'quick' : 'full',
    settings: SETTINGS,
    totalSeconds,
    results,
  }
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
  console.log(`wrote ${file.pathname}`)
}

if (CHART_OUT) {
  const file = new URL('./speedup.svg', import.meta.url)
  const machine = `${cpus[0]?.model ?? 'unknown'} x${cpus.length}, Node ${process.version}`
  const caption = `Speedup of mastra-native-processors over @mastra/core (reference / native, medians of one ${QUICK ? 'quick' : 'full'} run): ${machine}, ${new Date().toISOString().slice(0, 10)}`
  writeFileSync(file, speedupChart(results, caption))
  console.log(`wrote ${file.pathname}`)
}
