'use strict'
// What the ToolSearchProcessor reads of the caller's objects, and how a
// tools record crosses to Rust: a record's values checked as tools, ids and
// descriptions (a value of the wrong kind handed to Rust to be refused),
// the record as a tool table (the protocol's `toolTable`), a key looked up
// in a record as it is now (`ownTool`); a name Rust resolved looked up in
// the caller's record now, by the reads Rust lists (`resolve`), and the
// checks an operation without questions left, made by that lookup
// (`holds`); and the thread a request context names (`readThread`). It
// decides nothing and keeps nothing. A step is a `StepTools` of pool.js,
// used through its methods and never imported. May import: native.js,
// hook-arguments.js, and this folder's common.js.

const { refuseToolSearchValue } = require('../native.js')
const { contextValue } = require('../hook-arguments.js')
const { PROTOCOL, ASK, KIND_MASK, FOUND_MASK, READ_MASK, RECORD_VALUES, SEARCH_TOOLS, LOAD_TOOL } = require('./common.js')

const TABLE = PROTOCOL.toolTable
const FLAT = PROTOCOL.flat
const { threadId: THREAD_ID_KEY, memory: MEMORY_KEY } = PROTOCOL.requestContext

/**
 * Whether `value`, under `key` in a tools record, is a tool (an object or a function); anything else is
 * refused (`refused.tool`) unless `passedThrough` (a meta-tool's key among a step's tools, never read).
 */
function isTool(value, key, refused, passedThrough) {
  if (value !== null && (typeof value === 'object' || typeof value === 'function')) return true
  if (!passedThrough) refuseToolSearchValue(refused.tool, key, value)
  return false
}

/** Whether a tool's `id` or `description` (under `key`) is a string; no value is none, anything else is refused as `what`. */
function isText(value, key, what) {
  if (typeof value === 'string') return true
  if (value !== undefined && value !== null) refuseToolSearchValue(what, key, value)
  return false
}

/** Whether a key of a step's tools is a meta-tool's, whose value the step hands out itself. */
function isMetaKey(key) {
  return key === SEARCH_TOOLS || key === LOAD_TOOL
}

/**
 * A tool record as Rust reads it (the protocol's `toolTable`): keys, ids and
 * descriptions end to end in one string, and `[keyLength, idLength,
 * descriptionLength]` per tool, with the id length replaced by a marker for
 * a tool without a string id or whose id equals its key. A value Rust could
 * not read is handed to it to be refused, as `refused` names it. Options:
 * `stepTools` (the step's tools: meta-tools that are no tools are passed
 * over), `ids` (also give the ids read, as an array).
 */
function toolTable(keys, tools, refused, { stepTools = false, ids: withIds = false } = {}) {
  // One string built by concatenation (V8 keeps it as a rope until Rust reads
  // it once) is the cheapest way across: no per-tool boundary call.
  let text = ''
  const spans = new Int32Array(keys.length * TABLE.columns)
  const ids = withIds ? new Array(keys.length) : null
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    const tool = tools[i]
    const row = i * TABLE.columns
    text += key
    spans[row] = key.length
    spans[row + 1] = TABLE.noId
    if (!isTool(tool, key, refused, stepTools && isMetaKey(key))) continue
    const id = tool.id
    if (ids !== null) ids[i] = id
    if (id === key) {
      // Most tools are keyed by their id: say so instead of sending it twice.
      spans[row + 1] = TABLE.idIsKey
    } else if (isText(id, key, refused.id)) {
      text += id
      spans[row + 1] = id.length
    }
    const description = tool.description
    if (isText(description, key, refused.description)) {
      text += description
      spans[row + 2] = description.length
    }
  }
  return { text, spans, ids }
}

/**
 * `tools[name]`, own keys only (a deliberate difference); `undefined` for no
 * such key. A value under it that is no tool is refused, `null` and
 * `undefined` too (the reference throws a `TypeError` for them as well).
 */
function ownTool(record, name) {
  if (!Object.hasOwn(record, name)) return undefined
  const tool = record[name]
  isTool(tool, name, RECORD_VALUES, false)
  return tool
}

/** `record`'s values under `keys`, in order (a loop: `map`'s callback cost a third more on 9,000 keys, measured). */
function valuesOf(record, keys) {
  const values = new Array(keys.length)
  for (let i = 0; i < keys.length; i++) values[i] = record[keys[i]]
  return values
}

/**
 * The tool the caller's record gives now for a name Rust resolved (the
 * protocol's `operation.ask`): `kind` says what its tables found (the tool
 * `ref` by key or by id, or nothing: `missingName` then given), and which
 * reads to make, in order, until one gives a tool: the key that is the
 * name, or the key of the tool found by id (if its `id` is still the name).
 * Rust chose them as the reference looks the name up; each reads one key.
 */
function resolve(step, kind, ref, missingName) {
  const name = nameAsked(step, kind, ref, missingName)
  for (let reads = kind >> ASK.foundBits; reads !== 0; reads >>= ASK.readBits) {
    const tool = (reads & READ_MASK) === ASK.ownKey ? step.own(name) : step.standing(ref, name)
    if (tool !== undefined) return tool
  }
  return undefined
}

/** The name a question of `kind` is about: the id or the key of the tool `ref` the tables found, or `missingName`. */
function nameAsked(step, kind, ref, missingName) {
  const found = kind & FOUND_MASK
  return found === ASK.byId ? step.idOf(ref) : found === ASK.missing ? missingName : step.keyOf(ref)
}

/**
 * Whether the resolutions an operation without questions trusted the
 * tables with (the checks in `words` from `at`, none when it ends there,
 * and the names of those that found nothing, in order) still hold in the
 * caller's record: each read of one key, as `answer` reads them.
 */
function holds(step, words, at, missing) {
  if (at === words.length) return true
  const count = words[at + FLAT.count]
  if (count === FLAT.unchecked) return false
  let next = 0
  for (let i = at + FLAT.checks; i < at + FLAT.checks + count; i++) {
    const code = words[i]
    const kind = code & KIND_MASK
    const ref = code >> ASK.kindBits
    const isMissing = (kind & FOUND_MASK) === ASK.missing
    const tool = resolve(step, kind, ref, isMissing ? missing[next++] : undefined)
    // What the tables resolved the name to.
    if (tool !== (isMissing ? undefined : step.toolFor(ref))) return false
  }
  return true
}

/** No thread in the request context. */
const NO_THREAD = Object.freeze({
  contextThread: undefined,
  memory: undefined,
  memoryThread: undefined,
  memoryThreadId: undefined,
  memoryResourceId: undefined,
})

/**
 * The request context's thread entries, read as the reference reads them:
 * `mastra__threadId`, and only when that is not set (falsy) the memory
 * context the Agent puts there, `MastraMemory`, with its `thread`,
 * `thread.id` and `resourceId` in the order `parseMemoryRequestContext`
 * reads them, stopping where it would throw (Rust then refuses the value).
 */
function readThread(requestContext) {
  if (!requestContext) return NO_THREAD
  const contextThread = contextValue(requestContext, THREAD_ID_KEY)
  if (contextThread) return threadEntries(contextThread, undefined, undefined, undefined, undefined)
  const memory = contextValue(requestContext, MEMORY_KEY)
  if (!memory || typeof memory !== 'object') return threadEntries(contextThread, memory, undefined, undefined, undefined)
  const memoryThread = memory.thread
  let memoryThreadId
  if (memoryThread !== undefined) {
    if (typeof memoryThread !== 'object' || memoryThread === null) return threadEntries(contextThread, memory, memoryThread, undefined, undefined)
    memoryThreadId = memoryThread.id
    if (typeof memoryThreadId !== 'string') return threadEntries(contextThread, memory, memoryThread, memoryThreadId, undefined)
  }
  return threadEntries(contextThread, memory, memoryThread, memoryThreadId, memory.resourceId)
}

/**
 * `readThread`'s answer, one literal: a spread of `NO_THREAD` would make a
 * class a full collection frees (issue 18; guarded by
 * __test__/tool-search.collection.test.mjs).
 * Positional: it is the named object's one maker, its parameters the literal's fields in order.
 */
function threadEntries(contextThread, memory, memoryThread, memoryThreadId, memoryResourceId) {
  return { contextThread, memory, memoryThread, memoryThreadId, memoryResourceId }
}

module.exports = { isTool, isText, isMetaKey, toolTable, ownTool, resolve, holds, valuesOf, readThread }
