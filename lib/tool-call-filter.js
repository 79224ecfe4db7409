'use strict'
// ToolCallFilter: the JavaScript half. It walks the messages once to write the
// flat tape described in src/tool_call_filter/tape.rs, lets the native filter
// decide, and applies the plan it returns to the original objects. Payloads
// (args, results, model outputs) never cross the boundary; only their shape does.

const { NativeToolCallFilter } = require('../binding.js')
const { TapeWriter } = require('./tape-writer.js')

const KEEP = 0
const DROP = 1
const PART_KEEP = 0
const PART_MODEL_OUTPUT = 2

const EXCLUDE_ALL = 0
const EXCLUDE_LISTED = 1
const EXCLUDE_NOTHING = 2

/** The buffers a tape and its plan cross the boundary in. */
class Scratch {
  tape = new TapeWriter(4096)
  plan = new Int32Array(4096)
  /** Arrays whose JSON slot was left for later, by tape position. */
  lazyArrays = new Map()
  busy = false
}

// One set is kept between calls, so a busy filter allocates nothing for them.
// A call fills and consumes it synchronously; only a call made from user code
// in the middle of another (a getter or `toJSON` on a message) finds it busy
// and gets a set of its own.
const shared = new Scratch()

function withScratch(use) {
  const scratch = shared.busy ? new Scratch() : shared
  scratch.busy = true
  scratch.tape.reset()
  try {
    return use(scratch)
  } finally {
    scratch.lazyArrays.clear()
    scratch.busy = false
  }
}

// Matches MAX_NODE_DEPTH in src/tool_call_filter/tape.rs.
const MAX_MODEL_OUTPUT_DEPTH = 512

// `String.prototype.trim` removes exactly the characters `\s` matches.
const NON_BLANK = /\S/

class ToolCallFilter {
  id = 'tool-call-filter'
  name = 'ToolCallFilter'

  #native
  /** The `exclude` names as a Set: `has` matches like `Array.prototype.includes`. */
  #excluded

  constructor(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`ToolCallFilter: options must be an object, got ${describe(options)}`)
    }
    const { exclude, filterAfterToolSteps, preserveModelOutput } = options
    let mode = EXCLUDE_ALL
    if (exclude !== undefined && exclude !== null) {
      if (!Array.isArray(exclude)) {
        throw new TypeError(`ToolCallFilter: options.exclude must be an array of tool names, got ${describe(exclude)}`)
      }
      mode = exclude.length > 0 ? EXCLUDE_LISTED : EXCLUDE_NOTHING
    }
    if (filterAfterToolSteps !== undefined && filterAfterToolSteps !== null && typeof filterAfterToolSteps !== 'number') {
      throw new TypeError(
        `ToolCallFilter: options.filterAfterToolSteps must be a number, got ${describe(filterAfterToolSteps)}`,
      )
    }
    if (preserveModelOutput !== undefined && preserveModelOutput !== null && typeof preserveModelOutput !== 'boolean') {
      throw new TypeError(
        `ToolCallFilter: options.preserveModelOutput must be a boolean, got ${describe(preserveModelOutput)}`,
      )
    }
    this.#excluded = mode === EXCLUDE_LISTED ? new Set(exclude) : null
    // `null` steps count as 0, as `?? 0` makes them in the reference.
    const steps = filterAfterToolSteps === null ? 0 : filterAfterToolSteps
    this.#native = new NativeToolCallFilter(mode, preserveModelOutput === true, steps)
  }

  async processInput(args) {
    const messages = args.messageList.get.all.db()
    return this.#filter(messages, null, null)
  }

  async processInputStep(args) {
    if (!this.#native.filtersSteps) return {}
    const messages = args.messageList.get.all.db()
    const ids = new CallIds()
    const preserve = this.#advanceSteps(args, ids)
    return { messages: this.#filter(messages, ids, preserve) }
  }

  /** Records this step's tool calls in `args.state` and returns the ids to keep. */
  #advanceSteps(args, ids) {
    const state = args.state
    const seenBefore = [...(state.toolCallFilterSeenToolCallIds ?? [])]
    const stepsBefore = [...(state.toolCallFilterStepToolCallIds ?? [])]

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
      writeHistory(scratch, responseMessages, null, ids, null)
      return callNative(() => this.#native.advanceSteps(seen, steps.finish(), scratch.tape.finish()))
    })
    let at = 0
    const seenCount = answer[at++]
    const seenAfter = new Array(seenCount)
    for (let i = 0; i < seenCount; i++) seenAfter[i] = ids.value(answer[at++])
    const stepCount = answer[at++]
    const step = new Array(stepCount)
    for (let i = 0; i < stepCount; i++) step[i] = ids.value(answer[at++])
    const preserveCount = answer[at++]

    state.toolCallFilterSeenToolCallIds = seenAfter
    state.toolCallFilterStepToolCallIds = [...stepsBefore, step]
    return answer.subarray(at, at + preserveCount)
  }

  #filter(messages, ids, preserve) {
    const native = this.#native
    if (!native.readsMessages) return messages
    if (ids === null && native.matchesByCallId) ids = new CallIds()
    const strings = native.preservesModelOutput ? [] : null
    return withScratch((scratch) => {
      writeHistory(scratch, messages, this.#excluded, ids, strings)
      const written = scratch.tape.finish()
      if (scratch.plan.length < written.length) scratch.plan = new Int32Array(written.length * 2)
      const plan = scratch.plan
      let length = callNative(() => native.plan(written, preserve ?? undefined, plan))
      if (length < 0) {
        // Some array's JSON is its text after all: fill in those slots and plan again.
        for (const slot of plan.subarray(0, -length)) written[slot] = jsonIndex(scratch.lazyArrays.get(slot), strings)
        length = callNative(() => native.plan(written, preserve ?? undefined, plan))
      }
      return applyPlan(messages, plan.subarray(0, length), strings)
    })
  }
}

/**
 * Interns tool-call ids the way a `Set` compares them (SameValueZero), so the
 * native side can compare plain integers.
 */
class CallIds {
  #indexes = new Map()
  #values = []

  intern(id) {
    let index = this.#indexes.get(id)
    if (index === undefined) {
      index = this.#values.length
      this.#indexes.set(id, index)
      this.#values.push(id)
    }
    return index
  }

  value(index) {
    return this.#values[index]
  }
}

/**
 * Writes one history. `ids` is null where ids decide nothing (every tool call
 * goes and none is kept by step; ids are then not read at all), `strings` is
 * null unless model outputs are wanted.
 *
 * This is the hottest loop of the filter, so it writes through local copies
 * of the tape's buffer and length, reserving room a message at a time.
 */
function writeHistory(scratch, messages, excluded, ids, strings) {
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
        data[n++] = 2
        continue
      }
      throw new TypeError(`ToolCallFilter: message ${i} is ${message}`)
    }
    const content = message.content
    const parts = typeof content === 'string' ? undefined : content?.parts
    if (!parts) {
      data[n++] = 0
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
    data[n++] = 1
    data[n++] = 0
    data[n++] = parts.length
    let hasTool = false
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j]
      if (part === null || part === undefined) {
        if (part === undefined && !(j in parts)) {
          data[n++] = 2
          continue
        }
        throw new TypeError(`ToolCallFilter: part ${j} of message ${i} is ${part}`)
      }
      if (part.type !== 'tool-invocation') {
        data[n++] = 0
        continue
      }
      const invocation = part.toolInvocation
      if (invocation === null || invocation === undefined) {
        throw new TypeError(`ToolCallFilter: tool-invocation part ${j} of message ${i} has no toolInvocation`)
      }
      hasTool = true
      const state = invocation.state
      data[n++] = 1
      data[n++] = state === 'call' ? 1 : state === 'result' ? 2 : 0
      data[n++] = excluded !== null && excluded.has(invocation.toolName) ? 1 : 0
      if (ids === null) {
        data[n++] = 0
      } else {
        const id = invocation.toolCallId ?? invocation.toolCall?.id
        data[n++] = id ? ids.intern(id) : -1
      }
      const mastra = strings === null ? undefined : part.providerMetadata?.mastra
      if (mastra && Object.hasOwn(mastra, 'modelOutput') && mastra.modelOutput != null) {
        data[n++] = 1
        tape.length = n
        writeModelOutput(tape, mastra.modelOutput, strings, scratch.lazyArrays, [])
        n = tape.length
        tape.reserve((parts.length - j) * 5 + (messages.length - i) + 4)
        data = tape.data
      } else {
        data[n++] = 0
      }
    }
    if (!hasTool) {
      n = start
      data[n++] = 0
      continue
    }
    data[start + 1] = topLevelText(content.content)

    const legacy = content.toolInvocations
    if (!Array.isArray(legacy)) {
      data[n++] = 0
      continue
    }
    tape.length = n
    tape.reserve(2 + legacy.length * 2 + (messages.length - i))
    data = tape.data
    data[n++] = 1
    data[n++] = legacy.length
    for (let k = 0; k < legacy.length; k++) {
      const invocation = legacy[k]
      if (invocation === null || invocation === undefined) {
        data[n++] = invocation === undefined && !(k in legacy) ? -4 : -3
        data[n++] = 0
        continue
      }
      const id = invocation.toolCallId ?? invocation.toolCall?.id
      // Legacy entries are looked up without a truthiness check, so every value is interned.
      data[n++] = ids === null ? 0 : ids.intern(id)
      data[n++] = excluded !== null && excluded.has(invocation.toolName) ? 1 : 0
    }
  }
  tape.length = n
}

function topLevelText(text) {
  if (typeof text === 'string') return NON_BLANK.test(text) ? 1 : text.length > 0 ? 2 : 0
  return text ? 3 : 0
}

/** Writes the shape of a model output; see `node` in the tape grammar. */
function writeModelOutput(tape, value, strings, lazyArrays, ancestors) {
  switch (typeof value) {
    case 'string':
      tape.push(1)
      tape.push(strings.push(value) - 1)
      tape.push(value.length > 0 ? 1 : 0)
      return
    case 'number':
    case 'boolean':
    case 'bigint':
      tape.push(4)
      tape.push(strings.push(String(value)) - 1)
      return
    case 'object':
      if (value !== null) break
    // falls through
    default:
      tape.push(0)
      return
  }
  // Too deep, or a cycle: Rust fails only if this output's text is needed.
  if (ancestors.length >= MAX_MODEL_OUTPUT_DEPTH || ancestors.includes(value)) {
    tape.push(5)
    return
  }
  ancestors.push(value)
  if (Array.isArray(value)) {
    tape.push(2)
    lazyArrays.set(tape.length, value)
    tape.push(-2)
    tape.push(value.length)
    for (let i = 0; i < value.length; i++) writeModelOutput(tape, value[i], strings, lazyArrays, ancestors)
  } else {
    const hasValue = 'value' in value
    const text = value.text
    const textIsString = typeof text === 'string'
    tape.push(3)
    tape.push((value.type === 'text' ? 1 : 0) | (hasValue ? 2 : 0))
    // An object's JSON is its text only when it has neither a value nor a string text.
    tape.push(hasValue || textIsString ? -1 : jsonIndex(value, strings))
    tape.push(textIsString ? strings.push(text) - 1 : -1)
    tape.push(textIsString && text.length > 0 ? 1 : 0)
    if (hasValue) writeModelOutput(tape, value.value, strings, lazyArrays, ancestors)
  }
  ancestors.pop()
}

function jsonIndex(value, strings) {
  let json
  try {
    json = JSON.stringify(value)
  } catch {
    return -1
  }
  return typeof json === 'string' ? strings.push(json) - 1 : -1
}

function applyPlan(messages, plan, strings) {
  const out = []
  let at = 0
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    const action = plan[at++]
    if (action === KEEP) {
      out.push(message)
      continue
    }
    if (action === DROP) continue

    const content = message.content
    const parts = content.parts
    const kept = []
    for (let j = 0; j < parts.length; j++) {
      const partAction = plan[at++]
      if (partAction === PART_KEEP) {
        kept.push(parts[j])
      } else if (partAction === PART_MODEL_OUTPUT) {
        const count = plan[at++]
        let text = strings[plan[at++]]
        for (let k = 1; k < count; k++) text += '\n' + strings[plan[at++]]
        kept.push({ type: 'text', text: `${parts[j].toolInvocation.toolName} result:\n${text}` })
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

/** Native refusals surface as the `TypeError`s the reference throws in the same places. */
function callNative(call) {
  try {
    return call()
  } catch (error) {
    throw new TypeError(error.message)
  }
}

function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : `a ${typeof value}`
}

module.exports = { ToolCallFilter }
