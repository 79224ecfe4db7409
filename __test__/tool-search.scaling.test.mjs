// ToolSearchProcessor takes time linear in every input's size (issue 29): each
// dimension below is one call at sizes s, 4s and 16s, and 16 times the size
// may take at most 40 times the time (helpers/scaling.mjs). Driven as the
// Agent drives it on 1.71.0: `processInputStep`, then the step's meta-tools.
//
// Where our processor keeps work from one call to the next (a catalog, the
// analyses of resolved tools, what it read of a history), the input is built
// fresh for every run, so the time is that of the work, not of a cache.
//
// Mastra's own processor is not timed here. It grows faster than linear
// where it looks a name up among all tools (`findToolById`,
// `Object.values(tools).find`) once per name: one `load_tool` of n names
// (also `loaded.includes` per name; 3,200 names take it 1.6 s, ours 11 ms),
// `injectCatalog` over n tools (once per key), a search whose n hits the
// `filter` hook refuses (once per hit), a step's n loaded tools (once per
// tool, with or without a hook; each name the catalog lacks, given to
// `load_tool` or loaded in a 'context' history, read for read: 1,600 names
// over 1,600 tools take it 0.5 s). Ours stays linear there too. Two of these
// were not before issue 29's suite found them: `load` (src/tool_search/load_tool.rs)
// checked each name against those loaded so far in a `Vec` (12,800 names
// 220 ms), and each name the catalog lacks was looked for among all tools
// again, as the reference looks; a name is now looked up by its key alone,
// its id through the catalog's tables (docs/differences.md, issue 36).

import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { scalingSuite } from './helpers/scaling.mjs'

const { Ours, makeRequestContext, z } = await toolSearchKit('1.71.0')

// ---- inputs -----------------------------------------------------------------

const WORDS = ['weather', 'email', 'invoice', 'calendar', 'repository', 'database', 'payment', 'report', 'search', 'upload', 'message', 'ticket']
const words = (n, offset = 0) => Array.from({ length: n }, (_, i) => WORDS[(i + offset) % WORDS.length]).join(' ')

let made = 0
/** A tool as the processor reads it; every call makes new objects, so nothing of an earlier run is reused. */
const toolOf = (i, { description = `${words(6, i)} tool ${i}`, inputSchema } = {}) => ({
  id: `tool_${i}_${++made}`,
  description,
  inputSchema,
  execute: async () => ({ ok: i }),
})
/** A record of n tools, keyed by id. */
const catalog = (n, make = toolOf) => Object.fromEntries(Array.from({ length: n }, (_, i) => make(i)).map((t) => [t.id, t]))

const abort = (reason) => {
  throw new Error(`abort: ${reason}`)
}
/** One `processInputStep` as the Agent makes it. */
const step = (processor, { messages = [], tools, requestContext = makeRequestContext({ threadId: 'thread' }), state = {}, stepNumber = 0 } = {}) =>
  processor.processInputStep({
    messages,
    messageList: { addSystem() {}, get: { all: { db: () => messages } } },
    tools,
    requestContext,
    state,
    stepNumber,
    steps: [],
    systemMessages: [],
    retryCount: 0,
    abort,
  })
const execute = (tool, input, requestContext) => tool.execute(input, { requestContext })

/** A processor over n tools, made with these options, and its first step: `{ processor, meta, requestContext }`. */
async function stepped(tools, options = {}, requestContext = makeRequestContext({ threadId: `thread-${++made}` })) {
  const processor = new Ours({ tools, ttl: 0, ...options })
  const result = await step(processor, { requestContext })
  return { processor, meta: result.tools, requestContext }
}

/** A JSON schema with n top-level properties, each named and described with `length` characters. */
const jsonSchema = (n, length = 8) => ({
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `p${i}_${'n'.repeat(Math.max(0, length - 4))}`,
      { type: 'string', description: `${words(Math.ceil(length / 8), i)}` },
    ]),
  ),
})
/** A JSON schema whose one property nests n objects deep. */
const nestedSchema = (n) => {
  let schema = { type: 'string', description: 'leaf value' }
  for (let i = 0; i < n; i++) schema = { type: 'object', properties: { inner: schema }, description: `level ${i}` }
  return { type: 'object', properties: { root: schema } }
}

/** A zod object of n described string parameters. */
const zodSchema = (n) => z.object(Object.fromEntries(Array.from({ length: n }, (_, k) => [`p${k}`, z.string().describe(`value ${k}`)])))

const schemas = new Map()
/** `make(n)`, made once for each size and shared by the tools of every run (only new tools need building). */
const once = (make, n) => {
  const key = `${make.name} ${n}`
  if (!schemas.has(key)) schemas.set(key, make(n))
  return schemas.get(key)
}

/** A history of n messages, each holding a `load_tool` result that names one of these names. */
function loadHistory(n, names) {
  return Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    role: 'assistant',
    createdAt: new Date(0),
    content: {
      format: 2,
      parts: [
        {
          type: 'tool-invocation',
          toolInvocation: {
            state: 'result',
            toolCallId: `c${i}`,
            toolName: 'load_tool',
            args: { toolName: names[i % names.length] },
            result: { success: true, message: 'loaded', toolName: names[i % names.length] },
          },
        },
      ],
    },
  }))
}

const fielded = { search: { ranking: 'fielded' } }

const processors = new Map()
/** One processor over n tools for each size asked: `{ processor, names }`. */
function processorOfSize(n) {
  if (!processors.has(n)) {
    const tools = catalog(n)
    processors.set(n, { processor: new Ours({ tools, ttl: 0 }), names: Object.keys(tools) })
  }
  return processors.get(n)
}
const search = ({ meta, requestContext, query }) => execute(meta.search_tools, { query }, requestContext)

// ---- the dimensions ---------------------------------------------------------

scalingSuite('ToolSearchProcessor scales linearly (1.71.0)', [
  {
    name: 'tools in a catalog: processor, first step and a search over n tools',
    base: 300,
    fresh: true,
    build: (n) => catalog(n),
    call: async (tools) => search({ ...(await stepped(tools)), query: 'weather invoice' }),
  },
  {
    name: 'description length: a catalog of 16 tools whose descriptions are n words',
    base: 250,
    fresh: true,
    build: (n) => catalog(16, (i) => toolOf(i, { description: words(n, i) })),
    call: async (tools) => search({ ...(await stepped(tools)), query: 'weather invoice' }),
  },
  {
    name: 'query length: one search of n words over 200 tools',
    base: 100,
    fresh: true,
    build: async (n) => ({ ...(await stepped(catalog(200))), query: `${words(n)} q${++made}` }),
    call: search,
  },
  {
    name: 'query count: n searches of one step',
    base: 12,
    fresh: true,
    build: async (n) => ({ ...(await stepped(catalog(200))), queries: Array.from({ length: n }, (_, i) => `${words(3, i)} tool ${i}`) }),
    call: async ({ meta, requestContext, queries }) => {
      for (const query of queries) await execute(meta.search_tools, { query }, requestContext)
    },
  },
  {
    name: "parameter count: 16 tools of n parameters, 'fielded' ranking",
    base: 25,
    fresh: true,
    build: (n) => catalog(16, (i) => toolOf(i, { inputSchema: jsonSchema(n) })),
    call: async (tools) => search({ ...(await stepped(tools, fielded)), query: 'weather p3' }),
  },
  {
    name: "parameter length: 16 tools of 4 parameters, names and descriptions n characters long, 'fielded' ranking",
    base: 125,
    fresh: true,
    build: (n) => catalog(16, (i) => toolOf(i, { inputSchema: jsonSchema(4, n) })),
    call: async (tools) => search({ ...(await stepped(tools, fielded)), query: 'weather p3' }),
  },
  {
    name: "input schema nesting: 16 tools whose schema nests n deep, 'fielded' ranking",
    base: 250,
    fresh: true,
    build: (n) => catalog(16, (i) => toolOf(i, { inputSchema: once(nestedSchema, n) })),
    call: async (tools) => search({ ...(await stepped(tools, fielded)), query: 'weather root' }),
  },
  {
    name: 'zod schemas: 16 tools of n zod parameters',
    base: 12,
    fresh: true,
    build: (n) => catalog(16, (i) => toolOf(i, { inputSchema: once(zodSchema, n) })),
    call: async (tools) => search({ ...(await stepped(tools, fielded)), query: 'weather p3' }),
  },
  {
    // From 800 names: ours on main spends n² in Rust (see above), which shows only past a few thousand.
    name: 'load_tool: one call naming n tools of an n-tool catalog',
    base: 800,
    fresh: true,
    build: async (n) => {
      // The processor and its catalog are made once a size; each run is a new step of a new thread.
      const { processor, names } = processorOfSize(n)
      const requestContext = makeRequestContext({ threadId: `thread-${++made}` })
      return { meta: (await step(processor, { requestContext })).tools, requestContext, names }
    },
    call: ({ meta, requestContext, names }) => execute(meta.load_tool, { toolNames: names }, requestContext),
  },
  {
    // Each name's key is read, its id found in the tables; the reference's `Object.values(tools).find` reads
    // every tool's `id` again for each name the catalog lacks: names × tools, 1,600 of each 0.5 s, as ours took
    // before issue 29.
    name: 'load_tool: one call naming n tools missing from an n-tool catalog',
    base: 200,
    fresh: true,
    build: async (n) => {
      const { processor } = processorOfSize(n)
      const requestContext = makeRequestContext({ threadId: `thread-${++made}` })
      const names = Array.from({ length: n }, (_, i) => `missing_${i}`)
      return { meta: (await step(processor, { requestContext })).tools, requestContext, names }
    },
    call: ({ meta, requestContext, names }) => execute(meta.load_tool, { toolNames: names }, requestContext),
  },
  {
    name: 'loaded tools: a step of a thread that loaded n tools, each made active',
    base: 250,
    build: async (n) => {
      const { processor, names } = processorOfSize(n)
      const requestContext = makeRequestContext({ threadId: `thread-${++made}` })
      await execute((await step(processor, { requestContext })).tools.load_tool, { toolNames: names }, requestContext)
      return { processor, requestContext }
    },
    call: ({ processor, requestContext }) => step(processor, { requestContext, stepNumber: 1 }),
  },
  {
    name: "filter hook: a step of a thread that loaded n tools, the hook asked of each ('active')",
    base: 250,
    build: async (n) => {
      const tools = catalog(n)
      const processor = new Ours({ tools, ttl: 0, filter: ({ phase, tool }) => phase !== 'active' || tool.id.length % 2 === 0 })
      const requestContext = makeRequestContext({ threadId: `thread-${++made}` })
      await execute((await step(processor, { requestContext })).tools.load_tool, { toolNames: Object.keys(tools) }, requestContext)
      return { processor, requestContext }
    },
    call: ({ processor, requestContext }) => step(processor, { requestContext, stepNumber: 1 }),
  },
  {
    name: "storage 'context': a step reading n load_tool parts of its history",
    base: 250,
    fresh: true,
    build: (n) => {
      const tools = catalog(64)
      return { processor: new Ours({ tools, ttl: 0, storage: 'context' }), messages: loadHistory(n, Object.keys(tools)) }
    },
    call: ({ processor, messages }) => step(processor, { messages, requestContext: makeRequestContext({ threadId: `thread-${++made}` }) }),
  },
  {
    name: "storage 'context': a step whose history loaded each of n tools of an n-tool catalog",
    base: 250,
    fresh: true,
    build: (n) => {
      const tools = catalog(n)
      return { processor: new Ours({ tools, ttl: 0, storage: 'context' }), messages: loadHistory(n, Object.keys(tools)) }
    },
    call: ({ processor, messages }) => step(processor, { messages, requestContext: makeRequestContext({ threadId: `thread-${++made}` }) }),
  },
  {
    // Each name's key is read, its id found in the tables; the reference looks each name the catalog lacks up
    // among all tools again (names × tools; 1,000 of each 0.1-0.2 s a step, as ours took before issue 29).
    name: "storage 'context': a step whose history loaded n names an n-tool catalog lacks",
    base: 250,
    fresh: true,
    build: (n) => {
      const tools = catalog(n)
      const missing = Array.from({ length: n }, (_, i) => `missing_${i}`)
      return { processor: new Ours({ tools, ttl: 0, storage: 'context' }), messages: loadHistory(n, missing) }
    },
    call: ({ processor, messages }) => step(processor, { messages, requestContext: makeRequestContext({ threadId: `thread-${++made}` }) }),
  },
  {
    name: "storage 'in-memory': n threads each loading a tool, then a step in each",
    base: 8,
    fresh: true,
    build: async (n) => {
      const tools = catalog(32)
      return {
        ...(await stepped(tools)),
        names: Object.keys(tools),
        threads: Array.from({ length: n }, (_, i) => makeRequestContext({ threadId: `t${i}-${++made}` })),
      }
    },
    call: async ({ processor, meta, names, threads }) => {
      for (const [i, requestContext] of threads.entries()) {
        await execute(meta.load_tool, { toolName: names[i % names.length] }, requestContext)
        await step(processor, { requestContext, stepNumber: 1 })
      }
    },
  },
  {
    name: 'includeResolvedTools: a step whose agent resolved n tools, and a search of them',
    base: 125,
    fresh: true,
    build: (n) => ({ processor: new Ours({ tools: {}, ttl: 0, includeResolvedTools: true }), tools: catalog(n) }),
    call: async ({ processor, tools }) => {
      const requestContext = makeRequestContext({ threadId: `thread-${++made}` })
      const result = await step(processor, { tools, requestContext })
      return execute(result.tools.search_tools, { query: 'weather invoice' }, requestContext)
    },
  },
  {
    name: 'includeResolvedTools: n steps, each resolving another 64 of a pool of tools',
    base: 4,
    fresh: true,
    build: (n) => {
      const pool = Object.values(catalog(256))
      const selections = Array.from({ length: n }, (_, i) => Object.fromEntries(pool.slice((i * 37) % 192, ((i * 37) % 192) + 64).map((t) => [t.id, t])))
      return { processor: new Ours({ tools: {}, ttl: 0, includeResolvedTools: true }), selections }
    },
    call: async ({ processor, selections }) => {
      const requestContext = makeRequestContext({ threadId: `thread-${++made}` })
      for (const [stepNumber, tools] of selections.entries()) {
        const result = await step(processor, { tools, requestContext, stepNumber })
        await execute(result.tools.search_tools, { query: 'weather invoice' }, requestContext)
      }
    },
  },
  {
    name: 'injectCatalog: the first step of a processor over n tools',
    base: 150,
    fresh: true,
    build: (n) => catalog(n),
    call: (tools) => step(new Ours({ tools, ttl: 0, injectCatalog: true })),
  },
  {
    name: 'filter hook: a search whose n hits the hook refuses, asked of each',
    base: 250,
    fresh: true,
    build: async (n) => ({
      ...(await stepped(
        catalog(n, (i) => toolOf(i, { description: `weather tool ${i}` })),
        { filter: ({ phase }) => phase !== 'search' },
      )),
      query: 'weather',
    }),
    call: search,
  },
  {
    name: 'filter hook: injectCatalog asking of each of n tools',
    base: 125,
    fresh: true,
    build: (n) => catalog(n),
    call: (tools) => step(new Ours({ tools, ttl: 0, injectCatalog: true, filter: ({ tool }) => tool.id.length % 2 === 0 })),
  },
])
