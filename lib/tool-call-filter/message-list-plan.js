'use strict'
// The 1.59 message-list stage's application of Rust's answers: a run's plan
// applied to the original messages (`applyPlan`: what stays, the parts kept,
// the text left for a removed result), and the legacy `toolInvocations`
// lists of the messages it rebuilt resolved by the plan's verdicts or by the
// native `planLegacyLists` (`resolveLegacy`). May import: native.js, and
// this folder's common.js, scratch.js, model-output.js and message-list-tape.js.

const { planLegacyLists } = require('../native.js')
const { codes } = require('./common.js')
const { releaseOwners } = require('./scratch.js')
const { resultText } = require('./model-output.js')
const { MARK, isKept, marksFor, topLevelText, writeLegacy } = require('./message-list-tape.js')

const PLAN = codes.plan

/**
 * Gives each content `applyPlan` rebuilt under `LEGACY_TABLE` the entries of
 * its legacy list (on `scratch.legacy`) that the plan's verdicts keep, looked
 * up by each entry's bits (see the protocol's `LEGACY_VERDICTS`); the plan's
 * messages end at `end`, its verdicts and excluded calls' ids follow, up to
 * `length`, for the run from message `from`. A list with a `null` entry goes
 * to the native side instead, which refuses it as the reference throws.
 */
function resolveLegacy(scratch, end, length, from) {
  if (scratch.legacyNull) {
    // Without an exclude list nothing follows the messages' plan.
    const excludedFrom = length > end ? end + PLAN.legacyVerdicts : length
    setLegacy(scratch, askLegacy(scratch, excludedFrom, length, from))
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
function askLegacy(scratch, excludedFrom, length, from) {
  const { excludeLength, preserve } = scratch.walk
  const legacy = scratch.legacy
  legacy.data[0] = scratch.legacyOwnerCount / 2
  for (;;) {
    let written
    try {
      written = planLegacyLists(excludeLength, scratch.plan, excludedFrom, length, legacy.data, legacy.length, preserve ?? undefined, from, scratch.legacyPlan)
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
 * Applies the plan of messages `from..to` of `scratch.walk.messages` (on
 * `scratch.plan`) to them, appending what stays to `out`, and returns where
 * the messages' plan ends. The legacy list of each
 * message rebuilt is read as the reference reads it there, and kept as the
 * plan's directive says; where that is by the verdicts the plan ends with,
 * or where an entry is `null` (which the native side refuses), it is written
 * onto `scratch.legacy`, its new content kept beside it in
 * `scratch.legacyOwners` until `resolveLegacy`. An empty list keeps nothing, whatever the rule,
 * and is not looked up.
 */
function applyPlan(scratch, from, to, out) {
  const { messages, ids } = scratch.walk
  const plan = scratch.plan
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
        writeLegacy(scratch, i - from, toolInvocations)
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
module.exports = { applyPlan, resolveLegacy, contentShapes }
