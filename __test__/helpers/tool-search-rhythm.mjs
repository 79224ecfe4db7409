// ToolSearchProcessor in a server's rhythm: requests of an agent step
// (`processInputStep`), a `search_tools` call, a `load_tool` call and the
// next step, with arguments built as Mastra's runner builds them (spreads of
// per-request context), until V8 has compiled what runs hot; then the line
// `COLLECTING`, full garbage collections between requests, and `DONE`. Run
// with --expose-gc --trace-deopt --trace-opt (see
// tool-search.collection.test.mjs).

import { createRequire } from 'node:module'

import { runRhythm } from './collection.mjs'

const require = createRequire(import.meta.url)
const { hostRelease } = require('../../lib/host.js')
const { processorsFor } = require('../../lib/processors.js')
const { createTool } = require('@mastra/core/tools')
const { RequestContext } = require('@mastra/core/request-context')

const { ToolSearchProcessor } = processorsFor(hostRelease('1.71.0', () => require('@mastra/core/tools')))

const WORDS = ['weather', 'email', 'calendar', 'invoice', 'github', 'slack', 'database', 'search', 'report', 'translate']
const tools = {}
for (let i = 0; i < 200; i++) {
  const id = `${WORDS[i % WORDS.length]}_${i}`
  tools[id] = createTool({
    id,
    description: `Does ${WORDS[i % WORDS.length]} work number ${i} for the ${WORDS[(i * 7) % WORDS.length]} team`,
    execute: async () => ({ i }),
  })
}

const processors = [
  new ToolSearchProcessor({ tools, search: { topK: 5 } }),
  new ToolSearchProcessor({ tools, search: { topK: 5 }, filter: ({ toolName }) => !toolName.endsWith('7') }),
  new ToolSearchProcessor({ tools, search: { topK: 5, ranking: 'fielded' } }),
  new ToolSearchProcessor({ tools, search: { topK: 5 }, storage: 'context', includeResolvedTools: true }),
]
/** The step's own tools, which an `includeResolvedTools` processor searches too. */
const stepTools = {}
for (let i = 0; i < 20; i++) {
  stepTools[`step_${i}`] = createTool({ id: `step_${i}`, description: `A ${WORDS[i % WORDS.length]} tool of this step`, execute: async () => ({ i }) })
}

/** Per-request context, spread into the arguments as Mastra's runner does. */
function baseContext(requestContext) {
  return { requestContext, tracingContext: {}, abortSignal: undefined }
}
const messageList = { addSystem() {}, get: { all: { db: () => [] } } }

async function request(processor, n) {
  const requestContext = new RequestContext([['mastra__threadId', `thread-${n % 4}`]])
  const step = (stepNumber) =>
    processor.processInputStep({
      ...baseContext(requestContext),
      messages: [],
      messageList,
      stepNumber,
      tools: stepTools,
      steps: [],
      state: {},
      systemMessages: [],
      retryCount: 0,
    })
  const first = await step(0)
  const found = await first.tools.search_tools.execute({ query: `${WORDS[n % WORDS.length]} report` }, { requestContext })
  const name = found.results?.[0]?.name
  if (name) await first.tools.load_tool.execute({ toolName: name }, { requestContext })
  await step(1)
  processor.clearState(`thread-${n % 4}`)
}

const round = async (count) => {
  for (let i = 0; i < count; i++) for (const processor of processors) await request(processor, i)
}

await runRhythm(round, { warm: 1500, settled: 100, between: 20 })
