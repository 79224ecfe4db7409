// Demo: a Mastra Agent with a scripted mock model (AI SDK v5 MockLanguageModelV2,
// no network) goes through search -> load -> use with both processors from
// this package. It says which implementation ran (the native addon, or
// @mastra/core's own where it cannot), prints for every model call which tools
// the model was offered and how large their definitions were, against offering
// the whole catalog directly, and times one search side by side with Mastra's.
//
//   npm run demo        (= node examples/demo.mjs)

import { Agent } from '@mastra/core/agent'
import { MockLanguageModelV2, convertArrayToReadableStream } from 'ai/test'
import { ToolSearchProcessor as MastraToolSearchProcessor } from '@mastra/core/processors'
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { ToolSearchProcessor, ToolCallFilter, fallbackReason, implementation } from 'mastra-native-processors'

import { buildCatalog } from './catalog.mjs'

const USER_PROMPT = 'What will the weather be like in Paris over the next 3 days?'
const META_TOOLS = new Set(['search_tools', 'load_tool'])

// ---------------------------------------------------------------------------
// Measuring what the model receives
// ---------------------------------------------------------------------------

/**
 * Size of the tool definitions a model call received: bytes of the JSON of
 * [{ name, description, inputSchema }] (the JSON Schema the provider would
 * send), the same measure for a single step and for the whole catalog.
 */
const defsBytes = (tools) =>
  Buffer.byteLength(JSON.stringify((tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))))

/** Tool results in a V2 prompt: [{ toolName, value }] in order. */
const toolResultsIn = (prompt) =>
  prompt
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content)
    .filter((p) => p.type === 'tool-result')
    .map((p) => ({ toolName: p.toolName, value: p.output?.value }))

/** Tool calls still visible in a V2 prompt (after ToolCallFilter). */
const toolCallsIn = (prompt) =>
  prompt
    .filter((m) => m.role === 'assistant' && Array.isArray(m.content))
    .flatMap((m) => m.content)
    .filter((p) => p.type === 'tool-call')
    .map((p) => p.toolName)

// ---------------------------------------------------------------------------
// A scripted mock model: step N answers with script[N](callOptions)
// ---------------------------------------------------------------------------

function scriptedModel(script) {
  const steps = [] // one entry per model call: { tools, prompt, action }
  const next = (opts) => {
    const step = { tools: opts.tools ?? [], prompt: opts.prompt, action: null }
    steps.push(step)
    const fn = script[steps.length - 1]
    const content = fn ? fn(opts) : [{ type: 'text', text: '(script exhausted)' }]
    step.action = content
    return content
  }
  const finishReason = (content) => (content.some((p) => p.type === 'tool-call') ? 'tool-calls' : 'stop')
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  const model = new MockLanguageModelV2({
    doGenerate: async (opts) => {
      const content = next(opts)
      return { content, finishReason: finishReason(content), usage, warnings: [] }
    },
    doStream: async (opts) => {
      const content = next(opts)
      const n = steps.length
      const chunks = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `resp-${n}`, modelId: 'mock-model', timestamp: new Date(0) },
      ]
      for (const p of content) {
        if (p.type === 'text') {
          chunks.push({ type: 'text-start', id: `t${n}` }, { type: 'text-delta', id: `t${n}`, delta: p.text }, { type: 'text-end', id: `t${n}` })
        } else chunks.push(p)
      }
      chunks.push({ type: 'finish', finishReason: finishReason(content), usage })
      return { stream: convertArrayToReadableStream(chunks) }
    },
  })
  return { model, steps }
}

const toolCall = (id, toolName, input) => ({ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) })

/**
 * The model's script. Every step after the first reads what it needs from the
 * call options it receives (prompt and offered tools), so the demo shows the
 * real data flow through the agent loop.
 */
const SCRIPT = [
  // 1. discover
  () => [toolCall('call-1', 'search_tools', { query: 'weather forecast' })],

  // 2. load the top search result
  (opts) => {
    const search = toolResultsIn(opts.prompt).findLast((r) => r.toolName === 'search_tools')
    const top = search?.value?.results?.[0]?.name
    if (!top) throw new Error('demo: no search_tools result in the prompt')
    return [toolCall('call-2', 'load_tool', { toolName: top })]
  },

  // 3. call the tool that is now offered, with arguments that fit its schema
  (opts) => {
    const loaded = opts.tools.find((t) => !META_TOOLS.has(t.name))
    if (!loaded) throw new Error('demo: the loaded tool was not offered')
    const props = loaded.inputSchema?.properties ?? {}
    const wanted = { city: 'Paris, FR', days: 3, units: 'metric' }
    const args = Object.fromEntries(Object.entries(wanted).filter(([k]) => k in props))
    return [toolCall('call-3', loaded.name, args)]
  },

  // 4. answer from the tool result
  (opts) => {
    const r = toolResultsIn(opts.prompt).findLast((x) => !META_TOOLS.has(x.toolName))
    const f = r?.value
    const days = (f?.days ?? []).map((d) => `${d.date}: ${d.conditions}, ${d.low}–${d.high} °C, ${Math.round(d.precipitation * 100)}% rain`)
    return [{ type: 'text', text: `Forecast for ${f?.city ?? '?'} (via ${r?.toolName}):\n  ${days.join('\n  ')}` }]
  },
]

// ---------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------

function searchAgent(model, catalog) {
  return new Agent({
    id: 'demo-agent',
    name: 'demo-agent',
    instructions: 'You are a helpful assistant. Find the right tool before answering.',
    model,
    inputProcessors: [
      // keep only the tool calls of the last 2 tool-producing steps in the prompt
      new ToolCallFilter({ filterAfterToolSteps: 2 }),
      // offer search_tools/load_tool instead of the whole catalog
      new ToolSearchProcessor({ tools: catalog, search: { topK: 5 } }),
    ],
  })
}

/** What the model would get if the whole catalog were offered directly. */
async function measureWholeCatalog(catalog) {
  const { model, steps } = scriptedModel([() => [{ type: 'text', text: 'ok' }]])
  const agent = new Agent({ id: 'baseline', name: 'baseline', instructions: 'You are a helpful assistant.', model, tools: catalog })
  await agent.generate(USER_PROMPT, { maxSteps: 1 })
  return { count: steps[0].tools.length, bytes: defsBytes(steps[0].tools) }
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

const fmtBytes = (n) => n.toLocaleString('en-US')
const truncate = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s)

function describeAction(content) {
  return content.map((p) => (p.type === 'tool-call' ? `call ${p.toolName}(${p.input})` : `text "${truncate(p.text.split('\n')[0], 40)}"`)).join('; ')
}

function printTable(steps, whole) {
  const rows = steps.map((s, i) => {
    const bytes = defsBytes(s.tools)
    return [
      String(i + 1),
      s.tools.map((t) => t.name).join(', '),
      fmtBytes(bytes),
      `${((bytes / whole.bytes) * 100).toFixed(1)}%`,
      toolCallsIn(s.prompt).join(', ') || '—',
      describeAction(s.action),
    ]
  })
  const header = ['step', 'tools offered to the model', 'defs (B)', 'of catalog', 'tool calls in prompt', 'model did']
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)))
  const line = (cells) =>
    cells
      .map((x, c) => (c === 2 || c === 3 ? x.padStart(widths[c]) : x.padEnd(widths[c])))
      .join(' │ ')
      .trimEnd()
  console.log(line(header))
  console.log(widths.map((w) => '─'.repeat(w)).join('─┼─'))
  for (const r of rows) console.log(line(r))
}

// ---------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------

const executed = []
const catalog = buildCatalog(executed)
const whole = await measureWholeCatalog(catalog)

const mastraVersion = createRequire(import.meta.url)('@mastra/core/package.json').version
console.log(
  implementation === 'native'
    ? `Processors: mastra-native-processors, native (the Rust addon), behaving as @mastra/core ${mastraVersion}'s own.`
    : `Processors: @mastra/core ${mastraVersion}'s own, served by mastra-native-processors as a fallback: ${fallbackReason}.`,
)

console.log(
  `Catalog: ${Object.keys(catalog).length} tools; offering all of them directly = ${whole.count} tool definitions, ${fmtBytes(whole.bytes)} bytes of JSON (name + description + input schema).`,
)
console.log(`User: ${USER_PROMPT}\n`)

// agent.generate
const gen = scriptedModel(SCRIPT)
const result = await searchAgent(gen.model, catalog).generate(USER_PROMPT, { maxSteps: 8 })

console.log('agent.generate — per model call:')
printTable(gen.steps, whole)

const searchResult = toolResultsIn(gen.steps[1]?.prompt ?? []).find((r) => r.toolName === 'search_tools')?.value
console.log(`\nsearch_tools("weather forecast") returned (topK 5): ${(searchResult?.results ?? []).map((r) => `${r.name} ${r.score}`).join(', ')}`)

const total = gen.steps.reduce((n, s) => n + defsBytes(s.tools), 0)
console.log(
  `Tool definitions over ${gen.steps.length} calls: ${fmtBytes(total)} bytes with ToolSearchProcessor vs ${fmtBytes(whole.bytes * gen.steps.length)} bytes offering the whole catalog every call (${((total / (whole.bytes * gen.steps.length)) * 100).toFixed(1)}%).`,
)
console.log(`Tools executed: ${executed.map((e) => `${e.tool}(${JSON.stringify(e.input)})`).join(', ')}`)
console.log(`\nFinal answer (finishReason: ${result.finishReason}):\n${result.text}`)

// agent.stream: the same script, fresh agent and processors
const executedBefore = executed.length
const str = scriptedModel(SCRIPT)
const stream = await searchAgent(str.model, catalog).stream(USER_PROMPT, { maxSteps: 8 })
const chunkTypes = {}
for await (const chunk of stream.fullStream) chunkTypes[chunk.type] = (chunkTypes[chunk.type] ?? 0) + 1
const streamText = await stream.text
const sameTools = JSON.stringify(str.steps.map((s) => s.tools.map((t) => t.name))) === JSON.stringify(gen.steps.map((s) => s.tools.map((t) => t.name)))
console.log(
  `\nagent.stream (same script): ${str.steps.length} model calls, tools offered per call ${sameTools ? 'identical to generate' : 'DIFFERENT from generate'}, ` +
    `${chunkTypes['tool-call'] ?? 0} tool-call / ${chunkTypes['tool-result'] ?? 0} tool-result chunks, ` +
    `${executed.length - executedBefore} tool executed, final text ${streamText === result.text ? 'identical' : 'DIFFERENT'}.`,
)

// One figure side by side: search_tools over this catalog, Mastra's own
// processor against ours, alternating in this process.
const searchOf = async (Processor) => {
  const messageList = { addSystem() {}, get: { all: { db: () => [] } } }
  const step = await new Processor({ tools: catalog }).processInputStep({
    messages: [],
    messageList,
    tools: {},
    state: {},
    stepNumber: 0,
    steps: [],
    abort() {},
  })
  return () => step.tools.search_tools.execute({ query: 'weather forecast' }, {})
}
const searches = { mastra: await searchOf(MastraToolSearchProcessor), ours: await searchOf(ToolSearchProcessor) }
const times = { mastra: [], ours: [] }
for (let round = 0; round < 41; round++) {
  for (const side of round % 2 ? ['ours', 'mastra'] : ['mastra', 'ours']) {
    const t0 = performance.now()
    for (let i = 0; i < 20; i++) await searches[side]()
    times[side].push((performance.now() - t0) / 20)
  }
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1]
const [mastraUs, oursUs] = [median(times.mastra) * 1000, median(times.ours) * 1000]
console.log(
  `\nSide by side: search_tools("weather forecast") over these ${Object.keys(catalog).length} tools takes ${mastraUs.toFixed(1)} µs with @mastra/core's own ToolSearchProcessor ` +
    `and ${oursUs.toFixed(1)} µs with ${implementation === 'native' ? 'ours' : "ours (here Mastra's own too)"} (${(mastraUs / oursUs).toFixed(1)}x; medians of 41 alternating samples).\n` +
    'On your own tools: npx mastra-native-processors bench --tools <module exporting them>; every workload: npm run bench.',
)
