'use strict'
// ToolSearchProcessor: the JavaScript half. It hands the tool records to Rust
// as one UTF-16 string plus a tool table, reports what Rust needs to read
// from options, request contexts and messages as it finds it, and keeps only
// what must stay in JavaScript: the tool objects themselves (Rust names them
// by index), the filter hook and the request context it receives, and the
// `createTool`/zod plumbing the Agent expects. Options, threads, search,
// load, loaded state and every message a model reads are decided in Rust;
// the codes and names both halves use come from Rust too. Tools' parameters
// are read from their input schemas only when the ranking reads them.

const { NativeToolSearch, NativeToolSearchOptions, toolSearchCodes, toolSearchStrings } = require('./native.js')
const { parameterTable } = require('./tool-parameters.js')

const CODES = toolSearchCodes()
const { operation: OPERATION, loadShape: LOAD_SHAPE, toolTable: TABLE, messageFacts: FACTS } = CODES
const { searchTools: SEARCH_TOOLS, loadTool: LOAD_TOOL } = CODES.metaTools
const { threadId: THREAD_ID_KEY, memory: MEMORY_KEY } = CODES.requestContext
const STRINGS = toolSearchStrings()
/** The meta-tools whose results the context store reads, and their kinds in the facts. */
const FACT_KINDS = new Map([
  [SEARCH_TOOLS, FACTS.searchTools],
  [LOAD_TOOL, FACTS.loadTool],
])

/** The meta-tools' schemas, made once with the host's own zod on first use. */
let schemas
function metaToolSchemas() {
  if (schemas) return schemas
  const { z } = require('zod/v4')
  schemas = {
    searchInput: z.object({ query: z.string().describe(STRINGS.searchQueryDescription) }),
    searchOutput: z.object({
      results: z.array(z.object({ name: z.string(), description: z.string(), score: z.number() })),
      message: z.string(),
    }),
    loadInput: z.object({
      toolName: z.string().optional().describe(STRINGS.loadToolNameDescription),
      toolNames: z.array(z.string()).optional().describe(STRINGS.loadToolNamesDescription),
    }),
    loadOutput: z.object({
      success: z.boolean(),
      message: z.string(),
      loadedCount: z.number().optional(),
      toolName: z.string().optional(),
      loaded: z.array(z.string()).optional(),
      notFound: z.array(z.string()).optional(),
      alreadyLoaded: z.array(z.string()).optional(),
    }),
  }
  return schemas
}

/** The processor of a host release (see `lib/host.js`), whose `createTool` makes the meta-tools. */
function defineToolSearchProcessor(host) {
  const { createTool } = host
  return class ToolSearchProcessor {
    id = 'tool-search'
    name = 'Tool Search Processor'
    description = 'Enables dynamic tool discovery and loading via search'

    #native
    /** What Rust decided about the options (see `NativeToolSearch.settings`). */
    #settings
    /**
     * The constructor's tools, in record order: Rust's tool `i` is `#tools[i]`,
     * and tool `#tools.length + i` is the step's resolved tool `i`.
     */
    #tools
    #filter
    /** Whether the ranking reads tools' parameters, so step tools' are sent too. */
    #readsParameters
    /** The catalog of the constructor's tools: `{ native, message }` (see `#catalogMessage`). */
    #staticCatalog
    #lastStepCatalog

    constructor(options) {
      if (options === null || typeof options !== 'object') {
        throw new TypeError(`ToolSearchProcessor: options must be an object, got ${describe(options)}`)
      }
      const { tools, search, filter } = options
      if (tools === null || typeof tools !== 'object') {
        throw new TypeError(`ToolSearchProcessor: options.tools must be an object of tools, got ${describe(tools)}`)
      }
      const keys = Object.keys(tools)
      // Faster than Object.values on large (dictionary-mode) records, measured.
      this.#tools = keys.map((key) => tools[key])
      const table = toolTable(keys, this.#tools, 'options.tools')
      // Rust applies the defaults and refuses values of the wrong type.
      const applied = new NativeToolSearchOptions(
        {
          search,
          topK: search?.topK,
          minScore: search?.minScore,
          autoLoad: search?.autoLoad,
          ranking: search?.ranking,
          storage: options.storage,
          ttl: options.ttl,
          filter,
          includeResolvedTools: options.includeResolvedTools,
          injectCatalog: options.injectCatalog,
        },
        host.version,
      )
      this.#readsParameters = applied.readsParameters
      const parameters = this.#readsParameters ? parameterTable(this.#tools) : undefined
      this.#native = new NativeToolSearch(applied, table.text, table.spans, parameters?.text, parameters?.table)
      this.#settings = this.#native.settings
      this.#filter = this.#settings.hasFilter ? filter : undefined
      this.#staticCatalog = { native: this.#native.staticCatalog(), message: undefined }

      // The sweep holds the processor weakly and stops once it is collected, so
      // a discarded processor is not kept alive by its own timer.
      const interval = this.#settings.sweepIntervalMs
      if (interval != null) {
        const processor = new WeakRef(this.#native)
        const timer = setInterval(() => {
          const native = processor.deref()
          if (native === undefined) clearInterval(timer)
          else native.cleanupNow(Date.now())
        }, interval)
        timer.unref?.()
      }
    }

    async processInputStep(args) {
      const { tools, messageList } = args
      const settings = this.#settings
      const step = this.#beginStep(args.requestContext, tools, settings.readsMessages ? args : undefined)
      const hook = this.#hook(step, args.requestContext)

      messageList.addSystem(settings.instruction)
      if (settings.injectsCatalog) {
        let catalogMessage = this.#catalogMessage(step, hook)
        if (catalogMessage instanceof Promise) catalogMessage = await catalogMessage
        if (catalogMessage !== null) messageList.addSystem(catalogMessage)
      }

      const { searchInput, searchOutput, loadInput, loadOutput } = metaToolSchemas()
      const searchTool = createTool({
        id: SEARCH_TOOLS,
        description: settings.searchDescription,
        inputSchema: searchInput,
        outputSchema: searchOutput,
        execute: async ({ query }) => {
          expect(typeof query === 'string', 'search_tools needs a string query', query)
          if (!hook) return step.native.search(query, Date.now())
          const operation = await drive(step.native.searchWithHook(query, Date.now()), hook)
          return operation.searchOutput()
        },
      })
      const loadTool = settings.offersLoadTool
        ? createTool({
            id: LOAD_TOOL,
            description: STRINGS.loadDescription,
            inputSchema: loadInput,
            outputSchema: loadOutput,
            execute: async ({ toolName, toolNames }) => {
              const name = toolName ?? undefined
              expect(name === undefined || typeof name === 'string', 'load_tool needs toolName to be a string', toolName)
              expect(
                toolNames === undefined || (Array.isArray(toolNames) && toolNames.every((n) => typeof n === 'string')),
                'load_tool needs toolNames to be an array of strings',
                toolNames,
              )
              const answer = hook
                ? (await drive(step.native.loadWithHook(name, toolNames, Date.now()), hook)).loadOutput()
                : step.native.load(name, toolNames, Date.now())
              return loadToolResult(answer)
            },
          })
        : undefined

      const loadedTools = await this.#activeTools(step, hook)
      const visible = step.native.visible
      return {
        tools: {
          [SEARCH_TOOLS]: searchTool,
          ...(loadTool ? { [LOAD_TOOL]: loadTool } : {}),
          ...(visible === null ? (tools ?? {}) : step.visibleTools(visible)),
          ...loadedTools,
        },
      }
    }

    /** Rebuilds a request's loaded tools; the Agent calls it when an approval resumes. */
    async getLoadedToolsForRequestContext(args) {
      const stepArgs = args?.stepArgs
      if (stepArgs) {
        const step = this.#beginStep(stepArgs.requestContext, stepArgs.tools, this.#settings.readsMessages ? stepArgs : undefined)
        return this.#activeTools(step, this.#hook(step, args.requestContext ?? stepArgs.requestContext))
      }
      const step = this.#beginStep(args?.requestContext, args?.tools, undefined)
      return this.#activeTools(step, this.#hook(step, args?.requestContext))
    }

    // `undefined` clears the default thread, which Rust names; the default
    // parameter keeps `clearState.length` at 0, as the reference's.
    clearState(threadId = undefined) {
      this.#native.clearState(threadId)
    }

    clearAllState() {
      this.#native.clearAllState()
    }

    getStateStats() {
      const { threadCount, oldestAccessTime } = this.#native.stateStats(Date.now())
      return { threadCount, oldestAccessTime: oldestAccessTime ?? null }
    }

    cleanupNow() {
      return this.#native.cleanupNow(Date.now())
    }

    /**
     * Starts a step: the request's thread (as read from its context), the
     * catalog (with the step's own tools when they are searchable) and the
     * loaded names. `messagesFrom` carries the messages for the context
     * store; it is absent on the resume path.
     */
    #beginStep(requestContext, stepTools, messagesFrom) {
      const contextThread = requestContext?.get(THREAD_ID_KEY)
      const memory = requestContext?.get(MEMORY_KEY)
      const memoryThread = memory?.thread
      const record = stepTools ?? {}
      const resolvedKeys = this.#settings.searchesStepTools ? Object.keys(record) : []
      const resolved = resolvedKeys.map((key) => record[key])
      const catalog = resolvedKeys.length > 0 ? this.#stepCatalog(resolvedKeys, resolved) : this.#staticCatalog
      const facts = messagesFrom === undefined ? null : messageFacts(messagesFrom.messages)
      const native = this.#native.beginStep(
        contextThread,
        memory,
        memoryThread,
        memoryThread?.id,
        memory?.resourceId,
        catalog.native,
        facts?.text,
        facts?.facts,
        Date.now(),
      )
      const tools = this.#tools
      return {
        native,
        catalog,
        toolFor: (ref) => (ref < tools.length ? tools[ref] : resolved[ref - tools.length]),
        visibleTools: (visible) => {
          const kept = {}
          for (const i of visible) kept[resolvedKeys[i]] = resolved[i]
          return kept
        },
      }
    }

    /**
     * The catalog of the step's own tools, as a record `{ native, message }`
     * with what the cache compares. An agent hands every step of a run
     * (and often every run) the very same tool objects, so the last catalog is
     * kept while keys, tool objects, ids, descriptions (and input schemas, for
     * a ranking that reads parameters) are all unchanged; any difference, such
     * as another caller's tool instances, builds a new one.
     */
    #stepCatalog(keys, tools) {
      const last = this.#lastStepCatalog
      if (last !== undefined && sameTools(last, keys, tools)) return last
      const table = toolTable(keys, tools, 'the step tools', true)
      const parameters = this.#readsParameters ? parameterTable(tools) : undefined
      const native = this.#native.stepCatalog(table.text, table.spans, parameters?.text, parameters?.table)
      const schemas = parameters === undefined ? null : tools.map((tool) => tool?.inputSchema)
      this.#lastStepCatalog = { keys, tools, ids: table.ids, descriptions: table.descriptions, schemas, native, message: undefined }
      return this.#lastStepCatalog
    }

    /**
     * The system message listing the step's catalog (`injectCatalog`), or
     * null. With a hook it is made for each step, as the hook decides what it
     * lists, and may come as a promise. Without one it depends on the catalog
     * alone, so it is kept with the catalog: a large catalog's message costs
     * far more to make into a JavaScript string than to keep.
     */
    #catalogMessage(step, hook) {
      if (hook) {
        const operation = drive(step.native.catalogWithHook(), hook)
        return operation instanceof Promise ? operation.then((done) => done.catalogOutput()) : operation.catalogOutput()
      }
      const catalog = step.catalog
      if (catalog.message === undefined) catalog.message = this.#native.catalogMessage(catalog.native)
      return catalog.message
    }

    /** The filter hook for one request, as an operation asks it: a tool and a phase in, a verdict code out. */
    #hook(step, requestContext) {
      const filter = this.#filter
      if (filter === undefined) return undefined
      return (ref, phase) => askFilter(filter, step.toolFor(ref), requestContext, phase)
    }

    async #activeTools(step, hook) {
      const { names, tools } = hook ? (await drive(step.native.activeWithHook(), hook)).activeOutput() : step.native.active()
      const loaded = {}
      for (let i = 0; i < names.length; i++) loaded[names[i]] = step.toolFor(tools[i])
      return loaded
    }
  }
}

/**
 * Runs a native operation to its end, answering each of its questions (a
 * tool) with the hook: synchronously while the hook answers synchronously,
 * awaiting only a promise (where the reference awaits too). Gives the
 * operation back, or a promise of it. The protocol is described with the
 * core's resumable operation (src/tool_search/operation.rs).
 */
function drive(operation, hook, verdict = OPERATION.noVerdict) {
  const phase = operation.phase
  for (let tool = operation.resume(verdict); tool !== OPERATION.done; tool = operation.resume(verdict)) {
    verdict = hook(tool, phase)
    if (typeof verdict !== 'number') return verdict.then((answer) => drive(operation, hook, answer))
  }
  return operation
}

/** Calls the user's hook; a verdict code, or a promise of one (Rust decides what each means). */
function askFilter(filter, tool, requestContext, phase) {
  let answer
  try {
    answer = filter({ toolName: tool.id, tool, requestContext, phase })
  } catch {
    return OPERATION.failed
  }
  if (answer !== null && (typeof answer === 'object' || typeof answer === 'function') && typeof answer.then === 'function') {
    return Promise.resolve(answer).then(
      (value) => (value ? OPERATION.allowed : OPERATION.denied),
      () => OPERATION.failed,
    )
  }
  return answer ? OPERATION.allowed : OPERATION.denied
}

/**
 * A tool record as Rust reads it (the core's `search::table`): keys, ids and
 * descriptions end to end in one string, and `[keyLength, idLength,
 * descriptionLength]` per tool, with the id length replaced by a marker for
 * a tool without a string id or whose id equals its key.
 */
function toolTable(keys, tools, what, stepTools = false) {
  // One string built by concatenation (V8 keeps it as a rope until Rust reads
  // it once) is the cheapest way across: no per-tool boundary call.
  let text = ''
  const spans = new Int32Array(keys.length * TABLE.columns)
  // For step tools, what was read, for the step-catalog cache to compare
  // against next time; the constructor's table needs no such record.
  const ids = stepTools ? new Array(keys.length) : null
  const descriptions = stepTools ? new Array(keys.length) : null
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    const tool = tools[i]
    const row = i * TABLE.columns
    text += key
    spans[row] = key.length
    spans[row + 1] = TABLE.noId
    if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) {
      // The meta-tools among the step tools are passed through, never read.
      if (stepTools && (key === SEARCH_TOOLS || key === LOAD_TOOL)) continue
      throw new TypeError(`ToolSearchProcessor: ${what}.${key} must be a tool, got ${describe(tool)}`)
    }
    const id = tool.id
    const description = tool.description
    if (stepTools) {
      ids[i] = id
      descriptions[i] = description
    }
    if (id === key) {
      // Most tools are keyed by their id: say so instead of sending it twice.
      spans[row + 1] = TABLE.idIsKey
    } else if (typeof id === 'string') {
      text += id
      spans[row + 1] = id.length
    } else if (id !== undefined && id !== null) {
      throw new TypeError(`ToolSearchProcessor: ${what}.${key}.id must be a string, got ${describe(id)}`)
    }
    if (typeof description === 'string') {
      text += description
      spans[row + 2] = description.length
    } else if (description !== undefined && description !== null) {
      throw new TypeError(`ToolSearchProcessor: ${what}.${key}.description must be a string, got ${describe(description)}`)
    }
  }
  return { text, spans, ids, descriptions }
}

/**
 * What the context store reads from the messages (the core's
 * `stores::facts`): for each `search_tools` or `load_tool` invocation part,
 * whether it is a result, whether `result.success === true`, the string names
 * of `result.results[]`, the strings in `result.loaded[]` and a string
 * `result.toolName`, names end to end in `text`. Rust decides which count.
 */
function messageFacts(messages) {
  const names = []
  const facts = []
  if (Array.isArray(messages)) {
    for (const message of messages) {
      const parts = message.content?.parts
      if (!parts) continue
      for (const part of parts) {
        if (part.type !== FACTS.toolInvocationPart) continue
        const invocation = part.toolInvocation
        if (!invocation) continue
        const kind = FACT_KINDS.get(invocation.toolName)
        if (kind === undefined) continue
        const result = invocation.result
        const isObject = result !== null && typeof result === 'object'
        facts.push(kind, invocation.state === FACTS.resultState ? 1 : 0, isObject && result.success === true ? 1 : 0)
        const found = []
        if (isObject && Array.isArray(result.results)) {
          for (const entry of result.results) {
            const name = entry?.name
            if (typeof name === 'string') found.push(name)
          }
        }
        pushNames(facts, names, found)
        pushNames(facts, names, isObject && Array.isArray(result.loaded) ? result.loaded.filter(isString) : [])
        if (isObject && typeof result.toolName === 'string') {
          facts.push(result.toolName.length)
          names.push(result.toolName)
        } else {
          facts.push(FACTS.noName)
        }
      }
    }
  }
  return { text: names.join(''), facts: Int32Array.from(facts) }
}

function pushNames(facts, names, list) {
  facts.push(list.length)
  for (const name of list) {
    facts.push(name.length)
    names.push(name)
  }
}

function sameTools(last, keys, tools) {
  if (last.keys.length !== keys.length) return false
  for (let i = 0; i < keys.length; i++) {
    const tool = tools[i]
    if (
      last.keys[i] !== keys[i] ||
      last.tools[i] !== tool ||
      last.ids[i] !== tool?.id ||
      last.descriptions[i] !== tool?.description ||
      (last.schemas !== null && last.schemas[i] !== tool?.inputSchema)
    ) {
      return false
    }
  }
  return true
}

function isString(value) {
  return typeof value === 'string'
}

function loadToolResult(answer) {
  const { shape, success, message } = answer
  if (shape === LOAD_SHAPE.invalid) return { success, message }
  if (shape === LOAD_SHAPE.single) return { success, message, toolName: answer.toolName }
  return {
    success,
    message,
    loadedCount: answer.loadedCount,
    loaded: answer.loaded ?? undefined,
    notFound: answer.notFound ?? undefined,
    alreadyLoaded: answer.alreadyLoaded ?? undefined,
  }
}

function expect(condition, message, value) {
  if (!condition) throw new TypeError(`ToolSearchProcessor: ${message}, got ${describe(value)}`)
}

function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'string' ? `the string ${JSON.stringify(value).slice(0, 80)}` : `a ${typeof value}`
}

module.exports = { defineToolSearchProcessor }
