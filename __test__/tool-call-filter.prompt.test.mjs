// ToolCallFilter as Mastra 1.60.0 and later have it: `processLLMRequest` filters
// the provider prompt of each model call. Hand-written prompts with literal
// expected answers, each also compared with the release's own filter.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { settle, assertSameOutcome } from './helpers/tool-call-filter-harness.mjs'
import { loadRelease } from './helpers/releases.mjs'

const HISTORY_KEY = '__toolCallFilterHistoryToolCallIds'

const system = { role: 'system', content: 'You are helpful.' }
const user = (text) => ({ role: 'user', content: [{ type: 'text', text }] })
const call = (toolCallId, toolName, input = {}) => ({ type: 'tool-call', toolCallId, toolName, input })
const result = (toolCallId, toolName, output, providerOptions) => ({
  type: 'tool-result',
  toolCallId,
  toolName,
  output,
  ...(providerOptions ? { providerOptions } : {}),
})
const text = (value) => ({ type: 'text', text: value })
const assistant = (...content) => ({ role: 'assistant', content })
const tool = (...content) => ({ role: 'tool', content })

/** A history: a database search, then an email, then the user asks again. */
function history() {
  return [
    system,
    user('Find order 42'),
    assistant(text('Searching.'), call('c1', 'searchDatabase', { query: 'order 42' })),
    tool(result('c1', 'searchDatabase', { type: 'json', value: { rows: [{ id: 42 }] } })),
    assistant(call('c2', 'sendEmail', { to: 'bob' })),
    tool(result('c2', 'sendEmail', { type: 'text', value: 'sent' }, { mastra: { modelOutput: 'email sent to bob' } })),
    user('And the weather?'),
  ]
}

/** The loop's own turn after the history: a weather call and its result. */
const weatherTurn = () => [assistant(call('c3', 'getWeather', { city: 'Paris' })), tool(result('c3', 'getWeather', { type: 'text', value: '18C' }))]

/** Runs the same calls through the release's filter and ours; returns the reference's answers and state. */
async function both(version, options, prompts) {
  const { reference, ours } = await loadRelease(version)
  const run = async (Filter) => {
    const filter = new Filter(options())
    const state = {}
    const answers = []
    for (const prompt of prompts()) answers.push(await settle(() => filter.processLLMRequest({ prompt, state })))
    return { answers, state }
  }
  const ref = await run(reference.ToolCallFilter)
  const got = await run(ours.ToolCallFilter)
  ref.answers.forEach((answer, i) => assertSameOutcome(got.answers[i], answer, `${version} call ${i}`))
  assert.deepStrictEqual(got.state, ref.state, `${version} state`)
  return { answers: ref.answers.map((answer) => answer.value), state: ref.state }
}

for (const version of ['1.60.0', '1.67.0', '1.71.0']) {
  describe(`ToolCallFilter on the prompt (${version})`, () => {
    test("new ToolCallFilter(): the history's calls go, the run's own stay", async () => {
      const first = history()
      const second = [...history(), ...weatherTurn()]
      const { answers, state } = await both(
        version,
        () => undefined,
        () => [first, second],
      )
      const withoutHistoryCalls = [system, user('Find order 42'), assistant(text('Searching.')), user('And the weather?')]
      assert.deepStrictEqual(answers[0], { prompt: withoutHistoryCalls })
      assert.deepStrictEqual(answers[1], { prompt: [...withoutHistoryCalls, ...weatherTurn()] })
      // The first prompt of the request is recorded as its history.
      assert.deepStrictEqual(state, { [HISTORY_KEY]: new Set(['c1', 'c2']) })
    })

    test("untouched messages are the caller's own objects; rewritten ones are new", async () => {
      const prompt = history()
      const { answers } = await both(
        version,
        () => undefined,
        () => [prompt],
      )
      const kept = answers[0].prompt
      assert.equal(kept[0], prompt[0])
      assert.equal(kept[1], prompt[1])
      assert.notEqual(kept[2], prompt[2])
      assert.equal(kept[2].content[0], prompt[2].content[0])
    })

    test("exclude: ['sendEmail'] removes that pair only", async () => {
      const { answers } = await both(
        version,
        () => ({ exclude: ['sendEmail'] }),
        () => [history()],
      )
      const expected = history()
      expected.splice(4, 2)
      assert.deepStrictEqual(answers[0], { prompt: expected })
    })

    test('a result naming an excluded tool takes its call along, and the reverse', async () => {
      const prompt = [user('x'), assistant(call('c1', 'renamedLater')), tool(result('c1', 'sendEmail', { type: 'text', value: 'ok' }))]
      const { answers } = await both(
        version,
        () => ({ exclude: ['sendEmail'] }),
        () => [prompt],
      )
      assert.deepStrictEqual(answers[0], { prompt: [user('x')] })
    })

    test('filterAfterToolSteps: 1 keeps the calls of the last assistant message with calls, history or run', async () => {
      const prompt = [...history(), ...weatherTurn()]
      const { answers, state } = await both(
        version,
        () => ({ filterAfterToolSteps: 1 }),
        () => [prompt],
      )
      assert.deepStrictEqual(answers[0], {
        prompt: [system, user('Find order 42'), assistant(text('Searching.')), user('And the weather?'), ...weatherTurn()],
      })
      assert.deepStrictEqual(state, {}, 'step filtering keeps nothing in state')
    })

    test('exclude: [] and a prompt without tool calls are handed back as they are (undefined)', async () => {
      const { answers, state } = await both(
        version,
        () => ({ exclude: [] }),
        () => [history()],
      )
      assert.deepStrictEqual(answers, [undefined])
      assert.deepStrictEqual(state, {}, 'an empty exclude list returns before recording the history')
      const plain = await both(
        version,
        () => undefined,
        () => [[system, user('hi')]],
      )
      assert.deepStrictEqual(plain.answers, [undefined])
    })

    test('preserveModelOutput: the removed pair leaves its text where the call was', async () => {
      const { answers } = await both(
        version,
        () => ({ preserveModelOutput: true }),
        () => [history()],
      )
      const searchText = version === '1.71.0' ? [] : [text('searchDatabase result:\n{"rows":[{"id":42}]}')]
      // The prompt's own output is the text: `toModelOutput` already shaped it.
      const emailText = text('sendEmail result:\nsent')
      assert.deepStrictEqual(answers[0], {
        prompt: [system, user('Find order 42'), assistant(text('Searching.'), ...searchText), assistant(emailText), user('And the weather?')],
      })
    })

    test('a provider-executed result without a call keeps its text in place', async () => {
      const prompt = [
        user('x'),
        assistant(text('looked it up'), result('p1', 'webSearch', { type: 'text', value: 'found' }, { mastra: { modelOutput: 'found' } })),
      ]
      const { answers } = await both(
        version,
        () => ({ preserveModelOutput: true }),
        () => [prompt],
      )
      assert.deepStrictEqual(answers[0], { prompt: [user('x'), assistant(text('looked it up'), text('webSearch result:\nfound'))] })
    })

    test('the message list is never read', async () => {
      const { ours } = await loadRelease(version)
      const untouchable = new Proxy({}, { get: () => assert.fail('the message list was read') })
      const answer = await new ours.ToolCallFilter().processLLMRequest({ prompt: history(), state: {}, messageList: untouchable })
      assert.equal(answer.prompt.length, 4)
    })

    test('malformed prompts and state: a TypeError where the reference throws one', async () => {
      const cases = {
        'a null part': () => [user('x'), assistant(text('a'), null)],
        'a null message': () => [user('x'), null],
        'content that is not an array': () => [user('x'), { role: 'tool', content: 5 }],
        'a prompt that is not an array': () => ({ 0: user('x'), length: 1 }),
        'a recorded history that is not a Set': () => history(),
      }
      for (const [name, prompt] of Object.entries(cases)) {
        const state = name.startsWith('a recorded') ? { [HISTORY_KEY]: ['c1'] } : {}
        const { reference, ours } = await loadRelease(version)
        const ref = await settle(() => new reference.ToolCallFilter().processLLMRequest({ prompt: prompt(), state: { ...state } }))
        const got = await settle(() => new ours.ToolCallFilter().processLLMRequest({ prompt: prompt(), state: { ...state } }))
        assert.ok(ref.threw && ref.error instanceof TypeError, `${name}: the reference throws a TypeError`)
        assertSameOutcome(got, ref, name)
      }
    })

    // From 1.68 ours may write the outputs of every result with its own model
    // output before it knows which go: a getter that throws on one that stays,
    // which the reference never reads, must not make the call throw.
    test('an output getter that throws on a result that stays fails nothing', async () => {
      const { reference, ours } = await loadRelease(version)
      const run = async (Filter) => {
        let armed = true
        const stays = result('c3', 'getWeather', { type: 'text', value: '18C' }, { mastra: { modelOutput: '18C' } })
        const output = stays.output
        Object.defineProperty(stays, 'output', {
          enumerable: true,
          get() {
            if (armed) throw new Error('the output of a result that stays was read')
            return output
          },
        })
        const filter = new Filter({ preserveModelOutput: true })
        const state = {}
        const answers = []
        for (const prompt of [history(), [...history(), assistant(call('c3', 'getWeather')), tool(stays)]]) {
          answers.push(await settle(() => filter.processLLMRequest({ prompt, state })))
        }
        // Compared unarmed: the comparison reads the part too.
        armed = false
        return answers
      }
      const ref = await run(reference.ToolCallFilter)
      const got = await run(ours.ToolCallFilter)
      assert.ok(!ref[1].threw, 'the reference does not read it')
      ref.forEach((answer, i) => assertSameOutcome(got[i], answer, `call ${i}`))
    })

    test('a model output that contains itself fails with an error where the reference overflows the stack', async () => {
      const output = { type: 'json' }
      output.value = output
      const prompt = () => [user('x'), assistant(call('c1', 'loop')), tool(result('c1', 'loop', output, { mastra: { modelOutput: 1 } }))]
      const { reference, ours } = await loadRelease(version)
      const ref = await settle(() => new reference.ToolCallFilter({ preserveModelOutput: true }).processLLMRequest({ prompt: prompt(), state: {} }))
      const got = await settle(() => new ours.ToolCallFilter({ preserveModelOutput: true }).processLLMRequest({ prompt: prompt(), state: {} }))
      assert.ok(ref.threw && ref.error instanceof RangeError, 'the reference overflows the stack')
      assert.ok(got.threw && got.error instanceof TypeError, String(got.error))
      assert.match(got.error.message, /contains itself or nests too deep/)
    })
  })
}
