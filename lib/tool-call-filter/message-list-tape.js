'use strict'
// The 1.59 message-list stage's reading: the stored messages, walked in the
// reference's order into the tape described in src/tool_call_filter/
// message_list.rs (`writeHistory`), a rebuilt message's legacy list onto its
// own tape (`writeLegacy`), and the marks per interned call id that the walk
// and the plan's application share (`MARK`). It reads the user's objects and
// decides nothing. May import: common.js and model-output.js of this folder.

const { codes } = require('./common.js')
const { writeModelOutput } = require('./model-output.js')

const TAPE = codes.messageList

// `String.prototype.trim` removes exactly the characters `\s` matches.
const NON_BLANK = /\S/

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
 * Writes messages `from..to` of `scratch.walk.messages` as one tape, by the
 * call's `scratch.walk` (read into locals first, so the loop reads no field
 * of it). `ids` is null where
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
function writeHistory(scratch, from, to) {
  const { messages, excluded, ids, withOutputs, internNew, idsOnly, marking } = scratch.walk
  const tape = scratch.tape
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
        if (excludedName && (marking & MARK.excluded) !== 0 && callId >= 0) markExcluded(scratch, callId)
        if ((marking & MARK.kept) !== 0 && callId >= 0 && isKept(scratch.marks, callId)) {
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
      const modelOutput = withOutputs && state === 'result' ? outputIfGoing(scratch, part, excluded === null || excludedName, callId) : undefined
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

/**
 * Marks `callId` as an excluded tool's; a result of it whose model output
 * was left unread (`MARK.deferred`) makes the walk run again
 * (`scratch.lateOutputs`).
 */
function markExcluded(scratch, callId) {
  const marks = marksFor(scratch, callId)
  if ((marks[callId] & (MARK.excluded | MARK.deferred)) === MARK.deferred) scratch.lateOutputs = true
  marks[callId] |= MARK.excluded
}

/**
 * A result's own model output, read only where the result goes: every one
 * without an exclude list, else an excluded tool's (`goesByName`), or one
 * whose call is, as far as the walk has marked calls; one whose call is not
 * marked yet is marked as left (`MARK.deferred`), which its call, marked
 * later, finds.
 */
function outputIfGoing(scratch, part, goesByName, callId) {
  let goes = goesByName
  if (!goes && callId >= 0) {
    const marks = marksFor(scratch, callId)
    const mark = marks[callId]
    goes = (mark & MARK.excluded) !== 0
    if (!goes) marks[callId] = mark | MARK.deferred
  }
  if (!goes) return undefined
  const mastra = part.providerMetadata?.mastra
  return mastra && Object.hasOwn(mastra, 'modelOutput') ? mastra.modelOutput : undefined
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
 * Writes a rebuilt message's legacy list (message `index` of the run) onto
 * `scratch.legacy` for `planLegacyLists`, reading of its entries what the
 * reference reads: every id (where ids decide anything), and the name of an
 * entry the kept steps do not hold, by the call's `scratch.walk`.
 */
function writeLegacy(scratch, index, list) {
  const { excluded, ids, internNew, marking } = scratch.walk
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

module.exports = { MARK, markKept, isKept, marksFor, writeHistory, topLevelText, writeLegacy }
