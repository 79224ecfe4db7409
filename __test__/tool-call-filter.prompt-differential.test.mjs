// ToolCallFilter as Mastra 1.60.0 and later have it (processLLMRequest on the
// provider prompt): a seeded differential test. For each release with that stage,
// random cases (500 in npm test, 5,000 in npm run test:all or TCF_PROMPT_CASES;
// helpers/counts.mjs), each a run of several model calls sharing one `state` (a
// growing prompt, sometimes a new one, the exclude array sometimes changed between
// calls), go through the release's own filter and ours; every answer, the state
// after every call, and which messages and parts are the caller's own objects are
// compared exactly.
//
// Replay one case: TCF_CASE=<n> TCF_RELEASE=<version> node --test __test__/tool-call-filter.prompt-differential.test.mjs

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { createRng, deriveSeed } from './helpers/random.mjs'
import { settle, assertSameOutcome, assertSameValue, deepFreeze } from './helpers/tool-call-filter-harness.mjs'
import { INHERITED_MODEL_OUTPUT_PROTO, outputGenerators } from './helpers/model-outputs.mjs'
import { loadRelease, releasesWithFilterStage } from './helpers/releases.mjs'
import { cases } from './helpers/counts.mjs'

const PROMPT_RELEASES = releasesWithFilterStage('prompt').filter((v) => !process.env.TCF_RELEASE || v === process.env.TCF_RELEASE)
const CASES = cases('TCF_PROMPT_CASES', { quick: 500, all: 5_000 })
const BASE_SEED = 0x9c0ffee

const TOOL_NAMES = ['searchDatabase', 'sendEmail', 'getWeather', 'load_tool', 'ツール検索', 'tool\ud800', 'tool\udc00', '', 'get weather']
const EXTRA_EXCLUDE = ['nonexistent', 'SEARCHDATABASE', 'getweather', 'tool\ufffd', undefined, NaN]
const ID_POOL = [
  'call_1',
  'call_2',
  'call_3',
  'call_4',
  'call_5',
  'CALL_1',
  'call-ü',
  'id\ud800',
  'id\udc00',
  'id\ufffd',
  '𝒾𝒹',
  'toolu_01A09q90',
  '__proto__',
  'constructor',
]
const HISTORY_KEY = '__toolCallFilterHistoryToolCallIds'

function genCase(seed) {
  const r = createRng(seed)
  const { genJson, genModelOutput } = outputGenerators(r)
  let fresh = 0

  const genId = () =>
    r.weighted([
      [60, () => r.pick(ID_POOL)],
      [20, () => `fresh-${fresh++}`],
      [2, () => ''],
      [1, () => undefined],
      [0.5, () => null],
      [0.5, () => 7],
    ])()

  const genOutput = () =>
    r.weighted([
      [20, () => ({ type: 'text', value: r.string(0, 12) })],
      [20, () => ({ type: 'json', value: genJson() })],
      [4, () => ({ type: 'error-text', value: r.string(0, 8) })],
      [3, () => ({ type: 'error-json', value: genJson() })],
      [
        4,
        () => ({
          type: 'content',
          value: [
            { type: 'text', text: r.string(0, 8) },
            { type: 'media', data: 'AAAA', mediaType: 'image/png' },
          ],
        }),
      ],
      [6, () => genModelOutput()],
    ])()

  const genProviderOptions = () =>
    r.weighted([
      [12, () => undefined],
      [3, () => ({})],
      [3, () => ({ mastra: {} })],
      [14, () => ({ mastra: { modelOutput: genModelOutput() } })],
      [4, () => ({ openai: { itemId: 'x' }, mastra: { createdAt: 1, modelOutput: genModelOutput() } })],
      [3, () => ({ mastra: { modelOutput: undefined } })],
      [2, () => ({ mastra: { modelOutput: null } })],
      [1, () => ({ mastra: null })],
      [1, () => ({ mastra: 'modelOutput' })],
      [1, () => ({ mastra: Object.create(INHERITED_MODEL_OUTPUT_PROTO) })],
      [2, () => ({ mastra: { createdAt: 5 } })],
    ])()

  const withOptions = (part) => {
    const providerOptions = genProviderOptions()
    if (providerOptions !== undefined || r.chance(0.05)) part.providerOptions = providerOptions
    return part
  }
  const toolCall = (id) =>
    withOptions({
      type: 'tool-call',
      toolCallId: id,
      toolName: r.pick(TOOL_NAMES),
      input: genJson(),
      ...(r.chance(0.05) ? { providerExecuted: true } : {}),
    })
  const toolResult = (id, toolName = r.pick(TOOL_NAMES)) => withOptions({ type: 'tool-result', toolCallId: id, toolName, output: genOutput() })
  const otherPart = () =>
    r.weighted([
      [10, () => ({ type: 'text', text: r.string(0, 12) })],
      [2, () => ({ type: 'reasoning', text: r.string(0, 8) })],
      [1, () => ({ type: 'file', mediaType: 'image/png', data: 'AAAA' })],
      [0.3, () => ({ type: 'Tool-Call', toolCallId: r.pick(ID_POOL) })],
      [0.2, () => 'a string part'],
      [0.2, () => 42],
    ])()

  /** An assistant turn with calls, and the tool message answering them (sometimes inline, sometimes missing). */
  const turn = () => {
    const ids = Array.from({ length: r.int(1, 3) }, genId)
    const assistant = []
    if (r.chance(0.3)) assistant.push(otherPart())
    const calls = ids.map((id) => toolCall(id))
    assistant.push(...calls)
    const messages = [{ role: 'assistant', content: assistant }]
    const answered = r.weighted([
      [8, 'tool'],
      [1, 'inline'],
      [1, 'none'],
    ])
    if (answered === 'inline') {
      // Provider-executed results ride in the assistant message itself.
      assistant.push(...calls.map((call) => toolResult(call.toolCallId, call.toolName)))
    } else if (answered === 'tool') {
      const results = calls.filter(() => r.chance(0.9)).map((call) => toolResult(call.toolCallId, r.chance(0.9) ? call.toolName : r.pick(TOOL_NAMES)))
      if (r.chance(0.1)) results.push(toolResult(genId()))
      messages.push({ role: 'tool', content: results })
    }
    if (r.chance(0.2)) messages.push({ role: 'assistant', content: [{ type: 'text', text: r.string(0, 10) }] })
    return messages
  }

  const oddMessage = () =>
    r.weighted([
      [3, () => ({ role: 'assistant', content: [] })],
      [2, () => ({ role: 'tool', content: [] })],
      [2, () => ({ role: 'assistant', content: r.pick(['', 'plain text', ' ']) })],
      [1, () => ({ role: 'assistant', content: [otherPart(), toolResult(genId())] })],
      [1, () => ({ role: 'developer', content: [toolCall(genId())] })],
      [0.3, () => ({ role: 'assistant', content: [null] })],
      [0.2, () => ({ role: 'tool', content: 5 })],
      [0.2, () => null],
    ])()

  const userMessage = () => ({ role: 'user', content: [{ type: 'text', text: r.string(0, 10) }] })
  const history = () => {
    const messages = []
    if (r.chance(0.7)) messages.push({ role: 'system', content: r.string(0, 20) })
    for (let i = r.int(0, 4); i > 0; i--) {
      messages.push(userMessage())
      if (r.chance(0.75)) messages.push(...turn())
      if (r.chance(0.05)) messages.push(oddMessage())
    }
    messages.push(userMessage())
    return messages
  }

  // --- options, some of them changed between calls -----------------------------------
  const options = {}
  const excludeMode = r.weighted([
    [30, 'absent'],
    [4, 'null'],
    [8, 'empty'],
    [40, 'subset'],
    [5, 'all'],
  ])
  if (excludeMode === 'null') options.exclude = null
  else if (excludeMode === 'empty') options.exclude = []
  else if (excludeMode === 'subset') options.exclude = r.subset([...TOOL_NAMES, ...EXTRA_EXCLUDE], 0.25)
  else if (excludeMode === 'all') options.exclude = [...TOOL_NAMES]
  const steps = r.weighted([
    [45, { absent: true }],
    [4, { v: undefined }],
    [3, { v: null }],
    [8, { v: 0 }],
    [10, { v: 1 }],
    [8, { v: 2 }],
    [3, { v: 3 }],
    [2, { v: -1 }],
    [2, { v: 0.5 }],
    [2, { v: 1.5 }],
    [1, { v: Infinity }],
    [1, { v: NaN }],
    [1, { v: -0 }],
  ])
  if (!steps.absent) options.filterAfterToolSteps = steps.v
  const preserve = r.weighted([
    [35, { absent: true }],
    [45, { v: true }],
    [15, { v: false }],
    [3, { v: undefined }],
  ])
  if (!preserve.absent) options.preserveModelOutput = preserve.v

  // --- the run: a first prompt, then the loop's own turns appended ---------------------
  const calls = []
  let prompt = history()
  for (let call = r.int(1, 4); call > 0; call--) {
    const exclude = Array.isArray(options.exclude) && r.chance(0.1) ? r.subset([...TOOL_NAMES, ...EXTRA_EXCLUDE], 0.3) : undefined
    calls.push({ prompt, exclude, freeze: r.chance(0.2) })
    prompt = r.chance(0.9) ? [...prompt, ...turn()] : history()
  }
  const stateMode = r.weighted([
    [75, 'empty'],
    [8, 'other'],
    [12, 'seeded'],
    [3, 'emptySet'],
    [2, 'null'],
  ])
  const seeded = () => new Set(r.subset(ID_POOL, 0.3))
  return { options, calls, stateMode, seeded: stateMode === 'seeded' ? seeded() : undefined }
}

/** Runs one case through a filter class; records every outcome and the state after it. */
async function runCase(Filter, c) {
  const made = await settle(() => new Filter(c.options), { expectThenable: false })
  if (made.threw) return { ctorError: made.error }
  const filter = made.value
  const state =
    c.stateMode === 'other'
      ? { otherProcessor: { n: 1 } }
      : c.stateMode === 'seeded'
        ? { [HISTORY_KEY]: new Set(c.seeded) }
        : c.stateMode === 'emptySet'
          ? { [HISTORY_KEY]: new Set() }
          : c.stateMode === 'null'
            ? { [HISTORY_KEY]: null }
            : {}
  const out = []
  for (const call of c.calls) {
    if (call.exclude) c.options.exclude.splice(0, Infinity, ...call.exclude)
    if (call.freeze) deepFreeze(call.prompt)
    const result = await settle(() => filter.processLLMRequest({ prompt: call.prompt, state }))
    out.push({ result, state: { ...state, [HISTORY_KEY]: copySet(state[HISTORY_KEY]) }, shared: shared(call.prompt, result) })
    if (result.threw) break
  }
  return { out }
}

const copySet = (value) => (value instanceof Set ? new Set(value) : value)

/** Which returned messages and parts are the caller's own objects (by position), which are new. */
function shared(prompt, result) {
  const answer = result.value?.prompt
  if (!Array.isArray(answer)) return null
  const parts = new Map()
  prompt.forEach((message, m) => Array.isArray(message?.content) && message.content.forEach((part, p) => parts.set(part, `${m}.${p}`)))
  return answer.map((message) => {
    const m = prompt.indexOf(message)
    if (m >= 0) return m
    return Array.isArray(message.content) ? message.content.map((part) => parts.get(part) ?? 'new') : 'new'
  })
}

function compareRuns(ours, ref, ctx) {
  if (ref.ctorError) {
    assert.ok(ours.ctorError instanceof TypeError, `${ctx}: the reference constructor threw; ours must throw a TypeError`)
    return
  }
  assert.ok(!ours.ctorError, `${ctx}: our constructor threw ${ours.ctorError}`)
  for (let i = 0; i < ref.out.length; i++) {
    const o = ours.out[i]
    const rr = ref.out[i]
    assert.ok(o, `${ctx} call ${i}: ours stopped early`)
    assertSameOutcome(o.result, rr.result, `${ctx} call ${i}`)
    if (!rr.result.threw) {
      assertSameValue(o.state, rr.state, `${ctx} state after call ${i}`)
      assert.deepStrictEqual(o.shared, rr.shared, `${ctx} call ${i}: which objects are the caller's own`)
    }
  }
}

for (const version of PROMPT_RELEASES) {
  const { reference, ours } = await loadRelease(version)
  describe(`ToolCallFilter prompt stage: seeded differential vs @mastra/core ${version}`, () => {
    test(`${CASES} random runs`, { timeout: 600_000 }, async () => {
      const only = process.env.TCF_CASE === undefined ? null : Number(process.env.TCF_CASE)
      const tally = { changed: 0, unchanged: 0, threw: 0, texts: 0 }
      for (let n = only ?? 0; n < (only === null ? CASES : only + 1); n++) {
        const seed = deriveSeed(BASE_SEED, n)
        const ref = await runCase(reference.ToolCallFilter, genCase(seed))
        const got = await runCase(ours.ToolCallFilter, genCase(seed))
        compareRuns(got, ref, `${version} case ${n} (TCF_CASE=${n} TCF_RELEASE=${version})`)
        for (const { result } of ref.out ?? []) {
          if (result.threw) tally.threw++
          else if (result.value === undefined) tally.unchanged++
          else {
            tally.changed++
            if (result.value.prompt.some((m) => Array.isArray(m.content) && m.content.some((p) => p?.type === 'text' && / result:\n/.test(p.text))))
              tally.texts++
          }
        }
      }
      // The generator must reach every outcome, or the comparison means little
      // (at 5,000 cases: 1,000 changed and unchanged, 20 thrown, 500 texts).
      if (only === null) {
        const least = { changed: CASES / 5, unchanged: CASES / 5, threw: CASES / 250, texts: CASES / 10 }
        for (const [outcome, count] of Object.entries(tally)) assert.ok(count >= least[outcome], `too few ${outcome} calls: ${JSON.stringify(tally)}`)
      }
    })
  })
}
