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

/** A `processInputStep`'s arguments, a spread of per-request context as Mastra's runners build them. */
function stepArguments(base, messages, messageList) {
  return {
    ...base,
    messages,
    messageList,
    stepNumber: 0,
    tools: {},
    steps: [],
    state: {},
    systemMessages: [],
    retryCount: 0,
    abort() {},
  }
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
      const step = await processor.processInputStep(stepArguments(base, [], stepList))
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

const STEP_WORDS = ['weather', 'email', 'calendar', 'invoice', 'github', 'slack', 'database', 'search', 'report', 'translate', 'payment', 'customer']
const STEP_QUERIES = ['weather report', 'send email', 'github issue', 'database records', 'invoice payment', 'calendar meeting', 'quantum flux']

/**
 * `count` tools as a user makes them with `createTool`: an id of two words
 * and a number (`weather-report-17`), the record keyed by the variable a
 * user would name it (`weatherReport17`), a description of 12 words.
 */
export function stepLoadTools(createTool, count) {
  const tools = {}
  const n = STEP_WORDS.length
  for (let i = 0; i < count; i++) {
    const [a, b] = [STEP_WORDS[i % n], STEP_WORDS[(i * 7 + 3) % n]]
    const description = `Looks up ${a} data and sends the ${b} summary to the team for number ${i} today`
    tools[`${a}${b[0].toUpperCase()}${b.slice(1)}${i}`] = createTool({ id: `${a}-${b}-${i}`, description, execute: async () => ({ i }) })
  }
  return tools
}

/** A completed invocation of a meta-tool, as the 'context' store finds it in a stored message. */
function metaToolMessage(id, toolName, args, result) {
  const toolInvocation = { state: 'result', toolCallId: id, toolName, args, result }
  return { id, role: 'assistant', createdAt: new Date(Date.UTC(2025, 0, 1)), content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation }] } }
}

/**
 * Stored histories of the 'context' store's threads: each a few turns, some
 * with a completed `search_tools` (its results count as loaded) and a
 * `load_tool` of one or two of the catalog's tools.
 */
function contextHistories(toolIds, count) {
  const histories = []
  for (let h = 0; h < count; h++) {
    const messages = []
    const turns = 1 + (h % 4)
    for (let t = 0; t < turns; t++) {
      const at = (h * 31 + t * 17) % toolIds.length
      messages.push({
        id: `ctx${h}_${t}_q`,
        role: 'user',
        createdAt: new Date(Date.UTC(2025, 0, 1)),
        content: { format: 2, parts: [{ type: 'text', text: `question ${t}` }] },
      })
      if ((h + t) % 2 === 0) {
        const results = [0, 1, 2].map((k) => ({ name: toolIds[(at + k) % toolIds.length], description: 'found', score: 3 - k }))
        messages.push(metaToolMessage(`ctx${h}_${t}_s`, 'search_tools', { query: 'q' }, { results, message: `Found ${results.length} tools.` }))
      }
      // In the `toolNames` form, which every release counts (1.59 does not
      // count a single `toolName`'s result, which ours adopts from 1.60).
      const loaded = t % 2 === 0 ? [toolIds[at]] : [toolIds[at], toolIds[(at + 5) % toolIds.length]]
      const loadResult = { success: true, loaded, loadedCount: loaded.length, message: `Loaded ${loaded.length} tools.` }
      messages.push(metaToolMessage(`ctx${h}_${t}_l`, 'load_tool', { toolNames: loaded }, loadResult))
    }
    histories.push(messages)
  }
  return histories
}

/**
 * A server's steady load of agent-loop steps on a 1.59 host, as issue 36
 * measured it: two `ToolSearchProcessor`s over the same tools (one in-memory
 * with `ttl: 2000`, one 'context' whose message lists carry completed
 * `search_tools` and `load_tool` results), each step a `processInputStep`
 * with a real `MessageList` on one of them (a seeded choice) for one of
 * `threads` threads; every 5th step's `search_tools` executed, and two steps
 * later its `load_tool` (names from that search, every third time with a
 * name no tool has, `toolName` and `toolNames` in turn); every 10th step a
 * 1.59 `ToolCallFilter.processInput` over a 51-message history (exclude
 * all, an exclude list, preserveModelOutput in turn). Gives `step()`, which
 * serves the next step and resolves to what it answered (for comparing the
 * sides), and `served()`.
 */
export function stepLoad({ processors, RequestContext, MessageList, tools, threads = 100_000 }) {
  const memory = new processors.ToolSearchProcessor({ tools, ttl: 2000 })
  const context = new processors.ToolSearchProcessor({ tools, storage: 'context' })
  const filters = [{}, { exclude: ['tool_0', 'tool_3'] }, { preserveModelOutput: true }].map((options) => new processors.ToolCallFilter(options))
  const toolIds = Object.values(tools).map((tool) => tool.id)
  const histories = contextHistories(toolIds, 64)
  const history = storedHistory(17)
  const filterList = { addSystem() {}, get: { all: { db: () => history }, response: { db: () => [] } } }
  /** The step whose search ran, by its number, until its load_tool runs. */
  const searched = new Map()
  let n = 0
  let seed = 2026
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff)
  return {
    served: () => n,
    async step() {
      const i = n++
      const r = random()
      const requestContext = new RequestContext([['mastra__threadId', `thread-${r % threads}`]])
      const onContext = (r >> 7) % 2 === 1
      const processor = onContext ? context : memory
      const base = { tracingContext: {}, requestContext }
      const answer = {}
      if (i % 10 === 0) {
        const filtered = await filters[(i / 10) % 3].processInput({ ...base, messages: history, messageList: filterList, abort() {} })
        answer.filtered = filtered.length
      }
      const messageList = new MessageList({ threadId: 'steady', resourceId: 'user' })
      const step = await processor.processInputStep(stepArguments(base, onContext ? histories[(r >> 9) % histories.length] : [], messageList))
      answer.tools = Object.keys(step.tools)
      if (i % 5 === 0) {
        const found = await step.tools.search_tools.execute({ query: STEP_QUERIES[(i / 5) % STEP_QUERIES.length] }, { requestContext })
        answer.found = found
        searched.set(i, { step, requestContext, names: found.results.map((result) => result.name) })
      }
      const earlier = i % 5 === 2 ? searched.get(i - 2) : undefined
      if (earlier !== undefined) {
        searched.delete(i - 2)
        const k = (i - 2) / 5
        const names = earlier.names.slice(0, 2)
        if (k % 3 === 2 || names.length === 0) names[0] = `missing-tool-${k}`
        const input = k % 2 === 0 ? { toolName: names[0] } : { toolNames: names }
        answer.loaded = await earlier.step.tools.load_tool.execute(input, { requestContext: earlier.requestContext })
      }
      return answer
    },
  }
}
