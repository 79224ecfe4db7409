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

// The prompt filter keeps, between the answer that asks for result outputs and
// the call that brings them, what it read of the prompt. A getter on an output
// that calls a filter again replaces it: the outer call must read its prompt
// again, not answer from the nested one's.
for (const version of ['1.60.0', '1.71.0']) {
  test(`the same prompt filter called from an output getter mid-call still answers its own prompt (${version})`, async () => {
    const { reference, ours } = await loadRelease(version)
    const own = (modelOutput) => ({ providerOptions: { mastra: { modelOutput } } })
    const pair = (id, toolName, output) => [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName, output, ...own(output) }] },
    ]
    const innerPrompt = () => [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, ...pair('n1', 'sendEmail', { type: 'text', value: 'inner' })]
    const outerPrompt = (onRead) => {
      const prompt = [...pair('o1', 'searchDatabase', { type: 'text', value: 'first' }), ...pair('o2', 'getWeather', { type: 'text', value: 'second' })]
      const part = prompt[1].content[0]
      const output = part.output
      Object.defineProperty(part, 'output', {
        enumerable: true,
        get() {
          onRead()
          return output
        },
      })
      return prompt
    }
    const run = async (Filter) => {
      const filter = new Filter({ preserveModelOutput: true })
      const nested = []
      const result = await filter.processLLMRequest({
        prompt: outerPrompt(() => nested.push(filter.processLLMRequest({ prompt: innerPrompt(), state: {} }))),
        state: {},
      })
      return { result, nested: await Promise.all(nested) }
    }
    const theirs = await run(reference.ToolCallFilter)
    const mine = await run(ours.ToolCallFilter)
    assert.ok(mine.nested.length > 0, 'the getter ran')
    assert.deepEqual(mine.result, theirs.result)
    const alone = await new reference.ToolCallFilter({ preserveModelOutput: true }).processLLMRequest({ prompt: innerPrompt(), state: {} })
    for (const answer of mine.nested) assert.deepEqual(answer, alone)
    assert.equal(mine.result.prompt.length, 2)
  })
}
