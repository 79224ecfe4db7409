'use strict'
// What the 'context' store reads from a step's messages, remembered from one
// step to the next. Every step of an agent run hands the processor a new
// array holding the previous step's message objects plus a few new ones, and
// the store's loaded tools are those the `search_tools` / `load_tool` results
// among all of them activated. Reading every part of every message each step
// (as the reference does) costs as much as the rest of the step many times
// over on a long conversation; here a step reads only the messages that are
// new or have changed since a list it continues was read, and Rust (the
// core's `stores::history`) keeps the names the rest activated.
//
// What is checked each step against a remembered list (measured: on a
// 10,000-message history each message object touched costs a cache miss or
// more, so the check touches as few as it can):
// - every message, by identity: the step's array and the remembered one side
//   by side. That notices a message replaced, removed (from the front, the
//   middle or the end) or moved, without reading any message.
// - the messages that held a `search_tools` / `load_tool` invocation part
//   when read, and the list's last `RECHECKED_LAST_MESSAGES` (32): that
//   `message.content?.parts` is still the same array, of the same length.
//   That notices, there, `content` replaced and parts pushed, spliced in or
//   cut off (what Mastra's MessageList does to the latest message of a run).
// - every meta-tool invocation part, re-read down to its result's identity:
//   the part at its index is the same object, still a `tool-invocation`,
//   whose `toolInvocation` is the same object with the same `toolName`,
//   `state` and `result`. That notices such a part replaced at its index (as
//   Mastra's mergeToolResultIntoPart does), its `toolInvocation` swapped (as
//   Mastra does when it merges a result into the call) and a result replaced.
// The first message whose check fails is read again, with every message
// after it; a list whose messages' parts are not arrays is never continued.
//
// Not noticed (the loaded tools stay as the message was read until it is read
// again: its list is cut before it, or read afresh):
// - a message that held no meta-tool part and is no longer among the last
//   32 getting one in place (parts pushed or spliced in, a part replaced,
//   `content` replaced) while it stays the same object;
// - among the messages checked within, a part that was not a meta-tool
//   invocation becoming one in place without its array changing length (its
//   object changed, or another put at its index);
// - a meta-tool result object changed inside (`result.loaded.push(...)`,
//   `result.success = ...`).
// Mastra does none of these: it changes the latest message of a run, a merged
// result keeps its call's `toolName`, and tool results are not changed once
// stored. Such a change also hides a malformed part (a `null` put in place of
// another) that the reference would throw on.
//
// Memory: at most `FACTS.rememberedLists` (8, the core's) lists, each holding the
// caller's message objects of one list (and the parts arrays of its last
// messages and of those holding meta-tool parts) until it is forgotten: replaced by another list, cleared by `clearAllState()`, or after
// `REMEMBERED_LIST_IDLE_MS` (60 s) unused, by an unreferenced timer.
//
// May import: native.js.

const { toolSearchProtocol } = require('./native.js')

const PROTOCOL = toolSearchProtocol()
const { messageFacts: FACTS } = PROTOCOL
const { searchTools: SEARCH_TOOLS, loadTool: LOAD_TOOL } = PROTOCOL.metaTools
const TOOL_INVOCATION = FACTS.toolInvocationPart

/**
 * How many of a remembered list's last messages are checked within each
 * step (their `content.parts`, its length, their meta-tool parts), beside
 * those holding a meta-tool part; the others are compared by identity only.
 * Mastra changes in place the latest message of a run (it appends parts to
 * it and merges tool results into its calls), which this covers with room
 * to spare.
 */
const RECHECKED_LAST_MESSAGES = 32

/**
 * A remembered list unused for this long is forgotten (it holds the
 * caller's message objects), so that a finished run's messages are not kept
 * alive; the next step on it reads it afresh.
 */
const REMEMBERED_LIST_IDLE_MS = 60_000

const NO_FACTS = Object.freeze({ slot: undefined, kept: 0, text: '', facts: new Int32Array(0), list: undefined })

/**
 * A `search_tools` / `load_tool` invocation part as it was read: where it is
 * (`message`, `index`), what was read from it (`part`, `invocation`,
 * `toolName`, `state`, `result`), and its message's parts array and that
 * array's length then (to check that they are unchanged). Made, of one named
 * object, only for a meta-tool part, a few in a conversation.
 */
class MetaPart {
  constructor({ message, parts, length, index, part, invocation, toolName, state, result }) {
    this.message = message
    this.parts = parts
    this.length = length
    this.index = index
    this.part = part
    this.invocation = invocation
    this.toolName = toolName
    this.state = state
    this.result = result
  }

  /** Whether `parts` (its message's parts, checked unchanged) still hold it as it was read. */
  holds(parts) {
    const part = parts[this.index]
    if (part !== this.part || part.type !== TOOL_INVOCATION) return false
    const invocation = part.toolInvocation
    return (
      invocation === this.invocation &&
      invocation.toolName === this.toolName &&
      invocation.state === this.state &&
      (this.state !== FACTS.resultState || invocation.result === this.result)
    )
  }
}

/** Whether `message` (the same object) still has the parts array `parts`, of length `length` (0 for none). */
function sameParts(message, parts, length) {
  const now = message.content?.parts
  return now === parts && (!now || now.length === length)
}

/**
 * One remembered list: its messages, what was read from its last
 * `RECHECKED_LAST_MESSAGES` messages (the tail), and its meta-tool parts
 * in order. What was read from other messages is not kept: a step that
 * continues the list compares them by identity only.
 */
class RememberedList {
  constructor(slot) {
    /** The Rust slot holding the names its meta-tool parts activated. */
    this.slot = slot
    this.usedAt = 0
    this.forget()
  }

  /** Empties it: what was read is dropped, and it may not be continued. */
  forget() {
    /** Whether it may be continued: false until a step that read it is committed. */
    this.valid = false
    this.first = undefined
    /** The messages, as the step's array held them. */
    this.messages = []
    /** Where the tail starts, and per tail message its `content?.parts` when read and that array's length (0 for none). */
    this.tailStart = 0
    this.tailParts = []
    this.tailLengths = []
    /** The meta-tool parts, in message order. */
    this.metas = []
  }

  /**
   * Where `messages` stop matching this list: the first message to read
   * again (`from`), and how many meta-tool parts, all in messages before
   * it, still stand (`kept`). Every message is compared by identity (two
   * arrays side by side, no message object touched); the messages that held
   * a meta-tool part, and the last `RECHECKED_LAST_MESSAGES`, are
   * checked within too (see `sameParts`), and their meta-tool parts re-read.
   */
  check(messages) {
    const known = this.messages
    const end = Math.min(messages.length, known.length)
    let from = 0
    // Object.is, not ===: a === between objects loads both objects' maps
    // (to check they are objects), a cache miss each on a long history, where
    // Object.is of the same two values answers without reading them
    // (measured: about twice as fast on 10,000 messages). Both agree on
    // objects; where they differ (NaN, +0 and -0) there is nothing to read.
    while (from < end && Object.is(messages[from], known[from])) from++
    const metas = this.metas
    let checked = -1
    for (let m = 0; m < metas.length; m++) {
      const meta = metas[m]
      const i = meta.message
      if (i >= from) break
      if (i !== checked) {
        checked = i
        if (!sameParts(messages[i], meta.parts, meta.length)) {
          from = i
          break
        }
      }
      if (!meta.holds(meta.parts)) {
        from = i
        break
      }
    }
    const tailStart = this.tailStart
    for (let i = tailStart; i < from; i++) {
      if (!sameParts(messages[i], this.tailParts[i - tailStart], this.tailLengths[i - tailStart])) from = i
    }
    // The new list's tail must be known as read: a shorter list's tail
    // reaching before this one's is read again.
    const newTailStart = Math.max(0, messages.length - RECHECKED_LAST_MESSAGES)
    if (newTailStart < tailStart) from = Math.min(from, newTailStart)
    let kept = metas.length
    while (kept > 0 && metas[kept - 1].message >= from) kept--
    return { from, kept }
  }

  /**
   * Reads `messages` from `from` on into this list (cut to its first `from`
   * messages and `kept` meta-tool parts), writing the facts of the meta-tool
   * parts met into `out` (the core's `stores::facts` layout). Whether the
   * list can be continued: not when a message's parts are not an array.
   */
  read(messages, from, kept, out) {
    const count = messages.length
    // A list read from its start copies the caller's array at once.
    if (from === 0) this.messages = messages.slice()
    else {
      const known = this.messages
      known.length = from
      for (let i = from; i < count; i++) known.push(messages[i])
    }
    // The tail as read: kept from the last reading before `from`, read now after.
    const tailStart = Math.max(0, count - RECHECKED_LAST_MESSAGES)
    const tailParts = []
    const tailLengths = []
    for (let i = tailStart; i < from; i++) {
      tailParts.push(this.tailParts[i - this.tailStart])
      tailLengths.push(this.tailLengths[i - this.tailStart])
    }
    this.metas.length = kept
    let continuable = true
    for (let i = from; i < count; i++) {
      const parts = messages[i].content?.parts
      let length = 0
      if (!parts) {
        // Nothing to read.
      } else if (Array.isArray(parts)) {
        length = parts.length
        for (let at = 0; at < length; at++) {
          const part = parts[at]
          if (part.type === TOOL_INVOCATION) this.readInvocation(i, parts, length, at, part, out)
        }
      } else {
        // Read as the reference reads it (any iterable), never continued.
        continuable = false
        let at = 0
        for (const part of parts) {
          if (part.type === TOOL_INVOCATION) this.readInvocation(i, parts, 0, at, part, out)
          at++
        }
      }
      if (i >= tailStart) {
        tailParts.push(parts)
        tailLengths.push(length)
      }
    }
    this.tailStart = tailStart
    this.tailParts = tailParts
    this.tailLengths = tailLengths
    return continuable
  }

  /**
   * Reads tool-invocation part `at` of message `i`: a meta-tool invocation is remembered and its facts written.
   * Positional: run for every tool-invocation part read, with the read loop's own locals; an object would be one per part.
   */
  readInvocation(i, parts, length, at, part, out) {
    const invocation = part.toolInvocation
    if (!invocation) return
    const toolName = invocation.toolName
    const kind = toolName === SEARCH_TOOLS ? FACTS.searchTools : toolName === LOAD_TOOL ? FACTS.loadTool : undefined
    if (kind === undefined) return
    // As the reference reads it: the result only of a result.
    const state = invocation.state
    const result = state === FACTS.resultState ? invocation.result : undefined
    this.metas.push(new MetaPart({ message: i, parts, length, index: at, part, invocation, toolName, state, result }))
    pushFacts(out, kind, state, result)
  }
}

/**
 * The facts of one meta-tool invocation: whether it is a result, whether
 * `result.success === true`, the string names of `result.results[]`, the
 * strings in `result.loaded[]` and a string `result.toolName` (Rust decides
 * which count).
 */
function pushFacts({ facts, names }, kind, state, result) {
  // Read in the reference's order: `toolName`, `success` only beside a string
  // one, `results`, `loaded` (iterated, as `for...of` does).
  const isObject = state === FACTS.resultState && result !== null && typeof result === 'object'
  const toolName = isObject ? result.toolName : undefined
  const single = typeof toolName === 'string'
  facts.push(kind, state === FACTS.resultState ? 1 : 0, single && result.success === true ? 1 : 0)
  const found = []
  const results = isObject ? result.results : undefined
  if (Array.isArray(results)) {
    for (const entry of results) {
      const name = entry?.name
      if (typeof name === 'string') found.push(name)
    }
  }
  pushNames(facts, names, found)
  const loaded = []
  const listed = isObject ? result.loaded : undefined
  if (Array.isArray(listed)) {
    for (const name of listed) if (typeof name === 'string') loaded.push(name)
  }
  pushNames(facts, names, loaded)
  if (single) {
    facts.push(toolName.length)
    names.push(toolName)
  } else {
    facts.push(FACTS.noName)
  }
}

function pushNames(facts, names, list) {
  facts.push(list.length)
  for (const name of list) {
    facts.push(name.length)
    names.push(name)
  }
}

/**
 * A processor's remembered lists: at most `FACTS.rememberedLists`, each
 * forgotten after `REMEMBERED_LIST_IDLE_MS` unused (by an unreferenced
 * timer, armed only while a list is remembered), so what they keep of the
 * caller's messages is bounded in number and in time.
 */
class RememberedLists {
  #lists = []
  #timer = undefined

  /**
   * What a step hands Rust from `messages`: `{ slot, kept, text, facts }`
   * (`slot` undefined: the facts are all there is, nothing is remembered),
   * and the list to `commit` once Rust has taken them.
   */
  read(messages) {
    if (!Array.isArray(messages) || messages.length === 0) return NO_FACTS
    const first = messages[0]
    const list = this.#listFor(first)
    const continued = list.valid
    // Until the step is committed: a reading that throws leaves nothing to continue.
    list.valid = false
    const { from, kept } = continued ? list.check(messages) : { from: 0, kept: 0 }
    const out = { facts: [], names: [] }
    const continuable = list.read(messages, from, kept, out)
    return { slot: list.slot, kept, text: out.names.join(''), facts: Int32Array.from(out.facts), list, first, continuable }
  }

  /** Marks a reading's list as Rust now holds it: continuable from the next step. */
  commit(reading) {
    const { list } = reading
    if (list === undefined) return
    list.valid = reading.continuable
    list.first = reading.first
    list.usedAt = performance.now()
    if (list.valid) this.#arm(REMEMBERED_LIST_IDLE_MS)
    else list.forget()
  }

  /** Forgets every list. */
  clear() {
    for (const list of this.#lists) list.forget()
  }

  /** The most recently used list starting with `first`, else a fresh one in the least recently used slot. */
  #listFor(first) {
    const lists = this.#lists
    let found
    for (const list of lists) {
      if (list.valid && list.first === first && (found === undefined || list.usedAt > found.usedAt)) found = list
    }
    if (found !== undefined) return found
    if (lists.length < FACTS.rememberedLists) {
      const list = new RememberedList(lists.length)
      lists.push(list)
      return list
    }
    let oldest = lists[0]
    for (const list of lists) {
      if (!list.valid) {
        oldest = list
        break
      }
      if (list.usedAt < oldest.usedAt) oldest = list
    }
    oldest.forget()
    return oldest
  }

  #arm(delay) {
    if (this.#timer !== undefined) return
    this.#timer = setTimeout(() => this.#sweep(), delay)
    this.#timer.unref?.()
  }

  /** Forgets the lists unused for the idle time, and waits for the next of the others. */
  #sweep() {
    this.#timer = undefined
    const now = performance.now()
    let next = Infinity
    for (const list of this.#lists) {
      if (!list.valid) continue
      const idle = now - list.usedAt
      if (idle >= REMEMBERED_LIST_IDLE_MS) list.forget()
      else next = Math.min(next, REMEMBERED_LIST_IDLE_MS - idle)
    }
    if (next !== Infinity) this.#arm(next)
  }
}

module.exports = { RememberedLists, NO_FACTS, RECHECKED_LAST_MESSAGES }
