// `eval`'s questions: a JSON Lines file the user wrote, or the search_tools
// calls their agent made, read from its memory (a Mastra storage, a Memory,
// or a JSON file of stored messages), each labelled with the tool the agent
// went on to load or call. Every question names tools by their key or id in
// the user's tools record (`Catalog`).

import { readFileSync } from 'node:fs'

import { quote } from './report.mjs'

/** Meta-tool names as the processors name them (Mastra's and ours alike). */
const SEARCH = 'search_tools'
const LOAD = 'load_tool'

/** A user's mistake: `main.mjs` prints its message alone, without a stack. */
export class UsageError extends Error {}

/** The tools record's names: each tool found by its key or its id, named as `search_tools` names it (its id). */
export class Catalog {
  /** @param {Record<string, any>} tools */
  constructor(tools) {
    this.byName = new Map()
    this.names = []
    for (const [key, tool] of Object.entries(tools)) {
      const name = typeof tool?.id === 'string' && tool.id !== '' ? tool.id : key
      this.names.push(name)
      this.byName.set(key, name)
    }
    for (const name of this.names) if (!this.byName.has(name)) this.byName.set(name, name)
  }

  /** The tool's name as `search_tools` gives it, or undefined. */
  resolve(name) {
    return typeof name === 'string' ? this.byName.get(name) : undefined
  }

  get size() {
    return this.names.length
  }
}

/** A value as a message shows it: a text cut as `quote` cuts one. */
const show = (value) => quote(value)
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * The questions of a JSON Lines file, each `{ question, tools }` with the
 * tools named as `search_tools` names them. Throws a `UsageError` naming the
 * line of the first malformed one, or every line that names a tool the
 * record does not hold.
 */
export function readQuestionsFile(path, catalog) {
  let text
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  }
  const questions = []
  const unknown = []
  // A byte order mark, as some Windows editors write, is no part of line 1.
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue
    const where = `${path} line ${i + 1}`
    let value
    try {
      value = JSON.parse(line)
    } catch (error) {
      throw new UsageError(`${where} is not JSON (${error.message}); each line is {"question": "...", "tools": ["name", ...]}`)
    }
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value)
    if (!isObject || typeof value.question !== 'string' || value.question.trim() === '') {
      throw new UsageError(`${where}: expected {"question": "...", "tools": ["name", ...]} with a question that is a non-empty string`)
    }
    const { tools } = value
    if (!Array.isArray(tools) || tools.length === 0 || !tools.every((name) => typeof name === 'string' && name !== '')) {
      throw new UsageError(`${where}: "tools" must be a non-empty array of tool names (the tools any of which is a right answer)`)
    }
    const missing = tools.filter((name) => catalog.resolve(name) === undefined)
    if (missing.length > 0) unknown.push(`line ${i + 1}: ${missing.map(show).join(', ')}`)
    else questions.push({ question: value.question, tools: [...new Set(tools.map((name) => catalog.resolve(name)))], line: i + 1 })
  }
  if (unknown.length > 0) {
    const listed = unknown.slice(0, 10).join('\n  ')
    const more = unknown.length > 10 ? `\n  and ${plural(unknown.length - 10, 'line')} more` : ''
    throw new UsageError(
      `${path}: ${plural(unknown.length, 'question names a tool', 'questions name tools')} your --tools record does not hold (by key or id):\n  ${listed}${more}`,
    )
  }
  if (questions.length === 0) throw new UsageError(`${path} holds no questions: write one {"question": "...", "tools": ["name", ...]} a line`)
  return questions
}

// ─── Questions from the agent's memory ──────────────────────────────────────

/**
 * The tool calls of a stored message, in order: `{ id, name, args }`. Reads
 * Mastra's stored format (format 2: `tool-invocation` parts, or its
 * `toolInvocations` when it has no parts), the AI SDK's UI parts (`tool-<name>`,
 * `dynamic-tool`) and model messages' `tool-call` parts.
 */
export function toolCallsOf(message) {
  const content = message?.content
  const calls = []
  const add = (id, name, args) => {
    if (typeof name === 'string') calls.push({ id, name, args })
  }
  const fromParts = (parts) => {
    for (const part of parts) {
      if (part === null || typeof part !== 'object') continue
      if (part.type === 'tool-invocation') add(part.toolInvocation?.toolCallId, part.toolInvocation?.toolName, part.toolInvocation?.args)
      else if (part.type === 'tool-call') add(part.toolCallId, part.toolName, part.input ?? part.args)
      else if (part.type === 'dynamic-tool') add(part.toolCallId, part.toolName, part.input)
      else if (typeof part.type === 'string' && part.type.startsWith('tool-') && part.type !== 'tool-result')
        add(part.toolCallId, part.type.slice(5), part.input)
    }
  }
  if (Array.isArray(content)) fromParts(content)
  else if (content && typeof content === 'object') {
    if (Array.isArray(content.parts) && content.parts.length > 0) fromParts(content.parts)
    else if (Array.isArray(content.toolInvocations)) for (const t of content.toolInvocations) add(t?.toolCallId, t?.toolName, t?.args)
  } else if (Array.isArray(message?.parts)) fromParts(message.parts)
  return calls
}

/** A tool call's arguments as an object (stored inputs are sometimes JSON text). */
function argsOf(args) {
  if (typeof args !== 'string') return args && typeof args === 'object' ? args : {}
  try {
    const parsed = JSON.parse(args)
    return parsed && typeof parsed === 'object' ? parsed : {}
  } catch {
    return {}
  }
}

/** The names a load_tool call asked for. */
function loadedNames(args) {
  const { toolName, toolNames } = argsOf(args)
  const names = Array.isArray(toolNames) ? toolNames : []
  return [...(typeof toolName === 'string' ? [toolName] : []), ...names.filter((name) => typeof name === 'string')]
}

/** Why a search_tools call is no question; the report counts each. */
export const SKIPPED = {
  noQuery: 'search_tools called without a query',
  notFollowed: 'not followed in its thread by a load_tool or a call of one of your tools',
  unknownTools: 'followed only by load_tool of names your --tools record does not hold',
}

/**
 * The questions in threads of stored messages (each `{ id, messages }`, the
 * messages oldest first): every search_tools call followed, in its thread,
 * by a load_tool or a call of a tool of the record is a question labelled
 * with what the first such call loaded or called (the tools of the record it
 * named). A search_tools call followed by another before either is labelled
 * with what follows both. Returns `{ questions, searches, skipped }`,
 * `skipped` counting each reason (`SKIPPED`) with a few examples.
 */
export function mineThreads(threads, catalog) {
  const questions = []
  const skipped = new Map()
  let searches = 0
  const skip = (reason, example) => {
    const entry = skipped.get(reason) ?? { reason, count: 0, examples: [] }
    entry.count++
    if (example && entry.examples.length < 3) entry.examples.push(example)
    skipped.set(reason, entry)
  }
  for (const thread of threads) {
    const calls = []
    const seen = new Set()
    for (const message of thread.messages) {
      if (message?.role !== 'assistant') continue
      for (const call of toolCallsOf(message)) {
        // One call stored twice (as a part and again in a later message) counts once.
        if (typeof call.id === 'string') {
          if (seen.has(call.id)) continue
          seen.add(call.id)
        }
        calls.push(call)
      }
    }
    // The searches waiting for what follows them, with the unknown names loaded since.
    let waiting = []
    const settle = (tools) => {
      for (const search of waiting) questions.push({ question: search.query, tools, thread: thread.id })
      waiting = []
    }
    for (const call of calls) {
      if (call.name === SEARCH) {
        searches++
        const { query } = argsOf(call.args)
        if (typeof query !== 'string' || query.trim() === '') skip(SKIPPED.noQuery, thread.id)
        else waiting.push({ query, unknown: [] })
      } else if (waiting.length > 0) {
        const names = call.name === LOAD ? loadedNames(call.args) : [call.name]
        const tools = [...new Set(names.map((name) => catalog.resolve(name)).filter((name) => name !== undefined))]
        if (tools.length > 0) settle(tools)
        else if (call.name === LOAD) for (const search of waiting) search.unknown.push(...names)
      }
    }
    for (const search of waiting) {
      if (search.unknown.length > 0) skip(SKIPPED.unknownTools, `${show(search.query)} then load_tool ${[...new Set(search.unknown)].map(show).join(', ')}`)
      else skip(SKIPPED.notFollowed, show(search.query))
    }
  }
  return { questions, searches, skipped: [...skipped.values()] }
}

/** Stored messages grouped by thread, oldest first in each; the threads most recently written first. */
function threadsOfMessages(messages) {
  const byThread = new Map()
  for (const message of messages) {
    const id = typeof message?.threadId === 'string' ? message.threadId : '(no threadId)'
    if (!byThread.has(id)) byThread.set(id, [])
    byThread.get(id).push(message)
  }
  const time = (message) => {
    const t = Date.parse(message?.createdAt)
    return Number.isNaN(t) ? 0 : t
  }
  const threads = [...byThread].map(([id, list]) => {
    const messages = list.map((message, i) => ({ message, i })).sort((a, b) => time(a.message) - time(b.message) || a.i - b.i)
    return { id, messages: messages.map(({ message }) => message), last: Math.max(...list.map(time)) }
  })
  return threads.sort((a, b) => b.last - a.last)
}

/** The threads of a JSON file of stored messages: an array of them, or `{ messages }`. */
export function threadsOfFile(path) {
  let text
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  }
  if (text.trim() === '') throw new UsageError(`${path} is empty: expected a JSON array of stored messages`)
  let value
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${path} is not JSON (${error.message}): expected a JSON array of stored messages`)
  }
  const messages = Array.isArray(value) ? value : value?.messages
  if (!Array.isArray(messages) || !messages.every((m) => m !== null && typeof m === 'object')) {
    throw new UsageError(`${path}: expected a JSON array of stored messages (objects with role and content), or { "messages": [...] }`)
  }
  return threadsOfMessages(messages)
}

/**
 * The memory domain of what a module exports: a Mastra storage (its
 * `getStore('memory')`), a Memory (its storage's), a `Mastra` (its storage's)
 * or the memory domain itself (`listThreads` and `listMessages`). Undefined
 * when it is none of those.
 */
export async function memoryStoreOf(value) {
  if (value === null || typeof value !== 'object') return undefined
  if (typeof value.listThreads === 'function' && typeof value.listMessages === 'function') return value
  if (typeof value.getStore === 'function') return (await value.getStore('memory')) ?? null
  if (typeof value.getStorage === 'function' && typeof value.getAgent === 'function') {
    const storage = value.getStorage()
    if (storage === undefined || storage === null) throw new UsageError('this Mastra instance has no storage: its agents keep no memory to read')
    return (await memoryStoreOf(storage)) ?? null
  }
  // A Memory: its storage, or the error Mastra gives when it has none.
  if (typeof value.recall === 'function' && typeof value.listThreads === 'function') {
    let storage
    try {
      storage = value.storage
    } catch {
      throw new UsageError(
        'this Memory has no storage of its own (its Mastra instance gives it one): export the storage your Mastra instance uses, or the Mastra instance',
      )
    }
    return memoryStoreOf(storage)
  }
  return undefined
}

/** Every message of a thread, oldest first, a page at a time. */
async function threadMessages(store, threadId) {
  const messages = []
  for (let page = 0; ; page++) {
    const result = await store.listMessages({ threadId, page, perPage: 500, orderBy: { field: 'createdAt', direction: 'ASC' } })
    messages.push(...(result?.messages ?? []))
    if (!result?.hasMore || (result.messages ?? []).length === 0) return messages
  }
}

/**
 * The `limit` threads most recently written (by `updatedAt`), with their
 * messages, through the storage's public read API: nothing is written.
 * `progress(done, of)` after each thread.
 */
export async function readThreads(store, limit, progress) {
  let threads
  try {
    ;({ threads } = await store.listThreads({ page: 0, perPage: limit, orderBy: { field: 'updatedAt', direction: 'DESC' } }))
  } catch (error) {
    throw new UsageError(`cannot list the storage's threads: ${error.message} (is it the storage your agent's memory writes to?)`)
  }
  const out = []
  for (const thread of threads ?? []) {
    let messages
    try {
      messages = await threadMessages(store, thread.id)
    } catch (error) {
      throw new UsageError(`cannot read thread ${show(thread.id)}'s messages: ${error.message}`)
    }
    out.push({ id: thread.id, messages })
    progress?.(out.length, threads.length)
  }
  return out
}
