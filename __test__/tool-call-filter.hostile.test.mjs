// ToolCallFilter on hostile options and prompts (issue 29, item 4), against
// each tested release's own filter: an `exclude` option that is a Proxy
// around an array is accepted and read as the release reads it, at every
// stage (1.59's message list, 1.60+'s prompt); and under
// `preserveModelOutput` no result's `providerOptions` is read where the
// release does not read it (a result that stays, for an exclude list or a
// kept step), so a getter there that throws fails neither call.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { settle, assertSameOutcome, inputArgs, stepArgs } from './helpers/tool-call-filter-harness.mjs'
import { loadRelease, releasesWithFilterStage } from './helpers/releases.mjs'
import { recorder } from './helpers/recording-proxy.mjs'
import { D } from './helpers/message-list-fixtures.mjs'

const call = (id, toolName) => ({ type: 'tool-call', toolCallId: id, toolName, input: {} })
const result = (id, toolName, text, own = true) => ({
  type: 'tool-result',
  toolCallId: id,
  toolName,
  output: { type: 'text', value: text },
  ...(own ? { providerOptions: { mastra: { modelOutput: text } } } : {}),
})

/** A prompt of two steps of three tools, a later call of `search` reusing an earlier id of `mail`. */
function prompt() {
  return [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    { role: 'assistant', content: [call('a', 'search'), call('b', 'weather'), call('c', 'mail')] },
    { role: 'tool', content: [result('a', 'search', 'found'), result('b', 'weather', 'sunny'), result('c', 'mail', 'sent', false)] },
    { role: 'assistant', content: [{ type: 'text', text: 'more' }, call('d', 'weather'), call('e', 'search')] },
    { role: 'tool', content: [result('d', 'weather', 'rain'), result('e', 'search', 'again')] },
    { role: 'assistant', content: [call('c', 'search')] },
  ]
}

const OPTIONS = [
  {},
  { preserveModelOutput: true },
  { filterAfterToolSteps: 1 },
  { filterAfterToolSteps: 0, preserveModelOutput: true },
  { filterAfterToolSteps: 2, preserveModelOutput: true },
]

/** A request of two model calls, the second with one more step, with `exclude` made by `makeExclude(log)`. */
async function promptRequest(Filter, options, makeExclude) {
  const log = []
  const filter = new Filter({ ...options, exclude: makeExclude(log) })
  const state = {}
  const first = prompt()
  const second = [...prompt(), { role: 'tool', content: [result('c', 'search', 'late')] }, { role: 'assistant', content: [call('f', 'mail')] }]
  const outcomes = []
  const reads = []
  for (const p of [first, second]) {
    log.length = 0
    outcomes.push(await settle(() => filter.processLLMRequest({ prompt: p, state })))
    reads.push(log.slice())
  }
  return { outcomes, reads }
}

/** `exclude` as a Proxy around an array that logs every string-keyed read. */
const recordedExclude = (names) => (log) => recorder((read) => log.push(read))(names, 'exclude', false)

for (const version of releasesWithFilterStage('prompt')) {
  describe(`${version}: ToolCallFilter with an exclude list behind a Proxy`, () => {
    test('accepted; the same prompts, reading the list as the release reads it', async () => {
      const { reference, ours } = await loadRelease(version)
      for (const options of OPTIONS) {
        for (const names of [['search'], ['mail', 'search'], ['nothing'], []]) {
          const ctx = `${JSON.stringify(options)} exclude ${JSON.stringify(names)}`
          const ref = await promptRequest(reference.ToolCallFilter, options, recordedExclude(names))
          const got = await promptRequest(ours.ToolCallFilter, options, recordedExclude(names))
          // The same as with the array itself.
          const plain = await promptRequest(reference.ToolCallFilter, options, () => names.slice())
          for (const call of [0, 1]) {
            assert.ok(!ref.outcomes[call].threw, `${ctx}: the release accepts it`)
            assertSameOutcome(ref.outcomes[call], plain.outcomes[call], `${ctx} call ${call + 1}: the release, as with the array`)
            assertSameOutcome(got.outcomes[call], ref.outcomes[call], `${ctx} call ${call + 1}`)
          }
          // With steps kept, ours reads the kept steps' tool names too (docs/differences.md): the list is then read for them.
          if (options.filterAfterToolSteps >= 1) continue
          assert.deepEqual(got.reads, ref.reads, `${ctx}: the reads of the list`)
        }
      }
    })

    test('a revoked Proxy is refused as the release refuses it', async () => {
      const { reference, ours } = await loadRelease(version)
      for (const Filter of [reference.ToolCallFilter, ours.ToolCallFilter]) {
        const { proxy, revoke } = Proxy.revocable(['search'], {})
        revoke()
        assert.throws(() => new Filter({ exclude: proxy }), TypeError)
      }
    })
  })
}

for (const version of releasesWithFilterStage('messageList')) {
  describe(`${version}: ToolCallFilter with an exclude list behind a Proxy`, () => {
    const invocation = (id, toolCallId, toolName, state, day) => ({
      id,
      role: 'assistant',
      createdAt: D(day),
      content: {
        format: 2,
        parts: [
          {
            type: 'tool-invocation',
            toolInvocation: { state, toolCallId, toolName, args: {}, ...(state === 'result' ? { result: `${toolName} done` } : {}) },
            ...(state === 'result' ? { providerMetadata: { mastra: { modelOutput: `${toolName} said` } } } : {}),
          },
        ],
      },
    })
    const history = () => [
      { id: 'u1', role: 'user', createdAt: D(0), content: { format: 2, parts: [{ type: 'text', text: 'hi' }] } },
      invocation('m1', 'a', 'search', 'result', 1),
      invocation('m2', 'b', 'weather', 'result', 2),
      invocation('m3', 'c', 'mail', 'result', 3),
      invocation('m4', 'd', 'search', 'call', 4),
    ]

    test('accepted; the same messages from processInput and processInputStep, the list read for the same names', async () => {
      const { reference, ours } = await loadRelease(version)
      for (const options of OPTIONS) {
        for (const names of [['search'], ['mail', 'search'], ['nothing'], []]) {
          const ctx = `${JSON.stringify(options)} exclude ${JSON.stringify(names)}`
          const run = async (Filter, makeExclude) => {
            const log = []
            const filter = new Filter({ ...options, exclude: makeExclude(log) })
            const all = history()
            const input = await settle(() => filter.processInput(inputArgs(all)))
            const inputReads = new Set(log)
            log.length = 0
            const step = await settle(() => filter.processInputStep(stepArgs(all, all.slice(3), {})))
            return { input, step, reads: [inputReads, new Set(log)] }
          }
          const ref = await run(reference.ToolCallFilter, recordedExclude(names))
          const got = await run(ours.ToolCallFilter, recordedExclude(names))
          const plain = await run(reference.ToolCallFilter, () => names.slice())
          assert.ok(!ref.input.threw && !ref.step.threw, `${ctx}: the release accepts it`)
          assertSameOutcome(ref.input, plain.input, `${ctx}: the release, as with the array`)
          assertSameOutcome(got.input, ref.input, `${ctx} processInput`)
          assertSameOutcome(got.step, ref.step, `${ctx} processInputStep`)
          // The release asks `includes` of each tool part, more than once for some; ours once a name.
          assert.deepEqual(got.reads, ref.reads, `${ctx}: what of the list is read`)
        }
      }
    })
  })
}

/** Whether the poisoned getters throw: only while a filter runs, not while the outcomes are compared. */
const armed = { now: false }

/** A part whose `providerOptions` throws when read while `armed`. */
function poisoned(part) {
  const { providerOptions, ...rest } = part
  return Object.defineProperty(rest, 'providerOptions', {
    enumerable: true,
    get() {
      if (armed.now) throw new Error(`providerOptions of ${part.toolCallId} read`)
      return providerOptions
    },
  })
}

for (const version of releasesWithFilterStage('prompt')) {
  describe(`${version}: ToolCallFilter reads no providerOptions of a result that stays`, () => {
    // Each case: the options, and the results that stay (their providerOptions throw).
    const CASES = [
      // Another tool's result, under an exclude list.
      [{ exclude: ['search'], preserveModelOutput: true }, ['b', 'd']],
      [{ exclude: ['search'], preserveModelOutput: true, filterAfterToolSteps: 0 }, ['b', 'd']],
      // A kept step's results (the last step calls `c`), excluding every tool, and with a list.
      [{ preserveModelOutput: true, filterAfterToolSteps: 1 }, ['c']],
      [{ preserveModelOutput: true, filterAfterToolSteps: 2 }, ['c', 'd', 'e']],
      [{ exclude: ['search', 'weather'], preserveModelOutput: true, filterAfterToolSteps: 2 }, ['c', 'd', 'e']],
      [{ exclude: ['search'], preserveModelOutput: true, filterAfterToolSteps: 2 }, ['b', 'c', 'd', 'e']],
    ]
    test('a throwing getter there fails neither; the same prompt, the same reads', async () => {
      const { reference, ours } = await loadRelease(version)
      for (const [options, staying] of CASES) {
        const ctx = JSON.stringify(options)
        const run = async (Filter) => {
          const log = []
          const wrap = recorder((read) => {
            if (/\.(providerOptions|output)$/.test(read)) log.push(read)
          })
          const p = prompt().map((message) =>
            typeof message.content === 'string'
              ? message
              : {
                  ...message,
                  content: message.content.map((part) => (part.type === 'tool-result' && staying.includes(part.toolCallId) ? poisoned(part) : part)),
                },
          )
          armed.now = true
          try {
            const out = await settle(() => new Filter(options).processLLMRequest({ prompt: wrap(p, 'prompt'), state: {} }))
            return { out, log: log.slice() }
          } finally {
            armed.now = false
          }
        }
        const ref = await run(reference.ToolCallFilter)
        const got = await run(ours.ToolCallFilter)
        assert.ok(!ref.out.threw, `${ctx}: the release reads none of them: ${ref.out.error}`)
        assertSameOutcome(got.out, ref.out, ctx)
        // Of the results that go: each one's providerOptions, then its output where it has its own, in prompt order.
        assert.deepEqual(got.log, ref.log, `${ctx}: the reads of providerOptions and outputs`)
      }
    })
  })
}
