// ToolCallFilter on the prompt (1.60+) reads what the release's filter reads
// (issue 19, item 4): a part's `toolName` only where the part is not kept by
// the request's recorded history, a result's `providerOptions` only where the
// result goes. Each part a getter on which records, and throws when read
// where the release would not read it.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { settle, assertSameOutcome } from './helpers/tool-call-filter-harness.mjs'
import { loadRelease, releasesWithFilterStage } from './helpers/releases.mjs'

/** Whether the poisoned getters throw: only while a filter runs, not while the outcomes are compared. */
const armed = { now: false }

async function armedWhile(run) {
  armed.now = true
  try {
    return await settle(run)
  } finally {
    armed.now = false
  }
}

/** A part whose `toolName` and `providerOptions` are getters that log their reads (and throw where `poisoned`). */
function watched(part, log, poisoned = []) {
  const out = {}
  for (const [key, value] of Object.entries(part)) {
    if (key === 'toolName' || key === 'providerOptions') {
      Object.defineProperty(out, key, {
        enumerable: true,
        get() {
          if (!armed.now) return value
          log.push(`${part.toolCallId}.${key}`)
          if (poisoned.includes(key)) throw new Error(`${part.toolCallId}.${key} read`)
          return value
        },
      })
    } else out[key] = value
  }
  return out
}

const call = (id, toolName) => ({ type: 'tool-call', toolCallId: id, toolName, input: {} })
const result = (id, toolName, text) => ({
  type: 'tool-result',
  toolCallId: id,
  toolName,
  output: { type: 'text', value: text },
  providerOptions: { mastra: { modelOutput: text } },
})

for (const version of releasesWithFilterStage('prompt')) {
  describe(`${version}: ToolCallFilter reads no property of a prompt part the release does not`, () => {
    test("the run's own new calls: no toolName read on the request's second call with an exclude list", async () => {
      const { reference, ours } = await loadRelease(version)
      const run = async (Filter) => {
        const filter = new Filter({ exclude: ['search'] })
        const state = {}
        const log = []
        const history = [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          { role: 'assistant', content: [call('h1', 'search')] },
          { role: 'tool', content: [result('h1', 'search', 'old')] },
        ]
        const first = await armedWhile(() => filter.processLLMRequest({ prompt: history, state }))
        const poisoned = ['toolName']
        const second = [
          ...history,
          { role: 'assistant', content: [watched(call('n1', 'search'), log, poisoned)] },
          { role: 'tool', content: [watched(result('n1', 'search', 'new'), log, poisoned)] },
        ]
        const next = await armedWhile(() => filter.processLLMRequest({ prompt: second, state }))
        return { first, next, log }
      }
      const ref = await run(reference.ToolCallFilter)
      const got = await run(ours.ToolCallFilter)
      assert.ok(!ref.next.threw, `the release reads no toolName of the new call: ${ref.next.error}`)
      assertSameOutcome(got.first, ref.first, 'first call')
      assertSameOutcome(got.next, ref.next, 'second call')
      assert.deepEqual(got.log, ref.log)
    })

    // A release that reads them (1.68+) reads those of each result whose id goes, which can
    // hang on a later part of another name; ours reads them when the native side asks for that
    // result's output (issue 29).
    test('preserveModelOutput: no providerOptions read of a result that is kept', async () => {
      const { reference, ours } = await loadRelease(version)
      for (const options of [
        { exclude: ['search'], preserveModelOutput: true },
        { exclude: ['search'], preserveModelOutput: true, filterAfterToolSteps: 0 },
      ]) {
        const run = async (Filter) => {
          const log = []
          const kept = (p) => watched(p, log, ['providerOptions'])
          const prompt = [
            { role: 'user', content: [{ type: 'text', text: 'hi' }] },
            { role: 'assistant', content: [kept(call('k1', 'weather')), watched(call('g1', 'search'), log)] },
            { role: 'tool', content: [kept(result('k1', 'weather', 'sunny')), watched(result('g1', 'search', 'found'), log)] },
          ]
          return { out: await armedWhile(() => new Filter(options).processLLMRequest({ prompt, state: {} })), log }
        }
        const ref = await run(reference.ToolCallFilter)
        const got = await run(ours.ToolCallFilter)
        assert.ok(!ref.out.threw, `the release reads no providerOptions of the kept result: ${ref.out.error}`)
        assertSameOutcome(got.out, ref.out, JSON.stringify(options))
        assert.deepEqual(new Set(got.log), new Set(ref.log), JSON.stringify(options))
      }
    })
  })
}

// On 1.59 a step records the ids of its response's tool parts and reads
// nothing else of the response (issue 19): not its top-level text, not its
// legacy `toolInvocations`. With an empty `exclude` list nothing else is read.
for (const version of releasesWithFilterStage('messageList')) {
  describe(`${version}: ToolCallFilter reads no more of a step's response than its tool parts' ids`, () => {
    test('exclude [], filterAfterToolSteps 1: no content.content or content.toolInvocations read', async () => {
      const { reference, ours } = await loadRelease(version)
      const { fakeList, stepArgs } = await import('./helpers/tool-call-filter-harness.mjs')
      const run = async (Filter) => {
        const log = []
        const invocation = { state: 'result', toolCallId: 'r1', toolName: 'search', args: {}, result: {} }
        const content = { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: invocation }] }
        for (const [key, value] of [
          ['content', 'said'],
          ['toolInvocations', [invocation]],
        ]) {
          Object.defineProperty(content, key, {
            enumerable: true,
            get() {
              if (!armed.now) return value
              log.push(key)
              throw new Error(`content.${key} read`)
            },
          })
        }
        const response = [{ id: 'a1', role: 'assistant', content }]
        const state = {}
        const out = await armedWhile(() =>
          new Filter({ exclude: [], filterAfterToolSteps: 1 }).processInputStep({
            ...stepArgs(response, response, state),
            messageList: fakeList(response, response),
          }),
        )
        return { out, log, state }
      }
      const ref = await run(reference.ToolCallFilter)
      const got = await run(ours.ToolCallFilter)
      assert.ok(!ref.out.threw, `the release reads neither: ${ref.out.error}`)
      assertSameOutcome(got.out, ref.out, 'step')
      assert.deepEqual(got.state, ref.state)
      assert.deepEqual(got.log, ref.log)
    })
  })
}
