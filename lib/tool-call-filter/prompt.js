'use strict'
// ToolCallFilter as Mastra 1.60 and later have it: `processLLMRequest`
// rewrites only the provider prompt of each model call, never the message
// list or memory. It walks the prompt once to write the tape described in
// src/tool_call_filter/prompt.rs, lets the native filter decide, and applies
// the plan it returns to the original objects. When removed results leave
// text behind, the outputs of just those results cross in a second tape, to
// the analysis the native filter kept from the first.

const { filterPrompt, filterPromptOutputs, promptFilterUsesHistory, PromptAnswer, PreservedResultsRule } = require('../native.js')
const {
  codes,
  ExcludeMode,
  takeScratch,
  releaseScratch,
  readOptions,
  excludeNow,
  CallIds,
  writeModelOutput,
  fillJson,
  resultText,
  describe,
} = require('./common.js')

const TAPE = codes.prompt
const PLAN = codes.plan
const HISTORY_KEY = codes.stateKeys.history

/** The prompt filter of a release; `preservedResults` is that release's rule. */
function definePromptToolCallFilter(preservedResults) {
  const everyResult = preservedResults === PreservedResultsRule.Every
  return class ToolCallFilter {
    id = 'tool-call-filter'
    name = 'ToolCallFilter'

    #exclude
    #withOutputs
    #filterAfterToolSteps
    #usesHistory

    constructor(options = {}) {
      const { exclude, preserveModelOutput, filterAfterToolSteps } = readOptions(options)
      this.#exclude = exclude
      this.#withOutputs = preserveModelOutput
      this.#filterAfterToolSteps = filterAfterToolSteps
      this.#usesHistory = promptFilterUsesHistory(filterAfterToolSteps)
    }

    async processLLMRequest({ prompt, state }) {
      const exclude = this.#exclude
      const { mode, names } = excludeNow(exclude)
      if (mode === ExcludeMode.Nothing) return undefined
      const withOutputs = this.#withOutputs
      const steps = this.#filterAfterToolSteps
      const excludeLength = exclude?.length
      const scratch = takeScratch()
      try {
        const ids = new CallIds()
        // Read first, as the reference reads it before the prompt.
        const recorded = this.#usesHistory ? state[HISTORY_KEY] : undefined
        // A release that turns every removed result into text never reads its `providerOptions`.
        writePrompt(scratch, prompt, names, ids, withOutputs && !everyResult, keptByHistory(recorded))
        const tape = scratch.tape.finish()
        const history = this.#usesHistory ? recordedHistory(recorded, ids) : undefined
        const ask = [withOutputs, steps, everyResult, excludeLength, tape, history]
        let answer = askPrompt(scratch, ask, undefined)
        if (answer[0] === 1) state[HISTORY_KEY] = ids.set
        if (answer[1] === PromptAnswer.NeedsOutputs) {
          const token = answer[2]
          const outputs = writeOutputs(scratch, prompt, answer, 3)
          answer = askOutputs(scratch, ask, token, outputs)
          if (answer[1] === PromptAnswer.NeedsJson) {
            fillJson(scratch, outputs, answer.subarray(3, 3 + answer[2]))
            answer = askOutputs(scratch, ask, token, outputs)
          }
        }
        if (answer[1] === PromptAnswer.Unchanged) return undefined
        return { prompt: applyPlan(prompt, answer, 2, scratch.strings) }
      } finally {
        releaseScratch(scratch)
      }
    }
  }
}

/**
 * Calls `filterPrompt` with `ask` (its arguments up to the history) and
 * `outputs`, growing the answer buffer as asked; the answer's view.
 */
function askPrompt(scratch, ask, outputs) {
  const [withOutputs, steps, everyResult, excludeLength, tape, history] = ask
  let length
  for (;;) {
    try {
      length = filterPrompt(withOutputs, steps, everyResult, excludeLength, tape, history, outputs, scratch.plan)
    } catch (error) {
      throw new TypeError(error.message)
    }
    if (length >= 0) return scratch.plan.subarray(0, length)
    scratch.plan = new Int32Array(-length * 2)
  }
}

/**
 * Gives the outputs to the analysis the first answer left, unless a nested
 * call replaced it: then the prompt is read again.
 */
function askOutputs(scratch, ask, token, outputs) {
  let length
  for (;;) {
    try {
      length = filterPromptOutputs(token, outputs, scratch.plan)
    } catch (error) {
      throw new TypeError(error.message)
    }
    if (length >= 0) break
    scratch.plan = new Int32Array(-length * 2)
  }
  const answer = scratch.plan.subarray(0, length)
  return answer[1] === PromptAnswer.Forgotten ? askPrompt(scratch, ask, outputs) : answer
}

/**
 * For each interned call id, whether the request's recorded history has it;
 * `undefined` when nothing is recorded yet.
 */
function recordedHistory(recorded, ids) {
  if (recorded === undefined || recorded === null) return undefined
  return Int32Array.from(ids.values, (id) => (recorded.has(id) ? 1 : 0))
}

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
 * Writes the prompt tape. Bad shapes throw where the reference's walk throws
 * a `TypeError`. A part's `toolName` and a result's `providerOptions` are
 * read only where the part may go (see `keptByHistory`).
 */
function writePrompt(scratch, prompt, names, ids, readsOwnOutputs, history) {
  if (!Array.isArray(prompt)) {
    throw new TypeError(`ToolCallFilter: expected the prompt to be an array of messages, got ${describe(prompt)}`)
  }
  const tape = scratch.tape
  tape.reserve(prompt.length + 1)
  let data = tape.data
  let n = tape.length
  data[n++] = prompt.length
  for (let i = 0; i < prompt.length; i++) {
    const message = prompt[i]
    if (message === null || typeof message !== 'object') {
      throw new TypeError(`ToolCallFilter: prompt message ${i} is ${describe(message)}`)
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
      throw new TypeError(`ToolCallFilter: the content of prompt message ${i} is not an array`)
    }
    tape.length = n
    tape.reserve(2 + content.length + (prompt.length - i))
    data = tape.data
    data[n++] = TAPE.parts | roleFlag
    data[n++] = content.length
    for (let j = 0; j < content.length; j++) {
      const part = content[j]
      if (part === null || part === undefined) {
        throw new TypeError(`ToolCallFilter: part ${j} of prompt message ${i} is ${part}`)
      }
      const type = part.type
      const isCall = type === 'tool-call'
      if (!isCall && type !== 'tool-result') {
        data[n++] = TAPE.partOther
        continue
      }
      const id = part.toolCallId
      let code = isCall ? TAPE.toolCall : TAPE.toolResult
      if (id) code += callIdField(ids.intern(id))
      if (history !== null && id && !history.has(id)) {
        data[n++] = code
        continue
      }
      const excluded = names !== null && names.has(part.toolName)
      if (excluded) code |= TAPE.excluded
      // Read of every result that may go: whether its id goes can hang on a later part of another name.
      if (!isCall && readsOwnOutputs && hasOwnModelOutput(part)) code |= TAPE.ownOutput
      data[n++] = code
    }
  }
  tape.length = n
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

/** Writes the outputs of the results an answer asks for, from `answer[at]` on. */
function writeOutputs(scratch, prompt, answer, at) {
  const tape = scratch.outputs
  const count = answer[at++]
  for (let k = 0; k < count; k++) {
    const part = prompt[answer[at++]].content[answer[at++]]
    writeModelOutput(scratch, tape, part.output)
  }
  return tape.finish()
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
    const content = []
    for (let j = 0; j < parts.length; j++) {
      const partAction = plan[at++]
      if (partAction === PLAN.partKeep) {
        content.push(parts[j])
      } else if (partAction === PLAN.partResultText) {
        const result = prompt[plan[at++]].content[plan[at++]]
        const count = plan[at++]
        content.push({ type: 'text', text: resultText(result.toolName, strings, plan, at, count) })
        at += count
      }
    }
    filtered.push({ ...message, content })
  }
  return filtered
}

module.exports = { definePromptToolCallFilter }
