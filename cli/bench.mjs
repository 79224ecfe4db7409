// `bench`'s workloads over the user's own catalog. Each runs Mastra's own
// processor (from the @mastra/core installed beside this package) and ours on
// the same input, refuses to time them if their answers differ, then times
// them side by side (measure.mjs). The user's tools are never executed.

import { createRequire } from 'node:module'

import { agentRequest } from './agent.mjs'
import { assertSameWork, measure } from './measure.mjs'

const require = createRequire(import.meta.url)

/** Up to `count` search queries made from the catalog's own descriptions: a few longer words of each. */
function queriesFrom(tools, count = 12) {
  const entries = Object.entries(tools)
  const step = Math.max(1, Math.floor(entries.length / count))
  const queries = []
  for (let i = 0; i < entries.length && queries.length < count; i += step) {
    const [key, tool] = entries[i]
    const words = String(tool.description ?? key)
      .toLowerCase()
      .match(/[\p{L}\p{N}]{4,}/gu) ?? [key]
    queries.push(words.slice(0, 3).join(' '))
  }
  return queries
}

/** What a step's answer shows the model: each tool's key, id and description, and the system messages added. */
const stepView = (result, system) => ({
  tools: Object.entries(result?.tools ?? {}).map(([key, tool]) => [key, tool?.id, tool?.description]),
  system,
})

function stepArgs(tools, requestContext, system = []) {
  const messageList = { addSystem: (message) => system.push(message), get: { all: { db: () => [] } } }
  return { messages: [], messageList, tools, requestContext, state: {}, stepNumber: 0, steps: [], abort() {} }
}

/**
 * A history of `length` messages in turns that call the catalog's tools, as a
 * prompt, as stored messages and as the messages an `agent.generate` is given
 * (`conversation`; `npm run bench`'s end-to-end rows use it too).
 */
export function historyOf(keys, length) {
  const prompt = []
  const stored = []
  const conversation = []
  for (let turn = 0; prompt.length < length; turn++) {
    const toolName = keys[turn % keys.length]
    const toolCallId = `call_${turn}`
    const question = `Question ${turn}: what does ${toolName} say?`
    const input = { query: `item ${turn}` }
    const value = { ok: true, items: [`result ${turn}`, `result ${turn + 1}`] }
    prompt.push(
      { role: 'user', content: [{ type: 'text', text: question }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-call', toolCallId, toolName, input },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName, output: { type: 'json', value } }] },
      { role: 'assistant', content: [{ type: 'text', text: `Here is what ${toolName} found.` }] },
    )
    conversation.push(
      { role: 'user', content: question },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-call', toolCallId, toolName, input },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName, output: { type: 'json', value } }] },
      { role: 'assistant', content: `Here is what ${toolName} found.` },
    )
    const invocation = { state: 'result', step: 0, toolCallId, toolName, args: input, result: value }
    const at = (i) => ({ id: `m_${turn}_${i}`, createdAt: new Date(Date.UTC(2025, 0, 1) + (turn * 4 + i) * 1000), threadId: 'bench', resourceId: 'bench' })
    stored.push(
      { ...at(0), role: 'user', content: { format: 2, parts: [{ type: 'text', text: question }], content: question } },
      {
        ...at(1),
        role: 'assistant',
        content: {
          format: 2,
          parts: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool-invocation', toolInvocation: invocation },
          ],
          toolInvocations: [{ ...invocation }],
        },
      },
      { ...at(3), role: 'assistant', content: { format: 2, parts: [{ type: 'text', text: `Here is what ${toolName} found.` }] } },
    )
  }
  return { prompt: prompt.slice(0, length), stored, conversation: conversation.slice(0, length) }
}

/**
 * Every workload on this catalog: `{ mastra, implementation, fallbackReason,
 * node, tools, history, queries, rows: [{ workload, mastraMs, oursMs, speedup,
 * samples }] }`; the agent requests' rows also say how long the processors'
 * own work took of a request, their hooks and their meta-tools' executions
 * (`mastraHooksMs`, `oursHooksMs`).
 */
export async function benchCatalog(tools, { history, quick }, progress) {
  const mastra = {
    version: require('@mastra/core/package.json').version,
    ...(await import('@mastra/core/processors')),
    ...(await import('@mastra/core/request-context')),
    ...(await import('@mastra/core/agent')),
  }
  const ours = require('../index.js')
  const keys = Object.keys(tools)
  const queries = queriesFrom(tools)
  const requestContext = new mastra.RequestContext()
  const ctx = { requestContext }
  const rows = []
  const workloads = []
  const row = (workload, run) => workloads.push({ workload, run })

  const searchOf = async (processor) => (await processor.processInputStep(stepArgs({}, requestContext))).tools.search_tools
  const sides = (make) => ({ mastra: make(mastra), ours: make(ours) })

  row('construct', async () =>
    measure(
      sides(
        ({ ToolSearchProcessor }) =>
          () =>
            new ToolSearchProcessor({ tools }),
      ),
      { quick },
    ),
  )
  row('construct + first search', async () => {
    const first =
      ({ ToolSearchProcessor }) =>
      async () =>
        (await searchOf(new ToolSearchProcessor({ tools }))).execute({ query: queries[0] }, ctx)
    assertSameWork('construct + first search', await first(mastra)(), await first(ours)())
    return measure(sides(first), { quick })
  })
  row('search_tools', async () => {
    const search = { mastra: await searchOf(new mastra.ToolSearchProcessor({ tools })), ours: await searchOf(new ours.ToolSearchProcessor({ tools })) }
    for (const query of queries)
      assertSameWork(`search_tools "${query}"`, await search.mastra.execute({ query }, ctx), await search.ours.execute({ query }, ctx))
    return measure(
      {
        mastra: (k) => search.mastra.execute({ query: queries[k % queries.length] }, ctx),
        ours: (k) => search.ours.execute({ query: queries[k % queries.length] }, ctx),
      },
      { quick },
    )
  })
  row('a step with your tools resolved per request (includeResolvedTools)', async () => {
    const processors = sides(({ ToolSearchProcessor }) => new ToolSearchProcessor({ tools: {}, includeResolvedTools: true }))
    const step = (processor) => async () => {
      const result = await processor.processInputStep(stepArgs(tools, requestContext))
      return result.tools.search_tools.execute({ query: queries[0] }, ctx)
    }
    assertSameWork('includeResolvedTools', await step(processors.mastra)(), await step(processors.ours)())
    return measure({ mastra: step(processors.mastra), ours: step(processors.ours) }, { quick })
  })
  row('a step with the catalog in the system prompt (injectCatalog)', async () => {
    const processors = sides(({ ToolSearchProcessor }) => new ToolSearchProcessor({ tools, injectCatalog: true }))
    const step =
      (processor, system = []) =>
      async () =>
        stepView(await processor.processInputStep(stepArgs({}, requestContext, system)), system)
    const [theirs, ourView] = [await step(processors.mastra)(), await step(processors.ours)()]
    assertSameWork('injectCatalog', theirs, ourView)
    if (theirs.system.length === 0) return { skipped: `@mastra/core ${mastra.version} has no injectCatalog (from 1.67.0)` }
    return measure({ mastra: step(processors.mastra), ours: step(processors.ours) }, { quick })
  })
  row(`ToolCallFilter over ${history} messages of history`, async () => {
    const { prompt, stored } = historyOf(keys, history)
    const filters = sides(({ ToolCallFilter }) => new ToolCallFilter())
    const promptStage = typeof filters.mastra.processLLMRequest === 'function'
    const filter = (instance) =>
      promptStage
        ? () => instance.processLLMRequest({ prompt, state: {} })
        : () => instance.processInput({ messages: stored, messageList: { get: { all: { db: () => stored } } }, abort() {} })
    assertSameWork('ToolCallFilter', await filter(filters.mastra)(), await filter(filters.ours)())
    return measure({ mastra: filter(filters.mastra), ours: filter(filters.ours) }, { quick })
  })

  for (const [label, messages] of [
    ['agent.generate: search, load, answer', []],
    [`agent.generate: search, load, answer, after ${history} messages`, historyOf(keys, history).conversation],
  ]) {
    row(label, async () => {
      const requests = sides((processors) => agentRequest({ ...processors, Agent: mastra.Agent }, tools, messages, queries[0], keys[0]))
      assertSameWork(label, await requests.mastra.seen(), await requests.ours.seen())
      const reset = () => {
        requests.mastra.reset()
        requests.ours.reset()
      }
      const timed = await measure({ mastra: () => requests.mastra.run(), ours: () => requests.ours.run() }, { quick, reset })
      return { ...timed, mastraHooksMs: await requests.mastra.hooksPerRequest(), oursHooksMs: await requests.ours.hooksPerRequest() }
    })
  }

  for (const [i, { workload, run }] of workloads.entries()) {
    progress(`bench: ${workload} (${i + 1}/${workloads.length})`)
    rows.push({ workload, ...(await run()) })
  }
  return {
    mastra: mastra.version,
    implementation: ours.implementation,
    fallbackReason: ours.fallbackReason,
    node: process.version,
    tools: keys.length,
    history,
    queries,
    rows,
  }
}
