'use strict'
// The meta-tools a ToolSearchProcessor's step hands out, `search_tools` and
// `load_tool` (`MetaTools`): their schemas, made once per zod and query
// description with the host's own zod (`metaToolSchemas`); their `execute`,
// which runs the step's search or load in Rust and drives it as the
// reference awaits; and the tools record a step hands out, the meta-tools
// first (`stepToolsRecord`). May import: native.js, and this folder's
// common.js, record.js and operation.js.

const { NativeOperation } = require('../native.js')
const { PROTOCOL, SEARCH_TOOLS, LOAD_TOOL } = require('./common.js')
const { holds } = require('./record.js')
const { takeWords, giveBackWords, searchAnswer } = require('./operation.js')

const SCHEMAS = PROTOCOL.schemas

// The filter hook's `phase` of each operation, as the protocol declares them
// (src/protocol/tool_search.rs, `PHASES`): search_tools and the injected
// catalog ask in the first, load_tool in the second, the loaded tools in the
// third. Given to the driver, so that no search or load asks its operation
// for its phase (a Node-API call, about a thirtieth of a filtered search).
const [SEARCH_PHASE, LOAD_PHASE] = PROTOCOL.phases

/**
 * A processor's meta-tools, made for each step with the host's `createTool`
 * (`host`, see `lib/host.js`), over what the processor decided once:
 * `settings` (Rust's, see `NativeToolSearch.settings`), `embedder` (a
 * `UserEmbedder`, or undefined), `catalogs` (its `StepCatalogs`) and
 * `driver` (its `Driver`).
 */
class MetaTools {
  constructor(host, { settings, embedder, catalogs, driver }) {
    this.host = host
    this.settings = settings
    this.embedder = embedder
    this.catalogs = catalogs
    this.driver = driver
  }

  /** The schemas a step's meta-tools are made with (see `metaToolSchemas`). */
  schemas() {
    return metaToolSchemas(this.host.zod(), this.settings.searchQueryDescription)
  }

  /** `search_tools` for `step` (a `StepTools` of pool.js), whose filter hook calls are handed `requestContext`. */
  searchTool(step, requestContext, { searchInput, searchOutput }) {
    const { createTool } = this.host
    return createTool({
      id: SEARCH_TOOLS,
      description: this.settings.searchDescription,
      inputSchema: searchInput,
      outputSchema: searchOutput,
      execute: searchExecute(this, step, requestContext),
    })
  }

  /** `load_tool` for `step`, as `searchTool`. */
  loadTool(step, requestContext, { loadInput, loadOutput }) {
    const { createTool } = this.host
    return createTool({
      id: LOAD_TOOL,
      description: SCHEMAS.loadDescription,
      inputSchema: loadInput,
      outputSchema: loadOutput,
      execute: loadExecute(this, step, requestContext),
    })
  }
}

/** `search_tools`' execute in a step (see `MetaTools.searchTool`). */
function searchExecute(metaTools, step, requestContext) {
  const { settings, catalogs, driver } = metaTools
  return async ({ query }) => {
    const embedder = metaTools.embedder
    // Only a string is a question; Rust refuses anything else.
    const queryVector = embedder === undefined || typeof query !== 'string' ? undefined : await embedder.queryVector(query)
    const now = Date.now()
    catalogs.built(step.catalog)
    // Rust asks as it goes, or trusts its tables and says what to
    // check in the caller's record; should a check fail, it asks.
    // Whether it must ask as it goes, and awaits as the reference, Rust
    // said once for the processor (its settings): no call asks again.
    let operation
    if (settings.searchAsksAsItGoes) operation = step.native.searchOperation(query, now, queryVector)
    else {
      const words = takeWords()
      try {
        const output = step.native.search(query, now, words.words, queryVector)
        if (output instanceof NativeOperation) operation = output
        else if (holds(step, words.words, 0, undefined)) return searchAnswer(output, words)
        else operation = step.native.searchOperation(query, now, queryVector)
      } finally {
        giveBackWords(words)
      }
    }
    const awaits = settings.searchAwaitsAsReference
    if (awaits && settings.filterConcurrency === 1) {
      // Awaited here, where the reference's execute awaits.
      const asked = driver.awaitedQuestions({ operation, step, requestContext, awaits, phase: SEARCH_PHASE })
      for (let next = asked.next(); !next.done; next = asked.next(await next.value));
    } else {
      operation = await driver.run({ operation, step, requestContext, awaits, phase: SEARCH_PHASE })
    }
    const out = takeWords()
    try {
      return searchAnswer(operation.searchOutput(out.words), out)
    } finally {
      giveBackWords(out)
    }
  }
}

/** `load_tool`'s execute in a step (see `MetaTools.loadTool`). */
function loadExecute(metaTools, step, requestContext) {
  const { settings, catalogs, driver } = metaTools
  return async ({ toolName, toolNames }) => {
    catalogs.built(step.catalog)
    const operation = step.native.load(toolName, toolNames, Date.now())
    const awaits = operation.awaitsAsReference
    if (settings.filterConcurrency !== 1) return (await driver.run({ operation, step, requestContext, awaits, phase: LOAD_PHASE })).loadOutput()
    // Awaited here, where the reference's execute awaits (it awaits as the reference).
    const asked = driver.awaitedQuestions({ operation, step, requestContext, awaits, phase: LOAD_PHASE })
    for (let next = asked.next(); !next.done; next = asked.next(await next.value));
    return operation.loadOutput()
  }
}

/** The meta-tools' schemas by the zod that made them (the host's own, see `lib/host.js`). */
const schemasByZod = new WeakMap()
/** The meta-tools' schemas made with `z`, `search_tools`' input by the description of its query (one per `search.syntax`). */
function metaToolSchemas(z, queryDescription) {
  let made = schemasByZod.get(z)
  if (made === undefined) schemasByZod.set(z, (made = { schemas: makeMetaToolSchemas(z), byQueryDescription: new Map() }))
  // Made whole once: a spread per step would give the result a class only
  // weak transitions reach, which a full collection frees (issue 18; guarded
  // by __test__/tool-search.collection.test.mjs).
  let schemas = made.byQueryDescription.get(queryDescription)
  if (schemas === undefined) {
    const { searchOutput, loadInput, loadOutput } = made.schemas
    const searchInput = z.object({ query: z.string().describe(queryDescription) })
    schemas = { searchInput, searchOutput, loadInput, loadOutput }
    made.byQueryDescription.set(queryDescription, schemas)
  }
  return schemas
}

function makeMetaToolSchemas(z) {
  return {
    searchOutput: z.object({
      results: z.array(z.object({ name: z.string(), description: z.string(), score: z.number() })),
      message: z.string(),
    }),
    loadInput: z.object({
      toolName: z.string().optional().describe(SCHEMAS.loadToolNameDescription),
      toolNames: z.array(z.string()).optional().describe(SCHEMAS.loadToolNamesDescription),
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
}

/** The tools a step hands out: the meta-tools, then the step's visible tools (the loaded ones are added after). */
function stepToolsRecord(searchTool, loadTool, visibleTools) {
  // No object made for the spread alone: its class would die with it (see `keepStepShapes`;
  // guarded by __test__/tool-search.collection.test.mjs).
  return loadTool ? { [SEARCH_TOOLS]: searchTool, [LOAD_TOOL]: loadTool, ...visibleTools } : { [SEARCH_TOOLS]: searchTool, ...visibleTools }
}

module.exports = { MetaTools, stepToolsRecord }
