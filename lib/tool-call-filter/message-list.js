'use strict'
// ToolCallFilter as Mastra 1.59 and earlier have it: `processInput` and
// `processInputStep` rewrite the message list. It walks the messages once to
// write the tape described in src/tool_call_filter/message_list.rs, lets the
// native filter decide, and applies the plan it returns to the original
// objects. Payloads (args, results, model outputs) never cross the boundary;
// only their shape does.

const { NativeMessageListFilter } = require('../native.js')
const { TapeWriter } = require('../tape-writer.js')
const {
  codes,
  ExcludeMode,
  withScratch,
  readOptions,
  excludeNow,
  CallIds,
  writeModelOutput,
  fillJson,
  resultText,
  callNative,
  describe,
} = require('./common.js')

const TAPE = codes.messageList
const PLAN = codes.plan
const { seen: SEEN_KEY, steps: STEPS_KEY } = codes.stateKeys

// `String.prototype.trim` removes exactly the characters `\s` matches.
const NON_BLANK = /\S/

class ToolCallFilter {
  id = 'tool-call-filter'
  name = 'ToolCallFilter'

  #native
  #exclude
  #withOutputs
  #filtersSteps

  constructor(options = {}) {
    const { exclude, preserveModelOutput, filterAfterToolSteps } = readOptions(options)
    this.#exclude = exclude
    this.#withOutputs = preserveModelOutput
    this.#native = new NativeMessageListFilter(preserveModelOutput, filterAfterToolSteps)
    this.#filtersSteps = this.#native.filtersSteps
  }

  async processInput(args) {
    const messages = args.messageList.get.all.db()
    return this.#filter(messages, null, null)
  }

  async processInputStep(args) {
    if (!this.#filtersSteps) return {}
    const messages = args.messageList.get.all.db()
    const ids = new CallIds()
    const preserve = this.#advanceSteps(args, ids)
    return { messages: this.#filter(messages, ids, preserve) }
  }

  /** Records this step's tool calls in `args.state` and returns the ids to keep. */
  #advanceSteps(args, ids) {
    const state = args.state
    const seenBefore = [...(state[SEEN_KEY] ?? [])]
    const stepsBefore = [...(state[STEPS_KEY] ?? [])]

    const seen = Int32Array.from(seenBefore, (id) => ids.intern(id))
    const steps = new TapeWriter(stepsBefore.length * 2 + 1)
    for (const step of stepsBefore) {
      // `flat()` spreads arrays one level and keeps anything else as it is.
      const members = Array.isArray(step) ? step : [step]
      steps.push(members.length)
      for (const id of members) steps.push(ids.intern(id))
    }
    const responseMessages = args.messageList.get.response.db()
    const answer = withScratch((scratch) => {
      writeHistory(scratch, responseMessages, null, ids, false, true)
      return callNative(() => this.#native.advanceSteps(seen, steps.finish(), scratch.tape.finish()))
    })
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
    return answer.subarray(at, at + preserveCount)
  }

  #filter(messages, ids, preserve) {
    const native = this.#native
    const exclude = this.#exclude
    const { mode, names } = excludeNow(exclude)
    if (mode === ExcludeMode.Nothing) return messages
    if (ids === null && mode === ExcludeMode.Listed) ids = new CallIds()
    const withOutputs = this.#withOutputs
    return withScratch((scratch) => {
      // Excluding every tool, ids decide only whether a step keeps a call:
      // those are all interned already, so the others need no index of their own.
      writeHistory(scratch, messages, names, ids, withOutputs, mode === ExcludeMode.Listed)
      const written = scratch.tape.finish()
      if (scratch.plan.length < written.length) scratch.plan = new Int32Array(written.length * 2)
      const plan = scratch.plan
      const excludeLength = exclude?.length
      let length = callNative(() => native.plan(excludeLength, written, preserve ?? undefined, plan))
      if (length < 0) {
        // Some JSON is its output's text after all: fill in those slots and plan again.
        fillJson(scratch, written, plan.subarray(0, -length))
        length = callNative(() => native.plan(excludeLength, written, preserve ?? undefined, plan))
      }
      return applyPlan(messages, plan.subarray(0, length), scratch.strings)
    })
  }
}

/**
 * Writes one history. `ids` is null where ids decide nothing (every tool call
 * goes and none is kept by step; ids are then not read at all); model outputs
 * are written only `withOutputs`. Unless `internNew`, ids not interned yet
 * are written as the one index `CallIds#lookup` gives them all.
 *
 * This is the hottest loop of the filter, so it writes through local copies
 * of the tape's buffer and length, reserving room a message at a time.
 */
function writeHistory(scratch, messages, excluded, ids, withOutputs, internNew) {
  const tape = scratch.tape
  if (!Array.isArray(messages)) {
    throw new TypeError(`ToolCallFilter: expected an array of messages, got ${describe(messages)}`)
  }
  tape.reserve(messages.length + 1)
  let data = tape.data
  let n = tape.length
  data[n++] = messages.length
  for (let i = 0; i < messages.length; i++) {
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
    tape.reserve(4 + parts.length * 5 + (messages.length - i))
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
      const state = invocation.state
      data[n++] = TAPE.partTool
      data[n++] = state === 'call' ? TAPE.stateCall : state === 'result' ? TAPE.stateResult : TAPE.stateOther
      data[n++] = excluded !== null && excluded.has(invocation.toolName) ? 1 : 0
      if (ids === null) {
        data[n++] = 0
      } else {
        const id = invocation.toolCallId ?? invocation.toolCall?.id
        data[n++] = id ? (internNew ? ids.intern(id) : ids.lookup(id)) : TAPE.noCallId
      }
      const mastra = withOutputs ? part.providerMetadata?.mastra : undefined
      if (mastra && Object.hasOwn(mastra, 'modelOutput') && mastra.modelOutput != null) {
        data[n++] = TAPE.output
        tape.length = n
        writeModelOutput(scratch, tape, mastra.modelOutput, [])
        n = tape.length
        tape.reserve((parts.length - j) * 5 + (messages.length - i) + 4)
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
    data[start + 1] = topLevelText(content.content)

    const legacy = content.toolInvocations
    if (!Array.isArray(legacy)) {
      data[n++] = TAPE.noLegacy
      continue
    }
    tape.length = n
    tape.reserve(2 + legacy.length * 2 + (messages.length - i))
    data = tape.data
    data[n++] = TAPE.legacy
    data[n++] = legacy.length
    for (let k = 0; k < legacy.length; k++) {
      const invocation = legacy[k]
      if (invocation === null || invocation === undefined) {
        data[n++] = invocation === undefined && !(k in legacy) ? TAPE.legacyHole : TAPE.legacyNull
        data[n++] = 0
        continue
      }
      const id = invocation.toolCallId ?? invocation.toolCall?.id
      // Legacy entries are looked up without a truthiness check, so every value is interned.
      data[n++] = ids === null ? 0 : internNew ? ids.intern(id) : ids.lookup(id)
      data[n++] = excluded !== null && excluded.has(invocation.toolName) ? 1 : 0
    }
  }
  tape.length = n
}

function topLevelText(text) {
  if (typeof text === 'string') return NON_BLANK.test(text) ? TAPE.text : text.length > 0 ? TAPE.textBlank : TAPE.textAbsent
  return text ? TAPE.textNotAString : TAPE.textAbsent
}

function applyPlan(messages, plan, strings) {
  const out = []
  let at = 0
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    const action = plan[at++]
    if (action === PLAN.keep) {
      out.push(message)
      continue
    }
    if (action === PLAN.drop) continue

    const content = message.content
    const parts = content.parts
    const kept = []
    for (let j = 0; j < parts.length; j++) {
      const partAction = plan[at++]
      if (partAction === PLAN.partKeep) {
        kept.push(parts[j])
      } else if (partAction === PLAN.partModelOutput) {
        const count = plan[at++]
        kept.push({ type: 'text', text: resultText(parts[j].toolInvocation.toolName, strings, plan, at, count) })
        at += count
      }
    }
    const { toolInvocations, ...rest } = content
    const updated = { ...rest, parts: kept }
    const legacyCount = plan[at++]
    if (legacyCount > 0) {
      const legacy = new Array(legacyCount)
      for (let k = 0; k < legacyCount; k++) legacy[k] = toolInvocations[plan[at++]]
      updated.toolInvocations = legacy
    }
    out.push({ ...message, content: updated })
  }
  return out
}

module.exports = { ToolCallFilter }
