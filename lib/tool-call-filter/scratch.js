'use strict'
// The working memory of both ToolCallFilter stages' calls: the buffers a
// tape and its answer cross the boundary in (`Scratch`, one set kept between
// calls, taken and given back by `takeScratch` and `releaseScratch`) and the
// call ids a call interns (`CallIds`). May import: tape-writer.js.

const { TapeWriter } = require('../tape-writer.js')

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
 * What a message-list filter call walks and plans its history with, the same
 * for each of its runs (see `writeHistory` in message-list-tape.js): set, every
 * field in this order, where the call starts a walk, and emptied when it gives
 * its scratch back, so that it holds on to no message. One object on the
 * scratch, made once, so the walk's functions take their range alone.
 */
class Walk {
  /** The messages walked. */
  messages = null
  /** The excluded tools' names (a `Set`), or null. */
  excluded = null
  /** The exclude list's length, for the native side. */
  excludeLength = 0
  /** The call's `CallIds`, or null where ids decide nothing. */
  ids = null
  /** The interned ids the kept steps hold, or null. */
  preserve = null
  withOutputs = false
  internNew = false
  idsOnly = false
  /** The `MARK` bits in use. */
  marking = 0

  /** Empties it, field by field in order, for the next call. */
  reset() {
    this.messages = null
    this.excluded = null
    this.excludeLength = 0
    this.ids = null
    this.preserve = null
    this.withOutputs = false
    this.internNew = false
    this.idsOnly = false
    this.marking = 0
  }
}

/**
 * What a prompt filter call walks its prompt with (see `writePrompt` in
 * prompt.js), set, every field in this order, before the walk, and emptied
 * when the call gives its scratch back.
 */
class PromptWalk {
  /** The excluded tools' names (a `Set`), or null. */
  excluded = null
  /** How results whose model output may be wanted are marked (prompt.js's `OWN_OUTPUTS`). */
  ownOutputs = 0
  /** The request's recorded history (a `Set`), or null. */
  history = null
  /** How many of the call's ids are the history's (seeded first), or -1. */
  held = -1

  /** Empties it, field by field in order, for the next call. */
  reset() {
    this.excluded = null
    this.ownOutputs = 0
    this.history = null
    this.held = -1
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
   * first `legacyOwnerCount` slots (see message-list-plan.js). The array keeps its
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
   * message-list-tape.js): which ids the kept steps hold and which an excluded
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
  /** What the message-list filter's call walks with (see `Walk`). */
  walk = new Walk()
  /** What the prompt filter's call walks with (see `PromptWalk`). */
  promptWalk = new PromptWalk()
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
  scratch.walk.reset()
  scratch.promptWalk.reset()
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

module.exports = { releaseOwners, takeScratch, releaseScratch }
