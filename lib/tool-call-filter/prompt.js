'use strict'
// ToolCallFilter as Mastra 1.60 and later have it: `processLLMRequest`
// rewrites only the provider prompt of each model call, never the message
// list or memory. It walks the prompt once to write the tape described in
// src/tool_call_filter/prompt.rs, lets the native filter decide, and applies
// the plan it returns to the original objects. The tape crosses in one
// buffer with the request's history table behind it and, when removed
// results leave text behind, the outputs of just those results behind that,
// in a second round (the layout is the core's `prompt::input`).
//
// May import: native.js, hook-arguments.js, and common.js, scratch.js and
// model-output.js of this folder.

const { filterPrompt, PreservedResultsRule } = require('../native.js')
const { codes, stateKeys, EXCLUDE, readOptions, excludeNow, REFUSED, refused } = require('./common.js')
const { takeScratch, releaseScratch } = require('./scratch.js')
const { writeModelOutput, fillJson, resultText } = require('./model-output.js')
const { argument } = require('../hook-arguments.js')

const TAPE = codes.prompt
const INPUT = codes.promptInput
const PLAN = codes.plan
const ANSWER = codes.promptAnswer
const PROCESSOR = codes.processor
const NODE = codes.modelOutput
const HISTORY_KEY = stateKeys.history

/**
 * A request's `state` as the filter leaves it after its first call: an empty
 * object given the history key. The hidden class that store makes is reached
 * from the empty object's only by a transition, which V8 holds weakly; a
 * state lives for one request, so a full collection between requests would
 * free that class and deoptimize `processLLMRequest` and
 * `writeRecordedHistory`, compiled against it, for every request after it.
 * This object keeps the class alive (a `Set`, as the field holds, so its
 * field type stays what the compiled code assumes). Guarded by
 * __test__/tool-call-filter.collection.test.mjs.
 */
const recordedStateShape = {}
recordedStateShape[HISTORY_KEY] = new Set()

/**
 * The call ids of each history this filter recorded, in the order the
 * recording call interned them (the history set's own order): a later call
 * of the request starts from them (`CallIds#seed`). Held by the set, so an
 * entry lives as long as the request's `state`.
 */
const recordedOrder = new WeakMap()

/**
 * The prompt filter, for every release of 1.60 and later: a release's own
 * class (see `definePromptToolCallFilter`) hands it that release's rule for
 * the results it preserves.
 */
class ToolCallFilter {
  id = PROCESSOR.id
  name = PROCESSOR.name

  /** The release's rule: every removed result turns into text (see `definePromptToolCallFilter`). */
  #everyResult
  #exclude
  #excludeIsProxy
  #withOutputs
  #keepSteps
  #keepsAnyStep
  #usesHistory

  /** `options` as the user gave them; `preservedResults`, the release's rule. */
  constructor(options, preservedResults) {
    this.#everyResult = preservedResults === PreservedResultsRule.Every
    const { exclude, excludeIsProxy, preserveModelOutput, keepSteps, keepsAnyStep, promptFilterUsesHistory } = readOptions(options)
    this.#exclude = exclude
    this.#excludeIsProxy = excludeIsProxy
    this.#withOutputs = preserveModelOutput
    this.#keepSteps = keepSteps
    this.#keepsAnyStep = keepsAnyStep
    this.#usesHistory = promptFilterUsesHistory
  }

  async processLLMRequest(args) {
    const prompt = argument(args, 'prompt')
    const state = argument(args, 'state')
    const exclude = this.#exclude
    const { mode, names, length: excludeLength } = excludeNow(exclude, this.#excludeIsProxy)
    if (mode === EXCLUDE.nothing) return undefined
    const withOutputs = this.#withOutputs
    const everyResult = this.#everyResult
    const steps = this.#keepSteps
    const scratch = takeScratch()
    try {
      const ids = scratch.ids
      const tape = scratch.tape
      // The head is written once its lengths are known.
      tape.reserve(INPUT.head)
      tape.length = INPUT.head
      // Read first, as the reference reads it before the prompt.
      const recorded = this.#usesHistory ? state[HISTORY_KEY] : undefined
      const history = keptByHistory(recorded)
      const held = history === null ? -1 : seedFromHistory(ids, history)
      // A release that turns every removed result into text never reads
      // its `providerOptions`; one of 1.68 and later reads those of the
      // results whose call id goes, and only those. Excluding every tool
      // where no step is kept, every result the walk does not know to stay
      // (the run's own, by the history) goes: their `providerOptions` are
      // read as the walk meets them, and the outputs of those with their
      // own model output go with the first round (`input::OUTPUTS_AHEAD`),
      // sparing a second, which reads the whole prompt tape again. With an
      // exclude list, or steps kept, which results go is known only to the
      // native side: each result that may go is marked as one whose
      // output may be wanted, and its `providerOptions` are read when it
      // is asked for (`writeOutputs`), as the reference reads them.
      const ownOutputs = withOutputs && !everyResult ? (names === null && !this.#keepsAnyStep ? OWN_OUTPUTS.read : OWN_OUTPUTS.deferred) : OWN_OUTPUTS.none
      // Every field, in `PromptWalk`'s order.
      const walk = scratch.promptWalk
      walk.excluded = names
      walk.ownOutputs = ownOutputs
      walk.history = history
      walk.held = held
      writePrompt(scratch, prompt)
      const tapeLength = tape.length - INPUT.head
      const historyLength = this.#usesHistory ? writeRecordedHistory(recorded, ids, tape, held) : INPUT.absent
      const outputsStart = tape.length
      const ahead = ownOutputs === OWN_OUTPUTS.read && writeOwnOutputs(scratch, prompt)
      const data = tape.data
      data[INPUT.flags] = (withOutputs ? INPUT.preserveModelOutput : 0) | (everyResult ? INPUT.everyResult : 0) | (ahead ? INPUT.outputsAhead : 0)
      data[INPUT.excludeLength] = exclude === undefined ? INPUT.absent : excludeLength
      data[INPUT.tapeLength] = tapeLength
      data[INPUT.historyLength] = historyLength
      data[INPUT.outputsLength] = ahead ? tape.length - outputsStart : INPUT.absent
      askPrompt(scratch, steps)
      if (scratch.plan[ANSWER.recordHistory] === 1) {
        state[HISTORY_KEY] = ids.set
        recordedOrder.set(ids.set, ids.values)
      }
      if (scratch.plan[ANSWER.kind] === ANSWER.needsOutputs) {
        // Those asked for, in their order, in place of any written ahead.
        tape.length = outputsStart
        writeOutputs(scratch, prompt, ownOutputs === OWN_OUTPUTS.deferred)
        const head = tape.data
        head[INPUT.flags] &= ~INPUT.outputsAhead
        head[INPUT.outputsLength] = tape.length - outputsStart
        askPrompt(scratch, steps)
      }
      if (scratch.plan[ANSWER.kind] === ANSWER.needsJson) {
        fillJson(scratch, outputsStart, ANSWER.head + 1, scratch.plan[ANSWER.head])
        askPrompt(scratch, steps)
      }
      if (scratch.plan[ANSWER.kind] === ANSWER.unchanged) return undefined
      return { prompt: applyPlan(prompt, scratch.plan, ANSWER.head, scratch.strings) }
    } finally {
      releaseScratch(scratch)
    }
  }
}

/** The prompt filter of a release; `preservedResults` is that release's rule. */
function definePromptToolCallFilter(preservedResults) {
  const Filter = ToolCallFilter
  return class ToolCallFilter extends Filter {
    constructor(options = {}) {
      super(options, preservedResults)
    }
  }
}

/**
 * Calls `filterPrompt` on the input the scratch set's tape holds, growing the
 * answer buffer as asked; the answer is at the start of `scratch.plan`.
 */
function askPrompt(scratch, steps) {
  for (;;) {
    let length
    try {
      length = filterPrompt(scratch.tape.data, scratch.plan, steps)
    } catch (error) {
      throw new TypeError(error.message)
    }
    if (length >= 0) return
    scratch.plan = new Int32Array(-length * 2)
  }
}

/**
 * Starts the call's ids from `history` where this filter recorded it and it
 * is as recorded (see `recordedOrder`), and returns how many ids it holds,
 * or -1 where it was not seeded.
 */
function seedFromHistory(ids, history) {
  const order = recordedOrder.get(history)
  if (order === undefined || order.length !== history.size) return -1
  ids.seed(order, history)
  return order.length
}

/**
 * Writes on `tape`, for each interned call id, whether the request's
 * recorded history has it, and returns how many it wrote, or `INPUT.absent`
 * when nothing is recorded yet. Seeded from the history (`held` ids, -1 when
 * not), an id is history by its index. A plain loop: `Int32Array.from` with
 * a mapping function would make a closure a call, whose compiled code V8
 * holds only weakly and drops at a full collection.
 */
function writeRecordedHistory(recorded, ids, tape, held) {
  if (recorded === undefined || recorded === null) return INPUT.absent
  const values = ids.values
  tape.reserve(values.length)
  const data = tape.data
  let n = tape.length
  if (held >= 0) {
    for (let i = 0; i < values.length; i++) data[n++] = i < held ? 1 : 0
  } else {
    for (let i = 0; i < values.length; i++) data[n++] = recorded.has(values[i]) ? 1 : 0
  }
  tape.length = n
  return values.length
}

/**
 * A part's `type`, read at a site of its own in assistant messages and in
 * the others (tool messages). A prompt's parts come in more hidden classes
 * than V8 keeps at one site (texts, calls, results with and without a stored
 * model output, ...): read at one, `type` goes through V8's megamorphic
 * cache, which every full collection empties, so the first call after one
 * looked each class up again in the runtime (about 15 us at 100 messages).
 * Split by role, each site sees a few classes and keeps them in the code.
 */
const assistantPartType = (part) => part.type
const otherPartType = (part) => part.type

/**
 * The request's recorded history, where it says which parts are kept: a part
 * with an id it does not hold is the run's own, kept whatever its name
 * (without `filterAfterToolSteps`, once a call of the request recorded it).
 * The reference reads neither the `toolName` nor the `providerOptions` of a
 * kept part, so neither is read here. `null` where the parts kept are known
 * only to the native side (then both are read, of every tool part).
 */
function keptByHistory(recorded) {
  return recorded instanceof Set ? recorded : null
}

/**
 * How the prompt walk marks results whose model output may be wanted (the
 * tape's `OWN_OUTPUT`): not at all (no text wanted, or every removed
 * result's, whatever its `providerOptions`), by reading `providerOptions`,
 * or each result that may go, unread (`deferred`: `writeOutputs` reads them
 * of those asked for).
 */
const OWN_OUTPUTS = { none: 0, read: 1, deferred: 2 }

/**
 * Writes the prompt tape, by the call's `scratch.promptWalk` (read into
 * locals first, so the loop reads no field of it). Bad shapes throw where the
 * reference's walk throws a `TypeError`. A part's `toolName` and a result's
 * `providerOptions` are read only where the part may go (see
 * `keptByHistory`; `held` as `writeRecordedHistory` has it), the latter only
 * where `ownOutputs` is `OWN_OUTPUTS.read`; the results with their own model
 * output are then noted in `scratch.ownOutputs`.
 */
function writePrompt(scratch, prompt) {
  const { excluded: names, ownOutputs, history, held } = scratch.promptWalk
  const ids = scratch.ids
  if (!Array.isArray(prompt)) {
    throw refused(REFUSED.prompt, prompt)
  }
  const tape = scratch.tape
  const resultsWithOwnOutput = scratch.ownOutputs
  tape.reserve(prompt.length + 1)
  let data = tape.data
  let n = tape.length
  data[n++] = prompt.length
  for (let i = 0; i < prompt.length; i++) {
    const message = prompt[i]
    if (message === null || typeof message !== 'object') {
      throw badMessage(i, message)
    }
    const role = message.role
    if (role === 'system' || role === 'user') {
      data[n++] = TAPE.pass
      continue
    }
    const content = message.content
    const roleFlag = role === 'assistant' ? TAPE.assistant : 0
    if (typeof content === 'string') {
      data[n++] = TAPE.textContent | roleFlag | (content.length === 0 ? TAPE.empty : 0)
      continue
    }
    if (!Array.isArray(content)) {
      throw badContent(i)
    }
    // Room for this message and a head for each after it, checked here
    // rather than asked of the writer a message.
    if (n + 2 + content.length + (prompt.length - i) > data.length) {
      tape.length = n
      tape.reserve(2 + content.length + (prompt.length - i))
      data = tape.data
    }
    data[n++] = TAPE.parts | roleFlag
    data[n++] = content.length
    for (let j = 0; j < content.length; j++) {
      const part = content[j]
      if (part === null || part === undefined) {
        throw badPart(i, j, part)
      }
      const type = roleFlag === 0 ? otherPartType(part) : assistantPartType(part)
      const isCall = type === 'tool-call'
      if (!isCall && type !== 'tool-result') {
        data[n++] = TAPE.partOther
        continue
      }
      const id = part.toolCallId
      let code = isCall ? TAPE.toolCall : TAPE.toolResult
      if (id) {
        const index = ids.intern(id)
        code += callIdField(index)
        // Not in the history: the run's own part (seeded, the history's ids come first).
        if (history !== null && (held >= 0 ? index >= held : !history.has(id))) {
          data[n++] = code
          continue
        }
      }
      if (names !== null && names.has(part.toolName)) code |= TAPE.excluded
      if (!isCall && ownOutputs !== OWN_OUTPUTS.none) {
        if (ownOutputs === OWN_OUTPUTS.deferred) code |= TAPE.ownOutput
        else if (hasOwnModelOutput(part)) {
          code |= TAPE.ownOutput
          resultsWithOwnOutput.push(i, j)
        }
      }
      data[n++] = code
    }
  }
  tape.length = n
}

// The errors of a malformed prompt are made out of line. A template literal
// in `writePrompt`'s throws had TurboFan convert the loop's indexes to strings
// on every pass (it placed the conversions before the tests), each a lookup
// in V8's number-string cache, which a full collection empties: then a
// string was made for every message of the next calls.

function badMessage(i, message) {
  return refused(REFUSED.promptMessage, message, i)
}

function badContent(i) {
  return new TypeError(`ToolCallFilter: the content of prompt message ${i} is not an array`)
}

function badPart(i, j, part) {
  return new TypeError(`ToolCallFilter: part ${j} of prompt message ${i} is ${part}`)
}

/** An interned call id as a part of the tape holds it, above the part's kind and flags. */
function callIdField(index) {
  if (index > TAPE.maxCallId) {
    throw new TypeError(`ToolCallFilter: a prompt may hold at most ${TAPE.maxCallId + 1} distinct tool-call ids`)
  }
  return (index + 1) * TAPE.callIdUnit
}

/** Whether a result carries its own `providerOptions.mastra.modelOutput`. */
function hasOwnModelOutput(part) {
  const mastra = part.providerOptions?.mastra
  return Boolean(mastra) && Object.hasOwn(mastra, 'modelOutput') && mastra.modelOutput != null
}

/**
 * Writes on the tape the outputs of every result with its own model output,
 * in prompt order, and says whether it did. A getter that throws on the way
 * leaves nothing written: the output may be one of a result that stays,
 * which the reference never reads, and those that go are asked for again.
 */
function writeOwnOutputs(scratch, prompt) {
  const parts = scratch.ownOutputs
  if (parts.length === 0) return false
  const tape = scratch.tape
  const start = tape.length
  try {
    for (let k = 0; k < parts.length; k += 2) writeModelOutput(scratch, tape, prompt[parts[k]].content[parts[k + 1]].output)
  } catch {
    tape.length = start
    scratch.ancestors.length = 0
    return false
  }
  return true
}

/**
 * Writes on the tape the outputs of the results the answer (`scratch.plan`)
 * asks for, from its head on. Where their `providerOptions` were not read yet
 * (`unread`), each one's are read first, as the reference reads them just
 * before its output, and a result without its own model output gives no
 * text, as the reference's gives none (its output unread).
 */
function writeOutputs(scratch, prompt, unread) {
  const answer = scratch.plan
  let at = ANSWER.head
  const count = answer[at++]
  const tape = scratch.tape
  for (let k = 0; k < count; k++) {
    const part = prompt[answer[at++]].content[answer[at++]]
    if (unread && !hasOwnModelOutput(part)) tape.push(NODE.nothing)
    else writeModelOutput(scratch, tape, part.output)
  }
}

function applyPlan(prompt, plan, at, strings) {
  const filtered = []
  for (let i = 0; i < prompt.length; i++) {
    const message = prompt[i]
    const action = plan[at++]
    if (action === PLAN.keep) {
      filtered.push(message)
      continue
    }
    if (action === PLAN.drop) continue

    const parts = message.content
    // Made at its size: an array pushed to gets room for seventeen.
    const content = new Array(plan[at++])
    let kept = 0
    for (let j = 0; j < parts.length; j++) {
      const partAction = plan[at++]
      if (partAction === PLAN.partKeep) {
        content[kept++] = parts[j]
      } else if (partAction === PLAN.partResultText) {
        const result = prompt[plan[at++]].content[plan[at++]]
        const count = plan[at++]
        content[kept++] = { type: 'text', text: resultText(result.toolName, strings, plan, at, count) }
        at += count
      }
    }
    filtered.push({ ...message, content })
  }
  return filtered
}

// Exported so that it stays reachable: a module's local that no function reads does not.
module.exports = { definePromptToolCallFilter, recordedStateShape }
