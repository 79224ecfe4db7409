// A server's mixed load, for `npm run bench`'s throughput rows and
// benches/ab.mjs: many threads in the in-memory store (with a `filter` hook)
// and some in the 'context' store, a 1.59 ToolCallFilter input step before each
// processInputStep, a search_tools every second step and a load_tool every
// fourth, each request on a thread drawn from `threads` (a seeded sequence, so
// both sides of a comparison serve the same requests).

const QUERIES = ['weather forecast', 'send email message', 'github issue', 'database query records', 'invoice payment customer', 'quantum flux']

/** A short stored history (1.59's format 2 messages) with `turns` tool calls. */
function storedHistory(turns) {
  const messages = []
  const base = Date.UTC(2025, 0, 1)
  const message = (role, content) => {
    const i = messages.length
    messages.push({ id: `mixed_m${i}`, createdAt: new Date(base + i * 1000), threadId: 'mixed', resourceId: 'user', role, content })
  }
  for (let t = 0; t < turns; t++) {
    message('user', { format: 2, parts: [{ type: 'text', text: `question ${t}` }], content: `question ${t}` })
    const invocation = { state: 'result', step: 0, toolCallId: `mixed_${t}`, toolName: `tool_${t}`, args: { q: t }, result: { ok: true, t } }
    message('assistant', {
      format: 2,
      parts: [{ type: 'step-start' }, { type: 'text', text: `text ${t}` }, { type: 'tool-invocation', toolInvocation: invocation }],
      content: `text ${t}`,
      toolInvocations: [{ ...invocation }],
    })
    message('assistant', { format: 2, parts: [{ type: 'text', text: `answer ${t}` }], content: `answer ${t}` })
  }
  return messages
}

/**
 * The load on one side: `processors` has the `ToolSearchProcessor` and
 * `ToolCallFilter` classes (Mastra's or ours, for a 1.59 host), `RequestContext`
 * the host's. Gives `request()`, which serves the next request and resolves to
 * what it answered (for comparing the sides), and `served()`.
 */
export function mixedLoad({ processors, RequestContext, tools, threads = 100_000 }) {
  // A synchronous permission hook, as a server's filter on the caller's rights.
  const memory = new processors.ToolSearchProcessor({ tools, search: { topK: 5 }, filter: ({ toolName }) => !toolName.endsWith('7') })
  const context = new processors.ToolSearchProcessor({ tools, storage: 'context', search: { topK: 5 } })
  const filter = new processors.ToolCallFilter({})
  const history = storedHistory(6)
  const messageList = { addSystem() {}, get: { all: { db: () => history }, response: { db: () => [] } } }
  const stepList = { addSystem() {}, get: { all: { db: () => [] } } }
  let n = 0
  let seed = 12345
  return {
    served: () => n,
    async request() {
      const i = n++
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
      const requestContext = new RequestContext([['mastra__threadId', `thread-${seed % threads}`]])
      const processor = i % 3 === 2 ? context : memory
      // Spreads of per-request context, as Mastra's runners build the arguments.
      const base = { tracingContext: {}, requestContext }
      const filtered = await filter.processInput({ ...base, messages: history, messageList, abort() {} })
      const step = await processor.processInputStep({
        ...base,
        messages: [],
        messageList: stepList,
        stepNumber: 0,
        tools: {},
        steps: [],
        state: {},
        systemMessages: [],
        retryCount: 0,
        abort() {},
      })
      const answer = { filtered: filtered.length, tools: Object.keys(step.tools) }
      if (i % 2 === 0) {
        answer.found = await step.tools.search_tools.execute({ query: QUERIES[(i >> 1) % QUERIES.length] }, { requestContext })
        const name = answer.found.results[0]?.name
        if (name !== undefined && i % 4 === 0) answer.loaded = await step.tools.load_tool.execute({ toolName: name }, { requestContext })
      }
      return answer
    },
  }
}
