// Parity tests: our ToolCallFilter vs @mastra/core@1.59.0's (the oracle).
//
// Three layers:
//   1. documented examples with hand-written histories and LITERAL expected outputs
//      (plus equality with the reference),
//   2. a seeded differential test (6,000 random cases; processInput + multi-step
//      processInputStep with shared `state`), reproducible from the printed seed,
//   3. bad-input tests: where the reference throws, ours must throw a TypeError; where the
//      reference returns, ours must return the same thing.
//
// Run: cd /work/main && node --test __test__/tool-call-filter*.test.mjs
// Replay one random case: TCF_SEED=<seed> TCF_CASE=<n> node --test __test__/tool-call-filter.test.mjs
// Mutation-testing hook: TCF_OURS=/abs/path/to/module.mjs replaces '../index.mjs' (default).

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

import { createRng, deriveSeed } from './helpers/random.mjs'
import { loadRelease } from './helpers/releases.mjs'

const release = await loadRelease('1.59.0')
const RefFilter = release.reference.ToolCallFilter
const { MessageList } = await release.importCore('agent')
const OurFilter = process.env.TCF_OURS
  ? (await import(pathToFileURL(process.env.TCF_OURS).href)).ToolCallFilter
  : release.ours.ToolCallFilter

// ---------------------------------------------------------------------------------------
// shared helpers
// ---------------------------------------------------------------------------------------

/** The fake MessageList shape the processor reads. */
function fakeList(all, response = []) {
  return { get: { all: { db: () => all }, response: { db: () => response } } }
}

const abort = (reason) => {
  throw new Error(`abort called: ${reason}`)
}

function inputArgs(all, { messages = all } = {}) {
  return { messages, messageList: fakeList(all), abort, requestContext: undefined }
}

function stepArgs(all, response, state, { stepNumber = 0, messages = all } = {}) {
  return {
    messages,
    messageList: fakeList(all, response),
    state,
    stepNumber,
    steps: [],
    systemMessages: [],
    retryCount: 0,
    abort,
  }
}

/**
 * Run fn and classify the outcome. Methods must return a thenable (the reference methods
 * are `async`, so they never throw synchronously); a synchronous throw or a non-thenable
 * return is recorded and rejected by assertSameOutcome.
 */
async function settle(fn, { expectThenable = true } = {}) {
  let ret
  try {
    ret = fn()
  } catch (error) {
    return { threw: true, sync: true, error }
  }
  if (!expectThenable) return { threw: false, value: ret }
  if (ret === null || (typeof ret !== 'object' && typeof ret !== 'function') || typeof ret.then !== 'function') {
    return { threw: false, notThenable: true, value: ret }
  }
  try {
    return { threw: false, value: await ret }
  } catch (error) {
    return { threw: true, error }
  }
}

/**
 * Serialize a value keeping own-key ORDER, holes, -0, NaN, bigint, undefined-valued keys,
 * prototypes and cycles. deepStrictEqual ignores key order; this catches a native
 * implementation that rebuilds objects with keys in a different order (observable in
 * JSON.stringify of the returned messages, e.g. when they are persisted).
 */
function canon(value) {
  const seen = new Map()
  const walk = (v) => {
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v)
      case 'number':
        return Object.is(v, -0) ? '-0' : String(v)
      case 'bigint':
        return `${v}n`
      case 'boolean':
        return String(v)
      case 'undefined':
        return 'undefined'
      case 'symbol':
        return v.toString()
      case 'function':
        return `fn:${v.name}`
    }
    if (v === null) return 'null'
    if (seen.has(v)) return `#${seen.get(v)}`
    seen.set(v, seen.size)
    if (v instanceof Date) return `Date(${v.getTime()})`
    const proto = Object.getPrototypeOf(v)
    const tag = proto === null ? 'null' : proto === Object.prototype ? '' : proto === Array.prototype ? 'A' : proto.constructor?.name ?? '?'
    const keys = Reflect.ownKeys(v).filter((k) => Object.prototype.propertyIsEnumerable.call(v, k))
    return `${tag}{${keys.map((k) => `${typeof k === 'symbol' ? k.toString() : JSON.stringify(k)}:${walk(v[k])}`).join(',')}}`
  }
  return walk(value)
}

/** deepStrictEqual + key order (canon), with a context prefix on failure. */
function assertSameValue(actual, expected, ctx) {
  try {
    assert.deepStrictEqual(actual, expected)
  } catch (err) {
    err.message = `${ctx}\n${err.message}`
    throw err
  }
  const a = canon(actual)
  const e = canon(expected)
  if (a !== e) {
    assert.fail(`${ctx}\nvalues are deep-equal but differ in own-key order / shape:\n  ours: ${a.slice(0, 2000)}\n  ref:  ${e.slice(0, 2000)}`)
  }
}

const isStackOverflow = (e) => e instanceof RangeError && /call stack/i.test(e.message)

/**
 * The parity rule:
 *  - reference returns  -> ours returns (asynchronously) a deep-equal value (same key order);
 *  - reference throws a TypeError -> ours rejects with a TypeError (message not compared);
 *  - reference overflows the stack (RangeError on cyclic/very deep modelOutput) -> ours
 *    rejects with a TypeError or RangeError (never a crash);
 *  - reference throws something else (an error thrown by user code such as a getter) ->
 *    ours rejects with any error.
 */
function assertSameOutcome(ours, ref, ctx) {
  if (ours.notThenable) assert.fail(`${ctx}\nours returned a non-thenable (${typeof ours.value}); the reference method is async`)
  if (ours.sync) assert.fail(`${ctx}\nours threw synchronously (${ours.error?.name}: ${ours.error?.message}); the reference method is async and rejects`)
  if (ref.threw) {
    if (!ours.threw) {
      assert.fail(`${ctx}\nreference threw ${ref.error?.name}: ${ref.error?.message}\nbut ours returned: ${canon(ours.value).slice(0, 1000)}`)
    }
    if (ref.error instanceof TypeError) {
      assert.ok(ours.error instanceof TypeError, `${ctx}\nreference threw TypeError (${ref.error.message}); ours threw ${ours.error?.name}: ${ours.error?.message}`)
    } else if (isStackOverflow(ref.error)) {
      assert.ok(
        ours.error instanceof TypeError || ours.error instanceof RangeError,
        `${ctx}\nreference overflowed the stack; ours must throw TypeError or RangeError, threw ${ours.error?.name}: ${ours.error?.message}`,
      )
    }
    return
  }
  if (ours.threw) {
    assert.fail(`${ctx}\nreference returned ${canon(ref.value).slice(0, 1000)}\nbut ours threw ${ours.error?.name}: ${ours.error?.message}\n${ours.error?.stack}`)
  }
  assertSameValue(ours.value, ref.value, ctx)
}

/** Run the same scenario on both implementations and compare; returns the reference value. */
async function compareInput(options, buildMessages, ctx = 'processInput') {
  const ref = await settle(() => new RefFilter(options()).processInput(inputArgs(buildMessages())))
  const ours = await settle(() => new OurFilter(options()).processInput(inputArgs(buildMessages())))
  assertSameOutcome(ours, ref, ctx)
  return ref.value
}

function deepFreeze(o, seen = new WeakSet()) {
  if (o === null || typeof o !== 'object' || seen.has(o)) return o
  seen.add(o)
  if (ArrayBuffer.isView(o)) return o
  for (const k of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, k)
    if (d && 'value' in d) deepFreeze(d.value, seen)
  }
  return Object.freeze(o)
}

// ---------------------------------------------------------------------------------------
// 1. documented examples, literal expectations
// ---------------------------------------------------------------------------------------

const D = (s) => new Date(Date.UTC(2025, 0, 1, 0, 0, s))

const SEARCH_ARGS = () => ({ query: 'order 42' })
const SEARCH_RESULT = () => ({ rows: [{ id: 42, total: 99.5 }] })
const EMAIL_ARGS = () => ({ to: 'bob@example.com', body: 'Order 42 shipped' })

const U1 = () => ({
  id: 'u1',
  role: 'user',
  createdAt: D(0),
  threadId: 'thread-1',
  resourceId: 'user-1',
  content: {
    format: 2,
    parts: [{ type: 'text', text: 'Find order 42, email Bob, check Tokyo weather' }],
    content: 'Find order 42, email Bob, check Tokyo weather',
  },
})
const A1 = () => ({
  id: 'a1',
  role: 'assistant',
  createdAt: D(1),
  threadId: 'thread-1',
  resourceId: 'user-1',
  content: {
    format: 2,
    parts: [
      { type: 'step-start' },
      {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId: 'call-search', toolName: 'searchDatabase', args: SEARCH_ARGS(), result: SEARCH_RESULT() },
        providerMetadata: { mastra: { modelOutput: { type: 'text', value: '1 row: order 42 (99.5 USD)' } } },
      },
      { type: 'text', text: 'Found order 42.' },
    ],
    toolInvocations: [{ state: 'result', toolCallId: 'call-search', toolName: 'searchDatabase', args: SEARCH_ARGS(), result: SEARCH_RESULT() }],
  },
})
// a bare tool call ...
const A2 = () => ({
  id: 'a2',
  role: 'assistant',
  createdAt: D(2),
  threadId: 'thread-1',
  content: {
    format: 2,
    parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 'call-email', toolName: 'sendEmail', args: EMAIL_ARGS() } }],
  },
})
// ... and its result in a separate message
const T1 = () => ({
  id: 't1',
  role: 'tool',
  createdAt: D(3),
  threadId: 'thread-1',
  content: {
    format: 2,
    parts: [
      {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId: 'call-email', toolName: 'sendEmail', args: EMAIL_ARGS(), result: { sent: true } },
        providerMetadata: { mastra: { modelOutput: 'sent to bob@example.com' } },
      },
    ],
  },
})
// legacy `toolCall.id` instead of toolCallId, no stored modelOutput, top-level text
const A3 = () => ({
  id: 'a3',
  role: 'assistant',
  createdAt: D(4),
  threadId: 'thread-1',
  content: {
    format: 2,
    parts: [
      {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCall: { id: 'call-weather' }, toolName: 'getWeather', args: { city: 'Tokyo' }, result: { tempC: 21 } },
      },
    ],
    content: 'Checking the weather.',
  },
})
const A4 = () => ({
  id: 'a4',
  role: 'assistant',
  createdAt: D(5),
  threadId: 'thread-1',
  content: { format: 2, parts: [{ type: 'text', text: 'Done: email sent, 21°C in Tokyo.' }] },
})
const U2 = () => ({
  id: 'u2',
  role: 'user',
  createdAt: D(6),
  threadId: 'thread-1',
  content: { format: 2, parts: [{ type: 'text', text: 'Thanks! And Paris?' }] },
})
const docHistory = () => [U1(), A1(), A2(), T1(), A3(), A4(), U2()]

/** withContent(A1(), {...}) -> same message, content replaced */
const withContent = (msg, content) => ({ ...msg, content })

const A1_NO_TOOLS = () => withContent(A1(), { format: 2, parts: [{ type: 'step-start' }, { type: 'text', text: 'Found order 42.' }] })
const A1_PRESERVED = () =>
  withContent(A1(), {
    format: 2,
    parts: [
      { type: 'step-start' },
      { type: 'text', text: 'searchDatabase result:\n1 row: order 42 (99.5 USD)' },
      { type: 'text', text: 'Found order 42.' },
    ],
  })
const A3_NO_TOOLS = () => withContent(A3(), { format: 2, parts: [], content: 'Checking the weather.' })

const EXPECTED_EXCLUDE_ALL = () => [U1(), A1_NO_TOOLS(), A3_NO_TOOLS(), A4(), U2()]

describe('ToolCallFilter: identity and surface', () => {
  test('id and name', () => {
    for (const opts of [undefined, {}, { exclude: ['x'] }, { filterAfterToolSteps: 2 }, { preserveModelOutput: true }]) {
      const f = new OurFilter(opts)
      assert.equal(f.id, 'tool-call-filter')
      assert.equal(f.name, 'ToolCallFilter')
      const r = new RefFilter(opts)
      assert.equal(r.id, 'tool-call-filter')
      assert.equal(r.name, 'ToolCallFilter')
    }
  })

  test('exposes the same processor hooks as the reference (the Agent picks phases by which hooks exist)', () => {
    const hooks = [
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
    const ours = new OurFilter()
    const ref = new RefFilter()
    for (const h of hooks) assert.equal(typeof ours[h], typeof ref[h], `hook ${h}`)
    assert.equal(typeof ours.processInput, 'function')
    assert.equal(typeof ours.processInputStep, 'function')
    for (const p of ['processDataParts', 'stateId', 'processorIndex']) assert.equal(ours[p], ref[p], `property ${p}`)
  })

  test('CJS and ESM entry points export the same class', async () => {
    const require = createRequire(import.meta.url)
    const esm = await import('../index.mjs')
    assert.equal(require('../index.js').ToolCallFilter, esm.ToolCallFilter)
  })
})

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
        { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'call-s2a', toolName: 'searchDatabase', args: { query: 'paris' }, result: { rows: [] } } },
        { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'call-s2b', toolName: 'getWeather', args: { city: 'Lyon' }, result: { tempC: 16 } } },
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
        { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'call-s3', toolName: 'sendEmail', args: { to: 'bob' }, result: { sent: true } } },
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
    const expectedMessages = [[...H], [...H, stripTools(R1())], [...H, stripTools(R1()), stripTools(R2())], [...H, stripTools(R1()), stripTools(R2()), stripTools(R3())]]
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
    assert.deepStrictEqual(ours.b, { unrelated: { keep: true }, toolCallFilterSeenToolCallIds: ['call-s1', 'call-s2a', 'call-s2b', 'call-s3'], toolCallFilterStepToolCallIds: [['call-s1', 'call-s2a', 'call-s2b', 'call-s3']] })
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

  test('top-level text decides whether an emptied message survives (JS trim semantics)', async () => {
    // JS trim() strips U+FEFF and U+2028 but not U+0085, U+180E or U+200B (Rust's trim differs)
    const texts = ['', ' ', '\t\n', '\ufeff', '\u2028\u3000', '\u00a0', '\u0085', '\u180e', '\u200b', 'x', ' x ']
    const build = () =>
      texts.map((t, i) => ({
        id: `m${i}`,
        role: 'assistant',
        createdAt: D(i),
        content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: `c${i}`, toolName: 'getWeather', args: {} } }], content: t },
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
      content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state, toolCallId, toolName, args: {}, ...(state === 'result' ? { result: 1 } : {}) } }] },
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

  test('modelOutput conversion: every shape (literal texts)', async () => {
    const cyclic = () => {
      const o = { a: 1 }
      o.self = o
      return o
    }
    const cases = [
      ['plain string', () => 'hello', 'hello'],
      ['empty string', () => '', null],
      ['whitespace string is kept as is', () => '  ', '  '],
      ['number', () => 42, '42'],
      ['zero', () => 0, '0'],
      ['negative zero', () => -0, '0'],
      ['NaN', () => NaN, 'NaN'],
      ['Infinity', () => -Infinity, '-Infinity'],
      ['1e21', () => 1e21, '1e+21'],
      ['1e-7', () => 1e-7, '1e-7'],
      ['0.1+0.2', () => 0.1 + 0.2, '0.30000000000000004'],
      ['5e-324', () => 5e-324, '5e-324'],
      ['2^53+2', () => 2 ** 53 + 2, '9007199254740994'],
      ['1e20', () => 1e20, '100000000000000000000'],
      ['-1.5e-10', () => -1.5e-10, '-1.5e-10'],
      ['true', () => true, 'true'],
      ['false', () => false, 'false'],
      ['bigint', () => -123456789012345678901234567890n, '-123456789012345678901234567890'],
      ['array of texts', () => ['a', 5, '', null, ['b', [true]]], 'a\n5\nb\ntrue'],
      ['empty array', () => [], '[]'],
      ['array of empty strings', () => ['', ''], '["",""]'],
      ['nested empty arrays', () => [[], [[]]], '[]\n[]'],
      ['array of nulls', () => [null, undefined], '[null,null]'],
      ['array with unserialisable item and text', () => [{ a: 1n }, 'ok'], 'ok'],
      ['array with only unserialisable item', () => [{ a: 1n }], null],
      ['array with a function', () => [function f() {}], '[null]'],
      ['{type:text,value}', () => ({ type: 'text', value: 'v' }), 'v'],
      ['{type:text,text}', () => ({ type: 'text', text: 't' }), 't'],
      ['{type:text,value:number} falls to value', () => ({ type: 'text', value: 5 }), '5'],
      ['{type:text,text:number} stringified', () => ({ type: 'text', text: 5 }), '{"type":"text","text":5}'],
      ['{type:text,value:empty}', () => ({ type: 'text', value: '' }), null],
      ['{type:json,value:{...}}', () => ({ type: 'json', value: { t: 1, s: 'x' } }), '{"t":1,"s":"x"}'],
      ['nested value', () => ({ value: { value: { value: 'deep' } } }), 'deep'],
      ['value undefined', () => ({ value: undefined }), null],
      ['value null', () => ({ value: null, text: 'ignored' }), null],
      ['{text}', () => ({ text: 'x' }), 'x'],
      ['{text: empty}', () => ({ text: '' }), null],
      ['{text: 5}', () => ({ text: 5 }), '{"text":5}'],
      ['content array', () => ({ type: 'content', value: [{ type: 'text', text: 'a' }, { type: 'media', data: 'AAAA', mediaType: 'image/png' }] }), 'a\n{"type":"media","data":"AAAA","mediaType":"image/png"}'],
      ['other object', () => ({ b: 1, 2: [1, 'x'], a: null, 1: true, u: undefined }), '{"1":true,"2":[1,"x"],"b":1,"a":null}'],
      ['object with NaN/-0/Infinity', () => ({ n: [NaN, -0, Infinity, 1e21] }), '{"n":[null,0,null,1e+21]}'],
      ['JSON escapes', () => ({ s: '\u0000\u001f\u007f\u2028\ud800"\\/\b\f\n\r\té😀' }), '{"s":"\\u0000\\u001f\u007f\u2028\\ud800\\"\\\\/\\b\\f\\n\\r\\té😀"}'],
      ['toJSON', () => ({ toJSON: () => ({ z: 1 }) }), '{"z":1}'],
      ['toJSON -> string', () => ({ toJSON: () => 'str' }), '"str"'],
      ['toJSON -> undefined', () => ({ toJSON: () => undefined }), null],
      ['toJSON throws', () => ({ toJSON: () => { throw new Error('nope') } }), null],
      ['Date', () => new Date(0), '"1970-01-01T00:00:00.000Z"'],
      ['Map', () => new Map([[1, 2]]), '{}'],
      ['Uint8Array', () => new Uint8Array([1, 2]), '{"0":1,"1":2}'],
      ['boxed String', () => new String('boxed'), '"boxed"'],
      ['null-prototype object', () => Object.assign(Object.create(null), { k: 'v' }), '{"k":"v"}'],
      ['inherited value is used', () => Object.create({ value: 'inherited' }), 'inherited'],
      ['empty object', () => ({}), '{}'],
      ['circular object is dropped', cyclic, null],
      ['object with bigint is dropped', () => ({ n: 1n }), null],
      ['deep non-value nesting (JSON.stringify overflows) is dropped', () => {
        let o = 'x'
        for (let i = 0; i < 200000; i++) o = { a: o }
        return o
      }, null],
      ['moderately deep value nesting', () => {
        let o = 'deep'
        for (let i = 0; i < 300; i++) o = { value: o }
        return o
      }, 'deep'],
      ['moderately deep array nesting', () => {
        let o = 'deep'
        for (let i = 0; i < 300; i++) o = [o]
        return o
      }, 'deep'],
      ['function', () => function f() {}, null],
      ['symbol', () => Symbol('s'), null],
      ['null', () => null, null],
      ['undefined', () => undefined, null],
    ]
    const build = () =>
      cases.map(([, mo], i) => ({
        id: `m${i}`,
        role: 'assistant',
        createdAt: D(0),
        content: {
          format: 2,
          parts: [
            {
              type: 'tool-invocation',
              toolInvocation: { state: 'result', toolCallId: `c${i}`, toolName: 'ツール', args: {}, result: {} },
              providerMetadata: { mastra: { modelOutput: mo() } },
            },
          ],
        },
      }))
    const expected = cases.flatMap(([, , text], i) =>
      text === null ? [] : [{ id: `m${i}`, role: 'assistant', createdAt: D(0), content: { format: 2, parts: [{ type: 'text', text: `ツール result:\n${text}` }] } }],
    )
    for (const opts of [() => ({ preserveModelOutput: true }), () => ({ exclude: ['ツール'], preserveModelOutput: true })]) {
      const ours = await new OurFilter(opts()).processInput(inputArgs(build()))
      const mismatches = []
      for (const [i, [label, , text]] of cases.entries()) {
        const got = ours.find((m) => m.id === `m${i}`)
        const gotText = got ? got.content.parts[0].text : null
        const want = text === null ? null : `ツール result:\n${text}`
        if (gotText !== want) mismatches.push(`${label}: got ${JSON.stringify(gotText)}, want ${JSON.stringify(want)}`)
      }
      assert.deepStrictEqual(mismatches, [])
      assertSameValue(ours, expected, 'ours vs literal')
      assertSameValue(await compareInput(opts, build), expected, 'ref vs literal')
    }
  })

  test('modelOutput: key present-undefined, inherited, non-object metadata, non-result states', async () => {
    const mk = (id, invocation, providerMetadata) => ({
      id,
      role: 'assistant',
      createdAt: D(0),
      content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { toolCallId: id, toolName: 't', args: {}, ...invocation }, providerMetadata }] },
    })
    const build = () => [
      mk('absent', { state: 'result' }, { mastra: {} }),
      mk('undef', { state: 'result' }, { mastra: { modelOutput: undefined } }),
      mk('inherited', { state: 'result' }, { mastra: Object.create({ modelOutput: 'nope' }) }),
      mk('mastra-string', { state: 'result' }, { mastra: 'modelOutput' }),
      mk('mastra-null', { state: 'result' }, { mastra: null }),
      mk('pm-string', { state: 'result' }, 'x'),
      mk('call', { state: 'call' }, { mastra: { modelOutput: 'not for calls' } }),
      mk('partial', { state: 'partial-call' }, { mastra: { modelOutput: 'not for partial calls' } }),
      mk('ok', { state: 'result' }, { other: 1, mastra: { createdAt: 1, modelOutput: 'yes' } }),
    ]
    const expected = [{ id: 'ok', role: 'assistant', createdAt: D(0), content: { format: 2, parts: [{ type: 'text', text: 't result:\nyes' }] } }]
    assertSameValue(await compareInput(() => ({ preserveModelOutput: true }), build), expected, 'ref vs literal')
    assertSameValue(await new OurFilter({ preserveModelOutput: true }).processInput(inputArgs(build())), expected, 'ours vs literal')
  })

  test('modelOutput is only read for parts that are actually filtered', async () => {
    const trap = () => ({
      mastra: {
        get modelOutput() {
          throw new Error('modelOutput must not be read')
        },
      },
    })
    const cyclicArray = () => {
      const a = []
      a.push(a)
      return { mastra: { modelOutput: a } }
    }
    const build = (pm) => [
      {
        id: 'k',
        role: 'assistant',
        createdAt: D(0),
        content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'keep', toolName: 'getWeather', args: {}, result: 1 }, providerMetadata: pm() }] },
      },
      {
        id: 'd',
        role: 'assistant',
        createdAt: D(1),
        content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'drop', toolName: 'searchDatabase', args: {}, result: 1 }, providerMetadata: pm() }] },
      },
    ]
    for (const pm of [trap, cyclicArray]) {
      // preserveModelOutput off: never read
      for (const Impl of [OurFilter, RefFilter]) {
        const out = await new Impl({}).processInput(inputArgs(build(pm)))
        assert.equal(out.length, 0)
      }
      // kept parts (not excluded / preserved by step window) are never converted
      if (pm === cyclicArray) {
        for (const Impl of [OurFilter, RefFilter]) {
          const out = await new Impl({ exclude: ['nothing-matches'], preserveModelOutput: true }).processInput(inputArgs(build(pm)))
          assert.equal(out.length, 2)
          const state = {}
          const f = new Impl({ filterAfterToolSteps: 5, preserveModelOutput: true })
          const all = build(pm)
          const r = await f.processInputStep(stepArgs(all, all, state))
          assert.equal(r.messages.length, 2)
        }
      }
      // when it IS needed, the failure propagates (reference: Error from the getter / RangeError)
      const ref = await settle(() => new RefFilter({ preserveModelOutput: true }).processInput(inputArgs(build(pm))))
      const ours = await settle(() => new OurFilter({ preserveModelOutput: true }).processInput(inputArgs(build(pm))))
      assert.ok(ref.threw)
      assertSameOutcome(ours, ref, `needed modelOutput (${pm.name})`)
    }
  })

  test('inputs are not mutated and frozen inputs are fine', async () => {
    const configs = [{}, { exclude: ['searchDatabase'] }, { preserveModelOutput: true }, { exclude: ['sendEmail'], preserveModelOutput: true }, { filterAfterToolSteps: 1 }]
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

  const toolNames = (msgs) => msgs.flatMap((m) => m.content.parts.filter((p) => p.type === 'tool-invocation').map((p) => `${p.toolInvocation.toolName}:${p.toolInvocation.state}`))

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
      const normalise = (msgs) => msgs.map((m) => ({ ...m, id: idMap.get(m.id) ?? m.id, createdAt: 0, content: { ...m.content, parts: m.content.parts.map((p) => (p && typeof p === 'object' && 'createdAt' in p ? { ...p, createdAt: 0 } : p)) } }))
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
        [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 's1', toolName: 'getWeather', input: { city: 'Paris' } }] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 's1', toolName: 'getWeather', output: { type: 'text', value: '18C' } }] }],
        [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 's2', toolName: 'searchDatabase', input: { q: 'paris' } }] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 's2', toolName: 'searchDatabase', output: { type: 'json', value: [] } }] }],
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
    assert.deepStrictEqual(ours.results.map((r) => r.tools), [[], ['getWeather:result'], ['searchDatabase:result']])
    assert.deepStrictEqual(ours.state, { toolCallFilterSeenToolCallIds: ['s1', 's2'], toolCallFilterStepToolCallIds: [[], ['s1'], ['s2']] })
  })
})

// ---------------------------------------------------------------------------------------
// 2. seeded differential test
// ---------------------------------------------------------------------------------------

// Shared singletons: functions and symbols are compared by identity in deepStrictEqual, so
// both builds of a case must reference the same ones.
const SHARED_FN = function sharedFn() {
  return 1
}
const SHARED_SYM = Symbol('shared')
const TOJSON_FNS = [
  function toJSON() {
    return 's'
  },
  function toJSON() {
    return undefined
  },
  function toJSON() {
    return 5
  },
  function toJSON() {
    return { j: 1 }
  },
  function toJSON() {
    return null
  },
]
// prototypes are compared by identity too
const INHERITED_MODEL_OUTPUT_PROTO = Object.freeze({ modelOutput: 'inherited' })
const INHERITED_VALUE_PROTOS = ['inherited', '', 'x y'].map((value) => Object.freeze({ value }))
const TOJSON_THROWS = function toJSON() {
  throw new Error('toJSON boom')
}

const TOOL_NAMES = ['searchDatabase', 'sendEmail', 'getWeather', 'search_tools', 'load_tool', 'ツール検索', 'tool\ud800', 'tool\udc00', '', 'get weather']
const EXTRA_EXCLUDE = ['nonexistent', 'SEARCHDATABASE', 'searchDatabase ', 'getweather', 'tool\ufffd', 'tool']
const ID_POOL = ['call_1', 'call_2', 'call_3', 'call_4', 'call_5', 'call_6', 'CALL_1', 'call-ü', 'call 7', 'id\ud800', 'id\udc00', 'id\ufffd', '𝒾𝒹', 'toolu_01A09q90qw90lq917835lq9', '1', '__proto__', 'constructor']
const NUMBERS = [0, -0, 1, -1, 42, 0.5, 123.456, NaN, Infinity, -Infinity, 1e21, 1e20, 1e-7, 1e-6, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, 2 ** 53 + 2, -1.5e-10, 100, 1 / 3]
const BASE_TIME = Date.UTC(2025, 5, 1)

function genCase(seed) {
  const r = createRng(seed)
  let idCounter = 0

  const genJson = (depth = 0) => {
    const kind = r.int(0, depth >= 2 ? 4 : 7)
    switch (kind) {
      case 0:
        return null
      case 1:
        return r.bool()
      case 2:
        return r.pick(NUMBERS)
      case 3:
      case 4:
        return r.string(0, 10)
      case 5: {
        const n = r.int(0, 3)
        const a = []
        for (let i = 0; i < n; i++) a.push(genJson(depth + 1))
        return a
      }
      default: {
        const o = {}
        const n = r.int(0, 4)
        for (let i = 0; i < n; i++) {
          const k = r.pick(['a', 'b', 'z', '1', '10', '01', '-1', '2', 'value', 'text', 'type', r.string(0, 5), '__proto__'])
          const v = r.chance(0.1) ? undefined : genJson(depth + 1)
          Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
        }
        return o
      }
    }
  }

  const genModelOutput = (depth = 0) => {
    const k = r.int(0, depth >= 3 ? 12 : 34)
    switch (k) {
      case 0:
        return ''
      case 1:
        return r.string(0, 12)
      case 2:
        return r.pick(['hello', ' ', '\n', 'multi\nline', '0', 'false', 'null', r.whitespace(1, 3)])
      case 3:
        return r.pick(NUMBERS)
      case 4:
        return r.bool()
      case 5:
        return r.pick([0n, 10n, -7n, 123456789012345678901234567890n])
      case 6:
        return null
      case 7:
        return undefined
      case 8:
        return { type: 'text', value: r.chance(0.2) ? '' : r.string(0, 10) }
      case 9:
        return { type: 'text', text: r.chance(0.2) ? '' : r.string(0, 10) }
      case 10:
        return { text: r.pick(['x', '', 5, null, r.string(1, 5)]) }
      case 11:
        return SHARED_FN
      case 12:
        return SHARED_SYM
      case 13:
      case 14: {
        const n = r.int(0, 4)
        const a = []
        for (let i = 0; i < n; i++) a.push(genModelOutput(depth + 1))
        return a
      }
      case 15:
        return r.pick([[], [''], ['', ''], [[]], [['']], [null], [undefined], [[], ''], [0], [false]])
      case 16:
        return { value: genModelOutput(depth + 1) }
      case 17:
        return { type: r.pick(['text', 'json', 'error-text', 'content', 'TEXT']), value: genModelOutput(depth + 1) }
      case 18:
        return { type: 'text', value: r.pick([5, null, undefined, { a: 1 }]), text: r.pick(['t', 7, undefined]) }
      case 19:
        return { type: 'json', value: genJson() }
      case 20:
        return { type: 'content', value: [{ type: 'text', text: r.string(0, 6) }, { type: 'media', data: 'AAAA', mediaType: 'image/png' }] }
      case 21:
      case 22:
        return genJson()
      case 23:
        return { toJSON: r.pick(TOJSON_FNS) }
      case 24: {
        const o = { a: r.string(0, 4) }
        o.self = o
        return r.bool() ? o : { wrap: o }
      }
      case 25:
        return r.bool() ? { n: 1n, a: 'x' } : [{ n: 2n }]
      case 26:
        return r.pick([new Date(BASE_TIME), new Map([[1, 2]]), new Uint8Array([1, 2, 3]), new String('boxed'), new Number(5), /re/g])
      case 27:
        return Object.assign(Object.create(null), { k: r.string(0, 4) })
      case 28:
        return Object.create(r.pick(INHERITED_VALUE_PROTOS))
      case 29:
        return { b: 1, 2: 'two', a: [NaN, -0, Infinity], 1: undefined, f: SHARED_FN, s: SHARED_SYM }
      case 30:
        return { s: r.string(1, 16, 0.8) }
      case 31:
        return [{ a: 1n }, r.string(0, 3)]
      case 32:
        return { toJSON: TOJSON_THROWS }
      case 33:
        return { value: undefined, text: 'x' }
      default:
        return { type: 'text', value: r.string(1, 20, 0.9) }
    }
  }

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
    const st = state ?? r.weighted([[5, 'result'], [3, 'call'], [1, 'partial-call'], [0.3, 'output-available']])
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
      [2, () => ({ type: 'reasoning', reasoning: '', details: [{ type: 'text', text: r.string(0, 8) }], providerMetadata: r.chance(0.5) ? undefined : { anthropic: { signature: 'sig' } } })],
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
    const role = forceRole ?? r.weighted([[4, 'assistant'], [3, 'user'], [1, 'tool'], [1, 'system']])
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
    const partsMode = r.weighted([[90, 'array'], [3, 'absent'], [2, 'undefined'], [1, 'null'], [1, 'emptyString'], [0.3, 'string'], [0.3, 'object'], [0.3, 'sparse'], [0.3, 'nullPart']])
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
    const tiMode = r.weighted([[50, 'absent'], [mastraShape ? 30 : 5, 'undefined'], [5, 'empty'], [25, 'mirror'], [0.5, 'string'], [0.3, 'withNull']])
    const mirror = () => {
      const invs = Array.isArray(parts) ? parts.filter((p) => p && p.type === 'tool-invocation').map((p) => (r.bool() ? p.toolInvocation : { ...p.toolInvocation })) : []
      if (r.chance(0.3)) invs.push(genInvocation())
      return r.chance(0.2) ? r.shuffle(invs) : invs
    }
    if (mastraShape) {
      // key order as produced by MessageList
      if (tiMode !== 'absent') content.toolInvocations = tiMode === 'undefined' ? undefined : tiMode === 'empty' ? [] : tiMode === 'string' ? 'x' : tiMode === 'withNull' ? [...mirror(), null] : mirror()
      content.reasoning = undefined
      content.experimental_attachments = undefined
      content.content = top.absent ? undefined : top.value
      content.metadata = r.chance(0.3) ? { source: 'test', nested: { a: [1] } } : undefined
    } else {
      if (!top.absent) content.content = top.value
      if (tiMode !== 'absent') content.toolInvocations = tiMode === 'undefined' ? undefined : tiMode === 'empty' ? [] : tiMode === 'string' ? 'x' : tiMode === 'withNull' ? [...mirror(), null] : mirror()
      if (r.chance(0.1)) content.metadata = { n: r.int(0, 9) }
      if (r.chance(0.05)) content[SHARED_SYM] = 'symbol-keyed'
    }
    const contentMode = r.weighted([[97, 'object'], [1, 'string'], [0.5, 'null'], [0.5, 'absent'], [0.3, 'number']])
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
  const exMode = r.weighted([[30, 'absent'], [4, 'undefined'], [3, 'null'], [8, 'empty'], [40, 'subset'], [5, 'all']])
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
  const pmo = r.weighted([[30, { absent: true }], [40, { v: true }], [15, { v: false }], [3, { v: undefined }]])
  if (!pmo.absent) options.preserveModelOutput = pmo.v
  const ctorMode = r.weighted([[95, 'options'], [5, 'none']])

  // --- history ------------------------------------------------------------------------
  const history = []
  const nHist = r.int(0, 8)
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
    const responseMode = r.weighted([[80, 'cumulative'], [12, 'latest'], [5, 'withHistory'], [3, 'random']])
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

  const stateMode = r.weighted([[70, 'empty'], [10, 'other'], [15, 'seeded'], [3, 'nullKeys'], [2, 'seededOther']])
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
const CASES_PER_SEED = 1000

describe('ToolCallFilter: seeded differential vs @mastra/core 1.59.0', () => {
  const only = process.env.TCF_SEED !== undefined ? { seed: Number(process.env.TCF_SEED), index: process.env.TCF_CASE !== undefined ? Number(process.env.TCF_CASE) : undefined } : null
  const seeds = only ? [only.seed] : DIFF_SEEDS
  for (const base of seeds) {
    test(`seed ${base} (${only?.index !== undefined ? 1 : CASES_PER_SEED} cases)`, async () => {
      let refThrows = 0
      let inputThrows = 0
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
          if (ref.input?.threw) inputThrows++
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
        assert.fail(`${failed}/${indices.length} cases diverge. One example per kind (${examples.size} kinds shown):\n\n${[...examples.values()].join('\n\n---\n\n')}`)
      }
      if (!only) {
        // sanity: the generator mostly produces valid histories, and exercises preserved text
        assert.ok(refThrows < CASES_PER_SEED * 0.25, `too many throwing cases: ${refThrows}`)
        assert.ok(refTexts > CASES_PER_SEED * 0.05, `too few cases with preserved model output: ${refTexts}`)
      }
    })
  }
})

// ---------------------------------------------------------------------------------------
// 3. bad input
// ---------------------------------------------------------------------------------------

describe('ToolCallFilter: bad input (reference throws -> ours throws TypeError; reference returns -> same result)', () => {
  const ok = (id, extra = {}) => ({ id, role: 'user', createdAt: D(0), content: { format: 2, parts: [{ type: 'text', text: id }] }, ...extra })
  const call = (id, toolCallId, toolName = 'getWeather', more = {}) => ({
    id,
    role: 'assistant',
    createdAt: D(1),
    content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId, toolName, args: {} } }], ...more },
  })
  const result = (id, toolCallId, toolName = 'getWeather', more = {}) => ({
    id,
    role: 'assistant',
    createdAt: D(2),
    content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId, toolName, args: {}, result: 1 } }], ...more },
  })
  // module-level so both builds share the prototypes (deepStrictEqual compares them)
  class PartClass {
    constructor() {
      this.type = 'tool-invocation'
      this.toolInvocation = { state: 'call', toolCallId: 'c1', toolName: 'getWeather', args: {} }
    }
  }
  class ContentClass {
    constructor() {
      this.format = 2
      this.parts = [new PartClass(), { type: 'text', text: 'k' }]
    }
  }
  const OPTION_SETS = [undefined, {}, { exclude: [] }, { exclude: ['getWeather'] }, { preserveModelOutput: true }, { filterAfterToolSteps: 1 }, { exclude: ['getWeather'], filterAfterToolSteps: 0, preserveModelOutput: true }]

  /** messages -> compare processInput and a processInputStep (same list as response) under every option set */
  const MESSAGE_CASES = {
    'null message': () => [ok('a'), null, call('b', 'c1')],
    'undefined message': () => [ok('a'), undefined],
    'string message': () => ['hello', call('b', 'c1')],
    'message with content: null': () => [{ id: 'n', role: 'user', content: null }, call('b', 'c1')],
    'message without content': () => [{ id: 'n', role: 'user' }, call('b', 'c1')],
    'content is a string': () => [{ id: 's', role: 'user', content: 'plain' }, { id: 's2', role: 'user', content: '   ' }, call('b', 'c1')],
    'content is a number': () => [{ id: 's', role: 'user', content: 0 }, call('b', 'c1')],
    'parts is a string': () => [{ id: 'p', role: 'user', content: { format: 2, parts: 'text' } }],
    'parts is an empty string': () => [{ id: 'p', role: 'user', content: { format: 2, parts: '' } }, call('b', 'c1')],
    'parts is an object': () => [{ id: 'p', role: 'user', content: { format: 2, parts: { type: 'tool-invocation' } } }],
    'parts is null': () => [{ id: 'p', role: 'user', content: { format: 2, parts: null, content: 'x' } }, call('b', 'c1')],
    'part is null': () => [{ id: 'p', role: 'assistant', content: { format: 2, parts: [{ type: 'text', text: 'a' }, null] } }],
    'part is undefined after a tool part': () => [{ id: 'p', role: 'assistant', content: { format: 2, parts: [call('x', 'c1').content.parts[0], undefined] } }],
    'sparse parts array': () => {
      const parts = [, { type: 'text', text: 'a' }, , call('x', 'c1').content.parts[0], ,] // eslint-disable-line no-sparse-arrays
      return [{ id: 'p', role: 'assistant', content: { format: 2, parts } }]
    },
    'sparse messages array': () => [, ok('a'), , call('b', 'c1'), ,], // eslint-disable-line no-sparse-arrays
    'primitive parts': () => [{ id: 'p', role: 'assistant', content: { format: 2, parts: ['text', 5, true, call('x', 'c1').content.parts[0]] } }],
    'tool-invocation part without toolInvocation': () => [{ id: 'p', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation' }] } }],
    'tool-invocation part with toolInvocation: null': () => [{ id: 'p', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: null }] } }],
    'toolInvocation is a string': () => [{ id: 'p', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: 'getWeather' }, { type: 'text', text: 'x' }] } }],
    'numeric toolCallId vs string toolCallId': () => [call('a', 5), result('b', '5'), result('c', 5)],
    'object toolCallId (identity)': () => {
      const shared = { k: 1 }
      return [call('a', shared), result('b', shared), result('c', { k: 1 })]
    },
    'NaN / 0 / empty toolCallIds': () => [call('a', NaN), result('b', NaN), call('c', 0), result('d', 0), call('e', ''), result('f', '')],
    'toolCall fallback variants': () => [
      { id: 'a', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCall: null, toolName: 'getWeather' } }] } },
      { id: 'b', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: null, toolCall: { id: 'z' }, toolName: 'x' } }] } },
      { id: 'c', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCall: 'str', toolName: 'y' } }] } },
    ],
    'numeric / missing toolName': () => [
      { id: 'a', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'q', toolName: 7, args: {}, result: 1 }, providerMetadata: { mastra: { modelOutput: 'x' } } }] } },
      { id: 'b', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'w', args: {}, result: 1 }, providerMetadata: { mastra: { modelOutput: 'y' } } }] } },
    ],
    'symbol toolName in a preserved result': () => [
      { id: 'a', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'q', toolName: SHARED_SYM, args: {}, result: 1 }, providerMetadata: { mastra: { modelOutput: 'x' } } }] } },
    ],
    'top-level content is a number/object (filterSpecific calls .trim)': () => [call('a', 'c1', 'getWeather', { content: 5 }), call('b', 'c2', 'other', { content: { x: 1 } }), result('c', 'c3', 'other', { content: true })],
    'legacy toolInvocations not an array': () => [result('a', 'c1', 'getWeather', { toolInvocations: 'nope' }), result('b', 'c2', 'other', { toolInvocations: { 0: 1 }, content: 'keep' })],
    'legacy toolInvocations with null entry': () => [result('a', 'c1', 'other', { toolInvocations: [null], content: 'keep' })],
    'cyclic array modelOutput (reference overflows the stack)': () => {
      const a = []
      a.push(a)
      return [{ id: 'a', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'q', toolName: 'getWeather' }, providerMetadata: { mastra: { modelOutput: a } } }] } }]
    },
    'cyclic value modelOutput (reference overflows the stack)': () => {
      const o = {}
      o.value = o
      return [{ id: 'a', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'q', toolName: 'getWeather' }, providerMetadata: { mastra: { modelOutput: o } } }] } }]
    },
    // (outputs that still contain the 100k-deep value are compared through summarizeDeep)
    '100k-deep array modelOutput (reference overflows the stack)': () => {
      let a = 'x'
      for (let i = 0; i < 100000; i++) a = [a]
      return [{ id: 'a', role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'q', toolName: 'getWeather' }, providerMetadata: { mastra: { modelOutput: a } } }] } }]
    },
    'messages with class-instance content and parts': () => [{ id: 'a', role: 'assistant', content: new ContentClass() }],
  }

  /**
   * deepStrictEqual/canon recurse, so a returned 100k-deep modelOutput would overflow the
   * comparison itself: replace any array nested > 1000 levels by a marker with its depth
   * (computed iteratively) before comparing.
   */
  function summarizeDeep(outcome) {
    if (outcome.threw || !outcome.value) return outcome
    const depthOf = (v) => {
      const seen = new Set()
      let d = 0
      while (Array.isArray(v)) {
        if (seen.has(v)) return Infinity // cyclic: compare by marker too
        seen.add(v)
        v = v[0]
        d++
      }
      return d
    }
    const fix = (msgs) =>
      Array.isArray(msgs)
        ? msgs.map((m) => {
            const parts = m?.content?.parts
            if (!Array.isArray(parts)) return m
            return {
              ...m,
              content: {
                ...m.content,
                parts: parts.map((p) => {
                  const mo = p?.providerMetadata?.mastra?.modelOutput
                  return Array.isArray(mo) && depthOf(mo) > 1000 ? { ...p, providerMetadata: { mastra: { modelOutput: `<array nested ${depthOf(mo)} deep>` } } } : p
                }),
              },
            }
          })
        : msgs
    const v = outcome.value
    return { ...outcome, value: Array.isArray(v) ? fix(v) : v && Array.isArray(v.messages) ? { ...v, messages: fix(v.messages) } : v }
  }

  for (const [name, build] of Object.entries(MESSAGE_CASES)) {
    test(name, async () => {
      for (const opts of OPTION_SETS) {
        const o = () => (opts === undefined ? undefined : { ...opts, exclude: opts.exclude && [...opts.exclude] })
        const ref = summarizeDeep(await settle(() => new RefFilter(o()).processInput(inputArgs(build()))))
        const ours = summarizeDeep(await settle(() => new OurFilter(o()).processInput(inputArgs(build()))))
        assertSameOutcome(ours, ref, `${name} processInput ${JSON.stringify(opts)}`)
        if (opts?.filterAfterToolSteps !== undefined) {
          const rs = {}
          const os = {}
          const refStep = await settle(() => {
            const m = build()
            return new RefFilter(o()).processInputStep(stepArgs(m, m, rs))
          })
          const ourStep = await settle(() => {
            const m = build()
            return new OurFilter(o()).processInputStep(stepArgs(m, m, os))
          })
          assertSameOutcome(summarizeDeep(ourStep), summarizeDeep(refStep), `${name} processInputStep ${JSON.stringify(opts)}`)
          if (!refStep.threw) assertSameValue(os, rs, `${name} state`)
        }
      }
    })
  }

  test('messageList.get.all.db() returning a non-array', async () => {
    for (const value of [undefined, null, 'str', { length: 0 }, new Set()]) {
      for (const opts of [{}, { exclude: [] }, { exclude: ['x'] }]) {
        const ref = await settle(() => new RefFilter({ ...opts }).processInput({ messageList: fakeList(value), abort }))
        const ours = await settle(() => new OurFilter({ ...opts }).processInput({ messageList: fakeList(value), abort }))
        assertSameOutcome(ours, ref, `db() -> ${String(value)} ${JSON.stringify(opts)}`)
      }
    }
  })

  test('missing messageList / missing args', async () => {
    for (const args of [{}, { messages: [] }, { messageList: {} }, { messageList: { get: {} } }]) {
      const ref = await settle(() => new RefFilter().processInput(args))
      const ours = await settle(() => new OurFilter().processInput(args))
      assertSameOutcome(ours, ref, `processInput ${JSON.stringify(args)}`)
    }
    const ref = await settle(() => new RefFilter().processInput())
    const ours = await settle(() => new OurFilter().processInput())
    assertSameOutcome(ours, ref, 'processInput()')
    for (const args of [{ messageList: fakeList([]) }, { state: {} }, { messageList: { get: { all: { db: () => [] } } }, state: {} }]) {
      const ref = await settle(() => new RefFilter({ filterAfterToolSteps: 1 }).processInputStep(args))
      const ours = await settle(() => new OurFilter({ filterAfterToolSteps: 1 }).processInputStep(args))
      assertSameOutcome(ours, ref, `processInputStep ${Object.keys(args)}`)
    }
  })

  test('bad state values', async () => {
    const all = () => [call('a', 'c1'), result('b', 'c1')]
    const states = {
      'undefined state': () => undefined,
      'null state': () => null,
      'frozen state': () => Object.freeze({}),
      'seen is a number': () => ({ toolCallFilterSeenToolCallIds: 5 }),
      'steps is a number': () => ({ toolCallFilterStepToolCallIds: 5 }),
      'seen is a string (iterable)': () => ({ toolCallFilterSeenToolCallIds: 'c1' }),
      'steps contain non-arrays': () => ({ toolCallFilterStepToolCallIds: ['c1', null, 5, ['c1']] }),
      'seen contains non-strings': () => ({ toolCallFilterSeenToolCallIds: [1, null, { a: 1 }, 'c1'] }),
    }
    for (const [name, mk] of Object.entries(states)) {
      for (const n of [0, 1, 2]) {
        const rs = mk()
        const os = mk()
        const ref = await settle(() => new RefFilter({ filterAfterToolSteps: n }).processInputStep(stepArgs(all(), all(), rs)))
        const ours = await settle(() => new OurFilter({ filterAfterToolSteps: n }).processInputStep(stepArgs(all(), all(), os)))
        assertSameOutcome(ours, ref, `${name} (filterAfterToolSteps ${n})`)
        if (!ref.threw) assertSameValue(os, rs, `${name} state`)
      }
    }
  })

  test('constructor options', async () => {
    // Strict parity, EXCEPT for option values of the wrong type: `exclude` that is neither an
    // array nor null/undefined (the reference silently treats a truthy non-array as [] and a
    // falsy one as "exclude all"), a `filterAfterToolSteps` that is not a number (the reference
    // coerces '1' and 1n), a `preserveModelOutput` that is not a boolean (the reference goes by
    // truthiness), and options that are not an object (the reference reads properties of a
    // primitive). Ours may instead throw a clear TypeError from the constructor for those (and
    // only those); if it does not throw, it must behave exactly like the reference.
    const all = () => [ok('u'), call('a', 'c1', 'x'), result('b', 'c1', 'x'), call('c', 'c2', 'getWeather'), result('d', 'c2', 'getWeather')]
    const lenient = [
      { exclude: 'x' },
      { exclude: 'getWeather' },
      { exclude: {} },
      { exclude: { includes: () => true, length: 1 } },
      { exclude: new Set(['getWeather']) },
      { exclude: 5 },
      { exclude: true },
      { exclude: '' },
      { exclude: 0 },
      { exclude: false },
      { exclude: ['getWeather'], filterAfterToolSteps: '1' },
      { filterAfterToolSteps: 'abc' },
      { filterAfterToolSteps: 1n },
      { preserveModelOutput: 1 },
      { preserveModelOutput: 'yes' },
      { preserveModelOutput: 0 },
      { preserveModelOutput: '' },
      0,
      'string options',
      5,
    ]
    const strict = [
      undefined,
      {},
      { exclude: undefined },
      { exclude: null },
      { exclude: [1, null, undefined, 'getWeather'] },
      { exclude: [undefined] },
      { exclude: [NaN] },
      { exclude: ['x', 'x', 'x'] },
      { filterAfterToolSteps: null },
      { filterAfterToolSteps: NaN },
      { filterAfterToolSteps: Infinity },
      { filterAfterToolSteps: -Infinity },
      { filterAfterToolSteps: 0.5 },
      { filterAfterToolSteps: -0.5 },
      { filterAfterToolSteps: 1.5 },
      { filterAfterToolSteps: 2 ** 40 },
      { preserveModelOutput: null },
      null, // reference: TypeError (reads options.filterAfterToolSteps of null)
      [],
      Object.create({ exclude: ['getWeather'], preserveModelOutput: true }), // inherited options are honoured
    ]
    const runAll = async (Impl, opts, lenientCase) => {
      const ctor = await settle(() => new Impl(opts), { expectThenable: false })
      if (ctor.threw) return { ctor }
      const f = ctor.value
      const input = await settle(() => f.processInput(inputArgs(all())))
      const steps = []
      const state = {}
      for (let i = 0; i < 3; i++) {
        const m = all().slice(0, 1 + i * 2)
        const s = await settle(() => f.processInputStep(stepArgs(m, m.slice(1), state)))
        steps.push(s)
        if (s.threw) break
      }
      return { ctor, input, steps, state, lenientCase }
    }
    const failures = []
    for (const [lenientCase, list] of [
      [true, lenient],
      [false, strict],
    ]) {
      for (const opts of list) {
        const label = `options ${typeof opts === 'bigint' ? opts : JSON.stringify(opts, (k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Set ? 'Set' : v))}`
        try {
          const ref = await runAll(RefFilter, opts)
          const ours = await runAll(OurFilter, opts)
          if (ref.ctor.threw) {
            assert.ok(ours.ctor.threw && ours.ctor.error instanceof TypeError, `${label}: reference constructor threw ${ref.ctor.error}; ours must throw TypeError`)
            continue
          }
          if (ours.ctor.threw) {
            assert.ok(lenientCase, `${label}: ours' constructor threw ${ours.ctor.error} but the reference accepts these options`)
            assert.ok(ours.ctor.error instanceof TypeError, `${label}: constructor may only reject with a TypeError`)
            continue
          }
          assertSameOutcome(ours.input, ref.input, `${label} processInput`)
          for (let i = 0; i < ref.steps.length; i++) assertSameOutcome(ours.steps[i], ref.steps[i], `${label} step ${i}`)
          assertSameValue(ours.state, ref.state, `${label} state`)
        } catch (err) {
          failures.push(String(err.message).split('\n').slice(0, 3).join(' | '))
        }
      }
    }
    // report every diverging option set at once
    assert.deepStrictEqual(failures, [])
  })

  test('calling the constructor without new throws a TypeError', () => {
    assert.throws(() => RefFilter(), TypeError)
    assert.throws(() => OurFilter(), TypeError)
  })
})
