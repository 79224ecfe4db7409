// Random tool results and model outputs of every shape the filters must turn
// into text exactly as the reference does (strings, primitives, arrays, text and
// json objects, toJSON, cycles, bigint, boxed values, inherited keys...), shared by
// the message-list and prompt differential tests.

// Shared singletons: functions and symbols are compared by identity in deepStrictEqual, so
// both builds of a case must reference the same ones.
export const SHARED_FN = function sharedFn() {
  return 1
}
export const SHARED_SYM = Symbol('shared')
export const TOJSON_FNS = [
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
export const INHERITED_MODEL_OUTPUT_PROTO = Object.freeze({ modelOutput: 'inherited' })
export const INHERITED_VALUE_PROTOS = ['inherited', '', 'x y'].map((value) => Object.freeze({ value }))
export const TOJSON_THROWS = function toJSON() {
  throw new Error('toJSON boom')
}

export const NUMBERS = [
  0,
  -0,
  1,
  -1,
  42,
  0.5,
  123.456,
  NaN,
  Infinity,
  -Infinity,
  1e21,
  1e20,
  1e-7,
  1e-6,
  5e-324,
  1.7976931348623157e308,
  0.1 + 0.2,
  2 ** 53 + 2,
  -1.5e-10,
  100,
  1 / 3,
]
export const BASE_TIME = Date.UTC(2025, 5, 1)

/** Generators of JSON-like values and model outputs over a seeded `createRng` helper. */
export function outputGenerators(r) {
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
        return {
          type: 'content',
          value: [
            { type: 'text', text: r.string(0, 6) },
            { type: 'media', data: 'AAAA', mediaType: 'image/png' },
          ],
        }
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

  return { genJson, genModelOutput }
}
