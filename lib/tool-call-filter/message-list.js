'use strict'
// ToolCallFilter as Mastra 1.59 and earlier have it: `processInput` and
// `processInputStep` rewrite the message list. This module is the stage: its
// options, the steps it records in a request's `state`, and the driving of a
// call, which walks the messages in runs onto a tape (message-list-tape.js),
// lets the native filter decide, and applies the plan it returns to the
// original objects (message-list-plan.js). What the reference reads of a
// message only once its parts are decided (an inherited `content.content`,
// the legacy `toolInvocations` of a message it keeps) is read then too: the
// plan asks for the text with an action for each kind of it, and says what
// of a rebuilt message's legacy list stays, with an exclude list by verdicts
// each entry is looked up in. Payloads (args, results, model outputs) never
// cross the boundary; only their shape does. May import: native.js,
// hook-arguments.js, and this folder's common.js, scratch.js, model-output.js,
// message-list-tape.js and message-list-plan.js.

const { planMessageList, advanceMessageListSteps, messageListRunLength } = require('../native.js')
const { codes, stateKeys, EXCLUDE, readOptions, excludeNow, REFUSED, refused } = require('./common.js')
const { takeScratch, releaseScratch } = require('./scratch.js')
const { fillJson } = require('./model-output.js')
const { argument } = require('../hook-arguments.js')
const { MARK, markKept, writeHistory } = require('./message-list-tape.js')
const { applyPlan, resolveLegacy } = require('./message-list-plan.js')

const PLAN = codes.plan
const NODE = codes.modelOutput
const PROCESSOR = codes.processor
const { seen: SEEN_KEY, steps: STEPS_KEY } = stateKeys

/**
 * A step's `state` as the filter leaves it: an empty object given the two
 * keys. A state lives for one run, and the hidden classes those stores make
 * are reached from the empty object's only by transitions, which V8 holds
 * weakly: a full collection between runs would free them and deoptimize the
 * code compiled against them. This object keeps them alive. Guarded by
 * __test__/tool-call-filter.collection.test.mjs.
 */
const recordedStateShape = {}
recordedStateShape[SEEN_KEY] = []
recordedStateShape[STEPS_KEY] = []

/** Messages per tape by exclude mode, asked of the core once per mode: a native call costs about a microsecond. */
const runLengths = new Map()

function runLengthOf(mode) {
  if (!runLengths.has(mode)) runLengths.set(mode, messageListRunLength(mode))
  return runLengths.get(mode)
}

class ToolCallFilter {
  id = PROCESSOR.id
  name = PROCESSOR.name

  #exclude
  #excludeIsProxy
  #withOutputs
  #keepSteps
  #filtersSteps

  constructor(options = {}) {
    const { exclude, excludeIsProxy, preserveModelOutput, keepSteps, messageListFiltersSteps } = readOptions(options)
    this.#exclude = exclude
    this.#excludeIsProxy = excludeIsProxy
    this.#withOutputs = preserveModelOutput
    this.#keepSteps = keepSteps
    this.#filtersSteps = messageListFiltersSteps
  }

  async processInput(args) {
    const messages = argument(args, 'messageList').get.all.db()
    const scratch = takeScratch()
    try {
      return this.#filter(scratch, messages, null, null)
    } finally {
      releaseScratch(scratch)
    }
  }

  async processInputStep(args) {
    if (!this.#filtersSteps) return {}
    const messages = argument(args, 'messageList').get.all.db()
    const scratch = takeScratch()
    try {
      const preserve = this.#advanceSteps(scratch, args)
      return { messages: this.#filter(scratch, messages, scratch.ids, preserve) }
    } finally {
      releaseScratch(scratch)
    }
  }

  /** Records this step's tool calls in `args.state` and returns the ids to keep. */
  #advanceSteps(scratch, args) {
    const state = argument(args, 'state')
    const ids = scratch.ids
    const seenBefore = [...(state[SEEN_KEY] ?? [])]
    const stepsBefore = [...(state[STEPS_KEY] ?? [])]

    // The ids seen, then the steps as `[count, ids...]*`, on one tape.
    const recorded = scratch.recorded
    recorded.reserve(seenBefore.length)
    for (let i = 0; i < seenBefore.length; i++) recorded.data[i] = ids.intern(seenBefore[i])
    recorded.length = seenBefore.length
    for (const step of stepsBefore) {
      // `flat()` spreads arrays one level and keeps anything else as it is.
      const members = Array.isArray(step) ? step : [step]
      recorded.push(members.length)
      for (const id of members) recorded.push(ids.intern(id))
    }
    const responseMessages = argument(args, 'messageList').get.response.db()
    checkHistory(responseMessages)
    // Only the parts' ids: the reference reads no top-level text or legacy list of a response.
    const walk = scratch.walk
    walk.messages = responseMessages
    walk.excluded = null
    walk.excludeLength = 0
    walk.ids = ids
    walk.preserve = null
    walk.withOutputs = false
    walk.internNew = true
    walk.idsOnly = true
    walk.marking = 0
    writeHistory(scratch, 0, responseMessages.length)
    const written = recorded.finish()
    const answer = askSteps(scratch, this.#keepSteps, written.subarray(0, seenBefore.length), written.subarray(seenBefore.length))
    let at = 0
    const seenCount = answer[at++]
    const seenAfter = new Array(seenCount)
    for (let i = 0; i < seenCount; i++) seenAfter[i] = ids.values[answer[at++]]
    const stepCount = answer[at++]
    const step = new Array(stepCount)
    for (let i = 0; i < stepCount; i++) step[i] = ids.values[answer[at++]]
    const preserveCount = answer[at++]

    state[SEEN_KEY] = seenAfter
    state[STEPS_KEY] = [...stepsBefore, step]
    // Moved off the answer buffer, which holds the plans of the history's runs next.
    recorded.reset()
    recorded.reserve(preserveCount)
    recorded.data.set(answer.subarray(at, at + preserveCount))
    recorded.length = preserveCount
    return recorded.finish()
  }

  /**
   * The messages that stay, planned in runs. `ids` is null where ids decide
   * nothing (see `writeHistory`); `preserve` holds the ids the steps keep.
   */
  #filter(scratch, messages, ids, preserve) {
    const keepSteps = this.#keepSteps
    const exclude = this.#exclude
    const { mode, names, length: excludeLength } = excludeNow(exclude, this.#excludeIsProxy)
    if (mode === EXCLUDE.nothing) return messages
    checkHistory(messages)
    if (ids === null && mode === EXCLUDE.listed) ids = scratch.ids
    const withOutputs = this.#withOutputs
    // The reference keeps a part the steps hold before it reads its state or
    // its model output, and reads a model output only of a result that goes:
    // with an exclude list, that takes the ids of the excluded tools' calls.
    let marking = 0
    if (preserve !== null && preserve.length > 0) marking |= MARK.kept
    if (withOutputs && mode === EXCLUDE.listed) marking |= MARK.excluded
    // As `map` does, the reference reads the length once.
    const count = messages.length
    const runLength = runLengthOf(mode) ?? count
    const filtered = []
    // Zeroed when the call gives its scratch back, whatever happens in between:
    // only the kept ids where no other marks are made.
    if ((marking & MARK.excluded) !== 0) scratch.marked = true
    if ((marking & MARK.kept) !== 0) markKept(scratch, ids.values.length, preserve)
    // Every field, in `Walk`'s order, once for the call's runs.
    const walk = scratch.walk
    walk.messages = messages
    walk.excluded = names
    walk.excludeLength = excludeLength
    walk.ids = ids
    walk.preserve = preserve
    walk.withOutputs = withOutputs
    walk.internNew = mode === EXCLUDE.listed
    walk.idsOnly = false
    walk.marking = marking
    for (let from = 0; from < count; from += runLength) {
      const to = Math.min(count, from + runLength)
      scratch.clear()
      // Excluding every tool, ids decide only whether a step keeps a call:
      // those are all interned already, so the others need no index of their own.
      writeHistory(scratch, from, to)
      if (scratch.lateOutputs) {
        // A result left without its model output whose call turned out, later
        // in the history, to be an excluded tool's: rare (a call comes before
        // its result), and written again now that every excluded id is marked.
        scratch.clear()
        writeHistory(scratch, from, to)
      }
      const written = scratch.tape.finish()
      // A plan is never longer than its tape and the legacy verdicts.
      if (scratch.plan.length < written.length + PLAN.legacyVerdicts) scratch.plan = new Int32Array((written.length + PLAN.legacyVerdicts) * 2)
      const run = [withOutputs, keepSteps, excludeLength, written, preserve ?? undefined, from]
      let length = askPlan(scratch, run)
      if (length < 0) {
        // Some JSON may be its output's text after all: fill in what is needed and plan again.
        fillJson(scratch, 0, 0, -length / NODE.jsonAskLength)
        length = askPlan(scratch, run)
      }
      const end = applyPlan(scratch, from, to, filtered)
      // With an exclude list the plan ends with the excluded calls' ids.
      if (scratch.legacyOwnerCount > 0) resolveLegacy(scratch, end, length, from)
    }
    return filtered
  }
}

/**
 * Calls `advanceMessageListSteps`, growing the answer buffer as asked; the
 * answer's view. Native refusals surface as the `TypeError`s the reference
 * throws in the same places.
 */
function askSteps(scratch, keepSteps, seen, steps) {
  const response = scratch.tape.finish()
  for (;;) {
    let length
    try {
      length = advanceMessageListSteps(keepSteps, seen, steps, response, scratch.plan)
    } catch (error) {
      throw new TypeError(error.message)
    }
    if (length >= 0) return scratch.plan.subarray(0, length)
    scratch.plan = new Int32Array(-length * 2)
  }
}

/** Calls `planMessageList` with `run` (its arguments up to the answer buffer); the plan's length, as it answers. */
function askPlan(scratch, run) {
  const [withOutputs, keepSteps, excludeLength, written, preserve, from] = run
  try {
    return planMessageList(withOutputs, keepSteps, excludeLength, written, preserve, from, scratch.plan)
  } catch (error) {
    throw new TypeError(error.message)
  }
}

function checkHistory(messages) {
  if (!Array.isArray(messages)) {
    throw refused(REFUSED.messages, messages)
  }
}

// Exported so that it stays reachable: a module's local that no function reads does not.
module.exports = { ToolCallFilter, recordedStateShape }
