// End-to-end parity: a real Mastra Agent (@mastra/core 1.59.0) driving an AI SDK v5 mock
// model, once with the reference ToolCallFilter and once with ours. No network.
//
// How it works (reusable for other input processors):
//  - History injection: `agent.generate(messages)` / `agent.stream(messages)` accept an array
//    of AI SDK v5 ModelMessages (assistant `tool-call` parts, `tool` messages with
//    `tool-result` parts) or of MastraDBMessage objects (`content.format: 2` with
//    `tool-invocation` parts, e.g. carrying `providerMetadata.mastra.modelOutput`). Both go
//    through the MessageList, so input processors see them in `processInput`.
//  - Prompt capture: the mock's `doGenerate` / `doStream` receive the exact call options the
//    agent sends to the model; we deep-clone `options.prompt` (plus the tool names) on every
//    call. `agent.generate` calls doGenerate; `agent.stream` calls doStream.
//  - Multi-step: the mock answers from a script (tool calls in steps 1 and 2, text in step 3);
//    the agent executes the tools and loops, running processInputStep before every step.
//
// Normalisation: the only run-dependent values in the prompts are the
// `providerOptions.mastra.createdAt` timestamps the MessageList stamps on every part, and
// createdAt / ids in the response messages. They are replaced by placeholders before
// comparing; everything else is compared exactly (deepStrictEqual).
//
// Run: cd /work/main && node --test __test__/tool-call-filter.agent.test.mjs

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { pathToFileURL } from 'node:url'

import { MockLanguageModelV2, convertArrayToReadableStream } from 'ai/test'
import { z } from 'zod'

import { loadRelease } from './helpers/releases.mjs'

const release = await loadRelease('1.59.0')
const { Agent } = await release.importCore('agent')
const { createTool } = await release.importCore('tools')
const RefFilter = release.reference.ToolCallFilter
const OurFilter = process.env.TCF_OURS
  ? (await import(pathToFileURL(process.env.TCF_OURS).href)).ToolCallFilter
  : release.ours.ToolCallFilter

// ---------------------------------------------------------------------------------------
// mock model
// ---------------------------------------------------------------------------------------

const USAGE = { inputTokens: 10, outputTokens: 5, totalTokens: 15 }

/** step scripts: each step is a list of V2 content parts */
const MULTI_STEP = [
  [{ type: 'tool-call', toolCallId: 'call-s1', toolName: 'getWeather', input: JSON.stringify({ city: 'Paris' }) }],
  [
    { type: 'tool-call', toolCallId: 'call-s2a', toolName: 'searchDatabase', input: JSON.stringify({ query: 'paris orders' }) },
    { type: 'tool-call', toolCallId: 'call-s2b', toolName: 'getWeather', input: JSON.stringify({ city: 'Lyon' }) },
  ],
  [{ type: 'text', text: 'Paris is 18C, Lyon is 16C, no orders.' }],
]

/** Some providers reuse tool call ids across steps: step 2 brings no NEW id. */
const REUSED_IDS = [
  [{ type: 'tool-call', toolCallId: 'call_0', toolName: 'getWeather', input: JSON.stringify({ city: 'Paris' }) }],
  [{ type: 'tool-call', toolCallId: 'call_0', toolName: 'getWeather', input: JSON.stringify({ city: 'Lyon' }) }],
  [{ type: 'text', text: 'Paris is 18C, Lyon is 16C.' }],
]

/** Removes run-dependent timestamps/ids (see the header comment). */
function normalise(value) {
  if (Array.isArray(value)) return value.map(normalise)
  if (value instanceof Date) return '<date>'
  if (value && typeof value === 'object') {
    const out = {}
    for (const [k, v] of Object.entries(value)) {
      if (k === 'createdAt' && (typeof v === 'number' || v instanceof Date || typeof v === 'string')) out[k] = '<createdAt>'
      else if (k === 'id' && typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(v)) out[k] = '<uuid>'
      else out[k] = normalise(v)
    }
    return out
  }
  return value
}

function scriptedModel(script, calls) {
  let step = 0
  const next = () => script[Math.min(step++, script.length - 1)]
  const finishReason = (content) => (content.some((p) => p.type === 'tool-call') ? 'tool-calls' : 'stop')
  const record = (kind, options) =>
    calls.push({
      kind,
      prompt: normalise(structuredClone(options.prompt)),
      tools: (options.tools ?? []).map((t) => t.name),
    })
  return new MockLanguageModelV2({
    doGenerate: async (options) => {
      record('generate', options)
      const content = next()
      return { content, finishReason: finishReason(content), usage: USAGE, warnings: [] }
    },
    doStream: async (options) => {
      record('stream', options)
      const content = next()
      const chunks = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `resp-${step}`, modelId: 'mock-model-id', timestamp: new Date(0) },
      ]
      for (const part of content) {
        if (part.type === 'text') {
          chunks.push({ type: 'text-start', id: `t${step}` }, { type: 'text-delta', id: `t${step}`, delta: part.text }, { type: 'text-end', id: `t${step}` })
        } else {
          chunks.push(part)
        }
      }
      chunks.push({ type: 'finish', finishReason: finishReason(content), usage: USAGE })
      return { stream: convertArrayToReadableStream(chunks) }
    },
  })
}

// ---------------------------------------------------------------------------------------
// tools and histories
// ---------------------------------------------------------------------------------------

function makeTools() {
  const getWeather = createTool({
    id: 'getWeather',
    description: 'Get the weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, tempC: city === 'Paris' ? 18 : 16 }),
    // stored by the agent as providerMetadata.mastra.modelOutput on the result
    toModelOutput: (out) => ({ type: 'text', value: `${out.city}: ${out.tempC}C` }),
  })
  const searchDatabase = createTool({
    id: 'searchDatabase',
    description: 'Search the order database',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => ({ rows: [], query }),
  })
  const sendEmail = createTool({
    id: 'sendEmail',
    description: 'Send an email',
    inputSchema: z.object({ to: z.string(), body: z.string() }),
    execute: async () => ({ sent: true }),
  })
  return { searchDatabase, sendEmail, getWeather }
}

/** AI SDK v5 ModelMessages with earlier tool calls and results. */
const aiSdkHistory = () => [
  { role: 'user', content: 'Find order 42 and check the weather in Tokyo.' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool-call', toolCallId: 'hist-search', toolName: 'searchDatabase', input: { query: 'order 42' } },
      { type: 'tool-call', toolCallId: 'hist-weather', toolName: 'getWeather', input: { city: 'Tokyo' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'hist-search', toolName: 'searchDatabase', output: { type: 'json', value: { rows: [{ id: 42 }] } } },
      { type: 'tool-result', toolCallId: 'hist-weather', toolName: 'getWeather', output: { type: 'json', value: { city: 'Tokyo', tempC: 21 } } },
    ],
  },
  { role: 'assistant', content: 'Order 42 exists; Tokyo is 21C.' },
  { role: 'user', content: 'Now Paris please, and any Paris orders.' },
]

/** MastraDBMessage (format 2) history, with stored model outputs on completed results. */
const dbHistory = () => {
  const t = Date.UTC(2025, 0, 1)
  return [
    { id: 'h-u1', role: 'user', createdAt: new Date(t), content: { format: 2, parts: [{ type: 'text', text: 'Find order 42 and email Bob.' }] } },
    {
      id: 'h-a1',
      role: 'assistant',
      createdAt: new Date(t + 1000),
      content: {
        format: 2,
        parts: [
          { type: 'step-start' },
          {
            type: 'tool-invocation',
            toolInvocation: { state: 'result', toolCallId: 'hist-search', toolName: 'searchDatabase', args: { query: 'order 42' }, result: { rows: [{ id: 42 }] } },
            providerMetadata: { mastra: { modelOutput: { type: 'text', value: '1 row: order 42' } } },
          },
          {
            type: 'tool-invocation',
            toolInvocation: { state: 'result', toolCallId: 'hist-email', toolName: 'sendEmail', args: { to: 'bob', body: 'hi' }, result: { sent: true } },
          },
          { type: 'text', text: 'Found it and emailed Bob.' },
        ],
      },
    },
    { id: 'h-u2', role: 'user', createdAt: new Date(t + 2000), content: { format: 2, parts: [{ type: 'text', text: 'Now the weather in Paris.' }] } },
  ]
}

// ---------------------------------------------------------------------------------------
// running the agent
// ---------------------------------------------------------------------------------------

async function runAgent({ Filter, options, mode, history, script }) {
  const calls = []
  const agent = new Agent({
    id: 'filtered-agent',
    name: 'filtered-agent',
    instructions: 'You are a helpful assistant',
    model: scriptedModel(script, calls),
    tools: makeTools(),
    inputProcessors: [new Filter(options === undefined ? undefined : structuredClone(options))],
  })
  let text
  let finishReason
  let steps
  let response
  if (mode === 'generate') {
    const res = await agent.generate(history)
    ;({ text, finishReason, steps, response } = res)
  } else {
    const out = await agent.stream(history)
    for await (const _chunk of out.fullStream) {
      // consume everything
    }
    text = await out.text
    finishReason = await out.finishReason
    steps = await out.steps
    response = await out.response
  }
  return {
    calls,
    text,
    finishReason,
    stepCount: steps.length,
    toolCallsPerStep: steps.map((s) => (s.toolCalls ?? []).map((c) => c.payload?.toolCallId ?? c.toolCallId)),
    responseMessages: normalise(structuredClone(response.messages)),
  }
}

/** Flatten the parts of a prompt: [{ role, type, ... }] */
const partsOf = (prompt) =>
  prompt.flatMap((m) => (Array.isArray(m.content) ? m.content.map((p) => ({ role: m.role, ...p })) : [{ role: m.role, type: 'string', text: m.content }]))
const toolCallIds = (prompt) => partsOf(prompt).filter((p) => p.type === 'tool-call').map((p) => p.toolCallId)
const toolResultIds = (prompt) => partsOf(prompt).filter((p) => p.type === 'tool-result').map((p) => p.toolCallId)
const textsOf = (prompt) => partsOf(prompt).filter((p) => p.type === 'text' || p.type === 'string').map((p) => p.text)

const CONFIGS = [
  {
    name: 'new ToolCallFilter() (exclude all)',
    options: undefined,
    history: aiSdkHistory,
    script: MULTI_STEP,
    check(ours) {
      const [p0, p1, p2] = ours.calls.map((c) => c.prompt)
      assert.deepStrictEqual(toolCallIds(p0), [], 'no history tool calls reach the model')
      assert.deepStrictEqual(toolResultIds(p0), [])
      assert.ok(textsOf(p0).includes('Let me look.'), 'text of the assistant message that made the calls is kept')
      assert.ok(textsOf(p0).includes('Order 42 exists; Tokyo is 21C.'))
      // without filterAfterToolSteps the loop itself is not filtered
      assert.deepStrictEqual(toolCallIds(p1), ['call-s1'])
      assert.deepStrictEqual(toolCallIds(p2), ['call-s1', 'call-s2a', 'call-s2b'])
    },
  },
  {
    name: "exclude: ['searchDatabase']",
    options: { exclude: ['searchDatabase'] },
    history: aiSdkHistory,
    script: MULTI_STEP,
    check(ours) {
      const [p0, , p2] = ours.calls.map((c) => c.prompt)
      assert.deepStrictEqual(toolCallIds(p0), ['hist-weather'], 'searchDatabase call removed, getWeather call kept')
      assert.deepStrictEqual(toolResultIds(p0), ['hist-weather'], 'searchDatabase result removed, getWeather result kept')
      assert.deepStrictEqual(toolCallIds(p2), ['hist-weather', 'call-s1', 'call-s2a', 'call-s2b'])
    },
  },
  {
    name: 'filterAfterToolSteps: 1 (multi-step loop)',
    options: { filterAfterToolSteps: 1 },
    history: aiSdkHistory,
    script: MULTI_STEP,
    check(ours) {
      assert.equal(ours.calls.length, 3)
      const [p0, p1, p2] = ours.calls.map((c) => c.prompt)
      assert.deepStrictEqual(toolCallIds(p0), [], 'processInput still removes every history tool call')
      assert.deepStrictEqual(toolCallIds(p1), ['call-s1'], 'the most recent tool step is kept')
      assert.deepStrictEqual(toolResultIds(p1), ['call-s1'])
      assert.deepStrictEqual(toolCallIds(p2), ['call-s2a', 'call-s2b'], 'older tool step removed at step 3')
      assert.deepStrictEqual(toolResultIds(p2), ['call-s2a', 'call-s2b'])
    },
  },
  {
    name: 'filterAfterToolSteps: 0 + preserveModelOutput: true (toModelOutput tool)',
    options: { filterAfterToolSteps: 0, preserveModelOutput: true },
    history: dbHistory,
    script: MULTI_STEP,
    check(ours) {
      const [p0, p1, p2] = ours.calls.map((c) => c.prompt)
      assert.deepStrictEqual(toolCallIds(p0), [])
      assert.ok(textsOf(p0).includes('searchDatabase result:\n1 row: order 42'), 'stored model output of a history result kept as text')
      assert.ok(!textsOf(p0).some((t) => t.startsWith('sendEmail result:')), 'results without stored model output are dropped')
      assert.deepStrictEqual(toolCallIds(p1), [])
      assert.ok(textsOf(p1).includes('getWeather result:\nParis: 18C'), 'toModelOutput of this run preserved as text')
      assert.deepStrictEqual(toolCallIds(p2), [])
      assert.ok(textsOf(p2).includes('getWeather result:\nLyon: 16C'))
      assert.ok(!textsOf(p2).some((t) => t.startsWith('searchDatabase result:\n{')), 'no toModelOutput -> nothing preserved')
    },
  },
  {
    name: "exclude: ['searchDatabase'] + preserveModelOutput + filterAfterToolSteps: 1",
    options: { exclude: ['searchDatabase'], preserveModelOutput: true, filterAfterToolSteps: 1 },
    history: dbHistory,
    script: MULTI_STEP,
    check(ours) {
      const [p0, , p2] = ours.calls.map((c) => c.prompt)
      assert.deepStrictEqual(toolCallIds(p0), ['hist-email'])
      assert.ok(textsOf(p0).includes('searchDatabase result:\n1 row: order 42'))
      assert.deepStrictEqual(toolCallIds(p2), ['hist-email', 'call-s1', 'call-s2a', 'call-s2b'])
    },
  },
  {
    // a step without new tool call ids still counts as a step (reference behaviour)
    name: 'filterAfterToolSteps: 1 with a provider that reuses tool call ids',
    options: { filterAfterToolSteps: 1 },
    history: aiSdkHistory,
    script: REUSED_IDS,
    check(ours) {
      assert.equal(ours.calls.length, 3)
      assert.equal(ours.text, 'Paris is 18C, Lyon is 16C.')
      const [, p1, p2] = ours.calls.map((c) => c.prompt)
      assert.deepStrictEqual(toolCallIds(p1), ['call_0'])
      // step 2 re-used 'call_0', so it recorded an empty step: the window of 1 step now holds
      // no ids and the model does not even see the call it just made
      assert.deepStrictEqual(toolCallIds(p2), [])
      assert.deepStrictEqual(toolResultIds(p2), [])
    },
  },
  {
    name: 'exclude: [] (keep everything)',
    options: { exclude: [] },
    history: aiSdkHistory,
    script: MULTI_STEP.slice(2),
    check(ours) {
      assert.deepStrictEqual(toolCallIds(ours.calls[0].prompt), ['hist-search', 'hist-weather'])
    },
  },
]

for (const mode of ['generate', 'stream']) {
  describe(`ToolCallFilter inside a real Agent (agent.${mode})`, () => {
    for (const cfg of CONFIGS) {
      test(cfg.name, async () => {
        const run = (Filter) => runAgent({ Filter, options: cfg.options, mode, history: cfg.history(), script: cfg.script })
        const ref = await run(RefFilter)
        const ours = await run(OurFilter)
        // the right model entry point was used
        assert.ok(ours.calls.length > 0)
        assert.ok(ours.calls.every((c) => c.kind === mode))
        // every prompt the model received, step by step, is identical
        assert.equal(ours.calls.length, ref.calls.length, 'number of model calls')
        for (let i = 0; i < ref.calls.length; i++) assert.deepStrictEqual(ours.calls[i], ref.calls[i], `model call #${i + 1}`)
        assert.equal(ours.text, ref.text)
        assert.equal(ours.finishReason, ref.finishReason)
        assert.equal(ours.stepCount, ref.stepCount)
        assert.deepStrictEqual(ours.toolCallsPerStep, ref.toolCallsPerStep)
        assert.deepStrictEqual(ours.responseMessages, ref.responseMessages)
        // literal expectations on ours (and the same hold for the reference)
        cfg.check(ours)
        cfg.check(ref)
        if (cfg.script === MULTI_STEP) {
          assert.equal(ours.text, 'Paris is 18C, Lyon is 16C, no orders.')
          assert.equal(ours.calls.length, 3)
        }
      })
    }
  })
}

describe('ToolCallFilter inside a real Agent: sanity of the harness', () => {
  test('without any filter the history tool calls do reach the model', async () => {
    const calls = []
    const agent = new Agent({
      id: 'plain-agent',
      name: 'plain-agent',
      instructions: 'You are a helpful assistant',
      model: scriptedModel(MULTI_STEP.slice(2), calls),
      tools: makeTools(),
    })
    await agent.generate(aiSdkHistory())
    assert.deepStrictEqual(toolCallIds(calls[0].prompt), ['hist-search', 'hist-weather'])
    assert.deepStrictEqual(toolResultIds(calls[0].prompt), ['hist-search', 'hist-weather'])
  })
})
