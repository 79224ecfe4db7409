// A loop of includeResolvedTools steps, each with a search, that awaits each
// step and never yields a turn of the event loop: prints the resident memory
// after a warm-up of 60 steps and after the 150th, as JSON `{ early, late }`.
// A full collection every ten steps keeps V8's own heap from growing between
// collections, so what grows is what the processor holds. Mode `selection`: each step another
// selection of one pool of tools; `hooked`: the same through a filter hook,
// with the catalog injected; `new-tools`: each step tools never seen before.
// Run with --expose-gc (see tool-search.retention.test.mjs).

import { ToolSearchProcessor } from '../../index.mjs'
import { createTool } from '@mastra/core/tools'
import { RequestContext } from '@mastra/core/request-context'

import { mulberry32 } from './random.mjs'

const mode = process.argv[2]
const rand = mulberry32(5)
const WORDS = ['weather', 'forecast', 'email', 'send', 'issue', 'github', 'calendar', 'invoice', 'query', 'records', 'user', 'file']
const sentence = () => Array.from({ length: 12 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ')
const tools = (prefix, count) =>
  Array.from({ length: count }, (_, i) => {
    const id = `${prefix}_${i}_${WORDS[i % WORDS.length]}`
    return [id, createTool({ id, description: sentence(), execute: async () => ({ i }) })]
  })

const pool = tools('pool', 3000)
const stepTools = (step) => (mode === 'new-tools' ? Object.fromEntries(tools(`s${step}`, 2000)) : Object.fromEntries(pool.filter(() => rand() < 0.9)))

const hooked = mode === 'hooked' ? { filter: ({ toolName }) => !toolName.endsWith('_7_invoice'), injectCatalog: true } : {}
const processor = new ToolSearchProcessor({ tools: {}, includeResolvedTools: true, ...hooked })
const requestContext = new RequestContext()
requestContext.set('mastra__threadId', 'loop')
const messageList = { addSystem() {}, get: { all: { db: () => [] } } }

let early
for (let step = 1; step <= 150; step++) {
  const args = { messages: [], messageList, tools: stepTools(step), requestContext, state: {}, stepNumber: step, steps: [], abort() {} }
  const { tools: handed } = await processor.processInputStep(args)
  await handed.search_tools.execute({ query: 'weather email' }, { requestContext })
  if (step % 10 === 0) globalThis.gc()
  if (step === 60) early = process.memoryUsage().rss
}
process.stdout.write(JSON.stringify({ early, late: process.memoryUsage().rss }))
