// ToolCallFilter as Mastra 1.59.0 has it: a seeded differential test, six seeds
// of random cases (200 each in npm test, 1,000 in npm run test:all or
// TCF_DIFF_CASES; helpers/counts.mjs) of processInput and a multi-step
// processInputStep run with shared `state`, through the reference and ours,
// compared exactly (values and own-key order).
//
// Replay one case: TCF_SEED=<seed> TCF_CASE=<n> node --test __test__/tool-call-filter.message-list-differential.test.mjs

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { createRng, deriveSeed } from './helpers/random.mjs'
import { fakeList, abort, stepArgs, settle, canon, assertSameValue, assertSameOutcome, deepFreeze, filtersOf } from './helpers/tool-call-filter-harness.mjs'
import { BASE_TIME, INHERITED_MODEL_OUTPUT_PROTO, SHARED_FN, SHARED_SYM, outputGenerators } from './helpers/model-outputs.mjs'
import { releasesWithFilterStage } from './helpers/releases.mjs'
import { cases } from './helpers/counts.mjs'

// 1.59.0, or a release under `npm run check-release` with its rules (none: nothing to run).
const [RELEASE] = releasesWithFilterStage('messageList')
const { RefFilter, OurFilter } = RELEASE ? await filtersOf(RELEASE) : {}

const TOOL_NAMES = ['searchDatabase', 'sendEmail', 'getWeather', 'search_tools', 'load_tool', 'ツール検索', 'tool\ud800', 'tool\udc00', '', 'get weather']
const EXTRA_EXCLUDE = ['nonexistent', 'SEARCHDATABASE', 'searchDatabase ', 'getweather', 'tool\ufffd', 'tool']
const ID_POOL = [
  'call_1',
  'call_2',
  'call_3',
  'call_4',
  'call_5',
  'call_6',
  'CALL_1',
  'call-ü',
  'call 7',
  'id\ud800',
  'id\udc00',
  'id\ufffd',
  '𝒾𝒹',
  'toolu_01A09q90qw90lq917835lq9',
  '1',
  '__proto__',
  'constructor',
]
/** `historyLength`, when given, replaces the drawn history length (every other draw stays as it was). */
function genCase(seed, historyLength) {
  const r = createRng(seed)
  let idCounter = 0

  const { genJson, genModelOutput } = outputGenerators(r)

  const genProviderMetadata = () =>
    r.weighted([
      [10, () => undefined],
      [3, () => ({})],
      [3, () => ({ mastra: {} })],
      [30, () => ({ mastra: { modelOutput: genModelOutput() } })],
      [6, () => ({ openai: { itemId: 'x' }, mastra: { createdAt: 1, modelOutput: genModelOutput() } })],
      [3, () => ({ mastra: { modelOutput: undefined } })],
      [2, () => ({ mastra: { other: 1 } })],
      [1, () => ({ mastra: null })],
      [1, () => ({ mastra: 'modelOutput' })],
      [1, () => ({ mastra: Object.create(INHERITED_MODEL_OUTPUT_PROTO) })],
      [1, () => 'str'],
    ])()

  const genIdFields = (idOverride) => {
    const id = idOverride ?? (r.chance(0.02) ? `fresh-${idCounter++}` : r.pick(ID_POOL))
    return r.weighted([
      [70, () => ({ toolCallId: id })],
      [10, () => ({ toolCall: { id } })],
      [4, () => ({ toolCallId: id, toolCall: { id: r.pick(ID_POOL) } })],
      [4, () => ({ toolCallId: undefined, toolCall: { id } })],
      [3, () => ({ toolCallId: null, toolCall: { id } })],
      [3, () => ({})],
      [2, () => ({ toolCallId: '' })],
      [1, () => ({ toolCall: null })],
      [1, () => ({ toolCall: { id: '' } })],
      [0.5, () => ({ toolCallId: 7 })], // malformed: number
      [0.3, () => ({ toolCall: 'str' })],
    ])()
  }

  const genInvocation = ({ idOverride, state } = {}) => {
    const inv = {}
    const st =
      state ??
      r.weighted([
        [5, 'result'],
        [3, 'call'],
        [1, 'partial-call'],
        [0.3, 'output-available'],
      ])
    const order = r.int(0, 2)
    const fields = genIdFields(idOverride)
    const name = r.chance(0.03) ? undefined : r.pick(TOOL_NAMES)
    if (order === 0) inv.state = st
    Object.assign(inv, fields)
    if (name !== undefined) inv.toolName = name
    if (order === 1) inv.state = st
    inv.args = r.weighted([
      [6, () => genJson()],
      [1, () => ({ when: new Date(BASE_TIME), n: 1n, u: undefined, f: SHARED_FN })],
      [1, () => undefined],
    ])()
    if (st === 'result' || r.chance(0.1)) inv.result = r.chance(0.1) ? { big: 2n, d: new Date(BASE_TIME + 1) } : genJson()
    if (order === 2) inv.state = st
    if (r.chance(0.1)) inv.step = r.chance(0.5) ? undefined : r.int(0, 3)
    return inv
  }

  const genToolPart = (opts) => {
    const part = { type: 'tool-invocation', toolInvocation: genInvocation(opts) }
    const pm = genProviderMetadata()
    if (pm !== undefined || r.chance(0.1)) part.providerMetadata = pm
    if (r.chance(0.1)) part.createdAt = BASE_TIME
    return part
  }

  const genOtherPart = () =>
    r.weighted([
      [10, () => ({ type: 'text', text: r.string(0, 16) })],
      [2, () => ({ type: 'text', text: r.string(0, 8), providerMetadata: { mastra: { modelOutput: 'not a tool part' } } })],
      [4, () => ({ type: 'step-start' })],
      [
        2,
        () => ({
          type: 'reasoning',
          reasoning: '',
          details: [{ type: 'text', text: r.string(0, 8) }],
          providerMetadata: r.chance(0.5) ? undefined : { anthropic: { signature: 'sig' } },
        }),
      ],
      [1, () => ({ type: 'source', source: { sourceType: 'url', id: 's1', url: 'https://example.com', title: r.string(0, 5) } })],
      [1, () => ({ type: 'file', mimeType: 'image/png', data: r.chance(0.5) ? 'AAAA' : new Uint8Array([1, 2]) })],
      [1, () => ({ type: 'data-progress', data: { pct: r.int(0, 100) } })],
      [0.5, () => ({ type: 'Tool-Invocation', toolInvocation: genInvocation() })], // not a tool part (case)
      [0.5, () => ({ type: 'text', text: 'x', toolInvocation: genInvocation() })],
      [0.3, () => 'a string part'],
      [0.3, () => 42],
      [0.3, () => ({ noType: true })],
    ])()

  const genTopLevelContent = () =>
    r.weighted([
      [20, () => ({ absent: true })],
      [6, () => ({ value: undefined })],
      [4, () => ({ value: '' })],
      [6, () => ({ value: r.whitespace(1, 3) })],
      [10, () => ({ value: r.string(1, 20) })],
      [0.3, () => ({ value: 5 })], // malformed (filterSpecific calls .trim() on it)
      [0.3, () => ({ value: null })],
      [0.2, () => ({ value: true })],
      [0.2, () => ({ value: { trim: 'no' } })],
    ])()

  const genMessage = (i, { forceRole, parts: givenParts } = {}) => {
    if (r.chance(0.006)) return r.pick([null, 'a string message', 0])
    const role =
      forceRole ??
      r.weighted([
        [4, 'assistant'],
        [3, 'user'],
        [1, 'tool'],
        [1, 'system'],
      ])
    const parts = givenParts ?? []
    if (!givenParts) {
      const n = r.int(0, 5)
      for (let j = 0; j < n; j++) parts.push(r.chance(0.5) ? genToolPart() : genOtherPart())
    }
    const msg = { id: r.chance(0.05) ? r.pick(['dup', 'dup2']) : `msg-${seed}-${i}`, role, createdAt: new Date(BASE_TIME + i * 1000) }
    if (r.chance(0.5)) msg.threadId = 'thread-1'
    if (r.chance(0.3)) msg.resourceId = 'user-1'
    if (r.chance(0.05)) msg.type = 'v2'

    const mastraShape = r.chance(0.3)
    const top = genTopLevelContent()
    const content = { format: 2 }
    const partsMode = r.weighted([
      [90, 'array'],
      [3, 'absent'],
      [2, 'undefined'],
      [1, 'null'],
      [1, 'emptyString'],
      [0.3, 'string'],
      [0.3, 'object'],
      [0.3, 'sparse'],
      [0.3, 'nullPart'],
    ])
    switch (partsMode) {
      case 'array':
        content.parts = parts
        break
      case 'absent':
        break
      case 'undefined':
        content.parts = undefined
        break
      case 'null':
        content.parts = null
        break
      case 'emptyString':
        content.parts = ''
        break
      case 'string':
        content.parts = 'tool-invocation'
        break
      case 'object':
        content.parts = { 0: parts[0], length: 1 }
        break
      case 'sparse': {
        const sparse = [...parts]
        sparse.length += 2
        sparse.splice(0, 0, ...new Array(1))
        content.parts = sparse
        break
      }
      case 'nullPart':
        content.parts = [...parts, r.pick([null, undefined])]
        break
    }
    // legacy toolInvocations
    const tiMode = r.weighted([
      [50, 'absent'],
      [mastraShape ? 30 : 5, 'undefined'],
      [5, 'empty'],
      [25, 'mirror'],
      [0.5, 'string'],
      [0.3, 'withNull'],
    ])
    const mirror = () => {
      const invs = Array.isArray(parts)
        ? parts.filter((p) => p && p.type === 'tool-invocation').map((p) => (r.bool() ? p.toolInvocation : { ...p.toolInvocation }))
        : []
      if (r.chance(0.3)) invs.push(genInvocation())
      return r.chance(0.2) ? r.shuffle(invs) : invs
    }
    if (mastraShape) {
      // key order as produced by MessageList
      if (tiMode !== 'absent')
        content.toolInvocations =
          tiMode === 'undefined' ? undefined : tiMode === 'empty' ? [] : tiMode === 'string' ? 'x' : tiMode === 'withNull' ? [...mirror(), null] : mirror()
      content.reasoning = undefined
      content.experimental_attachments = undefined
      content.content = top.absent ? undefined : top.value
      content.metadata = r.chance(0.3) ? { source: 'test', nested: { a: [1] } } : undefined
    } else {
      if (!top.absent) content.content = top.value
      if (tiMode !== 'absent')
        content.toolInvocations =
          tiMode === 'undefined' ? undefined : tiMode === 'empty' ? [] : tiMode === 'string' ? 'x' : tiMode === 'withNull' ? [...mirror(), null] : mirror()
      if (r.chance(0.1)) content.metadata = { n: r.int(0, 9) }
      if (r.chance(0.05)) content[SHARED_SYM] = 'symbol-keyed'
    }
    const contentMode = r.weighted([
      [97, 'object'],
      [1, 'string'],
      [0.5, 'null'],
      [0.5, 'absent'],
      [0.3, 'number'],
    ])
    if (contentMode === 'object') msg.content = content
    else if (contentMode === 'string') msg.content = r.pick(['plain string content', '', '  '])
    else if (contentMode === 'null') msg.content = null
    else if (contentMode === 'number') msg.content = 5
    return msg
  }

  // --- options ------------------------------------------------------------------------
  const options = {}
  // (non-array / non-string exclude entries, non-numeric filterAfterToolSteps and non-boolean
  // preserveModelOutput are covered by the 'constructor options' bad-input test instead)
  const exMode = r.weighted([
    [30, 'absent'],
    [4, 'undefined'],
    [3, 'null'],
    [8, 'empty'],
    [40, 'subset'],
    [5, 'all'],
  ])
  if (exMode === 'undefined') options.exclude = undefined
  else if (exMode === 'null') options.exclude = null
  else if (exMode === 'empty') options.exclude = []
  else if (exMode === 'subset') options.exclude = r.subset([...TOOL_NAMES, ...EXTRA_EXCLUDE], 0.25)
  else if (exMode === 'all') options.exclude = [...TOOL_NAMES]
  const fats = r.weighted([
    [40, { absent: true }],
    [4, { v: undefined }],
    [8, { v: 0 }],
    [10, { v: 1 }],
    [10, { v: 2 }],
    [5, { v: 3 }],
    [3, { v: -1 }],
    [2, { v: -5 }],
    [2, { v: 0.5 }],
    [2, { v: 1.5 }],
    [1, { v: 2.7 }],
    [2, { v: 1e9 }],
    [1, { v: Infinity }],
    [1, { v: NaN }],
    [1, { v: -0 }],
  ])
  if (!fats.absent) options.filterAfterToolSteps = fats.v
  const pmo = r.weighted([
    [30, { absent: true }],
    [40, { v: true }],
    [15, { v: false }],
    [3, { v: undefined }],
  ])
  if (!pmo.absent) options.preserveModelOutput = pmo.v
  const ctorMode = r.weighted([
    [95, 'options'],
    [5, 'none'],
  ])

  // --- history ------------------------------------------------------------------------
  const history = []
  const nHist = historyLength ?? r.int(0, 8)
  for (let i = 0; i < nHist; i++) history.push(genMessage(i))
  if (r.chance(0.01)) history.length += 1 // trailing hole

  // --- agent-loop steps ---------------------------------------------------------------
  const nSteps = r.int(2, 5)
  const steps = []
  const responses = []
  const usedIds = []
  let t = nHist
  for (let s = 0; s < nSteps; s++) {
    const fresh = []
    if (s > 0 && r.chance(0.85)) {
      const nCalls = r.int(1, 3)
      const ids = []
      for (let c = 0; c < nCalls; c++) {
        const id = r.weighted([
          [8, () => `step${s}-c${c}`],
          [1, () => (usedIds.length ? r.pick(usedIds) : `step${s}-c${c}`)],
          [1, () => r.pick(ID_POOL)],
        ])()
        ids.push(id)
        usedIds.push(id)
      }
      const split = r.chance(0.3)
      const parts = [{ type: 'step-start' }]
      for (const id of ids) parts.push(genToolPart({ idOverride: id, state: split ? 'call' : 'result' }))
      if (r.chance(0.3)) parts.push({ type: 'text', text: r.string(0, 10) })
      fresh.push(genMessage(t++, { forceRole: 'assistant', parts }))
      if (split) {
        fresh.push(genMessage(t++, { forceRole: r.bool() ? 'tool' : 'assistant', parts: ids.map((id) => genToolPart({ idOverride: id, state: 'result' })) }))
      }
    } else if (s > 0 && r.chance(0.5)) {
      fresh.push(genMessage(t++, { forceRole: 'assistant', parts: [{ type: 'text', text: r.string(0, 10) }] }))
    }
    responses.push(...fresh)
    const responseMode = r.weighted([
      [80, 'cumulative'],
      [12, 'latest'],
      [5, 'withHistory'],
      [3, 'random'],
    ])
    const response =
      responseMode === 'cumulative'
        ? [...responses]
        : responseMode === 'latest'
          ? [...fresh]
          : responseMode === 'withHistory'
            ? [...history.slice(-2), ...responses]
            : [genMessage(t++)]
    const all = r.chance(0.1) ? [...history, genMessage(t++, { forceRole: 'user' }), ...responses] : [...history, ...responses]
    steps.push({
      all,
      response,
      // between steps: sometimes the state goes through JSON, sometimes a fresh instance continues
      jsonState: r.chance(0.1),
      newInstance: r.chance(0.1),
      decoyMessages: r.chance(0.5),
    })
  }

  const stateMode = r.weighted([
    [70, 'empty'],
    [10, 'other'],
    [15, 'seeded'],
    [3, 'nullKeys'],
    [2, 'seededOther'],
  ])
  let state = {}
  if (stateMode === 'other') state = { otherProcessor: { n: 1 } }
  else if (stateMode === 'seeded' || stateMode === 'seededOther') {
    const seen = r.subset(ID_POOL, 0.2)
    state = { toolCallFilterSeenToolCallIds: seen, toolCallFilterStepToolCallIds: [r.subset(seen, 0.5), r.subset(seen, 0.5)] }
    if (stateMode === 'seededOther') state.other = 'x'
  } else if (stateMode === 'nullKeys') state = { toolCallFilterSeenToolCallIds: null, toolCallFilterStepToolCallIds: undefined }

  const freeze = r.chance(0.2)
  if (freeze) {
    deepFreeze(history)
    for (const s of steps) {
      deepFreeze(s.all)
      deepFreeze(s.response)
    }
  }
  return { options, ctorArg: ctorMode === 'none' ? undefined : options, history, steps, state, decoyInput: r.chance(0.5) }
}
async function runCase(Impl, c) {
  const out = { input: null, steps: [] }
  const make = () => (c.ctorArg === undefined ? new Impl() : new Impl(c.ctorArg))
  const ctor = await settle(make, { expectThenable: false })
  if (ctor.threw) return { ctorError: ctor }
  let filter = ctor.value
  out.input = await settle(() => filter.processInput({ messages: c.decoyInput ? [] : c.history, messageList: fakeList(c.history), abort }))
  let state = c.state
  for (const [i, s] of c.steps.entries()) {
    if (s.newInstance) filter = make()
    if (s.jsonState) state = deepJsonClone(state)
    const res = await settle(() => filter.processInputStep(stepArgs(s.all, s.response, state, { stepNumber: i, messages: s.decoyMessages ? [] : s.all })))
    out.steps.push({ res, state: res.threw ? null : state })
    if (res.threw) break
  }
  return out
}

// JSON round-trip for state objects (what a persisted state would look like)
function deepJsonClone(v) {
  try {
    return JSON.parse(JSON.stringify(v))
  } catch {
    return v
  }
}

function compareCase(c, ours, ref, ctx) {
  if (ref.ctorError) {
    assert.ok(ours.ctorError?.error instanceof TypeError, `${ctx}: reference constructor threw; ours must throw a TypeError`)
    return
  }
  assert.ok(!ours.ctorError, `${ctx}: ours' constructor threw ${ours.ctorError?.error}`)
  assertSameOutcome(ours.input, ref.input, `${ctx} processInput`)
  for (let i = 0; i < ref.steps.length; i++) {
    const o = ours.steps[i]
    const rr = ref.steps[i]
    assert.ok(o, `${ctx} step ${i}: ours stopped early`)
    assertSameOutcome(o.res, rr.res, `${ctx} processInputStep #${i}`)
    // state after a throwing step is not compared (the reference may have half-updated it)
    if (!rr.res.threw) assertSameValue(o.state, rr.state, `${ctx} state after step #${i}`)
  }
}

const DIFF_SEEDS = [0xc0ffee, 0x5eed0001, 0x5eed0002, 0x5eed0003, 0x5eed0004, 0x5eed0005]
const CASES_PER_SEED = cases('TCF_DIFF_CASES', { quick: 200, all: 1000 })

describe(`ToolCallFilter: seeded differential vs @mastra/core ${RELEASE}`, { skip: !RELEASE }, () => {
  const only =
    process.env.TCF_SEED !== undefined
      ? { seed: Number(process.env.TCF_SEED), index: process.env.TCF_CASE !== undefined ? Number(process.env.TCF_CASE) : undefined }
      : null
  const seeds = only ? [only.seed] : DIFF_SEEDS
  for (const base of seeds) {
    test(`seed ${base} (${only?.index !== undefined ? 1 : CASES_PER_SEED} cases)`, async () => {
      let refThrows = 0
      let refTexts = 0
      // keep going after a failure: report how many cases fail and one example per kind
      let failed = 0
      const examples = new Map()
      const indices = only?.index !== undefined ? [only.index] : Array.from({ length: CASES_PER_SEED }, (_, i) => i)
      for (const i of indices) {
        const seed = deriveSeed(base, i)
        const ctx = `[TCF_SEED=${base} TCF_CASE=${i} (case seed ${seed})]`
        try {
          const refCase = genCase(seed)
          const ourCase = genCase(seed)
          const ref = await runCase(RefFilter, refCase)
          const ours = await runCase(OurFilter, ourCase)
          // constructor-option leniency does not apply here: random options are arrays/nullish
          compareCase(ourCase, ours, ref, ctx)
          // inputs (messages, options) must not be mutated; states are expected to change
          const pristine = genCase(seed)
          for (const [label, built] of [
            ['ours', ourCase],
            ['ref', refCase],
          ]) {
            assertSameValue(built.history, pristine.history, `${ctx} ${label} mutated the history`)
            assertSameValue(
              built.steps.map((st) => [st.all, st.response]),
              pristine.steps.map((st) => [st.all, st.response]),
              `${ctx} ${label} mutated step messages`,
            )
            assertSameValue(built.options, pristine.options, `${ctx} ${label} mutated the options`)
          }
          if (ref.input?.threw || ref.steps?.some((st) => st.res.threw)) refThrows++
          if (!ref.input?.threw && canon(ref.input?.value).includes(' result:\\n')) refTexts++
        } catch (err) {
          failed++
          const lines = String(err.message).split('\n')
          const kind = `${lines[0].replace(/^\[[^\]]*\]\s*/, '').replace(/#\d+/, '#n')} | ${(lines[1] ?? '').replace(/[A-Za-z]?\{[\s\S]*$/, '').slice(0, 100)}`
          if (!examples.has(kind) && examples.size < 8) examples.set(kind, String(err.message).slice(0, 2500))
        }
      }
      if (failed) {
        assert.fail(
          `${failed}/${indices.length} cases diverge. One example per kind (${examples.size} kinds shown):\n\n${[...examples.values()].join('\n\n---\n\n')}`,
        )
      }
      if (!only) {
        // sanity: the generator mostly produces valid histories, and exercises preserved text
        assert.ok(refThrows < CASES_PER_SEED * 0.25, `too many throwing cases: ${refThrows}`)
        assert.ok(refTexts > CASES_PER_SEED * 0.05, `too few cases with preserved model output: ${refTexts}`)
      }
    })
  }
})

// Without an exclude list, a long history crosses to the native side in runs
// of a few hundred messages (core `message_list::run_length`). These histories
// are long enough for several runs: the short cases' messages that the
// reference filters without throwing, strung together.
describe(`ToolCallFilter: long histories vs @mastra/core ${RELEASE}`, { skip: !RELEASE }, () => {
  const CASES = 24
  test(`${CASES} histories of 600 to 1,300 messages`, async () => {
    let filtered = 0
    for (let k = 0; k < CASES; k++) {
      const c = genCase(deriveSeed(0x10a6, k), 0)
      const history = []
      const target = 600 + k * 30
      for (let j = 0; history.length < target; j++) {
        const { history: piece } = genCase(deriveSeed(0x10a7 + k, j))
        const alone = await settle(() => new RefFilter(c.ctorArg).processInput({ messageList: fakeList(piece), abort }))
        if (!alone.threw) history.push(...piece)
      }
      const ctx = `[long history ${k}, ${history.length} messages, options ${JSON.stringify(c.options)}]`
      const run = async (Impl) => {
        const filter = c.ctorArg === undefined ? new Impl() : new Impl(c.ctorArg)
        const input = await settle(() => filter.processInput({ messages: history, messageList: fakeList(history), abort }))
        const state = {}
        const response = history.slice(-5)
        const step = await settle(() => filter.processInputStep(stepArgs(history, response, state)))
        return { input, step, state }
      }
      const ref = await run(RefFilter)
      const ours = await run(OurFilter)
      assertSameOutcome(ours.input, ref.input, `${ctx} processInput`)
      assertSameOutcome(ours.step, ref.step, `${ctx} processInputStep`)
      if (!ref.step.threw) assertSameValue(ours.state, ref.state, `${ctx} state`)
      if (!ref.input.threw) filtered++
    }
    assert.ok(filtered > CASES / 2, `too few long histories filtered without throwing: ${filtered}`)
  })
})
