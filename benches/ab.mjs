// A/B of two builds of this package in one process: this checkout against
// another (a worktree of main, say), each with its own lib/ and addon, on the
// hot rows a change to lib/ or the binding is most likely to move. The two
// alternate sample by sample, so machine noise lands on both; the medians and
// their ratio are printed. For a change's own cost, not for the README (that
// is `npm run bench`, against Mastra's processors).
//
//   node --expose-gc benches/ab.mjs <other checkout> [--samples N] [--only <text>]
//
// The other checkout needs its addon built (or copied) beside its binding.js.

import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { TOOL_NAMES, providerPrompt, storedHistory } from '../__test__/helpers/histories.mjs'
import { mixedLoad, stepLoad, stepLoadTools } from './mixed-load.mjs'

const require = createRequire(import.meta.url)
const here = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const USAGE = 'usage: node --expose-gc benches/ab.mjs <other checkout> [--samples N] [--only <text>]'
const args = process.argv.slice(2)
let other
let samples = 400
let only = ''
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--samples') samples = Number(args[++i])
  else if (args[i] === '--only') only = args[++i] ?? ''
  else if (args[i] === '-h' || args[i] === '--help') {
    console.log(USAGE)
    process.exit(0)
  } else if (other === undefined) other = resolve(args[i])
  else {
    console.error(`ab: unexpected argument ${args[i]}\n${USAGE}`)
    process.exit(2)
  }
}
if (other === undefined || !Number.isInteger(samples) || samples < 1) {
  console.error(USAGE)
  process.exit(2)
}
if (!existsSync(join(other, 'binding.js'))) {
  console.error(`ab: ${other} has no binding.js: build or copy its addon first`)
  process.exit(2)
}
if (typeof globalThis.gc !== 'function') {
  console.error('ab: run with node --expose-gc')
  process.exit(2)
}

const { RequestContext } = require('@mastra/core/request-context')
const { RequestContext: RequestContext159 } = require('mastra-core-1.59.0/request-context')
const { MessageList: MessageList159 } = require('mastra-core-1.59.0/agent')
const { createTool } = require('@mastra/core/tools')

/** The processors of a checkout, for the releases the rows use. */
function processorsOf(root) {
  const { hostRelease } = require(join(root, 'lib', 'host.js'))
  const { processorsFor } = require(join(root, 'lib', 'processors.js'))
  return {
    latest: processorsFor(hostRelease('1.71.0', () => require('@mastra/core/tools'))),
    v159: processorsFor(hostRelease('1.59.0', () => require('mastra-core-1.59.0/tools'))),
  }
}
const sides = [
  { name: 'this', ...processorsOf(here) },
  { name: 'other', ...processorsOf(other) },
]

const WORDS = ['weather', 'email', 'calendar', 'invoice', 'github', 'slack', 'database', 'search', 'report', 'translate']
function toolsOf(count) {
  const tools = {}
  for (let i = 0; i < count; i++) {
    const id = `${WORDS[i % WORDS.length]}_${i}`
    tools[id] = createTool({
      id,
      description: `Does ${WORDS[i % WORDS.length]} work number ${i} for the ${WORDS[(i * 7) % WORDS.length]} team`,
      execute: async () => ({ i }),
    })
  }
  return tools
}

// Arguments as Mastra's runners make them: spreads of per-request context.
const observability = () => ({ tracingContext: {}, observabilityContext: {} })

/** 1.59's request: a stored history of 100 messages, and the run's own call and result. */
const storedRequest = (() => {
  const history = storedHistory('h', 50)
  const run = storedHistory('r', 1)
  return { history, run, all: history.concat(run) }
})()
/** A message list whose `get.all.db()` is `messages` and `get.response.db()` is `response`. */
const list = (messages, response) => ({ get: { all: { db: () => messages }, response: { db: () => response } } })

/** Rows: a name and, for a side, an async function doing one sample's work. */
const rows = []
// The four modes of the prompt filter's bench rows, and preserveModelOutput
// with an exclude list or kept steps, where the results' providerOptions are
// read only of those the native side asks for (issue 29).
for (const [mode, options] of [
  ['exclude all', {}],
  ['exclude list', { exclude: [TOOL_NAMES[0], TOOL_NAMES[2]] }],
  ['preserveModelOutput', { preserveModelOutput: true }],
  ['filterAfterToolSteps', { filterAfterToolSteps: 2 }],
  ['exclude list + preserveModelOutput', { exclude: [TOOL_NAMES[0], TOOL_NAMES[2]], preserveModelOutput: true }],
  ['filterAfterToolSteps + preserveModelOutput', { filterAfterToolSteps: 2, preserveModelOutput: true }],
]) {
  for (const messages of [100, 1000]) {
    const history = providerPrompt('h', messages / 4)
    const withRun = history.concat(providerPrompt('r', 1).slice(1, 4))
    rows.push({
      name: `prompt ToolCallFilter ${mode}, request, ${messages} messages`,
      make: (side) => {
        const filter = new side.latest.ToolCallFilter(options)
        return async () => {
          const state = {}
          await filter.processLLMRequest({ prompt: history, state, stepNumber: 0, ...observability() })
          await filter.processLLMRequest({ prompt: withRun, state, stepNumber: 1, ...observability() })
        }
      },
    })
  }
}
for (const [mode, options] of [
  ['exclude all', {}],
  ['preserveModelOutput', { preserveModelOutput: true }],
]) {
  const { history, run, all } = storedRequest
  rows.push({
    name: `1.59 ToolCallFilter ${mode}, request, 100 messages`,
    make: (side) => {
      const filter = new side.v159.ToolCallFilter(options)
      return async () => {
        await filter.processInput({ ...observability(), messages: history, messageList: list(history, []), abort() {} })
        await filter.processInputStep({ ...observability(), messages: all, messageList: list(all, run), state: {}, stepNumber: 0, steps: [], abort() {} })
      }
    },
  })
}
// An agent-loop step of 1.59's filter, where the kept step's ids and an
// exclude list decide what of each part is read.
for (const [mode, options] of [
  ['step, exclude all', { filterAfterToolSteps: 1 }],
  ['step, exclude one + preserveModelOutput', { exclude: [TOOL_NAMES[0]], preserveModelOutput: true, filterAfterToolSteps: 1 }],
]) {
  const { all, run } = storedRequest
  rows.push({
    name: `1.59 ToolCallFilter ${mode}, 100 messages`,
    make: (side) => {
      const filter = new side.v159.ToolCallFilter(options)
      return async () => {
        await filter.processInputStep({ ...observability(), messages: all, messageList: list(all, run), state: {}, stepNumber: 0, steps: [], abort() {} })
      }
    },
  })
}
for (const count of [100, 1000]) {
  const tools = toolsOf(count)
  const messageList = { addSystem() {}, get: { all: { db: () => [] } } }
  rows.push({
    name: `ToolSearchProcessor step + search_tools + load_tool, ${count} tools`,
    make: (side) => {
      const processor = new side.latest.ToolSearchProcessor({ tools, search: { topK: 5 } })
      let n = 0
      return async () => {
        const requestContext = new RequestContext([['mastra__threadId', `thread-${n % 4}`]])
        const step = await processor.processInputStep({
          requestContext,
          tracingContext: {},
          messages: [],
          messageList,
          stepNumber: 0,
          tools: {},
          steps: [],
          state: {},
          systemMessages: [],
          retryCount: 0,
        })
        const found = await step.tools.search_tools.execute({ query: `${WORDS[n % WORDS.length]} report` }, { requestContext })
        const name = found.results[0]?.name
        if (name) await step.tools.load_tool.execute({ toolName: name }, { requestContext })
        processor.clearState(`thread-${n++ % 4}`)
      }
    },
  })
}

// search_tools with a synchronous filter hook, on a step made once.
const QUERIES = ['weather report', 'email team', 'github work', 'database number 7', 'invoice calendar', 'quantum flux']
for (const count of [100, 1000, 10_000]) {
  const tools = toolsOf(count)
  rows.push({
    name: `search_tools + filter hook, ${count} tools, 6 queries`,
    make: (side) => {
      const processor = new side.latest.ToolSearchProcessor({ tools, filter: ({ toolName }) => !toolName.endsWith('7') })
      const requestContext = new RequestContext([['mastra__threadId', 'ab']])
      const messageList = { addSystem() {}, get: { all: { db: () => [] } } }
      let search
      return async () => {
        search ??= (await processor.processInputStep({ requestContext, messages: [], messageList, stepNumber: 0, tools: {}, steps: [], state: {}, abort() {} }))
          .tools.search_tools
        for (const query of QUERIES) await search.execute({ query }, { requestContext })
      }
    },
  })
}
// A server's mixed load on a 1.59 host (benches/mixed-load.mjs), 100,000 threads.
rows.push({
  name: 'mixed server load (1.59), 20 requests',
  make: (side) => {
    const load = mixedLoad({ processors: side.v159, RequestContext: RequestContext159, tools: toolsOf(100) })
    return async () => {
      for (let i = 0; i < 20; i++) await load.request()
    }
  },
})

// A server's steady agent-loop steps on a 1.59 host (benches/mixed-load.mjs
// `stepLoad`, issue 36): two processors over 1,000 tools, 100,000 threads.
rows.push({
  name: 'steady server steps (1.59), 1,000 tools, 50 steps',
  make: (side) => {
    const load = stepLoad({ processors: side.v159, RequestContext: RequestContext159, MessageList: MessageList159, tools: stepLoadTools(createTool, 1000) })
    return async () => {
      for (let i = 0; i < 50; i++) await load.step()
    }
  },
})

const median = (values) => values.sort((a, b) => a - b)[values.length >> 1]
const format = (ms) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`)

console.log(`A/B: this checkout (${here}) against ${other}, ${samples} samples a row, alternating\n`)
console.log(`${'row'.padEnd(70)}  ${'this'.padStart(10)}  ${'other'.padStart(10)}  this/other`)
for (const row of rows.filter((row) => row.name.includes(only))) {
  const runs = sides.map((side) => row.make(side))
  // Warm both until V8 has compiled what runs hot.
  for (let i = 0; i < 300; i++) for (const run of runs) await run()
  const times = [[], []]
  for (let i = 0; i < samples; i++) {
    // ab, ba, ab, ...: neither side always runs first.
    const order = i % 2 === 0 ? [0, 1] : [1, 0]
    for (const k of order) {
      const start = performance.now()
      await runs[k]()
      times[k].push(performance.now() - start)
    }
  }
  const [ours, theirs] = times.map(median)
  console.log(`${row.name.padEnd(70)}  ${format(ours).padStart(10)}  ${format(theirs).padStart(10)}  ${(ours / theirs).toFixed(3)}`)
}
