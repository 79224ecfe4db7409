'use strict'
// ToolSearchProcessor: the JavaScript half. It reads what Rust needs from
// the tools records, options, request contexts and messages (tools records
// cross as one UTF-16 string plus a tool table; tools' parameters are read
// from their input schemas only when the ranking reads them), calls the
// filter hook and `createTool`/zod, and applies Rust's answers. It keeps the
// tool objects themselves (Rust names them by number) and the rules about
// their identity and lifetime. Everything else is decided in Rust (see
// src/lib.rs), and every code, name and layout both halves use comes from
// the protocol Rust declares (`toolSearchProtocol()`).
//
// This module is the processor class, `ToolSearchProcessor`, defined once
// for every host release (`defineToolSearchProcessor` gives each release a
// subclass that hands it the release): its options handed to Rust, a step
// begun and its meta-tools handed out with the loaded tools, the state API;
// the classes a step makes kept alive (`keepStepShapes`), and the test
// hooks. Its rooms are in lib/tool-search/, from the bottom up: common.js
// (the protocol), record.js (the caller's objects read and checked, a name
// looked up in the record now), pool.js (the tool objects' identity and
// lifetime) and operation.js (an operation driven, the `filter` hook
// asked), then step-catalogs.js (the catalogs steps search, kept built) and
// meta-tools.js (`search_tools` and `load_tool`). May import: native.js,
// tool-parameters.js, context-history.js, embedder.js, hook-arguments.js,
// and lib/tool-search/.

const binding = require('./native.js')
const { NativeOperation, NativeToolSearch, NativeToolSearchOptions, refuseToolSearchValue } = binding
const { parameterTable, inputSchemaOf } = require('./tool-parameters.js')
const { RememberedLists } = require('./context-history.js')
const { locateBuiltinModel, UserEmbedder } = require('./embedder.js')
const { argument, transientField } = require('./hook-arguments.js')
const { PROTOCOL, REFUSED, RECORD_VALUES, SEARCH_TOOLS, NONE } = require('./tool-search/common.js')
const { toolTable, valuesOf, holds, readThread } = require('./tool-search/record.js')
const { LiveStep, SnapshotStep } = require('./tool-search/pool.js')
const { StepCatalogs, STEP_CATALOGS_PER_TURN } = require('./tool-search/step-catalogs.js')
const { Driver } = require('./tool-search/operation.js')
const { MetaTools, stepToolsRecord } = require('./tool-search/meta-tools.js')

const { processor: PROCESSOR } = PROTOCOL

/**
 * A processor's tool pool and native half, for the test hooks below.
 * @type {(processor: object) => { pool: import('./tool-search/pool.js').ToolPool, native: InstanceType<typeof NativeToolSearch>, catalogs: { letGo: number, madeAgain: number }, embedder: any }}
 */
let poolOf

/**
 * For tests: what a processor's pool of analysed tools holds, in Rust
 * (`tools` analysed and alive, `slots`, `free` slots to reuse) and here
 * (`pending` slots of collected tools not yet released to Rust).
 */
function toolPoolStats(processor) {
  const { pool, native } = poolOf(processor)
  return { ...native.poolStats(), pending: pool.released.length }
}

/**
 * For tests: how many step catalogs a processor let go of before they were
 * collected (`letGo`), and made again to be searched (`madeAgain`).
 */
function stepCatalogStats(processor) {
  return { ...poolOf(processor).catalogs }
}

/** For tests: settles once a processor's tools are embedded by its `search.embedder` (or that failed). */
function toolVectorsReady(processor) {
  return poolOf(processor).embedder?.settled ?? Promise.resolve()
}

/** For tests: does now what the collection of `tool` does (its slot is released at the next step catalog). */
function forgetPooledTool(processor, tool) {
  poolOf(processor).pool.forget(tool)
}

/**
 * The processor, for every host release: a release's own class (see
 * `defineToolSearchProcessor`) hands it the release, whose `version` selects
 * Rust's rules and whose `createTool` and zod make the meta-tools.
 */
class ToolSearchProcessor {
  id = PROCESSOR.id
  name = PROCESSOR.name
  description = PROCESSOR.description

  static {
    poolOf = (processor) => {
      if (!(#catalogs in processor)) throw new TypeError('not a ToolSearchProcessor')
      return { pool: processor.#catalogs.pool, native: processor.#native, catalogs: processor.#catalogs.counts, embedder: processor.#embedder }
    }
  }

  #native
  /** What Rust decided about the options (see `NativeToolSearch.settings`). */
  #settings
  /**
   * The caller's tools record, kept as the reference keeps it: a name's key
   * is read in it as it is when the name is looked up (see `LiveStep`).
   */
  #record
  /**
   * The record as it was at construction, in key order: Rust's tool `i` is
   * `#tools[i]`, under the key `#keys[i]`, with the id `#ids[i]` then (the
   * tables ids are resolved through).
   */
  #keys
  #tools
  #ids
  /** The catalogs its steps search (see `StepCatalogs`). */
  #catalogs
  /** How its operations ask the `filter` hook (see `Driver`). */
  #driver
  /** Its steps' `search_tools` and `load_tool` (see `MetaTools`). */
  #metaTools
  /** The 'context' store's message lists, remembered between steps (see `lib/context-history.js`). */
  #lists = new RememberedLists()
  /** 'hybrid' with `search.embedder`: the user's embedding model at work (see `lib/embedder.js`). */
  #embedder
  /** The loaded names last split from Rust's text (`{ text, names }`), kept while a step loads the same (see `#activeNames`). */
  #lastActive

  /** `options` as the user gave them; `host`, the release it serves (see `defineToolSearchProcessor`). */
  constructor(options, host) {
    if (options === null || typeof options !== 'object') refuseToolSearchValue(REFUSED.options, '', options)
    const { tools, search, filter } = options
    if (tools === null || typeof tools !== 'object') refuseToolSearchValue(REFUSED.tools, '', tools)
    const keys = Object.keys(tools)
    this.#record = tools
    this.#keys = keys
    // Faster than Object.values on large (dictionary-mode) records, measured.
    this.#tools = valuesOf(tools, keys)
    const table = toolTable(keys, this.#tools, RECORD_VALUES, { ids: true })
    this.#ids = table.ids
    // Rust applies the defaults and refuses values of the wrong type.
    const applied = new NativeToolSearchOptions(
      {
        search,
        topK: search?.topK,
        minScore: search?.minScore,
        autoLoad: search?.autoLoad,
        ranking: search?.ranking,
        embedder: search?.embedder,
        embedderDoEmbed: search?.embedder?.doEmbed,
        model: search?.model,
        modelPath: search?.model?.path,
        syntax: search?.syntax,
        storage: options.storage,
        ttl: options.ttl,
        filter,
        includeResolvedTools: options.includeResolvedTools,
        injectCatalog: options.injectCatalog,
        filterConcurrency: options.filterConcurrency,
      },
      host.version,
    )
    const readsParameters = applied.readsParameters
    if (applied.usesBuiltinModel) locateBuiltinModel(binding, applied.builtinModelFile)
    const parameters = readsParameters ? parameterTable(this.#tools.map(inputSchemaOf)) : undefined
    this.#native = new NativeToolSearch(applied, { ...table, parametersText: parameters?.text, parameters: parameters?.table })
    this.#settings = this.#native.settings
    if (this.#settings.takesVectors) this.#embedder = new UserEmbedder(search.embedder, this.#native)
    this.#catalogs = new StepCatalogs(this.#native, this.#settings, tools, readsParameters)
    this.#driver = new Driver(this.#settings.hasFilter ? filter : undefined, this.#settings.filterConcurrency)
    this.#metaTools = new MetaTools(host, { settings: this.#settings, embedder: this.#embedder, catalogs: this.#catalogs, driver: this.#driver })

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
    const tools = argument(args, 'tools')
    const messageList = argument(args, 'messageList')
    const settings = this.#settings
    // Read as the reference reads them: the step's tools, its request
    // context, then its messages.
    const catalog = this.#catalogs.catalogFor(tools)
    // Read once, and used by the meta-tools' execute too, where the
    // reference reads `args.requestContext` again: Mastra's runners make
    // the arguments a fresh literal per call and never change it, so it is
    // the same object, and a closure over `args` kept each step's
    // arguments (its MessageList among them) reachable from the tools, which
    // V8 then pretenured (docs/differences.md).
    const requestContext = argument(args, 'requestContext')
    const thread = readThread(requestContext)
    const step = this.#beginStep(catalog, thread, settings.readsMessages ? this.#lists.read(argument(args, 'messages')) : null)
    // The reference adds its messages after awaiting the loaded names.
    await undefined

    messageList.addSystem(settings.instruction)
    if (settings.injectsCatalog) {
      let catalogMessage = this.#catalogMessage(step, requestContext)
      if (catalogMessage instanceof Promise) catalogMessage = await catalogMessage
      if (catalogMessage !== null) messageList.addSystem(catalogMessage)
    }

    const metaTools = this.#metaTools
    const schemas = metaTools.schemas()
    const searchTool = metaTools.searchTool(step, requestContext, schemas)
    const loadTool = settings.offersLoadTool ? metaTools.loadTool(step, requestContext, schemas) : undefined

    const active = await this.#activeList(step, requestContext)
    const visible = step.catalog.visible
    const stepTools = stepToolsRecord(searchTool, loadTool, visible === null ? (tools ?? {}) : step.visibleTools(visible))
    // What spreading the loaded tools' record would add, without the record
    // (measured: the spread cost more than the rest of a step with 100
    // tools loaded). The record is built as the reference builds it
    // (`loaded[name] = tool`), so a name `__proto__` sets its prototype
    // and never becomes a key: skipped here.
    if (active !== null) {
      const { names, tools: loaded } = active
      for (let i = 0; i < names.length; i++) if (names[i] !== '__proto__') stepTools[names[i]] = loaded[i]
    }
    return { tools: stepTools }
  }

  /** Rebuilds a request's loaded tools; the Agent calls it when an approval resumes. */
  async getLoadedToolsForRequestContext(args) {
    // Read as the reference reads them: the request context and the
    // messages, then the tools.
    const stepArgs = args?.stepArgs
    if (stepArgs) {
      const thread = readThread(stepArgs.requestContext)
      const reading = this.#settings.readsMessages ? this.#lists.read(stepArgs.messages) : null
      const step = this.#beginStep(this.#catalogs.catalogFor(stepArgs.tools), thread, reading)
      return loadedRecord(await this.#activeList(step, args.requestContext ?? stepArgs.requestContext))
    }
    const thread = readThread(args?.requestContext)
    const step = this.#beginStep(this.#catalogs.catalogFor(args?.tools), thread, null)
    return loadedRecord(await this.#activeList(step, args?.requestContext))
  }

  // `undefined` clears the default thread, which Rust names; the default
  // parameter keeps `clearState.length` at 0, as the reference's.
  clearState(threadId = undefined) {
    this.#native.clearState(threadId)
  }

  clearAllState() {
    this.#native.clearAllState()
    this.#lists.clear()
  }

  getStateStats() {
    const { threadCount, oldestAccessTime } = this.#native.stateStats(Date.now())
    return { threadCount, oldestAccessTime: oldestAccessTime ?? null }
  }

  cleanupNow() {
    return this.#native.cleanupNow(Date.now())
  }

  /**
   * Starts a step over `catalog` (see `StepCatalogs.catalogFor`): the request's thread
   * as `readThread` read it, and the loaded names, with the context store's
   * `reading` of the messages (null on the resume path and for the
   * in-memory store).
   */
  #beginStep(catalog, thread, reading) {
    // The step's tools as its catalog read them: those in `record` now.
    const resolvedKeys = catalog.keys ?? NONE
    const resolved = catalog.tools ?? NONE
    const native = nativeStep(this.#native, catalog.native, thread, reading)
    if (reading !== null) this.#lists.commit(reading)
    const visibleTools = (visible) => {
      const kept = {}
      for (const i of visible) kept[resolvedKeys[i]] = resolved[i]
      return kept
    }
    return catalog.live
      ? new LiveStep(native, catalog, visibleTools, { keys: this.#keys, tools: this.#tools, ids: this.#ids, record: this.#record })
      : new SnapshotStep(native, catalog, resolved, visibleTools)
  }

  /**
   * The system message listing the step's catalog (`injectCatalog`), or
   * null. With a hook it is made for each step, as the hook decides what it
   * lists, and may come as a promise. Without one it depends on the catalog
   * alone (the keys and ids its tables hold), so it is kept with the
   * catalog: a large catalog's message costs far more to make into a
   * JavaScript string than to keep.
   */
  #catalogMessage(step, requestContext) {
    const catalog = this.#catalogs.built(step.catalog)
    if (catalog.message !== undefined) return catalog.message
    const message = step.native.catalogMessage()
    if (message instanceof NativeOperation) {
      const operation = this.#drive(message, step, requestContext)
      return operation instanceof Promise ? operation.then((done) => done.catalogOutput()) : operation.catalogOutput()
    }
    catalog.message = message
    return message
  }

  /** Runs a native operation of a step to its end, asking as the operation says (see `Driver`). */
  #drive(operation, step, requestContext) {
    return this.#driver.run({ operation, step, requestContext, awaits: operation.awaitsAsReference, phase: operation.phase })
  }

  /** The loaded tools, `{ names, tools }` in order, or `null` when none is loaded. */
  async #activeList(step, requestContext) {
    this.#catalogs.built(step.catalog)
    let active = step.native.active()
    if (active === null) return null
    // The checks follow the tools and the names' lengths in `words`.
    // Its fields are read through `transientField`: the binding makes each
    // answer property by property, a class that dies with the answers.
    if (
      !(active instanceof NativeOperation) &&
      !holds(step, transientField(active, 'words'), 2 * transientField(active, 'count'), transientField(active, 'missing'))
    ) {
      active = step.native.activeOperation()
    }
    if (active instanceof NativeOperation) active = (await this.#drive(active, step, requestContext)).activeOutput()
    // The tools, one per name, come first in `words`.
    const count = transientField(active, 'count')
    const words = transientField(active, 'words')
    const tools = new Array(count)
    for (let i = 0; i < count; i++) tools[i] = step.toolFor(words[i])
    return { names: this.#activeNames(transientField(active, 'text'), count, words), tools }
  }

  /**
   * The loaded names of an active list (`text`, their lengths in `words` after
   * the tools): those split last time when they are the same, so that a
   * step adds as keys the very strings the last one did.
   */
  #activeNames(text, count, words) {
    const last = this.#lastActive
    if (last !== undefined && last.text === text && last.names.length === count) {
      let same = true
      for (let i = 0; i < count && same; i++) same = last.names[i].length === words[count + i]
      if (same) return last.names
    }
    const names = new Array(count)
    let at = 0
    for (let i = 0; i < count; i++) {
      const end = at + words[count + i]
      names[i] = text.slice(at, end)
      at = end
    }
    this.#lastActive = { text, names }
    return names
  }
}

/**
 * The processor of a host release (see `lib/host.js` and `processors.js`):
 * `ToolSearchProcessor` with the release given to it, its constructor's one
 * parameter the user's options, as the reference's.
 */
function defineToolSearchProcessor(host) {
  keepStepShapes(host.version)
  const Processor = ToolSearchProcessor
  return class ToolSearchProcessor extends Processor {
    constructor(options) {
      super(options, host)
    }
  }
}

/**
 * The binding's step (`NativeStep`) over `catalog` (a `NativeStepCatalog`),
 * for `thread` as `readThread` read it, with the context store's `reading`
 * of the messages (or null), now. Positional across, as the binding's
 * `beginStep` takes it: named, a seventh of a step (see `begin_step` in
 * napi/src/tool_search.rs).
 */
function nativeStep(native, catalog, thread, reading) {
  return native.beginStep(
    thread.contextThread,
    thread.memory,
    thread.memoryThread,
    thread.memoryThreadId,
    thread.memoryResourceId,
    catalog,
    reading?.text,
    reading?.facts,
    reading?.slot,
    reading?.kept,
    Date.now(),
  )
}

/** The loaded tools' record, built as the reference builds it. */
function loadedRecord(active) {
  const loaded = {}
  if (active === null) return loaded
  const { names, tools } = active
  for (let i = 0; i < names.length; i++) loaded[names[i]] = tools[i]
  return loaded
}

/**
 * One object of each class a step makes, kept for the process (why:
 * ARCHITECTURE.md, "How it works", on full collections; guarded by
 * __test__/tool-search.collection.test.mjs). An object's
 * class is reached from its constructor's first one only by the transitions
 * its stores make (and, for the binding's objects, the wrap that ties them
 * to their Rust half), which V8 holds weakly: once a request's last step
 * and operation died, a full collection freed those classes and
 * deoptimized what was compiled for them (toolFor, keyOf, own, standing,
 * resolve, drive, questions; issue 18). These hold them, with a processor of
 * their own over no tools, never a user's.
 */
let keptShapes
function keepStepShapes(version) {
  if (keptShapes !== undefined) return
  const native = new NativeToolSearch(new NativeToolSearchOptions({}, version), toolTable([], [], RECORD_VALUES, { ids: true }))
  // No thread, no reading of the messages.
  const step = nativeStep(native, native.staticCatalog(), readThread(undefined), null)
  keptShapes = [
    stepToolsRecord(null, null, {}),
    stepToolsRecord(null, {}, {}),
    step,
    step.load(SEARCH_TOOLS, undefined, 0),
    new LiveStep(step, {}, () => {}, { keys: [], tools: [], ids: [], record: {} }),
    new SnapshotStep(step, { record: { tools: [] } }, [], () => {}),
  ]
}

module.exports = { defineToolSearchProcessor, toolPoolStats, stepCatalogStats, forgetPooledTool, toolVectorsReady, STEP_CATALOGS_PER_TURN }
