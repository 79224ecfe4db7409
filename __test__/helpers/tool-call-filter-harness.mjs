// Shared by the ToolCallFilter tests: the fake message list the processor reads,
// argument builders, the seeded options of the read differentials, and the parity
// rule (same value with the same key order, or a TypeError where the reference
// throws one).

import assert from 'node:assert/strict'
import { pathToFileURL } from 'node:url'

import { loadRelease } from './releases.mjs'

/** The fake MessageList shape the processor reads. */
export function fakeList(all, response = []) {
  return { get: { all: { db: () => all }, response: { db: () => response } } }
}

export const abort = (reason) => {
  throw new Error(`abort called: ${reason}`)
}

export function inputArgs(all, { messages = all } = {}) {
  return { messages, messageList: fakeList(all), abort, requestContext: undefined }
}

export function stepArgs(all, response, state, { stepNumber = 0, messages = all } = {}) {
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

/** The tool names of the read differentials' seeded cases (the options exclude some of them). */
export const TOOL_NAMES = ['search', 'weather', 'mail']

/**
 * The seeded options of a read differential (tool-call-filter.read-differential and
 * .message-list-reads): an exclude list (none, `search` most often, two names, or empty),
 * `preserveModelOutput` half the time, and `filterAfterToolSteps` of 0 to 2 with the chance
 * `steps` (the prompt differential 0.4, the message list one 0.7). Draws from rng in that order.
 */
export function genFilterOptions(rng, { steps }) {
  const exclude = rng.weighted([
    [1, undefined],
    [3, ['search']],
    [1, ['search', 'mail']],
    [1, []],
  ])
  const options = { ...(exclude ? { exclude } : {}) }
  if (rng.bool(0.5)) options.preserveModelOutput = true
  if (rng.bool(steps)) options.filterAfterToolSteps = rng.pick([0, 1, 2])
  return options
}

/**
 * Run fn and classify the outcome. Methods must return a thenable (the reference methods
 * are `async`, so they never throw synchronously); a synchronous throw or a non-thenable
 * return is recorded and rejected by assertSameOutcome.
 */
export async function settle(fn, { expectThenable = true } = {}) {
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
export function canon(value) {
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
    const tag = proto === null ? 'null' : proto === Object.prototype ? '' : proto === Array.prototype ? 'A' : (proto.constructor?.name ?? '?')
    const keys = Reflect.ownKeys(v).filter((k) => Object.prototype.propertyIsEnumerable.call(v, k))
    return `${tag}{${keys.map((k) => `${typeof k === 'symbol' ? k.toString() : JSON.stringify(k)}:${walk(v[k])}`).join(',')}}`
  }
  return walk(value)
}

/** deepStrictEqual + key order (canon), with a context prefix on failure. */
export function assertSameValue(actual, expected, ctx) {
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

export const isStackOverflow = (e) => e instanceof RangeError && /call stack/i.test(e.message)

/**
 * The parity rule:
 *  - reference returns  -> ours returns (asynchronously) a deep-equal value (same key order);
 *  - reference throws a TypeError -> ours rejects with a TypeError (message not compared);
 *  - reference overflows the stack (RangeError on cyclic/very deep modelOutput) -> ours
 *    rejects with a TypeError or RangeError (never a crash);
 *  - reference throws something else (an error thrown by user code such as a getter) ->
 *    ours rejects with any error.
 */
export function assertSameOutcome(ours, ref, ctx) {
  if (ours.notThenable) assert.fail(`${ctx}\nours returned a non-thenable (${typeof ours.value}); the reference method is async`)
  if (ours.sync) assert.fail(`${ctx}\nours threw synchronously (${ours.error?.name}: ${ours.error?.message}); the reference method is async and rejects`)
  if (ref.threw) {
    if (!ours.threw) {
      assert.fail(`${ctx}\nreference threw ${ref.error?.name}: ${ref.error?.message}\nbut ours returned: ${canon(ours.value).slice(0, 1000)}`)
    }
    if (ref.error instanceof TypeError) {
      assert.ok(
        ours.error instanceof TypeError,
        `${ctx}\nreference threw TypeError (${ref.error.message}); ours threw ${ours.error?.name}: ${ours.error?.message}`,
      )
    } else if (isStackOverflow(ref.error)) {
      assert.ok(
        ours.error instanceof TypeError || ours.error instanceof RangeError,
        `${ctx}\nreference overflowed the stack; ours must throw TypeError or RangeError, threw ${ours.error?.name}: ${ours.error?.message}`,
      )
    }
    return
  }
  if (ours.threw) {
    assert.fail(
      `${ctx}\nreference returned ${canon(ref.value).slice(0, 1000)}\nbut ours threw ${ours.error?.name}: ${ours.error?.message}\n${ours.error?.stack}`,
    )
  }
  assertSameValue(ours.value, ref.value, ctx)
}

export function deepFreeze(o, seen = new WeakSet()) {
  if (o === null || typeof o !== 'object' || seen.has(o)) return o
  seen.add(o)
  if (ArrayBuffer.isView(o)) return o
  for (const k of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, k)
    if (d && 'value' in d) deepFreeze(d.value, seen)
  }
  return Object.freeze(o)
}

/**
 * The reference ToolCallFilter of a release and ours for it (TCF_OURS=/abs/path/module.mjs
 * swaps ours for another build, for mutation testing of these tests).
 */
export async function filtersOf(version) {
  const release = await loadRelease(version)
  const OurFilter = process.env.TCF_OURS ? (await import(pathToFileURL(process.env.TCF_OURS).href)).ToolCallFilter : release.ours.ToolCallFilter
  return { release, RefFilter: release.reference.ToolCallFilter, OurFilter }
}
