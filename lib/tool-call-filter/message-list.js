'use strict'
// ToolCallFilter as Mastra 1.59 and earlier have it: `processInput` and
// `processInputStep` rewrite the message list. It walks the messages once to
// write the tape described in src/tool_call_filter/message_list.rs, lets the
// native filter decide, and applies the plan it returns to the original
// objects. What the reference reads of a message only once its parts are
// decided (an inherited `content.content`, the legacy `toolInvocations` of a
// message it keeps) is read then too: the plan asks for the text with an
// action for each kind of it, and says what of a rebuilt message's legacy
// list stays, with an exclude list by verdicts each entry is looked up in.
// Payloads (args, results, model outputs) never cross the boundary; only
// their shape does.

const { planMessageList, planLegacyLists, advanceMessageListSteps, messageListRunLength } = require('../native.js')
const {
  codes,
  stateKeys,
  EXCLUDE,
  takeScratch,
  releaseScratch,
  releaseOwners,
  readOptions,
  excludeNow,
  writeModelOutput,
  fillJson,
  resultText,
  REFUSED,
  refused,
} = require('./common.js')
const { argument } = require('../hook-arguments.js')

const TAPE = codes.messageList
const PLAN = codes.plan
const NODE = codes.modelOutput
const PROCESSOR = codes.processor
const { seen: SEEN_KEY, steps: STEPS_KEY } = stateKeys

/**
 * A step's `state` as the filter leaves it: an empty object given the two
 * keys. A state lives for one run, and the hidden classes those stores make
 * are reached from the empty object's only by transitions, which V8 holds
 * weakly: a full collection between runs would free them and deoptimize the
 * code compiled against them. This object keeps them alive.
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

// `String.prototype.trim` removes exactly the characters `\s` matches.
const NON_BLANK = /\S/

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
    writeHistory(scratch, responseMessages, 0, responseMessages.length, null, ids, false, true, true)
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
    const internNew = mode === EXCLUDE.listed
    for (let from = 0; from < count; from += runLength) {
      const to = Math.min(count, from + runLength)
      scratch.clear()
      // Excluding every tool, ids decide only whether a step keeps a call:
      // those are all interned already, so the others need no index of their own.
      writeHistory(scratch, messages, from, to, names, ids, withOutputs, internNew, false, marking)
      if (scratch.lateOutputs) {
        // A result left without its model output whose call turned out, later
        // in the history, to be an excluded tool's: rare (a call comes before
        // its result), and written again now that every excluded id is marked.
        scratch.clear()
        writeHistory(scratch, messages, from, to, names, ids, withOutputs, internNew, false, marking)
      }
      const written = scratch.tape.finish()
      // A plan is never longer than its tape and the legacy verdicts.
      if (scratch.plan.length < written.length + PLAN.legacyVerdicts) scratch.plan = new Int32Array((written.length + PLAN.legacyVerdicts) * 2)
      const run = [withOutputs, keepSteps, excludeLength, written, preserve ?? undefined, from]
      let length = askPlan(scratch, run)
      if (length < 0) {
        // Some JSON may be its output's text after all: fill in what is needed and plan again.
        fillJson(scratch, written, 0, scratch.plan, 0, -length / NODE.jsonAskLength)
        length = askPlan(scratch, run)
      }
      const end = applyPlan(scratch, messages, from, to, scratch.plan, filtered, names, ids, internNew, marking)
      // With an exclude list the plan ends with the excluded calls' ids.
      if (scratch.legacyOwnerCount > 0) resolveLegacy(scratch, excludeLength, end, length, preserve ?? undefined, from)
    }
    return filtered
  }
}

/**
 * Bits of `scratch.marks`, per interned call id: held by the kept steps, an
 * excluded tool's call (as the walk finds them), a result's whose model
 * output was left unread, an excluded tool's call (as the plan lists them,
 * for the legacy verdicts).
 */
const MARK = { kept: 1, excluded: 2, deferred: 4, excludedCall: 8 }

/** Marks the ids the kept steps hold; `known` ids are interned so far. */
function markKept(scratch, known, preserve) {
  if (scratch.marks.length <= known) scratch.marks = new Uint8Array((known + 1) * 2)
  const marks = scratch.marks
  for (let i = 0; i < preserve.length; i++) marks[preserve[i]] |= MARK.kept
  scratch.keptIds = preserve
}

/** Whether the kept steps hold an interned call id. */
function isKept(marks, callId) {
  return callId < marks.length && (marks[callId] & MARK.kept) !== 0
}

/** `scratch.marks`, grown to hold `callId`: ids are interned as the walk goes. */
function marksFor(scratch, callId) {
  const marks = scratch.marks
  if (callId < marks.length) return marks
  const grown = new Uint8Array((callId + 1) * 2)
  grown.set(marks)
  scratch.marks = grown
  return grown
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

/**
 * Gives each content `applyPlan` rebuilt under `LEGACY_TABLE` the entries of
 * its legacy list (on `scratch.legacy`) that the plan's verdicts keep, looked
 * up by each entry's bits (see the protocol's `LEGACY_VERDICTS`); the plan's
 * messages end at `end`, its verdicts and excluded calls' ids follow. A list
 * with a `null` entry goes to the native side instead, which refuses it as
 * the reference throws.
 */
function resolveLegacy(scratch, excludeLength, end, length, preserve, from) {
  if (scratch.legacyNull) {
    // Without an exclude list nothing follows the messages' plan.
    const excludedFrom = length > end ? end + PLAN.legacyVerdicts : length
    setLegacy(scratch, askLegacy(scratch, excludeLength, excludedFrom, length, preserve, from))
    return
  }
  const plan = scratch.plan
  for (let k = end + PLAN.legacyVerdicts; k < length; k++) {
    const id = plan[k]
    marksFor(scratch, id)[id] |= MARK.excludedCall
  }
  // Zeroed when the call gives its scratch back.
  scratch.marked = true
  const marks = scratch.marks
  const data = scratch.legacy.data
  const owners = scratch.legacyOwners
  let at = 1
  for (let i = 0; i < scratch.legacyOwnerCount; i += 2) {
    // The message's index, for a refusal, and the entry count.
    const count = data[at + 1]
    at += 2
    // Each entry's verdict, written over its excluded-name flag.
    let keptCount = 0
    for (let k = 0; k < count; k++) {
      const slot = at + k * 2
      const callId = data[slot]
      if (callId < 0) {
        data[slot + 1] = 0
        continue
      }
      const mark = callId < marks.length ? marks[callId] : 0
      let bits = data[slot + 1] !== 0 ? PLAN.legacyExcludedName : 0
      if ((mark & MARK.kept) !== 0) bits |= PLAN.legacyHeldBySteps
      if ((mark & MARK.excludedCall) !== 0) bits |= PLAN.legacyExcludedCall
      const stays = plan[end + bits]
      data[slot + 1] = stays
      keptCount += stays
    }
    if (keptCount > 0) {
      // At its size: an array pushed to gets room for seventeen.
      const list = owners[i + 1]
      const kept = new Array(keptCount)
      let j = 0
      for (let k = 0; k < count; k++) if (data[at + k * 2 + 1] !== 0) kept[j++] = list[k]
      owners[i].toolInvocations = kept
    }
    at += count * 2
  }
  releaseOwners(scratch)
}

/**
 * Calls `planLegacyLists` for the legacy lists `applyPlan` read of a run's
 * rebuilt messages, growing the answer buffer as asked; the answer, in
 * `scratch.legacyPlan`. The excluded calls' ids are `scratch.plan[excludedFrom..
 * length]`, so the answer has a buffer of its own; buffers cross whole with
 * their lengths, as a view would be an allocation.
 */
function askLegacy(scratch, excludeLength, excludedFrom, length, preserve, from) {
  const legacy = scratch.legacy
  legacy.data[0] = scratch.legacyOwnerCount / 2
  for (;;) {
    let written
    try {
      written = planLegacyLists(excludeLength, scratch.plan, excludedFrom, length, legacy.data, legacy.length, preserve, from, scratch.legacyPlan)
    } catch (error) {
      throw new TypeError(error.message)
    }
    if (written >= 0) return scratch.legacyPlan
    scratch.legacyPlan = new Int32Array(-written * 2)
  }
}

/** Gives each rebuilt content the legacy entries the answer keeps of its list, as the reference does where any stay. */
function setLegacy(scratch, answer) {
  const owners = scratch.legacyOwners
  let at = 0
  for (let i = 0; i < scratch.legacyOwnerCount; i += 2) {
    const count = answer[at++]
    if (count === 0) continue
    const list = owners[i + 1]
    const kept = new Array(count)
    for (let k = 0; k < count; k++) kept[k] = list[answer[at++]]
    owners[i].toolInvocations = kept
  }
  releaseOwners(scratch)
}

function checkHistory(messages) {
  if (!Array.isArray(messages)) {
    throw refused(REFUSED.messages, messages)
  }
}

/**
 * Writes messages `from..to` of a history as one tape. `ids` is null where
 * ids decide nothing (every tool call goes and none is kept by step; ids are
 * then not read at all); model outputs are written only `withOutputs`.
 * Unless `internNew`, ids not interned yet are written as the one index
 * `CallIds#lookup` gives them all. `content.content` is written only where it
 * is an own key (the reference reads an inherited one only to drop a message
 * whose parts all go, which the plan then asks for), the legacy list never
 * (`applyPlan` reads it of a message rebuilt). `idsOnly` (a step's response,
 * of which only the tool parts' ids count) leaves the top-level text unread
 * too, as the reference does. `marking` holds the `MARK` bits in
 * use: `kept` where `scratch.marks` holds the ids the kept steps keep (such
 * a part's state and model output are not read, as the reference keeps it
 * first), `excluded` where model outputs are read only of the results that
 * go with an exclude list (the excluded tools' call ids are marked as the
 * walk finds them; a result whose call is not marked yet is marked as left,
 * and `scratch.lateOutputs` set if its call is marked later).
 *
 * This is the hottest loop of the filter, so it writes through local copies
 * of the tape's buffer and length, reserving room a message at a time.
 */
function writeHistory(scratch, messages, from, to, excluded, ids, withOutputs, internNew, idsOnly = false, marking = 0) {
  const tape = scratch.tape
  // Grown (and so replaced) only as ids are interned.
  let marks = scratch.marks
  // Without an exclude list or ids, a tool part's state matters only to a model output it carries.
  const readsInvocations = excluded !== null || ids !== null
  tape.reserve(to - from + 1)
  let data = tape.data
  let n = tape.length
  data[n++] = to - from
  for (let i = from; i < to; i++) {
    const message = messages[i]
    if (message === null || message === undefined) {
      // Array methods skip the holes of a sparse array, and so does the reference.
      if (message === undefined && !(i in messages)) {
        data[n++] = TAPE.hole
        continue
      }
      throw new TypeError(`ToolCallFilter: message ${i} is ${message}`)
    }
    const content = message.content
    const parts = typeof content === 'string' ? undefined : content?.parts
    if (!parts) {
      data[n++] = TAPE.untouched
      continue
    }
    if (!Array.isArray(parts)) {
      throw new TypeError(`ToolCallFilter: content.parts of message ${i} is not an array`)
    }

    // A message without tool parts is never touched, so it is written as such
    // and its parts are rolled back off the tape.
    tape.length = n
    tape.reserve(4 + parts.length * 5 + (to - i))
    data = tape.data
    const start = n
    data[n++] = TAPE.withParts
    data[n++] = TAPE.textAbsent
    data[n++] = parts.length
    let hasTool = false
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j]
      if (part === null || part === undefined) {
        if (part === undefined && !(j in parts)) {
          data[n++] = TAPE.hole
          continue
        }
        throw new TypeError(`ToolCallFilter: part ${j} of message ${i} is ${part}`)
      }
      if (part.type !== 'tool-invocation') {
        data[n++] = TAPE.partOther
        continue
      }
      const invocation = part.toolInvocation
      if (invocation === null || invocation === undefined) {
        throw new TypeError(`ToolCallFilter: tool-invocation part ${j} of message ${i} has no toolInvocation`)
      }
      hasTool = true
      data[n++] = TAPE.partTool
      if (!readsInvocations && !withOutputs) {
        // Nothing about the invocation decides anything: its object is not
        // even loaded, which in a long history is a cache miss spared.
        data[n++] = TAPE.stateOther
        data[n++] = 0
        data[n++] = 0
        data[n++] = TAPE.noOutput
        continue
      }
      let callId = 0
      let excludedName = false
      let state
      if (readsInvocations) {
        // In the reference's order: the id, which the kept steps are asked
        // about first, then the state and the model output of what they do not keep.
        if (ids !== null) {
          const id = invocation.toolCallId ?? invocation.toolCall?.id
          callId = id ? (internNew ? ids.intern(id) : ids.lookup(id)) : TAPE.noCallId
        }
        // The reference reads every tool part's name for its excluded ids, the kept ones' too.
        excludedName = excluded !== null && excluded.has(invocation.toolName)
        if (excludedName && (marking & MARK.excluded) !== 0 && callId >= 0) {
          if (callId >= marks.length) marks = marksFor(scratch, callId)
          // A result of this call whose model output was left unread: the walk runs again.
          if ((marks[callId] & (MARK.excluded | MARK.deferred)) === MARK.deferred) scratch.lateOutputs = true
          marks[callId] |= MARK.excluded
        }
        if ((marking & MARK.kept) !== 0 && callId >= 0 && isKept(marks, callId)) {
          data[n++] = TAPE.stateOther
          data[n++] = excludedName ? 1 : 0
          data[n++] = callId
          data[n++] = TAPE.noOutput
          continue
        }
        // Without an exclude list or model outputs, a tool part goes or stays by its id alone.
        if (excluded !== null || withOutputs) state = invocation.state
      } else {
        // Every tool part goes, and only a result's model output is read.
        state = invocation.state
      }
      data[n++] = state === 'result' ? TAPE.stateResult : state === 'call' ? TAPE.stateCall : TAPE.stateOther
      data[n++] = excludedName ? 1 : 0
      data[n++] = callId
      // Only a result that goes has its model output read: every one without
      // an exclude list, else an excluded tool's, or one whose call is.
      let modelOutput
      if (withOutputs && state === 'result') {
        let goes = excluded === null || excludedName
        if (!goes && callId >= 0) {
          // Goes with its call, an excluded tool's, as far as the walk has
          // marked them; if not, marked as left, which its call, marked later, finds.
          if (callId >= marks.length) marks = marksFor(scratch, callId)
          const mark = marks[callId]
          goes = (mark & MARK.excluded) !== 0
          if (!goes) marks[callId] = mark | MARK.deferred
        }
        if (goes) {
          const mastra = part.providerMetadata?.mastra
          if (mastra && Object.hasOwn(mastra, 'modelOutput')) modelOutput = mastra.modelOutput
        }
      }
      if (modelOutput != null) {
        data[n++] = TAPE.output
        tape.length = n
        writeModelOutput(scratch, tape, modelOutput)
        n = tape.length
        tape.reserve((parts.length - j) * 5 + (to - i) + 4)
        data = tape.data
      } else {
        data[n++] = TAPE.noOutput
      }
    }
    if (!hasTool) {
      n = start
      data[n++] = TAPE.untouched
      continue
    }
    if (!idsOnly) data[start + 1] = Object.hasOwn(content, 'content') ? topLevelText(content.content) : TAPE.textUnread
  }
  tape.length = n
}

function topLevelText(text) {
  if (typeof text === 'string') {
    // Text mostly starts with a printable ASCII character, which `\s` never matches.
    const first = text.charCodeAt(0)
    if (first > 0x20 && first < 0x7f) return TAPE.text
    return NON_BLANK.test(text) ? TAPE.text : text.length > 0 ? TAPE.textBlank : TAPE.textAbsent
  }
  return text ? TAPE.textNotAString : TAPE.textAbsent
}

/**
 * `{ ...rest, parts }` where `const { toolInvocations, ...rest } = content`,
 * as the reference builds it. The object the rest pattern builds is already a
 * copy of its own: setting `parts` on it, where it holds `parts` already,
 * gives the same keys in the same order without copying it again. That also
 * spares the cost of a spread's result in V8, whose hidden class shares no
 * transitions, so that adding `toolInvocations` to it builds a new class for
 * every message. Where `parts` is not an own property, the reference's
 * definition at the end is kept rather than risk an assignment.
 */
function withParts(rest, parts) {
  if (!Object.hasOwn(rest, 'parts')) return { ...rest, parts }
  rest.parts = parts
  return rest
}

/**
 * Writes a rebuilt message's legacy list (message `index` of the run) onto
 * `scratch.legacy` for `planLegacyLists`, reading of its entries what the
 * reference reads: every id (where ids decide anything), and the name of an
 * entry the kept steps do not hold.
 */
function writeLegacy(scratch, index, list, excluded, ids, internNew, marking) {
  const legacy = scratch.legacy
  if (legacy.length === 0) legacy.push(0)
  const count = list.length
  legacy.reserve(2 + count * 2)
  const data = legacy.data
  let n = legacy.length
  data[n++] = index
  data[n++] = count
  const marks = scratch.marks
  for (let k = 0; k < count; k++) {
    const invocation = list[k]
    if (invocation === null || invocation === undefined) {
      const hole = invocation === undefined && !(k in list)
      if (!hole) scratch.legacyNull = true
      data[n++] = hole ? TAPE.legacyHole : TAPE.legacyNull
      data[n++] = 0
      continue
    }
    let callId = 0
    if (ids !== null) {
      const id = invocation.toolCallId ?? invocation.toolCall?.id
      // Legacy entries are looked up without a truthiness check, so every value is interned.
      callId = internNew ? ids.intern(id) : ids.lookup(id)
    }
    data[n++] = callId
    // As in the reference, the name only of an entry the kept steps do not keep.
    const named = excluded !== null && !((marking & MARK.kept) !== 0 && isKept(marks, callId))
    data[n++] = named && excluded.has(invocation.toolName) ? 1 : 0
  }
  legacy.length = n
}

/**
 * How many parts the `partCount` part actions from `plan[at]` leave. A part
 * array is made at its size: one pushed to gets room for seventeen, which
 * for a long history is most of what the call allocates and the collector
 * then copies.
 */
function keptPartCount(plan, at, partCount) {
  let kept = 0
  for (let j = 0; j < partCount; j++) {
    const partAction = plan[at++]
    if (partAction === PLAN.partKeep) {
      kept++
    } else if (partAction === PLAN.partModelOutput) {
      kept++
      at += 1 + plan[at]
    }
  }
  return kept
}

/**
 * Applies the plan of messages `from..to` to them, appending what stays to
 * `out`, and returns where the messages' plan ends. The legacy list of each
 * message rebuilt is read as the reference reads it there, and kept as the
 * plan's directive says; where that is by the verdicts the plan ends with,
 * or where an entry is `null` (which the native side refuses), it is written
 * onto `scratch.legacy`, its new content kept beside it in
 * `scratch.legacyOwners` until `resolveLegacy` (`excluded` to `marking` as
 * `writeHistory` has them). An empty list keeps nothing, whatever the rule,
 * and is not looked up.
 */
function applyPlan(scratch, messages, from, to, plan, out, excluded, ids, internNew, marking) {
  const strings = scratch.strings
  let at = 0
  for (let i = from; i < to; i++) {
    const message = messages[i]
    let action = plan[at++]
    if (action === PLAN.keep) {
      out.push(message)
      continue
    }
    if (action === PLAN.drop) continue
    if (action === PLAN.askText) {
      // Read only now, as the reference reads it: the plan has an action for each kind of text.
      const content = message.content
      action = plan[at + topLevelText(content.content)]
      at += 4
      if (action === PLAN.drop) {
        // Its part actions and its legacy directive.
        at += content.parts.length + 1
        continue
      }
    }

    const content = message.content
    const parts = content.parts
    const kept = new Array(keptPartCount(plan, at, parts.length))
    let k = 0
    for (let j = 0; j < parts.length; j++) {
      const partAction = plan[at++]
      if (partAction === PLAN.partKeep) {
        kept[k++] = parts[j]
      } else if (partAction === PLAN.partModelOutput) {
        const count = plan[at++]
        kept[k++] = { type: 'text', text: resultText(parts[j].toolInvocation.toolName, strings, plan, at, count) }
        at += count
      }
    }
    const legacyDirective = plan[at++]
    const { toolInvocations, ...rest } = content
    const updated = withParts(rest, kept)
    if (Array.isArray(toolInvocations) && toolInvocations.length > 0) {
      if (legacyDirective === PLAN.legacyTable || hasNullEntry(toolInvocations)) {
        // Its entries looked up in the verdicts, or, where one is null, refused by the native side.
        writeLegacy(scratch, i - from, toolInvocations, excluded, ids, internNew, marking)
        const owners = scratch.legacyOwners
        const slot = scratch.legacyOwnerCount
        owners[slot] = updated
        owners[slot + 1] = toolInvocations
        scratch.legacyOwnerCount = slot + 2
      } else if (legacyDirective === PLAN.legacyHeld) {
        keepHeld(scratch.marks, updated, toolInvocations, ids)
      }
    }
    out.push({ ...message, content: updated })
  }
  return at
}

/**
 * Gives a rebuilt content the entries of its legacy list whose ids the kept
 * steps hold, where the plan says those stay (they are marked in `marks`;
 * the list has no `null` entry, and its holes are skipped).
 */
function keepHeld(marks, updated, list, ids) {
  let kept = null
  for (let k = 0; k < list.length; k++) {
    const invocation = list[k]
    if (invocation === undefined) continue
    // Looked up without a truthiness check, as the reference does.
    if (isKept(marks, ids.lookup(invocation.toolCallId ?? invocation.toolCall?.id))) (kept ??= []).push(invocation)
  }
  // Rare (a rebuilt message holding a kept step's call), so pushed to.
  if (kept !== null) updated.toolInvocations = kept
}

/** Whether a legacy list holds `null` or `undefined` (not a hole), for the native side to refuse. */
function hasNullEntry(list) {
  for (let k = 0; k < list.length; k++) {
    const entry = list[k]
    if (entry === null || (entry === undefined && k in list)) return true
  }
  return false
}

/**
 * A rebuilt content as `applyPlan` makes it, for the usual format-2 shapes
 * (with and without a `content` string), with the legacy `toolInvocations`
 * set again. The rest pattern in `applyPlan` builds its object by
 * adding each key to an empty one, and `setLegacy` adds `toolInvocations`
 * to that: each a transition, which V8 holds weakly. The contents live for
 * one call, so without these a full collection between requests would free
 * those classes and deoptimize `applyPlan` and its callers.
 */
const contentShapes = [
  { format: 2, parts: [], toolInvocations: [] },
  { format: 2, parts: [], content: '', toolInvocations: [] },
].map((content) => {
  const { toolInvocations, ...rest } = content
  const shape = withParts(rest, [])
  shape.toolInvocations = []
  return shape
})

// Exported so that they stay reachable: a module's local that no function reads does not.
module.exports = { ToolCallFilter, recordedStateShape, contentShapes }
