'use strict'
// The meta-tools a ToolSearchProcessor's step hands out (`search_tools` and
// `load_tool`): their schemas, made once per zod and query description with
// the host's own zod (`metaToolSchemas`), and the tools record a step hands
// out, the meta-tools first (`stepToolsRecord`). May import: this folder's
// common.js.

const { PROTOCOL, SEARCH_TOOLS, LOAD_TOOL } = require('./common.js')

const SCHEMAS = PROTOCOL.schemas

/** The meta-tools' schemas by the zod that made them (the host's own, see `lib/host.js`). */
const schemasByZod = new WeakMap()
/** The meta-tools' schemas made with `z`, `search_tools`' input by the description of its query (one per `search.syntax`). */
function metaToolSchemas(z, queryDescription) {
  let made = schemasByZod.get(z)
  if (made === undefined) schemasByZod.set(z, (made = { schemas: makeMetaToolSchemas(z), byQueryDescription: new Map() }))
  // Made whole once: a spread per step would give the result a class only
  // weak transitions reach, which a full collection frees (issue 18).
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
  // No object made for the spread alone: its class would die with it (see `keepStepShapes`).
  return loadTool ? { [SEARCH_TOOLS]: searchTool, [LOAD_TOOL]: loadTool, ...visibleTools } : { [SEARCH_TOOLS]: searchTool, ...visibleTools }
}

module.exports = { metaToolSchemas, stepToolsRecord }
