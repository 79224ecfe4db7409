// ToolCallFilter as Mastra 1.59.0 has it (processInput / processInputStep on the
// message list): the documented examples with hand-written histories and literal
// expected outputs, each also compared with the reference, and a real MessageList.
//
// Mutation-testing hook: TCF_OURS=/abs/path/to/module.mjs replaces our class.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import {
  fakeList,
  abort,
  inputArgs,
  stepArgs,
  canon,
  assertSameValue,
  deepFreeze,
  settle,
  assertSameOutcome,
  filtersOf,
} from './helpers/tool-call-filter-harness.mjs'
import {
  D,
  U1,
  A2,
  T1,
  A3,
  A4,
  U2,
  docHistory,
  withContent,
  A1_NO_TOOLS,
  A1_PRESERVED,
  A3_NO_TOOLS,
  EXPECTED_EXCLUDE_ALL,
} from './helpers/message-list-fixtures.mjs'

const { release, RefFilter, OurFilter } = await filtersOf('1.59.0')
const { MessageList } = await release.importCore('agent')

/** Run the same scenario on both implementations and compare; returns the reference value. */
async function compareInput(options, buildMessages, ctx = 'processInput') {
  const ref = await settle(() => new RefFilter(options()).processInput(inputArgs(buildMessages())))
  const ours = await settle(() => new OurFilter(options()).processInput(inputArgs(buildMessages())))
  assertSameOutcome(ours, ref, ctx)
  return ref.value
}

describe('ToolCallFilter: documented examples (literal expectations)', () => {
  test('new ToolCallFilter(): excludes every tool call and result', async () => {
    const expected = EXPECTED_EXCLUDE_ALL()
    const ours = await new OurFilter().processInput(inputArgs(docHistory()))
    assert.ok(Array.isArray(ours), 'processInput must return a real Array')
    assertSameValue(ours, expected, 'ours vs literal')
    assertSameValue(await compareInput(() => undefined, docHistory), expected, 'ref vs literal')
    // `{}` and no argument behave the same
    assertSameValue(await new OurFilter({}).processInput(inputArgs(docHistory())), expected, 'ours({}) vs literal')
  })

  test("exclude: ['searchDatabase', 'sendEmail']", async () => {
    const expected = [U1(), A1_NO_TOOLS(), A3(), A4(), U2()]
    const opts = () => ({ exclude: ['searchDatabase', 'sendEmail'] })
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(docHistory())), expected, 'ours vs literal')
    assertSameValue(await compareInput(opts, docHistory), expected, 'ref vs literal')
  })

  test("exclude: ['searchDatabase'] (the agent example)", async () => {
    const expected = [U1(), A1_NO_TOOLS(), A2(), T1(), A3(), A4(), U2()]
    const opts = () => ({ exclude: ['searchDatabase'] })
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(docHistory())), expected, 'ours vs literal')
    assertSameValue(await compareInput(opts, docHistory), expected, 'ref vs literal')
  })

  test('exclude: [] keeps everything (returns the history unchanged)', async () => {
    const opts = () => ({ exclude: [] })
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(docHistory())), docHistory(), 'ours vs literal')
    assertSameValue(await compareInput(opts, docHistory), docHistory(), 'ref vs literal')
  })

  test('exclude by result only: a result whose call is elsewhere is removed by toolCallId', async () => {
    // the call part names a different tool than the result: the result goes because its id was
    // collected from an excluded invocation anywhere in the history
    const build = () => [
      {
        id: 'x1',
        role: 'assistant',
        createdAt: D(0),
        content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 'c9', toolName: 'sendEmail', args: {} } }] },
      },
      {
        id: 'x2',
        role: 'tool',
        createdAt: D(1),
        content: {
          format: 2,
          parts: [
            { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c9', toolName: 'renamed', args: {}, result: 1 } },
            { type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 'c9', toolName: 'renamed', args: {} } },
          ],
        },
      },
    ]
    const expected = [
      {
        id: 'x2',
        role: 'tool',
        createdAt: D(1),
        content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 'c9', toolName: 'renamed', args: {} } }] },
      },
    ]
    const opts = () => ({ exclude: ['sendEmail'] })
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(build())), expected, 'ours vs literal')
    assertSameValue(await compareInput(opts, build), expected, 'ref vs literal')
  })

  test("exclude + preserveModelOutput: a result before its excluded call keeps its model output; a kept result's is never read", async () => {
    // The result comes first and names another tool: only the call after it
    // says it goes, so its model output is read once the walk has seen that.
    // A result that stays has its providerMetadata read by neither filter.
    const kept = (throwing) => {
      const part = { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c8', toolName: 'weather', args: {}, result: 2 } }
      if (!throwing) return { ...part, providerMetadata: { mastra: { modelOutput: 'never text' } } }
      return Object.defineProperty(part, 'providerMetadata', {
        enumerable: false,
        get() {
          throw new Error("a kept result's providerMetadata was read")
        },
      })
    }
    const build = (throwing = false) => [
      {
        id: 'x1',
        role: 'tool',
        createdAt: D(0),
        content: {
          format: 2,
          parts: [
            {
              type: 'tool-invocation',
              toolInvocation: { state: 'result', toolCallId: 'c9', toolName: 'renamed', args: {}, result: 1 },
              providerMetadata: { mastra: { modelOutput: { type: 'text', value: 'saved' } } },
            },
            kept(throwing),
          ],
        },
      },
      {
        id: 'x2',
        role: 'assistant',
        createdAt: D(1),
        content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 'c9', toolName: 'sendEmail', args: {} } }] },
      },
    ]
    const opts = () => ({ exclude: ['sendEmail'], preserveModelOutput: true })
    const expected = [{ ...build()[0], content: { format: 2, parts: [{ type: 'text', text: 'renamed result:\nsaved' }, kept(false)] } }]
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(build())), expected, 'ours vs literal')
    assertSameValue(await compareInput(opts, build), expected, 'ref vs literal')
    for (const Filter of [RefFilter, OurFilter]) {
      const [message] = await new Filter(opts()).processInput(inputArgs(build(true)))
      assert.equal(message.content.parts[1].toolInvocation.toolCallId, 'c8')
    }
  })

  test('preserveModelOutput: true keeps the stored model output of completed results as text', async () => {
    const expected = [
      U1(),
      A1_PRESERVED(),
      // A2 (a bare call) is dropped; T1's result had a stored modelOutput
      withContent(T1(), { format: 2, parts: [{ type: 'text', text: 'sendEmail result:\nsent to bob@example.com' }] }),
      // no stored modelOutput: removed like any other result, top-level text keeps the message
      A3_NO_TOOLS(),
      A4(),
      U2(),
    ]
    const opts = () => ({ preserveModelOutput: true })
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(docHistory())), expected, 'ours vs literal')
    assertSameValue(await compareInput(opts, docHistory), expected, 'ref vs literal')
  })

  test("exclude: ['searchDatabase'] + preserveModelOutput: true", async () => {
    const expected = [U1(), A1_PRESERVED(), A2(), T1(), A3(), A4(), U2()]
    const opts = () => ({ exclude: ['searchDatabase'], preserveModelOutput: true })
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(docHistory())), expected, 'ours vs literal')
    assertSameValue(await compareInput(opts, docHistory), expected, 'ref vs literal')
  })

  test('preserveModelOutput: false / absent never preserves', async () => {
    for (const opts of [() => ({ preserveModelOutput: false }), () => ({ preserveModelOutput: undefined })]) {
      assertSameValue(await new OurFilter(opts()).processInput(inputArgs(docHistory())), EXPECTED_EXCLUDE_ALL(), 'ours vs literal')
      assertSameValue(await compareInput(opts, docHistory), EXPECTED_EXCLUDE_ALL(), 'ref vs literal')
    }
  })

  test('processInput reads messageList.get.all.db(), not args.messages', async () => {
    for (const Impl of [OurFilter, RefFilter]) {
      const out = await new Impl().processInput({ messages: [U2()], messageList: fakeList(docHistory()), abort })
      assertSameValue(out, EXPECTED_EXCLUDE_ALL(), Impl === OurFilter ? 'ours' : 'ref')
    }
  })

  test('processInputStep without filterAfterToolSteps returns {} and touches neither messageList nor state', async () => {
    const poisoned = {
      get get() {
        throw new Error('messageList must not be read when step filtering is off')
      },
    }
    for (const Impl of [OurFilter, RefFilter]) {
      for (const opts of [undefined, {}, { exclude: ['sendEmail'] }, { preserveModelOutput: true }, { filterAfterToolSteps: undefined }]) {
        const state = Object.freeze({})
        const r = await new Impl(opts).processInputStep({ messages: docHistory(), messageList: poisoned, state, stepNumber: 1, steps: [], abort })
        assertSameValue(r, {}, `${Impl === OurFilter ? 'ours' : 'ref'} ${JSON.stringify(opts)}`)
      }
    }
  })

  // --- step filtering --------------------------------------------------------------------

  const R1 = () => ({
    id: 'r1',
    role: 'assistant',
    createdAt: D(10),
    threadId: 'thread-1',
    content: {
      format: 2,
      parts: [
        { type: 'step-start' },
        {
          type: 'tool-invocation',
          toolInvocation: { state: 'result', toolCallId: 'call-s1', toolName: 'getWeather', args: { city: 'Paris' }, result: { tempC: 18 } },
          providerMetadata: { mastra: { modelOutput: { type: 'text', value: 'Paris: 18C' } } },
        },
      ],
    },
  })
  const R2 = () => ({
    id: 'r2',
    role: 'assistant',
    createdAt: D(11),
    threadId: 'thread-1',
    content: {
      format: 2,
      parts: [
        { type: 'step-start' },
        {
          type: 'tool-invocation',
          toolInvocation: { state: 'result', toolCallId: 'call-s2a', toolName: 'searchDatabase', args: { query: 'paris' }, result: { rows: [] } },
        },
        {
          type: 'tool-invocation',
          toolInvocation: { state: 'result', toolCallId: 'call-s2b', toolName: 'getWeather', args: { city: 'Lyon' }, result: { tempC: 16 } },
        },
      ],
    },
  })
  const R3 = () => ({
    id: 'r3',
    role: 'assistant',
    createdAt: D(12),
    threadId: 'thread-1',
    content: {
      format: 2,
      parts: [
        { type: 'step-start' },
        {
          type: 'tool-invocation',
          toolInvocation: { state: 'result', toolCallId: 'call-s3', toolName: 'sendEmail', args: { to: 'bob' }, result: { sent: true } },
        },
        { type: 'text', text: 'Sending.' },
      ],
    },
  })
  const stripTools = (m) => ({ ...m, content: { ...m.content, parts: m.content.parts.filter((p) => p.type !== 'tool-invocation') } })

  /** the agent loop: step 0 has no response yet; each later step adds a response message */
  const stepInputs = () => {
    const H = EXPECTED_EXCLUDE_ALL() // what processInput left in the list
    return [
      { all: [...H], response: [] },
      { all: [...H, R1()], response: [R1()] },
      { all: [...H, R1(), R2()], response: [R1(), R2()] },
      { all: [...H, R1(), R2(), R3()], response: [R1(), R2(), R3()] },
      // a step without new tool calls still counts as a step
      { all: [...H, R1(), R2(), R3()], response: [R1(), R2(), R3()] },
    ]
  }

  async function runSteps(Impl, options, inputs = stepInputs()) {
    const filter = new Impl(options)
    const state = {}
    const out = []
    for (const [i, s] of inputs.entries()) {
      const result = await filter.processInputStep(stepArgs(s.all, s.response, state, { stepNumber: i }))
      out.push({ result, state: structuredClone(state) })
    }
    return out
  }

  test('filterAfterToolSteps: 2 also filters the initial history in processInput (exclude defaults to all)', async () => {
    const opts = () => ({ filterAfterToolSteps: 2 })
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(docHistory())), EXPECTED_EXCLUDE_ALL(), 'ours vs literal')
    assertSameValue(await compareInput(opts, docHistory), EXPECTED_EXCLUDE_ALL(), 'ref vs literal')
  })

  test('filterAfterToolSteps: 2 keeps the tool calls of the two most recent steps', async () => {
    const H = EXPECTED_EXCLUDE_ALL()
    const expected = [
      { result: { messages: [...H] }, state: { toolCallFilterSeenToolCallIds: [], toolCallFilterStepToolCallIds: [[]] } },
      {
        result: { messages: [...H, R1()] },
        state: { toolCallFilterSeenToolCallIds: ['call-s1'], toolCallFilterStepToolCallIds: [[], ['call-s1']] },
      },
      {
        result: { messages: [...H, R1(), R2()] },
        state: {
          toolCallFilterSeenToolCallIds: ['call-s1', 'call-s2a', 'call-s2b'],
          toolCallFilterStepToolCallIds: [[], ['call-s1'], ['call-s2a', 'call-s2b']],
        },
      },
      {
        // call-s1 is now three tool steps back: removed; r1 keeps its step-start part
        result: { messages: [...H, stripTools(R1()), R2(), R3()] },
        state: {
          toolCallFilterSeenToolCallIds: ['call-s1', 'call-s2a', 'call-s2b', 'call-s3'],
          toolCallFilterStepToolCallIds: [[], ['call-s1'], ['call-s2a', 'call-s2b'], ['call-s3']],
        },
      },
      {
        // the empty step pushed call-s2a/b out of the window
        result: { messages: [...H, stripTools(R1()), stripTools(R2()), R3()] },
        state: {
          toolCallFilterSeenToolCallIds: ['call-s1', 'call-s2a', 'call-s2b', 'call-s3'],
          toolCallFilterStepToolCallIds: [[], ['call-s1'], ['call-s2a', 'call-s2b'], ['call-s3'], []],
        },
      },
    ]
    assertSameValue(await runSteps(OurFilter, { filterAfterToolSteps: 2 }), expected, 'ours vs literal')
    assertSameValue(await runSteps(RefFilter, { filterAfterToolSteps: 2 }), expected, 'ref vs literal')
  })

  test('filterAfterToolSteps: 0 removes every past tool call at each step (state is still recorded)', async () => {
    const H = EXPECTED_EXCLUDE_ALL()
    const expectedMessages = [
      [...H],
      [...H, stripTools(R1())],
      [...H, stripTools(R1()), stripTools(R2())],
      [...H, stripTools(R1()), stripTools(R2()), stripTools(R3())],
    ]
    // R2 without tool parts keeps its step-start; R3 keeps step-start + text
    const ours = await runSteps(OurFilter, { filterAfterToolSteps: 0 })
    const ref = await runSteps(RefFilter, { filterAfterToolSteps: 0 })
    for (let i = 0; i < 4; i++) {
      assertSameValue(ours[i].result, { messages: expectedMessages[i] }, `ours step ${i}`)
      assertSameValue(ref[i].result, { messages: expectedMessages[i] }, `ref step ${i}`)
    }
    assertSameValue(ours, ref, 'ours vs ref (all steps + state)')
    assertSameValue(ours.at(-1).state, {
      toolCallFilterSeenToolCallIds: ['call-s1', 'call-s2a', 'call-s2b', 'call-s3'],
      toolCallFilterStepToolCallIds: [[], ['call-s1'], ['call-s2a', 'call-s2b'], ['call-s3'], []],
    })
  })

  test('filterAfterToolSteps: 0 + preserveModelOutput turns old results into text', async () => {
    const H = EXPECTED_EXCLUDE_ALL()
    const r1Preserved = withContent(R1(), { format: 2, parts: [{ type: 'step-start' }, { type: 'text', text: 'getWeather result:\nParis: 18C' }] })
    const opts = { filterAfterToolSteps: 0, preserveModelOutput: true }
    const ours = await runSteps(OurFilter, opts)
    const ref = await runSteps(RefFilter, opts)
    assertSameValue(ours[1].result, { messages: [...H, r1Preserved] }, 'ours step 1')
    assertSameValue(ref[1].result, { messages: [...H, r1Preserved] }, 'ref step 1')
    assertSameValue(ours, ref, 'ours vs ref')
  })

  test("filterAfterToolSteps: 1 with exclude: ['getWeather'] only drops old getWeather calls", async () => {
    const opts = { filterAfterToolSteps: 1, exclude: ['getWeather'] }
    const ours = await runSteps(OurFilter, opts)
    const ref = await runSteps(RefFilter, opts)
    const H = EXPECTED_EXCLUDE_ALL()
    const r2NoWeather = withContent(R2(), { format: 2, parts: R2().content.parts.filter((p) => p.toolInvocation?.toolName !== 'getWeather') })
    assertSameValue(ours[2].result, { messages: [...H, stripTools(R1()), R2()] }, 'ours step 2')
    assertSameValue(ours[3].result, { messages: [...H, stripTools(R1()), r2NoWeather, R3()] }, 'ours step 3')
    assertSameValue(ours, ref, 'ours vs ref')
  })

  test('a step that throws in the middle of the history leaves nothing of its kept steps to the next call', async () => {
    const part = (toolCallId, toolName) => ({ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId, toolName, args: {}, result: 1 } })
    const message = (id, ...parts) => ({ id, role: 'assistant', createdAt: D(0), content: { format: 2, parts } })
    const throwing = { type: 'tool-invocation' }
    Object.defineProperty(throwing, 'toolInvocation', {
      get() {
        throw new Error('toolInvocation')
      },
    })
    // The kept steps hold `a` and `b`, interned first; the walk then throws.
    const state = () => ({ toolCallFilterSeenToolCallIds: ['a', 'b'], toolCallFilterStepToolCallIds: [['a', 'b']] })
    const first = [message('x1', part('a', 't')), message('x2', throwing)]
    const second = () => {
      const response = [message('r1', part('n', 't'))]
      // `z` is interned second here, where `b` was: it goes all the same.
      return [[message('h1', part('z', 't')), ...response], response]
    }
    const outcomes = []
    for (const Filter of [RefFilter, OurFilter]) {
      await assert.rejects(new Filter({ filterAfterToolSteps: 2 }).processInputStep(stepArgs(first, [], state())), /toolInvocation/)
      const [all, response] = second()
      outcomes.push(await new Filter({ exclude: ['t'], filterAfterToolSteps: 2 }).processInputStep(stepArgs(all, response, {})))
    }
    assertSameValue(outcomes[1], outcomes[0], 'ours vs reference')
    assert.deepEqual(
      outcomes[1].messages.map((m) => m.id),
      ['r1'],
    )
  })

  test('the step history lives in args.state: one instance can serve interleaved runs', async () => {
    const inputs = stepInputs()
    const run = async (Impl) => {
      const shared = new Impl({ filterAfterToolSteps: 1 })
      const a = {}
      const b = { unrelated: { keep: true } }
      const out = []
      // run A advances three steps, run B one step, then A continues on a NEW instance
      for (let i = 0; i < 3; i++) out.push(await shared.processInputStep(stepArgs(inputs[i].all, inputs[i].response, a)))
      out.push(await shared.processInputStep(stepArgs(inputs[3].all, inputs[3].response, b)))
      const fresh = new Impl({ filterAfterToolSteps: 1 })
      out.push(await fresh.processInputStep(stepArgs(inputs[3].all, inputs[3].response, a)))
      // state restored from JSON still works
      const restored = JSON.parse(JSON.stringify(a))
      out.push(await fresh.processInputStep(stepArgs(inputs[4].all, inputs[4].response, restored)))
      // concurrent calls on one instance with different states
      const c = {}
      const d = {}
      out.push(
        ...(await Promise.all([
          shared.processInputStep(stepArgs(inputs[1].all, inputs[1].response, c)),
          shared.processInputStep(stepArgs(inputs[2].all, inputs[2].response, d)),
        ])),
      )
      return { out, a, b, restored, c, d }
    }
    const ours = await run(OurFilter)
    const ref = await run(RefFilter)
    assertSameValue(ours, ref, 'interleaved runs')
    assert.deepStrictEqual(ours.b, {
      unrelated: { keep: true },
      toolCallFilterSeenToolCallIds: ['call-s1', 'call-s2a', 'call-s2b', 'call-s3'],
      toolCallFilterStepToolCallIds: [['call-s1', 'call-s2a', 'call-s2b', 'call-s3']],
    })
  })

  test('pre-seeded state (e.g. restored from storage) is honoured', async () => {
    const inputs = stepInputs()
    const run = async (Impl) => {
      const state = {
        toolCallFilterSeenToolCallIds: ['call-s1', 'old-1'],
        toolCallFilterStepToolCallIds: [['old-1'], ['call-s1']],
      }
      const r = await new Impl({ filterAfterToolSteps: 1 }).processInputStep(stepArgs(inputs[2].all, inputs[2].response, state))
      return { r, state }
    }
    const ours = await run(OurFilter)
    assertSameValue(ours, await run(RefFilter), 'pre-seeded')
    assert.deepStrictEqual(ours.state, {
      toolCallFilterSeenToolCallIds: ['call-s1', 'old-1', 'call-s2a', 'call-s2b'],
      toolCallFilterStepToolCallIds: [['old-1'], ['call-s1'], ['call-s2a', 'call-s2b']],
    })
  })

  test('the legacy content.toolInvocations array is filtered alongside the parts', async () => {
    const build = () => [
      {
        id: 'l1',
        role: 'assistant',
        createdAt: D(0),
        content: {
          format: 2,
          parts: [
            { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'k1', toolName: 'searchDatabase', args: {}, result: 1 } },
            { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'k2', toolName: 'getWeather', args: {}, result: 2 } },
          ],
          toolInvocations: [
            { state: 'result', toolCallId: 'k1', toolName: 'searchDatabase', args: {}, result: 1 },
            { state: 'result', toolCall: { id: 'k2' }, toolName: 'getWeather', args: {}, result: 2 },
            { state: 'result', toolCallId: 'k3', toolName: 'other', args: {}, result: 3 },
          ],
          content: 'top',
          metadata: { tag: 'x' },
        },
      },
    ]
    const specific = [
      {
        id: 'l1',
        role: 'assistant',
        createdAt: D(0),
        content: {
          format: 2,
          parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'k2', toolName: 'getWeather', args: {}, result: 2 } }],
          content: 'top',
          metadata: { tag: 'x' },
          toolInvocations: [
            { state: 'result', toolCall: { id: 'k2' }, toolName: 'getWeather', args: {}, result: 2 },
            { state: 'result', toolCallId: 'k3', toolName: 'other', args: {}, result: 3 },
          ],
        },
      },
    ]
    assertSameValue(await compareInput(() => ({ exclude: ['searchDatabase'] }), build), specific, 'exclude searchDatabase')
    const all = [{ id: 'l1', role: 'assistant', createdAt: D(0), content: { format: 2, parts: [], content: 'top', metadata: { tag: 'x' } } }]
    assertSameValue(await compareInput(() => ({}), build), all, 'exclude all')
  })

  test("an inherited content.content is read only of a message whose parts all go, and decides as the release's", async () => {
    // A `content` getter up the prototype chain: the release reads it only to
    // drop a message left without parts, and with an exclude list checks its
    // copy of the content again, which lacks it.
    const reads = { count: 0 }
    const withInherited = (text, parts) => {
      const proto = {
        get content() {
          reads.count++
          if (text === null) throw new Error('an inherited content.content was read')
          return text
        },
      }
      return Object.assign(Object.create(proto), { format: 2, parts })
    }
    const call = (id) => ({ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: id, toolName: 'getWeather', args: {} } })
    const build = () => [
      // Keeps a text part: never read (the getter throws).
      { id: 'i1', role: 'assistant', createdAt: D(0), content: withInherited(null, [{ type: 'text', text: 'hi' }, call('c1')]) },
      // Emptied: read; its text keeps it without an exclude list.
      { id: 'i2', role: 'assistant', createdAt: D(1), content: withInherited('inherited', [call('c2')]) },
      { id: 'i3', role: 'assistant', createdAt: D(2), content: withInherited(' ', [call('c3')]) },
    ]
    const counted = async (Filter, options) => {
      reads.count = 0
      const out = await new Filter(options).processInput(inputArgs(build()))
      return { ids: out.map((m) => m.id), parts: out.map((m) => m.content.parts.length), reads: reads.count }
    }
    for (const options of [() => ({}), () => ({ exclude: ['getWeather'] })]) {
      const ref = await counted(RefFilter, options())
      assert.deepEqual(await counted(OurFilter, options()), ref, JSON.stringify(options()))
    }
    assert.deepEqual(await counted(OurFilter, {}), { ids: ['i1', 'i2'], parts: [1, 0], reads: 2 })
    assert.deepEqual(await counted(OurFilter, { exclude: ['getWeather'] }), { ids: ['i1'], parts: [1], reads: 2 })
  })

  test('the legacy content.toolInvocations of a message dropped whole is never read', async () => {
    // The release reads the legacy list only of a message it keeps: a list
    // whose getter throws is harmless on a message that goes, in processInput
    // and in an agent-loop step whose kept step holds another call.
    const throwing = (parts) =>
      Object.defineProperty({ format: 2, parts }, 'toolInvocations', {
        enumerable: true,
        get() {
          throw new Error('the legacy list of a dropped message was read')
        },
      })
    const result = (id, toolName) => ({ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: id, toolName, args: {}, result: 1 } })
    const build = () => [
      { id: 'd1', role: 'assistant', createdAt: D(0), content: throwing([result('c1', 'getWeather')]) },
      {
        id: 'd2',
        role: 'assistant',
        createdAt: D(1),
        content: { format: 2, parts: [{ type: 'text', text: 'kept' }, result('c2', 'other')], toolInvocations: [result('c2', 'other').toolInvocation] },
      },
    ]
    for (const options of [() => ({}), () => ({ exclude: ['getWeather'] })]) {
      const out = await compareInput(options, build, JSON.stringify(options()))
      assert.deepEqual(
        out.map((m) => m.id),
        ['d2'],
      )
    }
    const step = async (Filter) => {
      const messages = build()
      const response = [messages[1]]
      const out = await new Filter({ filterAfterToolSteps: 1 }).processInputStep(stepArgs(messages, response, {}, { stepNumber: 0 }))
      return out.messages.map((m) => [m.id, m.content.parts.length, m.content.toolInvocations?.length])
    }
    assert.deepEqual(await step(OurFilter), await step(RefFilter))
    assert.deepEqual(await step(OurFilter), [['d2', 2, 1]])
  })

  test('top-level text decides whether an emptied message survives (JS trim semantics)', async () => {
    // JS trim() strips U+FEFF and U+2028 but not U+0085, U+180E or U+200B (Rust's trim differs)
    const texts = ['', ' ', '\t\n', '\ufeff', '\u2028\u3000', '\u00a0', '\u0085', '\u180e', '\u200b', 'x', ' x ']
    const build = () =>
      texts.map((t, i) => ({
        id: `m${i}`,
        role: 'assistant',
        createdAt: D(i),
        content: {
          format: 2,
          parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: `c${i}`, toolName: 'getWeather', args: {} } }],
          content: t,
        },
      }))
    const survivors = ['\u0085', '\u180e', '\u200b', 'x', ' x ']
    for (const opts of [() => ({}), () => ({ exclude: ['getWeather'] })]) {
      const out = await compareInput(opts, build, JSON.stringify(opts()))
      assert.deepStrictEqual(
        out.map((m) => m.content.content),
        survivors,
      )
    }
  })

  test('lone surrogates in ids and names stay distinct (no lossy UTF-8 round trip)', async () => {
    // '\ud800' and '\udc00' both become U+FFFD through a lossy UTF-8 conversion
    const inv = (id, state, toolName, toolCallId) => ({
      id,
      role: 'assistant',
      createdAt: D(0),
      content: {
        format: 2,
        parts: [{ type: 'tool-invocation', toolInvocation: { state, toolCallId, toolName, args: {}, ...(state === 'result' ? { result: 1 } : {}) } }],
      },
    })
    const build = () => [
      inv('a', 'call', 'tool\ud800', 'id\ud800'),
      inv('b', 'result', 'other', 'id\udc00'),
      inv('c', 'call', 'tool\udc00', 'id\ufffd'),
      inv('d', 'result', 'other', 'id\ud800'),
      inv('e', 'result', 'other', 'id\ufffd'),
    ]
    const expected = [build()[1], build()[2], build()[4]]
    const opts = () => ({ exclude: ['tool\ud800'] })
    assertSameValue(await new OurFilter(opts()).processInput(inputArgs(build())), expected, 'ours vs literal')
    assertSameValue(await compareInput(opts, build), expected, 'ref vs literal')
    // step window: only 'id\ud800' is recent, so 'id\udc00' / 'id\ufffd' go
    const run = async (Impl) => {
      const state = { toolCallFilterSeenToolCallIds: ['id\udc00', 'id\ufffd'], toolCallFilterStepToolCallIds: [['id\udc00', 'id\ufffd']] }
      const all = build()
      const r = await new Impl({ filterAfterToolSteps: 1 }).processInputStep(stepArgs(all, [all[0]], state))
      return { ids: r.messages.map((m) => m.id), state }
    }
    const ours = await run(OurFilter)
    assertSameValue(ours, await run(RefFilter), 'steps')
    assert.deepStrictEqual(ours.ids, ['a', 'd'])
    assert.equal(ours.state.toolCallFilterStepToolCallIds.length, 2)
  })

  test('inputs are not mutated and frozen inputs are fine', async () => {
    const configs = [
      {},
      { exclude: ['searchDatabase'] },
      { preserveModelOutput: true },
      { exclude: ['sendEmail'], preserveModelOutput: true },
      { filterAfterToolSteps: 1 },
    ]
    for (const opts of configs) {
      for (const Impl of [OurFilter, RefFilter]) {
        const msgs = deepFreeze(docHistory())
        const options = deepFreeze(structuredClone(opts))
        const f = new Impl(options)
        await f.processInput(inputArgs(msgs))
        const state = {}
        await f.processInputStep(stepArgs(msgs, deepFreeze([R1()]), state))
        assertSameValue(msgs, docHistory(), `${Impl === OurFilter ? 'ours' : 'ref'} ${JSON.stringify(opts)}`)
      }
    }
  })
})

describe('ToolCallFilter: with a real MessageList', () => {
  const aiSdkHistory = () => [
    { role: 'user', content: 'Find order 42 and the weather' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool-call', toolCallId: 'c-search', toolName: 'searchDatabase', input: { q: 'order 42' } },
        { type: 'tool-call', toolCallId: 'c-weather', toolName: 'getWeather', input: { city: 'Tokyo' } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c-search', toolName: 'searchDatabase', output: { type: 'json', value: { rows: [42] } } },
        { type: 'tool-result', toolCallId: 'c-weather', toolName: 'getWeather', output: { type: 'text', value: '21C' } },
      ],
    },
    { role: 'assistant', content: 'Order 42 found; 21C in Tokyo.' },
  ]

  function buildList() {
    const ml = new MessageList({ threadId: 'thread-1', resourceId: 'user-1' })
    ml.add(aiSdkHistory(), 'memory')
    ml.add({ role: 'user', content: 'And Paris?' }, 'input')
    return ml
  }

  const toolNames = (msgs) =>
    msgs.flatMap((m) => m.content.parts.filter((p) => p.type === 'tool-invocation').map((p) => `${p.toolInvocation.toolName}:${p.toolInvocation.state}`))

  test('processInput on MessageList-built messages matches the reference', async () => {
    for (const opts of [undefined, { exclude: ['searchDatabase'] }, { exclude: ['getWeather'], preserveModelOutput: true }, { exclude: [] }]) {
      const refList = buildList()
      const ourList = buildList()
      const before = ourList.get.all.db()
      const beforeCanon = canon(before.map((m) => ({ ...m, id: 'x', createdAt: 0 })))
      const ref = await new RefFilter(opts).processInput({ messages: refList.get.all.db(), messageList: refList, abort })
      const ours = await new OurFilter(opts).processInput({ messages: ourList.get.all.db(), messageList: ourList, abort })
      // MessageList assigns random ids and timestamps: compare with ours' ids mapped to ref's by position
      const idMap = new Map(ourList.get.all.db().map((m, i) => [m.id, refList.get.all.db()[i].id]))
      const normalise = (msgs) =>
        msgs.map((m) => ({
          ...m,
          id: idMap.get(m.id) ?? m.id,
          createdAt: 0,
          content: { ...m.content, parts: m.content.parts.map((p) => (p && typeof p === 'object' && 'createdAt' in p ? { ...p, createdAt: 0 } : p)) },
        }))
      assertSameValue(normalise(ours), normalise(ref), `opts ${JSON.stringify(opts)}`)
      // processInput does not change the list itself
      assert.equal(canon(ourList.get.all.db().map((m) => ({ ...m, id: 'x', createdAt: 0 }))), beforeCanon)
      if (opts === undefined) assert.deepStrictEqual(toolNames(ours), [])
      // memory messages keep the call and the result in separate messages
      if (opts?.exclude?.[0] === 'searchDatabase') assert.deepStrictEqual(toolNames(ours), ['getWeather:call', 'getWeather:result'])
    }
  })

  test('processInputStep reads get.response.db() of a real MessageList across steps', async () => {
    const run = async (Impl) => {
      const ml = buildList()
      const f = new Impl({ filterAfterToolSteps: 1 })
      const state = {}
      const results = []
      const responses = [
        null,
        [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 's1', toolName: 'getWeather', input: { city: 'Paris' } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 's1', toolName: 'getWeather', output: { type: 'text', value: '18C' } }] },
        ],
        [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 's2', toolName: 'searchDatabase', input: { q: 'paris' } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 's2', toolName: 'searchDatabase', output: { type: 'json', value: [] } }] },
        ],
      ]
      for (const [i, r] of responses.entries()) {
        if (r) ml.add(r, 'response')
        const out = await f.processInputStep({ messages: ml.get.all.db(), messageList: ml, state, stepNumber: i, steps: [], systemMessages: [], abort })
        results.push({ tools: toolNames(out.messages), count: out.messages.length, roles: out.messages.map((m) => m.role) })
      }
      return { results, state }
    }
    const ours = await run(OurFilter)
    const ref = await run(RefFilter)
    assertSameValue(ours, ref, 'steps over MessageList')
    assert.deepStrictEqual(
      ours.results.map((r) => r.tools),
      [[], ['getWeather:result'], ['searchDatabase:result']],
    )
    assert.deepStrictEqual(ours.state, { toolCallFilterSeenToolCallIds: ['s1', 's2'], toolCallFilterStepToolCallIds: [[], ['s1'], ['s2']] })
  })
})
