// ToolCallFilter's surface on every tested release: the same id, name and
// processor hooks as that release's own (the Agent decides which phases to run
// by which hooks a processor has), the live `exclude` option, and the entry points.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

import { TESTED_RELEASES, loadRelease } from './helpers/releases.mjs'

const require = createRequire(import.meta.url)

/** Every hook an input or output processor may have, in Mastra 1.x. */
const HOOKS = [
  'processInput',
  'processInputStep',
  'processOutputStream',
  'processOutputResult',
  'processOutputStep',
  'processToolResult',
  'processAPIError',
  'processLLMRequest',
  'processLLMResponse',
  'computeStateSignal',
  'getLoadedToolsForRequestContext',
  'onViolation',
]

const OPTION_SETS = [undefined, {}, { exclude: ['x'] }, { filterAfterToolSteps: 2 }, { preserveModelOutput: true }]

for (const version of TESTED_RELEASES) {
  const { reference, ours } = await loadRelease(version)
  const Ref = reference.ToolCallFilter
  const Ours = ours.ToolCallFilter

  describe(`ToolCallFilter surface on ${version}`, () => {
    test('id and name', () => {
      for (const options of OPTION_SETS) {
        for (const filter of [new Ours(options), new Ref(options)]) {
          assert.equal(filter.id, 'tool-call-filter')
          assert.equal(filter.name, 'ToolCallFilter')
        }
      }
    })

    test("exposes exactly the reference's processor hooks", () => {
      const hooksOf = (filter) => HOOKS.filter((hook) => typeof filter[hook] === 'function')
      for (const options of OPTION_SETS) assert.deepEqual(hooksOf(new Ours(options)), hooksOf(new Ref(options)))
      const expected = version === '1.59.0' ? ['processInput', 'processInputStep'] : ['processLLMRequest']
      assert.deepEqual(hooksOf(new Ours()), expected)
      for (const property of ['processDataParts', 'stateId', 'processorIndex']) {
        assert.equal(new Ours()[property], new Ref()[property], property)
      }
    })

    test('names pushed into the exclude array after construction count, as in the reference', async () => {
      const run = async (Filter) => {
        const exclude = []
        const filter = new Filter({ exclude })
        const before = await filterOnce(version, filter)
        exclude.push('getWeather')
        const after = await filterOnce(version, filter)
        exclude.length = 0
        const emptied = await filterOnce(version, filter)
        return { before, after, emptied }
      }
      const ref = await run(Ref)
      const got = await run(Ours)
      assert.deepEqual(got, ref)
      // Not vacuous: the pushed name removed the getWeather pair, and emptying it brought it back.
      assert.notDeepEqual(ref.after, ref.before)
      assert.deepEqual(ref.emptied, ref.before)
    })
  })
}

/** One filter call on a small history holding a getWeather and a sendEmail pair. */
async function filterOnce(version, filter) {
  const weather = { toolCallId: 'w1', toolName: 'getWeather' }
  const email = { toolCallId: 'e1', toolName: 'sendEmail' }
  if (version === '1.59.0') {
    const part = (call, state) => ({ type: 'tool-invocation', toolInvocation: { state, ...call, args: {}, result: 1 } })
    const messages = [
      { id: 'u', role: 'user', content: { format: 2, parts: [{ type: 'text', text: 'hi' }] } },
      { id: 'a', role: 'assistant', content: { format: 2, parts: [part(weather, 'result'), part(email, 'result')] } },
    ]
    return filter.processInput({ messages, messageList: { get: { all: { db: () => messages } } } })
  }
  const prompt = [
    { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', ...weather, input: {} },
        { type: 'tool-call', ...email, input: {} },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', ...weather, output: { type: 'text', value: 'sunny' } },
        { type: 'tool-result', ...email, output: { type: 'text', value: 'sent' } },
      ],
    },
  ]
  // A state that already holds both ids as history, so an exclude list decides.
  return filter.processLLMRequest({ prompt, state: { __toolCallFilterHistoryToolCallIds: new Set(['w1', 'e1']) } })
}

describe('entry points', () => {
  test('CommonJS and ESM export the same ToolCallFilter; each its own ToolSearchProcessor, whose meta-tools are made in its format (module-formats.test.mjs)', async () => {
    const esm = await import('../index.mjs')
    const cjs = require('../index.js')
    assert.equal(cjs.ToolCallFilter, esm.ToolCallFilter)
    assert.notEqual(cjs.ToolSearchProcessor, esm.ToolSearchProcessor)
    assert.equal(cjs.ToolSearchProcessor.name, esm.ToolSearchProcessor.name)
  })

  test("the installed @mastra/core (1.71.0 here) gets 1.71.0's hooks", () => {
    assert.equal(require('@mastra/core/package.json').version, '1.71.0')
    const { ToolCallFilter } = require('../index.js')
    assert.equal(typeof new ToolCallFilter().processLLMRequest, 'function')
    assert.equal(new ToolCallFilter().processInput, undefined)
  })
})
