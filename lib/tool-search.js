'use strict'
// ToolSearchProcessor: the JavaScript half. It converts the options once,
// hands the tool records to Rust as one UTF-16 string plus a span table, and
// keeps only what must stay in JavaScript: the tool objects themselves (Rust
// names them by index), the request context the filter hook receives, and the
// `createTool`/zod plumbing the Agent expects. Search, load, loaded state and
// every message a model reads are decided in Rust.

const { NativeToolSearch, toolSearchStrings } = require('./native.js')
const { RANKINGS, rankingArguments } = require('./tool-parameters.js')

const THREAD_ID_KEY = 'mastra__threadId'
const MEMORY_KEY = 'MastraMemory'
const PHASES = ['search', 'load', 'active']
/** What `resume` is given before the first question. */
const NO_VERDICT = -2
const STRINGS = toolSearchStrings()

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
    /** The constructor's tools, in record order: Rust's tool `i` is `#tools[i]`. */
    #tools
    #filter
    #autoLoad
    #includeResolvedTools
    #contextStorage
    #lastStepCatalog
    /** `search.ranking`, which decides whether step tools' parameters are sent too. */
    #ranking

    constructor(options) {
      if (options === null || typeof options !== 'object') {
        throw new TypeError(`ToolSearchProcessor: options must be an object, got ${describe(options)}`)
      }
      const { tools, search = {}, storage = 'in-memory', ttl = 3_600_000, filter, includeResolvedTools = false } = options
      if (tools === null || typeof tools !== 'object') {
        throw new TypeError(`ToolSearchProcessor: options.tools must be an object of tools, got ${describe(tools)}`)
      }
      if (search === null || typeof search !== 'object') {
        throw new TypeError(`ToolSearchProcessor: options.search must be an object, got ${describe(search)}`)
      }
      const topK = search.topK ?? 5
      const minScore = search.minScore ?? 0
      const autoLoad = search.autoLoad ?? false
      expect(typeof topK === 'number', 'options.search.topK must be a number', topK)
      expect(typeof minScore === 'number', 'options.search.minScore must be a number', minScore)
      expect(typeof autoLoad === 'boolean', 'options.search.autoLoad must be a boolean', autoLoad)
      expect(storage === 'in-memory' || storage === 'context', "options.storage must be 'in-memory' or 'context'", storage)
      expect(typeof ttl === 'number', 'options.ttl must be a number of milliseconds', ttl)
      expect(filter === undefined || typeof filter === 'function', 'options.filter must be a function', filter)
      expect(typeof includeResolvedTools === 'boolean', 'options.includeResolvedTools must be a boolean', includeResolvedTools)
      const ranking = search.ranking ?? 'reference'
      expect(RANKINGS.includes(ranking), `options.search.ranking must be ${RANKINGS.map((r) => `'${r}'`).join(' or ')}`, ranking)
      this.#ranking = ranking

      const keys = Object.keys(tools)
      // Faster than Object.values on large (dictionary-mode) records, measured.
      this.#tools = keys.map((key) => tools[key])
      const table = toolTable(keys, this.#tools, 'options.tools')
      this.#filter = filter
      this.#autoLoad = autoLoad
      this.#includeResolvedTools = includeResolvedTools
      this.#contextStorage = storage === 'context'
      this.#native = new NativeToolSearch(
        {
          topK,
          minScore,
          autoLoad,
          includeResolvedTools,
          contextStorage: storage === 'context',
          ttl,
          hasFilter: filter !== undefined,
          ranking,
        },
        table.text,
        table.spans,
        ...rankingArguments(ranking, this.#tools),
      )

      // The sweep holds the processor weakly and stops once it is collected, so
      // a discarded processor is not kept alive by its own timer.
      const interval = this.#native.sweepIntervalMs
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
      const step = this.#beginStep(args.requestContext, tools, this.#contextStorage ? args : undefined)
      const hook = this.#hook(step, args.requestContext)

      messageList.addSystem(this.#autoLoad ? STRINGS.instructionAutoLoad : STRINGS.instruction)

      const { searchInput, searchOutput, loadInput, loadOutput } = metaToolSchemas()
      const searchTool = createTool({
        id: 'search_tools',
        description: this.#autoLoad ? STRINGS.searchDescriptionAutoLoad : STRINGS.searchDescription,
        inputSchema: searchInput,
        outputSchema: searchOutput,
        execute: async ({ query }) => {
          expect(typeof query === 'string', 'search_tools needs a string query', query)
          if (!hook) return step.native.search(query, Date.now())
          const operation = await drive(step.native.searchWithHook(query, Date.now()), hook)
          return operation.searchOutput()
        },
      })
      const loadTool = createTool({
        id: 'load_tool',
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

      const loadedTools = await this.#activeTools(step, hook)
      return {
        tools: {
          search_tools: searchTool,
          ...(this.#autoLoad ? {} : { load_tool: loadTool }),
          ...(this.#includeResolvedTools ? step.visibleTools() : (tools ?? {})),
          ...loadedTools,
        },
      }
    }

    /** Rebuilds a request's loaded tools; the Agent calls it when an approval resumes. */
    async getLoadedToolsForRequestContext(args) {
      const stepArgs = args?.stepArgs
      if (stepArgs) {
        const step = this.#beginStep(stepArgs.requestContext, stepArgs.tools, this.#contextStorage ? stepArgs : undefined)
        return this.#activeTools(step, this.#hook(step, args.requestContext ?? stepArgs.requestContext))
      }
      const step = this.#beginStep(args?.requestContext, args?.tools, undefined)
      return this.#activeTools(step, this.#hook(step, args?.requestContext))
    }

    clearState(threadId = 'default') {
      expect(typeof threadId === 'string', 'clearState needs a thread id string', threadId)
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
     * Starts a step: the thread, the catalog (with the step's own tools when they
     * are searchable) and the loaded names. `messagesFrom` carries the messages
     * for the context store; it is absent on the resume path.
     */
    #beginStep(requestContext, stepTools, messagesFrom) {
      const contextThread = threadValue(requestContext?.get(THREAD_ID_KEY), THREAD_ID_KEY)
      const memoryThread = threadValue(requestContext?.get(MEMORY_KEY)?.thread?.id, `${MEMORY_KEY}.thread.id`)
      const record = stepTools ?? {}
      const resolvedKeys = this.#includeResolvedTools ? Object.keys(record) : []
      const resolved = resolvedKeys.map((key) => record[key])
      const catalog = resolvedKeys.length > 0 ? this.#stepCatalog(resolvedKeys, resolved) : undefined
      const facts = messagesFrom === undefined ? null : messageFacts(messagesFrom.messages)
      const native = this.#native.beginStep(contextThread, memoryThread, catalog, facts?.text, facts?.facts, Date.now())
      const tools = this.#tools
      return {
        native,
        toolFor: (ref) => (ref >= 0 ? tools[ref] : resolved[-1 - ref]),
        visibleTools: () => {
          const visible = native.visible
          const kept = {}
          if (visible !== null) for (const i of visible) kept[resolvedKeys[i]] = resolved[i]
          return kept
        },
      }
    }

    /**
     * The catalog of the step's own tools. An agent hands every step of a run
     * (and often every run) the very same tool objects, so the last catalog is
     * kept while keys, tool objects, ids and descriptions are all unchanged; any
     * difference, such as another caller's tool instances, builds a new one.
     */
    #stepCatalog(keys, tools) {
      const last = this.#lastStepCatalog
      if (last !== undefined && sameTools(last, keys, tools)) return last.native
      const table = toolTable(keys, tools, 'the step tools', true)
      const native = this.#native.stepCatalog(table.text, table.spans, ...rankingArguments(this.#ranking, tools))
      this.#lastStepCatalog = { keys, tools, ids: table.ids, descriptions: table.descriptions, native }
      return native
    }

    /** The filter hook for one request, as an operation asks it: tool index and phase code in, verdict out. */
    #hook(step, requestContext) {
      const filter = this.#filter
      if (filter === undefined) return undefined
      return (ref, phase) => askFilter(filter, step.toolFor(ref), requestContext, PHASES[phase])
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
 * Runs a native operation to its end, answering each of its questions with the
 * hook: synchronously while the hook answers synchronously, awaiting only a
 * promise (where the reference awaits too). Gives the operation back, or a
 * promise of it.
 */
function drive(operation, hook, verdict = NO_VERDICT) {
  for (let phase = operation.resume(verdict); phase >= 0; phase = operation.resume(verdict)) {
    verdict = hook(operation.tool, phase)
    if (typeof verdict !== 'number') return verdict.then((answer) => drive(operation, hook, answer))
  }
  return operation
}

/** Calls the user's hook. 1 allowed, 0 denied, -1 threw or rejected (Rust decides what that means). */
function askFilter(filter, tool, requestContext, phase) {
  let answer
  try {
    answer = filter({ toolName: tool.id, tool, requestContext, phase })
  } catch {
    return -1
  }
  if (answer !== null && (typeof answer === 'object' || typeof answer === 'function') && typeof answer.then === 'function') {
    return Promise.resolve(answer).then(
      (value) => (value ? 1 : 0),
      () => -1,
    )
  }
  return answer ? 1 : 0
}

/**
 * A tool record as Rust reads it: keys, ids and descriptions end to end in one
 * string, and `[keyLength, idLength, descriptionLength]` per tool, where an id
 * length of -1 means no id and -2 an id equal to the key.
 */
function toolTable(keys, tools, what, stepTools = false) {
  // One string built by concatenation (V8 keeps it as a rope until Rust reads
  // it once) is the cheapest way across: no per-tool boundary call.
  let text = ''
  const spans = new Int32Array(keys.length * 3)
  // For step tools, what was read, for the step-catalog cache to compare
  // against next time; the constructor's table needs no such record.
  const ids = stepTools ? new Array(keys.length) : null
  const descriptions = stepTools ? new Array(keys.length) : null
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    const tool = tools[i]
    const row = i * 3
    text += key
    spans[row] = key.length
    spans[row + 1] = -1
    if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) {
      // The meta-tools among the step tools are passed through, never read.
      if (stepTools && (key === 'search_tools' || key === 'load_tool')) continue
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
      spans[row + 1] = -2
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
 * What the context store reads from the messages: for each `search_tools` or
 * `load_tool` part, `[kind, isResult, n, lengths.., m, lengths.., singleLength or -1]`
 * with the names end to end in `text`. Rust decides which of them count.
 */
function messageFacts(messages) {
  const names = []
  const facts = []
  if (Array.isArray(messages)) {
    for (const message of messages) {
      const parts = message.content?.parts
      if (!parts) continue
      for (const part of parts) {
        if (part.type !== 'tool-invocation') continue
        const invocation = part.toolInvocation
        if (!invocation) continue
        const kind = invocation.toolName === 'search_tools' ? 1 : invocation.toolName === 'load_tool' ? 2 : 0
        if (kind === 0) continue
        facts.push(kind, invocation.state === 'result' ? 1 : 0)
        const result = invocation.result
        const isObject = result !== null && typeof result === 'object'
        const found = []
        if (isObject && Array.isArray(result.results)) {
          for (const entry of result.results) {
            const name = entry?.name
            if (typeof name === 'string') found.push(name)
          }
        }
        pushNames(facts, names, found)
        pushNames(facts, names, isObject && Array.isArray(result.loaded) ? result.loaded.filter(isString) : [])
        if (isObject && result.success === true && typeof result.toolName === 'string') {
          facts.push(result.toolName.length)
          names.push(result.toolName)
        } else {
          facts.push(-1)
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
      last.descriptions[i] !== tool?.description
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
  if (shape === 0) return { success, message }
  if (shape === 1) return { success, message, toolName: answer.toolName }
  return {
    success,
    message,
    loadedCount: answer.loadedCount,
    loaded: answer.loaded ?? undefined,
    notFound: answer.notFound ?? undefined,
    alreadyLoaded: answer.alreadyLoaded ?? undefined,
  }
}

function threadValue(value, what) {
  if (!value) return undefined
  expect(typeof value === 'string', `the request context's ${what} must be a string`, value)
  return value
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
