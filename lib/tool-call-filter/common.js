'use strict'
// What both ToolCallFilter stages share on the JavaScript side: the options,
// the buffers tapes are written into, interned call ids, and the encoding of
// a model output. The codes, names and model-facing text come from Rust:
// src/protocol/tool_call_filter.rs declares them, src/tool_call_filter/
// defines every tape and plan.

const native = require('../native.js')
const { TapeWriter } = require('../tape-writer.js')

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
const NODE = codes.modelOutput
const RESULT_HEADING = codes.resultHeading

/**
 * Buffers larger than this many entries are not kept for the next call: one
 * huge history must not pin its buffers for the life of the process. At 1 MiB
 * a buffer it still holds the tapes of a 10,000-message history (about
 * 130,000 entries): regrowing them on every such call, and the full garbage
 * collections that large fresh `ArrayBuffer`s provoke, cost about a quarter
 * of the call.
 */
const KEPT_BUFFER_LIMIT = 1 << 18

/**
 * Interns tool-call ids the way a `Set` compares them (SameValueZero), so the
 * native side can compare plain integers.
 */
class CallIds {
  /**
   * Every id interned, in first-seen order: the `Set` the prompt filter
   * records as a request's history, so a new id costs one hash operation
   * (`add`) instead of a map's miss and insertion and a set built afterwards.
   */
  set = new Set()
  values = []
  /** Index by id, built only when an id comes back out of the expected order. */
  #indexes = null
  /**
   * The id after the last one found again. Ids mostly come back in the order
   * they first came (a step's results follow its calls, and legacy entries
   * their parts), so the next id is checked here before any hashing. `===`
   * implies SameValueZero, so a match is the set's own answer; `NaN`, which
   * `===` never matches, goes to the set.
   */
  #next = 0
  /** The recorded history whose ids `values` starts with (see `seed`), or null; `set` holds the others. */
  #base = null

  /**
   * Starts over for another call. The set is new: the last one may be a
   * request's recorded history now.
   */
  reset() {
    this.set = new Set()
    this.values = []
    this.#indexes = null
    this.#next = 0
    this.#base = null
  }

  /**
   * Starts the call's ids with those of `base`, a request's recorded
   * history, in `order`, the order the call that recorded it interned them.
   * The prompts of a request's later model calls begin with that history, so
   * each of its ids is found again in order, without hashing, and is known to
   * be history by its index (below `order.length`); only the run's own ids
   * are added to `set`.
   */
  seed(order, base) {
    this.values = order.slice()
    this.#base = base
  }

  intern(id) {
    const values = this.values
    const next = this.#next
    if (next < values.length && values[next] === id) {
      this.#next = next + 1
      return next
    }
    // The id found last, again: a result right after its call.
    if (next > 0 && values[next - 1] === id) return next - 1
    const base = this.#base
    if (base !== null && base.has(id)) return this.#foundAgain(id)
    const set = this.set
    const size = set.size
    set.add(id)
    if (set.size !== size) {
      values.push(id)
      return values.length - 1
    }
    return this.#foundAgain(id)
  }

  /**
   * The index of an id interned before, or else `values.length`: one index
   * shared by every id that is not, and that no earlier tape or set used.
   * Where ids are only compared against a set of interned ones (the ids a
   * step keeps), those others all answer "not in it" alike, and skipping
   * their interning spares a set that grows with the history.
   */
  lookup(id) {
    return this.set.has(id) || (this.#base !== null && this.#base.has(id)) ? this.#indexOf(id) : this.values.length
  }

  /** The index of an id interned before, out of order; the ids after it are expected next. */
  #foundAgain(id) {
    const index = this.#indexOf(id)
    this.#next = index + 1
    return index
  }

  /** The index of an interned id, from the map, which first catches up with `values`. */
  #indexOf(id) {
    const values = this.values
    const indexes = (this.#indexes ??= new Map())
    for (let i = indexes.size; i < values.length; i++) indexes.set(values[i], i)
    return indexes.get(id)
  }
}

/**
 * The buffers a tape and its answer cross the boundary in, and the call ids a
 * call interns. Everything a call works with lives here, made once, rather
 * than made per call: a full garbage collection frees the hidden class of an
 * object no live object has (a class's instance with its fields, reached from
 * the constructor only by a transition, which V8 holds weakly), and
 * deoptimizes every function compiled against it, so a server that collects
 * between requests would run the filter unoptimized after each.
 */
class Scratch {
  /** The tape of a history run, or the prompt filter's whole input (see prompt.js). */
  tape = new TapeWriter(4096)
  /**
   * What the request's `state` recorded, as the native side reads it: the
   * message list's steps and then the ids they keep. Kept through the call.
   */
  recorded = new TapeWriter(256)
  plan = new Int32Array(4096)
  /**
   * The message-list filter's legacy lists of a run's rebuilt messages, and
   * beside them, in pairs, each one's new content and the list itself, the
   * first `legacyOwnerCount` slots (see message-list.js). The array keeps its
   * room between calls; its slots are emptied when a run is done with them.
   */
  legacy = new TapeWriter(256)
  legacyOwners = []
  legacyOwnerCount = 0
  /** The answer for `legacy`. */
  legacyPlan = new Int32Array(256)
  /** Whether `legacy` holds a `null` entry, which the native side refuses. */
  legacyNull = false
  /** The call ids interned by the call; emptied when it gives the set back. */
  ids = new CallIds()
  /**
   * Per interned call id, bits of the message-list filter's walk (see
   * message-list.js): which ids the kept steps hold and which an excluded
   * tool's part carries. Zeroed by that filter when its call ends.
   */
  marks = new Uint8Array(256)
  /** Whether the call set any of `marks`, up to its interned ids, besides `keptIds`. */
  marked = false
  /** The interned ids the kept steps hold, marked in `marks`, or null. */
  keptIds = null
  /** Whether a result was written without its model output and its call found an excluded tool's later. */
  lateOutputs = false
  /** Strings a tape refers to by index. */
  strings = []
  /** Whether `strings` held more than the kept limit during the call. */
  stringsGrown = false
  /** Arrays whose JSON slot was left for later, by tape position. */
  lazyJson = new Map()
  /** The objects a model output being written is inside; empty between outputs. */
  ancestors = []
  /** Where the prompt's results with their own model output are: message and part indexes, in pairs. */
  ownOutputs = []
  /** For each of `ancestors`: the next item to write, and the item count (0 for an object). */
  cursors = []
  ends = []
  /** The ancestors past the first `SEARCHED_ANCESTORS`, for a deep output's cycle check. */
  deepAncestors = new Set()
  busy = false

  /** Empties the buffers for the next tape of a call. */
  clear() {
    this.tape.reset()
    this.legacy.reset()
    // Left behind only by a getter that threw in the middle of a run.
    if (this.legacyOwnerCount !== 0) releaseOwners(this)
    this.legacyNull = false
    const strings = this.strings
    if (strings.length > KEPT_BUFFER_LIMIT) this.stringsGrown = true
    // Setting an array's length is a call into the runtime, even to what it is.
    if (strings.length !== 0) strings.length = 0
    // `Map#clear` allocates a new table even for an empty map.
    if (this.lazyJson.size !== 0) this.lazyJson.clear()
    // Left behind only by a getter that threw in the middle of an output.
    if (this.ancestors.length !== 0) {
      this.ancestors.length = 0
      this.cursors.length = 0
      this.ends.length = 0
      this.deepAncestors.clear()
    }
    if (this.ownOutputs.length !== 0) this.ownOutputs.length = 0
    this.lateOutputs = false
  }
}

/** Empties the slots of `scratch.legacyOwners` a run used, so that they hold on to no message. */
function releaseOwners(scratch) {
  const owners = scratch.legacyOwners
  for (let i = 0; i < scratch.legacyOwnerCount; i++) owners[i] = undefined
  scratch.legacyOwnerCount = 0
}

// One set is kept between calls, so a busy filter allocates nothing for them.
// A call fills and consumes it synchronously; only a call made from user code
// in the middle of another (a getter or `toJSON` on a message) finds it busy
// and gets a set of its own. Every call leaves its set cleared, so the next
// starts with empty buffers.
const shared = new Scratch()

/** The set for a call; give it back with `releaseScratch` in a `finally`. */
function takeScratch() {
  const scratch = shared.busy ? new Scratch() : shared
  scratch.busy = true
  return scratch
}

function releaseScratch(scratch) {
  if (scratch.marked) {
    scratch.marks.fill(0, 0, Math.min(scratch.marks.length, scratch.ids.values.length + 1))
    scratch.marked = false
  } else if (scratch.keptIds !== null) {
    const { marks, keptIds } = scratch
    for (let i = 0; i < keptIds.length; i++) marks[keptIds[i]] = 0
  }
  scratch.keptIds = null
  scratch.clear()
  scratch.recorded.reset()
  scratch.ids.reset()
  scratch.busy = false
  if (scratch === shared) giveBackOutsized(scratch)
}

/** Drops whichever buffer an outsized call grew past the limit; the next call starts small. */
function giveBackOutsized(scratch) {
  if (scratch.tape.data.length > KEPT_BUFFER_LIMIT) scratch.tape = new TapeWriter(4096)
  if (scratch.recorded.data.length > KEPT_BUFFER_LIMIT) scratch.recorded = new TapeWriter(256)
  if (scratch.legacy.data.length > KEPT_BUFFER_LIMIT) scratch.legacy = new TapeWriter(256)
  if (scratch.legacyOwners.length > KEPT_BUFFER_LIMIT) scratch.legacyOwners = []
  if (scratch.plan.length > KEPT_BUFFER_LIMIT) scratch.plan = new Int32Array(4096)
  if (scratch.legacyPlan.length > KEPT_BUFFER_LIMIT) scratch.legacyPlan = new Int32Array(256)
  // Zeroed by the call that grew it (see `releaseScratch`).
  if (scratch.marks.length > KEPT_BUFFER_LIMIT) scratch.marks = new Uint8Array(256)
  // An emptied array keeps its backing store; a new one does not.
  if (scratch.stringsGrown) {
    scratch.strings = []
    scratch.stringsGrown = false
  }
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
 * Writes the shape of a model output onto `tape`; see `node` in
 * src/tool_call_filter/tape.rs. Reads the output as the reference's
 * `modelOutputToText` does, in its order (each array's `length` once, then
 * each item it has; an object's `type`, then its `value` and `text` only
 * where the reference asks for them), and without recursion: an output nests
 * as deep as the caller made it, far past the depth where a recursive walk
 * (the reference's included) overflows the stack.
 *
 * An object's text is decided here, since nothing inside it can change it:
 * `{ value }` is written as its value, and every other object as the string it
 * answers with (its string `value` or `text`, or its JSON), so only strings,
 * primitives, arrays, nothing and `tooDeep` reach the tape.
 */
function writeModelOutput(scratch, tape, output) {
  // The arrays and `{ value }` objects the node being written is inside, each
  // with its next item and its length (both 0 for an object).
  const { ancestors, cursors, ends } = scratch
  const strings = scratch.strings
  const base = ancestors.length
  // The `{ value }` object whose value is being written, kept out of
  // `ancestors` until that value has items of its own: most outputs are one
  // such object around a string or a JSON object, which then costs no entry.
  let wrapper = null
  let value = output
  for (;;) {
    switch (typeof value) {
      case 'string':
        writeString(tape, strings, value)
        break
      case 'number':
      case 'boolean':
      case 'bigint':
        tape.push(NODE.primitive)
        tape.push(strings.push(String(value)) - 1)
        break
      case 'object': {
        if (value === null) {
          tape.push(NODE.nothing)
          break
        }
        // A cycle (or the far limit): Rust fails only if this output's text is needed.
        const depth = ancestors.length - base + (wrapper === null ? 0 : 1)
        if (depth >= NODE.maxDepth || value === wrapper || isAncestor(scratch, value)) {
          tape.push(NODE.tooDeep)
          break
        }
        if (Array.isArray(value)) {
          if (wrapper !== null) {
            enter(scratch, wrapper, 0)
            wrapper = null
          }
          tape.push(NODE.array)
          // An array's JSON is its text only when no item has any: left for later.
          scratch.lazyJson.set(tape.length, value)
          tape.push(NODE.jsonLater)
          const length = value.length
          tape.push(length)
          enter(scratch, value, length)
          break
        }
        if (value.type === 'text') {
          const textValue = value.value
          if (typeof textValue === 'string') {
            writeString(tape, strings, textValue)
            break
          }
          const text = value.text
          if (typeof text === 'string') {
            writeString(tape, strings, text)
            break
          }
        }
        if ('value' in value) {
          // The object stays an ancestor while its value is written, to catch a cycle through it.
          if (wrapper !== null) enter(scratch, wrapper, 0)
          wrapper = value
          value = value.value
          continue
        }
        if ('text' in value) {
          const text = value.text
          if (typeof text === 'string') {
            writeString(tape, strings, text)
            break
          }
        }
        const json = jsonIndex(value, strings)
        if (json === NODE.noJson) {
          tape.push(NODE.nothing)
          break
        }
        tape.push(NODE.string)
        tape.push(json)
        // JSON is never the empty string.
        tape.push(1)
        break
      }
      default:
        tape.push(NODE.nothing)
    }
    wrapper = null
    // The node is written: on to the next item of the innermost unfinished array.
    for (;;) {
      const depth = ancestors.length
      if (depth === base) return
      const at = cursors[depth - 1]
      if (at < ends[depth - 1]) {
        cursors[depth - 1] = at + 1
        const array = ancestors[depth - 1]
        // A hole is skipped by the reference's `map`, and contributes nothing.
        value = at in array ? array[at] : undefined
        break
      }
      leave(scratch)
    }
  }
}

function writeString(tape, strings, value) {
  tape.push(NODE.string)
  tape.push(strings.push(value) - 1)
  tape.push(value.length > 0 ? 1 : 0)
}

/**
 * Ancestors past this many are also kept in a set: a linear search of the
 * path is cheapest for the shallow outputs tools make, and a set keeps a
 * deep one linear in its size.
 */
const SEARCHED_ANCESTORS = 32

function isAncestor(scratch, value) {
  const ancestors = scratch.ancestors
  const depth = ancestors.length
  if (depth <= SEARCHED_ANCESTORS) return depth !== 0 && ancestors.includes(value)
  return ancestors.lastIndexOf(value, SEARCHED_ANCESTORS - 1) !== -1 || scratch.deepAncestors.has(value)
}

function enter(scratch, container, length) {
  const depth = scratch.ancestors.length
  scratch.ancestors.push(container)
  scratch.cursors.push(0)
  scratch.ends.push(length)
  if (depth >= SEARCHED_ANCESTORS) scratch.deepAncestors.add(container)
}

function leave(scratch) {
  const container = scratch.ancestors.pop()
  scratch.cursors.pop()
  scratch.ends.pop()
  if (scratch.ancestors.length >= SEARCHED_ANCESTORS) scratch.deepAncestors.delete(container)
}

/**
 * Fills in the JSON the outputs' texts may need, by the `count` asks at
 * `from` of `asks` (see `JsonAsks` in src/tool_call_filter/tape.rs), in a
 * tape that starts at `start` of `data`. In their order, each ask's value is
 * stringified where none of the asks that hang on it gave JSON: where the
 * reference's recursion stringifies it, and no more (stringifying every level
 * of `[[[[]]]]` cost the cube of its depth). Where `JSON.stringify` threw,
 * the array around it, which holds what threw, is taken to throw too.
 */
function fillJson(scratch, data, start, asks, from, count) {
  const strings = scratch.strings
  const lazyJson = scratch.lazyJson
  // Per ask: how many of those that hang on it gave no JSON, and whether one threw.
  const failed = new Int32Array(count)
  const threw = new Uint8Array(count)
  for (let k = 0, at = from; k < count; k++, at += NODE.jsonAskLength) {
    if (failed[k] !== asks[at + NODE.jsonAskInside]) continue
    const slot = asks[at + NODE.jsonAskSlot]
    let json = NODE.noJson
    let thrown = threw[k] === 1
    if (slot !== NODE.noAsk) {
      if (!thrown) {
        try {
          const text = JSON.stringify(lazyJson.get(start + slot))
          if (typeof text === 'string') json = strings.push(text) - 1
        } catch {
          thrown = true
        }
      }
      data[start + slot] = json
    }
    const around = asks[at + NODE.jsonAskAround]
    if (json === NODE.noJson && around !== NODE.noAsk) {
      failed[around]++
      if (thrown) threw[around] = 1
    }
  }
}

function jsonIndex(value, strings) {
  let json
  try {
    json = JSON.stringify(value)
  } catch {
    return NODE.noJson
  }
  return typeof json === 'string' ? strings.push(json) - 1 : NODE.noJson
}

/**
 * The `TypeError` for a `value` of the wrong kind given as `what` (a
 * `REFUSED` code; `index`, the item of it), worded by Rust. Thrown by the
 * caller, where it found the value.
 */
function refused(what, value, index = undefined) {
  return new TypeError(toolCallFilterRefusal(what, value, index))
}

/** The text that stands in for a removed result: its tool's name and its output's strings. */
function resultText(toolName, strings, plan, at, count) {
  let text = strings[plan[at]]
  for (let k = 1; k < count; k++) text += '\n' + strings[plan[at + k]]
  return `${toolName}${RESULT_HEADING}${text}`
}

module.exports = {
  releaseOwners,
  codes,
  stateKeys,
  EXCLUDE,
  takeScratch,
  releaseScratch,
  readOptions,
  excludeNow,
  writeModelOutput,
  fillJson,
  resultText,
  REFUSED,
  refused,
}
