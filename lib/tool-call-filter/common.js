'use strict'
// What both ToolCallFilter stages share of the protocol and the options: the
// codes, names and model-facing text from Rust (src/protocol/
// tool_call_filter.rs declares them, src/tool_call_filter/ defines every tape
// and plan), the keys a request's `state` is recorded under, the constructor
// options as the reference reads them, the `exclude` list as each call reads
// it, and the wording of a refusal. The call's buffers are in scratch.js, a
// model output's encoding in model-output.js. May import: native.js.

const native = require('../native.js')

const codes = native.toolCallFilterProtocol()
const { excludeMode, checkToolCallFilterOptions, toolCallFilterRefusal } = native
/** What a value of the wrong kind was given as (see `refused`). */
const REFUSED = codes.refused
const EXCLUDE = codes.exclude

/**
 * `name` as V8 keeps a property's name: interned, as a key read back from an
 * object is. A string made by Node-API is not, and an inline cache that sees
 * a computed key compares it with the name it recorded by identity: the
 * store of a request's history into its `state` went megamorphic on its
 * second call, and a megamorphic store looks its handler up in a cache that
 * every full collection empties.
 */
function propertyKey(name) {
  return Object.keys({ [name]: true })[0]
}

/** The keys the filter records under in a request's `state`, interned. */
const stateKeys = {
  history: propertyKey(codes.stateKeys.history),
  seen: propertyKey(codes.stateKeys.seen),
  steps: propertyKey(codes.stateKeys.steps),
}

/**
 * The constructor options, read as the reference reads them and checked
 * once by Rust (`checkToolCallFilterOptions`). `exclude` stays the caller's
 * array: the reference reads it on every call, so names pushed into it later
 * count. One behind a Proxy (which `Array.isArray` accepts, as the
 * reference does) is read as the reference reads it (`excludeIsProxy`, see
 * `excludeNow`).
 */
function readOptions(options) {
  if (options === null || typeof options !== 'object') throw refused(REFUSED.options, options)
  const { exclude, filterAfterToolSteps, preserveModelOutput } = options
  const checked = checkToolCallFilterOptions(exclude, filterAfterToolSteps, preserveModelOutput)
  return {
    // A falsy `exclude` means every tool, as `!options.exclude` does in the reference.
    exclude: checked.excludesListed ? exclude : undefined,
    excludeIsProxy: checked.excludeIsProxy,
    preserveModelOutput: checked.preserveModelOutput,
    keepSteps: checked.keepSteps,
    keepsAnyStep: checked.keepsAnyStep,
    messageListFiltersSteps: checked.messageListFiltersSteps,
    promptFilterUsesHistory: checked.promptFilterUsesHistory,
  }
}

/**
 * The last list length asked about and the core's mode for it: a list's
 * length rarely changes between calls, and a native call costs more than the
 * rest of a short prompt's bookkeeping.
 */
let lastExclude = { length: null, mode: null }

function excludeModeOf(length) {
  if (lastExclude.length !== length) lastExclude = { length, mode: excludeMode(length) }
  return lastExclude.mode
}

/**
 * What the `exclude` list asks for right now, its length (read once, as the
 * reference reads it once a call), and its names as a Set when they matter.
 * A list behind a Proxy (`live`) sees its reads: its names are then asked
 * of its `includes` at each question, as the reference asks them.
 */
function excludeNow(exclude, live) {
  const length = exclude?.length
  const mode = excludeModeOf(length)
  if (mode !== EXCLUDE.listed) return { mode, names: null, length }
  // `Set#has` matches like `Array#includes` (SameValueZero, holes as undefined).
  return { mode, names: live ? new LiveNames(exclude) : new Set(exclude), length }
}

/** A list's names, asked of the list itself (`has` as the reference's `includes`). */
class LiveNames {
  #list
  constructor(list) {
    this.#list = list
  }

  has(name) {
    return this.#list.includes(name)
  }
}

/**
 * The `TypeError` for a `value` of the wrong kind given as `what` (a
 * `REFUSED` code; `index`, the item of it), worded by Rust. Thrown by the
 * caller, where it found the value.
 */
function refused(what, value, index = undefined) {
  return new TypeError(toolCallFilterRefusal(what, value, index))
}

module.exports = {
  codes,
  stateKeys,
  EXCLUDE,
  readOptions,
  excludeNow,
  REFUSED,
  refused,
}
