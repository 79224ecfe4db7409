// Property-read differential, ToolCallFilter on the message list (1.59; issue
// 19): seeded random runs of `processInput` then `processInputStep` over a few
// agent-loop steps sharing one `state`, where every object of the messages
// (the messages, their content, parts, `toolInvocation`, `toolCall`,
// `providerMetadata` and its model outputs, the legacy
// `content.toolInvocations`) is a recording Proxy, run by the release's own
// filter and by ours. Ours reads no property the release does not read on
// that call. A message object is wrapped once per run (the same Proxy on every
// call, as Mastra hands the same stored messages to each step), and each call
// logs into its own set; a read of a key the object does not have is marked
// `?` (only a getter up its prototype chain could see it).
//
// Of the parts, ours reads what the release reads: a part's id before the kept
// steps are asked, nothing more of one they hold, and a model output only of a
// result that goes (tool-call-filter.message-list.test.mjs has a result before
// its excluded call and a kept result whose providerMetadata throws). Of the
// content, `content.content` where it is not an own key only of a message all
// of whose tool parts go, and the legacy `content.toolInvocations` (its
// entries' ids, and the names of those the kept steps do not hold) only of a
// message that stays: ours leaves both off its tape and reads them once the
// native side has decided the parts (the same file has a test for each).
//
// The order of the reads is not compared, unlike the prompt and tool-search
// differentials: the release decides each message in turn, reading its text
// and legacy list before the next message's parts, and with an exclude list
// first walks every message for the excluded calls' ids; ours reads a whole
// run's parts onto one tape (an excluded call's id can come after its result),
// asks the native side once, and only then reads the texts and legacy lists
// the answer asks for. Following the release's order would take a native call
// per message.
//
// More cases: TCF_READS_CASES=2000 node --test __test__/tool-call-filter.message-list-reads.test.mjs

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { loadRelease, releasesWithFilterStage } from './helpers/releases.mjs'
import { createRng, sfc32 } from './helpers/random.mjs'
import { recorder } from './helpers/recording-proxy.mjs'
import { fakeList, abort, stepArgs, genFilterOptions, TOOL_NAMES } from './helpers/tool-call-filter-harness.mjs'
import { cases } from './helpers/counts.mjs'

// The same count in npm test and npm run test:all (helpers/counts.mjs).
const CASES = cases('TCF_READS_CASES', { quick: 300, all: 300 })
const [RELEASE] = releasesWithFilterStage('messageList')

function genCase(rng) {
  let id = 0
  const modelOutput = () =>
    rng.weighted([
      [3, { type: 'text', value: 'v' }],
      [1, { type: 'json', value: { a: [1, 'x'], b: { value: 'y' } } }],
      [1, [{ type: 'text', text: 't' }, 'u', []]],
      [1, 'plain'],
      [1, null],
    ])
  const invocation = (callId, state) => {
    const inv = rng.bool(0.85) ? { state, toolCallId: callId } : { state, toolCall: { id: callId } }
    inv.toolName = rng.pick(TOOL_NAMES)
    inv.args = { q: 'x' }
    if (state === 'result') inv.result = { ok: callId }
    return inv
  }
  const toolPart = (callId, state) => {
    const part = { type: 'tool-invocation', toolInvocation: invocation(callId, state) }
    if (rng.bool(0.6)) part.providerMetadata = rng.bool(0.8) ? { mastra: { modelOutput: modelOutput() } } : { other: {} }
    return part
  }
  const message = (i, role, parts) => {
    const content = { format: 2, parts }
    if (rng.bool(0.3)) content.content = rng.pick(['', ' ', 'said'])
    if (rng.bool(0.3)) content.toolInvocations = parts.filter((p) => p.type === 'tool-invocation').map((p) => ({ ...p.toolInvocation }))
    return { id: `m${i}`, role, createdAt: new Date(1_700_000_000_000 + i), content }
  }
  let t = 0
  const history = []
  for (let i = 0, n = rng.int(0, 6); i < n; i++) {
    const role = rng.pick(['user', 'assistant', 'assistant', 'tool'])
    const parts = []
    for (let j = 0, m = rng.int(0, 3); j < m; j++)
      parts.push(rng.bool(0.6) ? toolPart(`h${id++}`, rng.pick(['result', 'result', 'call'])) : { type: rng.pick(['text', 'step-start']), text: 'x' })
    history.push(rng.bool(0.05) ? { id: `m${t++}`, role, content: 'string content' } : message(t++, role, parts))
  }
  const steps = []
  const responses = []
  for (let s = 0, n = rng.int(1, 4); s < n; s++) {
    if (s > 0 && rng.bool(0.85)) {
      const ids = Array.from({ length: rng.int(1, 2) }, () => `s${id++}`)
      const split = rng.bool(0.3)
      responses.push(message(t++, 'assistant', [{ type: 'step-start' }, ...ids.map((c) => toolPart(c, split ? 'call' : 'result'))]))
      if (split)
        responses.push(
          message(
            t++,
            'assistant',
            ids.map((c) => toolPart(c, 'result')),
          ),
        )
    }
    steps.push({ all: [...history, ...responses], response: [...responses] })
  }
  const options = genFilterOptions(rng, { steps: 0.7 })
  return { options, history, steps }
}

/** The reads of each call of a run: processInput, then each step. */
async function run(Filter, c) {
  const sink = { reads: new Set() }
  const wrap = recorder((read) => sink.reads.add(read), { markInherited: true })
  const filter = new Filter(structuredClone(c.options))
  const state = {}
  const calls = []
  const call = async (label, fn) => {
    sink.reads = new Set()
    try {
      await fn()
    } catch (error) {
      sink.reads.add(`threw ${error?.name}`)
    }
    calls.push({ label, reads: sink.reads })
  }
  const history = c.history.map((m, i) => wrap(m, `m${i}`))
  await call('processInput', () => filter.processInput({ messages: history, messageList: fakeList(history), abort }))
  for (const [n, step] of c.steps.entries()) {
    // every message under its own name, so a read names the message it was of
    const all = step.all.map((m) => wrap(m, m.id))
    const response = step.response.map((m) => wrap(m, m.id))
    await call(`step ${n}`, () => filter.processInputStep(stepArgs(all, response, state, { stepNumber: n })))
  }
  return calls
}

async function differences() {
  const { reference, ours } = await loadRelease(RELEASE)
  const failures = []
  let compared = 0
  for (let seed = 1; seed <= CASES && failures.length < 5; seed++) {
    const ref = await run(reference.ToolCallFilter, genCase(createRng(seed, sfc32)))
    const c = genCase(createRng(seed, sfc32))
    const got = await run(ours.ToolCallFilter, c)
    for (const [i, { label, reads }] of got.entries()) {
      const extra = [...reads].filter((read) => !ref[i].reads.has(read))
      if (extra.length) failures.push(`seed ${seed} ${JSON.stringify(c.options)} ${label}: ours read ${extra.slice(0, 6).join(', ')}`)
      compared += ref[i].reads.size
    }
  }
  // The loop stops at five failures; a run of every case must have compared enough.
  if (failures.length === 0) assert.ok(compared > CASES * 10, `the release read too little to compare (${compared} reads)`)
  return failures
}

describe(`${RELEASE}: ToolCallFilter reads no message property the release does not`, { skip: !RELEASE }, () => {
  test(`${CASES} seeded runs of processInput and processInputStep: no read beyond the release's`, async () => {
    assert.deepEqual(await differences(), [])
  })
})
