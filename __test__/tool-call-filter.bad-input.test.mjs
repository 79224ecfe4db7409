// ToolCallFilter as Mastra 1.59.0 has it, on malformed input: where the reference
// throws, ours throws a TypeError; where it returns, ours returns the same.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import {
  fakeList,
  abort,
  inputArgs,
  stepArgs,
  settle,
  assertSameValue,
  assertSameOutcome,
  filtersOf,
  isStackOverflow,
} from './helpers/tool-call-filter-harness.mjs'
import { D } from './helpers/message-list-fixtures.mjs'
import { SHARED_SYM } from './helpers/model-outputs.mjs'

const { RefFilter, OurFilter } = await filtersOf('1.59.0')

describe('ToolCallFilter: bad input (reference throws -> ours throws TypeError; reference returns -> same result)', () => {
  const ok = (id, extra = {}) => ({ id, role: 'user', createdAt: D(0), content: { format: 2, parts: [{ type: 'text', text: id }] }, ...extra })
  const invocation = (id, createdAt, toolInvocation, more) => ({
    id,
    role: 'assistant',
    createdAt,
    content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation }], ...more },
  })
  const call = (id, toolCallId, toolName = 'getWeather', more = {}) => invocation(id, D(1), { state: 'call', toolCallId, toolName, args: {} }, more)
  const result = (id, toolCallId, toolName = 'getWeather', more = {}) =>
    invocation(id, D(2), { state: 'result', toolCallId, toolName, args: {}, result: 1 }, more)
  /** An assistant message of these parts (no createdAt). */
  const assistant = (id, parts) => ({ id, role: 'assistant', content: { format: 2, parts } })
  /** An assistant message of one tool part with this toolInvocation and model output. */
  const withOutput = (id, toolInvocation, modelOutput) =>
    assistant(id, [{ type: 'tool-invocation', toolInvocation, providerMetadata: { mastra: { modelOutput } } }])
  const resultQ = () => ({ state: 'result', toolCallId: 'q', toolName: 'getWeather' })
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
  const OPTION_SETS = [
    undefined,
    {},
    { exclude: [] },
    { exclude: ['getWeather'] },
    { preserveModelOutput: true },
    { filterAfterToolSteps: 1 },
    { exclude: ['getWeather'], filterAfterToolSteps: 0, preserveModelOutput: true },
  ]

  /**
   * The reference's outcome of run(RefFilter, its state), then ours' of run(OurFilter, its
   * own): each side's state comes fresh from `state`, both made before either runs.
   */
  const outcomes = async (run, state = () => ({})) => {
    const rs = state()
    const os = state()
    const ref = await settle(() => run(RefFilter, rs))
    const ours = await settle(() => run(OurFilter, os))
    return { ref, ours, rs, os }
  }
  /** outcomes, then the parity rule (assertSameOutcome) on them under ctx. */
  const sameAs = async (ctx, run, state) => {
    const both = await outcomes(run, state)
    assertSameOutcome(both.ours, both.ref, ctx)
    return both
  }

  /**
   * Where its text is needed, the reference's recursion overflows the stack
   * and ours gives the text (docs/differences.md; literal texts in
   * tool-call-filter.deep-output.test.mjs); where it is not, both return the
   * same messages.
   */
  const DEEPER_THAN_REFERENCE = '100k-deep array modelOutput (reference overflows the stack only where its text is needed)'
  const sameOutcome = (name, ours, ref, ctx) => {
    if (name === DEEPER_THAN_REFERENCE && ref.threw && isStackOverflow(ref.error)) {
      assert.ok(!ours.threw, `${ctx}: ours threw ${ours.error}`)
      return
    }
    assertSameOutcome(ours, ref, ctx)
  }

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
    'part is null': () => [assistant('p', [{ type: 'text', text: 'a' }, null])],
    'part is undefined after a tool part': () => [assistant('p', [call('x', 'c1').content.parts[0], undefined])],
    'sparse parts array': () => [assistant('p', [, { type: 'text', text: 'a' }, , call('x', 'c1').content.parts[0], ,])], // eslint-disable-line no-sparse-arrays
    'sparse messages array': () => [, ok('a'), , call('b', 'c1'), ,], // eslint-disable-line no-sparse-arrays
    'primitive parts': () => [assistant('p', ['text', 5, true, call('x', 'c1').content.parts[0]])],
    'tool-invocation part without toolInvocation': () => [assistant('p', [{ type: 'tool-invocation' }])],
    'tool-invocation part with toolInvocation: null': () => [assistant('p', [{ type: 'tool-invocation', toolInvocation: null }])],
    'toolInvocation is a string': () => [
      assistant('p', [
        { type: 'tool-invocation', toolInvocation: 'getWeather' },
        { type: 'text', text: 'x' },
      ]),
    ],
    'numeric toolCallId vs string toolCallId': () => [call('a', 5), result('b', '5'), result('c', 5)],
    'object toolCallId (identity)': () => {
      const shared = { k: 1 }
      return [call('a', shared), result('b', shared), result('c', { k: 1 })]
    },
    'NaN / 0 / empty toolCallIds': () => [call('a', NaN), result('b', NaN), call('c', 0), result('d', 0), call('e', ''), result('f', '')],
    'toolCall fallback variants': () => [
      assistant('a', [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCall: null, toolName: 'getWeather' } }]),
      assistant('b', [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: null, toolCall: { id: 'z' }, toolName: 'x' } }]),
      assistant('c', [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCall: 'str', toolName: 'y' } }]),
    ],
    'numeric / missing toolName': () => [
      withOutput('a', { state: 'result', toolCallId: 'q', toolName: 7, args: {}, result: 1 }, 'x'),
      withOutput('b', { state: 'result', toolCallId: 'w', args: {}, result: 1 }, 'y'),
    ],
    'symbol toolName in a preserved result': () => [withOutput('a', { state: 'result', toolCallId: 'q', toolName: SHARED_SYM, args: {}, result: 1 }, 'x')],
    'top-level content is a number/object (filterSpecific calls .trim)': () => [
      call('a', 'c1', 'getWeather', { content: 5 }),
      call('b', 'c2', 'other', { content: { x: 1 } }),
      result('c', 'c3', 'other', { content: true }),
    ],
    'legacy toolInvocations not an array': () => [
      result('a', 'c1', 'getWeather', { toolInvocations: 'nope' }),
      result('b', 'c2', 'other', { toolInvocations: { 0: 1 }, content: 'keep' }),
    ],
    'legacy toolInvocations with null entry': () => [result('a', 'c1', 'other', { toolInvocations: [null], content: 'keep' })],
    'cyclic array modelOutput (reference overflows the stack)': () => {
      const a = []
      a.push(a)
      return [withOutput('a', resultQ(), a)]
    },
    'cyclic value modelOutput (reference overflows the stack)': () => {
      const o = {}
      o.value = o
      return [withOutput('a', resultQ(), o)]
    },
    // (outputs that still contain the 100k-deep value are compared through summarizeDeep)
    [DEEPER_THAN_REFERENCE]: () => {
      let a = 'x'
      for (let i = 0; i < 100000; i++) a = [a]
      return [withOutput('a', resultQ(), a)]
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
                  return Array.isArray(mo) && depthOf(mo) > 1000
                    ? { ...p, providerMetadata: { mastra: { modelOutput: `<array nested ${depthOf(mo)} deep>` } } }
                    : p
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
        const input = await outcomes((F) => new F(o()).processInput(inputArgs(build())))
        sameOutcome(name, summarizeDeep(input.ours), summarizeDeep(input.ref), `${name} processInput ${JSON.stringify(opts)}`)
        if (opts?.filterAfterToolSteps !== undefined) {
          const step = await outcomes((F, state) => {
            const m = build()
            return new F(o()).processInputStep(stepArgs(m, m, state))
          })
          sameOutcome(name, summarizeDeep(step.ours), summarizeDeep(step.ref), `${name} processInputStep ${JSON.stringify(opts)}`)
          if (!step.ref.threw) assertSameValue(step.os, step.rs, `${name} state`)
        }
      }
    })
  }

  test('messageList.get.all.db() returning a non-array', async () => {
    for (const value of [undefined, null, 'str', { length: 0 }, new Set()]) {
      for (const opts of [{}, { exclude: [] }, { exclude: ['x'] }]) {
        await sameAs(`db() -> ${String(value)} ${JSON.stringify(opts)}`, (F) => new F({ ...opts }).processInput({ messageList: fakeList(value), abort }))
      }
    }
  })

  test('missing messageList / missing args', async () => {
    for (const args of [{}, { messages: [] }, { messageList: {} }, { messageList: { get: {} } }]) {
      await sameAs(`processInput ${JSON.stringify(args)}`, (F) => new F().processInput(args))
    }
    await sameAs('processInput()', (F) => new F().processInput())
    for (const args of [{ messageList: fakeList([]) }, { state: {} }, { messageList: { get: { all: { db: () => [] } } }, state: {} }]) {
      await sameAs(`processInputStep ${Object.keys(args)}`, (F) => new F({ filterAfterToolSteps: 1 }).processInputStep(args))
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
        const { ref, rs, os } = await sameAs(
          `${name} (filterAfterToolSteps ${n})`,
          (F, state) => new F({ filterAfterToolSteps: n }).processInputStep(stepArgs(all(), all(), state)),
          mk,
        )
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
            assert.ok(
              ours.ctor.threw && ours.ctor.error instanceof TypeError,
              `${label}: reference constructor threw ${ref.ctor.error}; ours must throw TypeError`,
            )
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
