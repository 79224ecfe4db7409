// What a model reads from ToolSearchProcessor, literally: the system
// messages, the meta-tools' descriptions and JSON schemas, and the search
// messages. Model-facing text is behaviour, byte for byte the reference's
// (the same in every tested release), so tests assert it against these.

export const INSTRUCTION =
  'To discover available tools, call search_tools with a keyword query. ' +
  'To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. ' +
  'Tools must be loaded before they can be used.'
export const INSTRUCTION_AUTOLOAD =
  'To discover available tools, call search_tools with a keyword query. ' +
  'Matching tools are loaded automatically and become available on your next turn — ' +
  'there is no separate load step. After searching, use the tool directly.'

// The headers of the injected catalog (injectCatalog, 1.67.0 on).
export const CATALOG_HEADER =
  'The following tools are available to load. Call load_tool with a toolName or toolNames array ' +
  'to add one or more before using them — no search step is required. ' +
  'search_tools is also available if you need to rediscover tools by keyword.'
export const CATALOG_HEADER_AUTOLOAD =
  'The following tools are available. Call search_tools with a keyword to load one — ' +
  'matching tools are loaded automatically and become available on your next turn.'

export const SEARCH_DESCRIPTION =
  'Search for available tools by keyword. ' +
  "Use this when you need a capability you don't currently have. " +
  'Returns a list of matching tools with their names and descriptions. ' +
  'After finding a useful tool, use load_tool to make it available.'
export const SEARCH_DESCRIPTION_AUTOLOAD =
  'Search for available tools by keyword. ' +
  "Use this when you need a capability you don't currently have. " +
  'Returns a list of matching tools, which are loaded automatically and ' +
  'become available on your next turn — no separate load step is required.'
export const LOAD_DESCRIPTION =
  'Load one or more tools into your context. ' +
  'Call this after finding tools with search_tools. ' +
  'Once loaded, tools will be available for use. ' +
  'Pass a single toolName or an array of toolNames to load multiple tools at once.'

export const FOUND = (n) => `Found ${n} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`
export const NONE = (q) => `No tools found matching "${q}". Try different keywords.`

export const SEARCH_INPUT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Search keywords (e.g., "weather", "github issue", "database query")' },
  },
  required: ['query'],
  additionalProperties: false,
}
export const LOAD_INPUT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    toolName: { description: 'The exact name of a tool to load (from search results)', type: 'string' },
    toolNames: {
      description: 'Array of exact tool names to load in one call (from search results)',
      type: 'array',
      items: { type: 'string' },
    },
  },
  additionalProperties: false,
}
export const SEARCH_OUTPUT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, description: { type: 'string' }, score: { type: 'number' } },
        required: ['name', 'description', 'score'],
        additionalProperties: false,
      },
    },
    message: { type: 'string' },
  },
  required: ['results', 'message'],
  additionalProperties: false,
}
export const LOAD_OUTPUT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    message: { type: 'string' },
    loadedCount: { type: 'number' },
    toolName: { type: 'string' },
    loaded: { type: 'array', items: { type: 'string' } },
    notFound: { type: 'array', items: { type: 'string' } },
    alreadyLoaded: { type: 'array', items: { type: 'string' } },
  },
  required: ['success', 'message'],
  additionalProperties: false,
}
