// User code that runs in the middle of a filter call (a getter on a message, a
// `toJSON` on a model output) may call a filter again. The nested call must not
// disturb the buffers of the call it interrupts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadRelease } from './helpers/releases.mjs'

const release = await loadRelease('1.59.0')
const Reference = release.reference.ToolCallFilter
const Ours = release.ours.ToolCallFilter

const call = (id, toolName) => ({
  id,
  role: 'assistant',
  content: {
    format: 2,
    parts: [
      { type: 'text', text: `calling ${toolName}` },
      {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId: `${id}-call`, toolName, args: {}, result: { ok: true } },
        providerMetadata: { mastra: { modelOutput: [{ type: 'text', text: `${toolName} done` }, ''] } },
      },
    ],
  },
})

const args = (messages) => ({ messageList: { get: { all: { db: () => messages } } } })

/** A history whose first message runs `inner` whenever its content is read. */
function history(inner) {
  const messages = [call('m1', 'searchDatabase'), call('m2', 'getWeather'), call('m3', 'sendEmail')]
  const content = messages[0].content
  Object.defineProperty(messages[0], 'content', {
    enumerable: true,
    get() {
      inner()
      return content
    },
  })
  return messages
}

for (const options of [{ preserveModelOutput: true }, { exclude: ['getWeather'] }]) {
  test(`a filter called from a getter mid-call leaves the outer call intact (${JSON.stringify(options)})`, async () => {
    const innerMessages = () => [call('n1', 'sendEmail'), call('n2', 'other')]
    const innerOptions = { exclude: ['sendEmail'], preserveModelOutput: true }
    const run = async (Filter) => {
      const nested = []
      const inner = new Filter(innerOptions)
      const outer = new Filter(options)
      const result = await outer.processInput(args(history(() => nested.push(inner.processInput(args(innerMessages()))))))
      return { result, nested: await Promise.all(nested) }
    }
    const ours = await run(Ours)
    const reference = await run(Reference)
    // The reference reads `content` more often than ours, so the getter runs a
    // different number of times; every nested answer must still be the plain one.
    assert.deepEqual(ours.result, reference.result)
    assert.ok(ours.nested.length > 0, 'the getter ran')
    const alone = await new Reference(innerOptions).processInput(args(innerMessages()))
    for (const answer of ours.nested) assert.deepEqual(answer, alone)
    assert.equal(alone.length, 2)
  })
}
