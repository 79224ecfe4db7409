// ToolCallFilter as Mastra 1.59.0 has it: how `preserveModelOutput` turns each shape
// of `providerMetadata.mastra.modelOutput` into text (literal texts), and which parts
// it reads.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { inputArgs, stepArgs, settle, assertSameValue, assertSameOutcome, filtersOf } from './helpers/tool-call-filter-harness.mjs'
import { D } from './helpers/message-list-fixtures.mjs'

const { RefFilter, OurFilter } = await filtersOf('1.59.0')

/** Run the same scenario on both implementations and compare; returns the reference value. */
async function compareInput(options, buildMessages, ctx = 'processInput') {
  const ref = await settle(() => new RefFilter(options()).processInput(inputArgs(buildMessages())))
  const ours = await settle(() => new OurFilter(options()).processInput(inputArgs(buildMessages())))
  assertSameOutcome(ours, ref, ctx)
  return ref.value
}

/** 200,000 objects nested under `a`, around one string. */
function deepObject() {
  let o = 'x'
  for (let i = 0; i < 200000; i++) o = { a: o }
  return o
}

/** What this engine's JSON.stringify makes of the value, or null where it throws. */
function textWhereStringifies(build) {
  try {
    return JSON.stringify(build())
  } catch {
    return null
  }
}

describe('ToolCallFilter (message list): model outputs as text', () => {
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
      [
        'content array',
        () => ({
          type: 'content',
          value: [
            { type: 'text', text: 'a' },
            { type: 'media', data: 'AAAA', mediaType: 'image/png' },
          ],
        }),
        'a\n{"type":"media","data":"AAAA","mediaType":"image/png"}',
      ],
      ['other object', () => ({ b: 1, 2: [1, 'x'], a: null, 1: true, u: undefined }), '{"1":true,"2":[1,"x"],"b":1,"a":null}'],
      ['object with NaN/-0/Infinity', () => ({ n: [NaN, -0, Infinity, 1e21] }), '{"n":[null,0,null,1e+21]}'],
      ['JSON escapes', () => ({ s: '\u0000\u001f\u007f\u2028\ud800"\\/\b\f\n\r\té😀' }), '{"s":"\\u0000\\u001f\u007f\u2028\\ud800\\"\\\\/\\b\\f\\n\\r\\té😀"}'],
      ['toJSON', () => ({ toJSON: () => ({ z: 1 }) }), '{"z":1}'],
      ['toJSON -> string', () => ({ toJSON: () => 'str' }), '"str"'],
      ['toJSON -> undefined', () => ({ toJSON: () => undefined }), null],
      [
        'toJSON throws',
        () => ({
          toJSON: () => {
            throw new Error('nope')
          },
        }),
        null,
      ],
      ['Date', () => new Date(0), '"1970-01-01T00:00:00.000Z"'],
      ['Map', () => new Map([[1, 2]]), '{}'],
      ['Uint8Array', () => new Uint8Array([1, 2]), '{"0":1,"1":2}'],
      ['boxed String', () => new String('boxed'), '"boxed"'],
      ['null-prototype object', () => Object.assign(Object.create(null), { k: 'v' }), '{"k":"v"}'],
      ['inherited value is used', () => Object.create({ value: 'inherited' }), 'inherited'],
      ['empty object', () => ({}), '{}'],
      ['circular object is dropped', cyclic, null],
      ['object with bigint is dropped', () => ({ n: 1n }), null],
      // V8 before Node 26 overflows its stack in JSON.stringify here, and then the
      // part is dropped; Node 26's JSON.stringify serialises it, and then it is text.
      ['deep non-value nesting (dropped where JSON.stringify overflows)', deepObject, textWhereStringifies(deepObject)],
      [
        'moderately deep value nesting',
        () => {
          let o = 'deep'
          for (let i = 0; i < 300; i++) o = { value: o }
          return o
        },
        'deep',
      ],
      [
        'moderately deep array nesting',
        () => {
          let o = 'deep'
          for (let i = 0; i < 300; i++) o = [o]
          return o
        },
        'deep',
      ],
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
      text === null
        ? []
        : [{ id: `m${i}`, role: 'assistant', createdAt: D(0), content: { format: 2, parts: [{ type: 'text', text: `ツール result:\n${text}` }] } }],
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
      content: {
        format: 2,
        parts: [{ type: 'tool-invocation', toolInvocation: { toolCallId: id, toolName: 't', args: {}, ...invocation }, providerMetadata }],
      },
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
        content: {
          format: 2,
          parts: [
            {
              type: 'tool-invocation',
              toolInvocation: { state: 'result', toolCallId: 'keep', toolName: 'getWeather', args: {}, result: 1 },
              providerMetadata: pm(),
            },
          ],
        },
      },
      {
        id: 'd',
        role: 'assistant',
        createdAt: D(1),
        content: {
          format: 2,
          parts: [
            {
              type: 'tool-invocation',
              toolInvocation: { state: 'result', toolCallId: 'drop', toolName: 'searchDatabase', args: {}, result: 1 },
              providerMetadata: pm(),
            },
          ],
        },
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
})
