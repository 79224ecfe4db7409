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

const TOOL_NAMES = ['searchDatabase', 'getWeather', 'sendEmail']

/** A provider prompt of `turns` turns: a question, a call, its result (every third with a model output), an answer. */
function promptOf(prefix, turns) {
  const messages = [{ role: 'system', content: 'You are a helpful assistant.' }]
  for (let t = 0; t < turns; t++) {
    const toolCallId = `${prefix}${t}`
    const toolName = TOOL_NAMES[t % TOOL_NAMES.length]
    const result = { type: 'tool-result', toolCallId, toolName, output: { type: 'json', value: { t } } }
    if (t % 3 === 0) result.providerOptions = { mastra: { modelOutput: { type: 'text', value: `result ${t}` } } }
    messages.push(
      { role: 'user', content: [{ type: 'text', text: `question ${t}` }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'looking' },
          { type: 'tool-call', toolCallId, toolName, input: {} },
        ],
      },
      { role: 'tool', content: [result] },
      { role: 'assistant', content: [{ type: 'text', text: `answer ${t}` }] },
    )
  }
  return messages
}

/** The same history as stored messages (format 2), for 1.59's message-list filter. */
function storedOf(prefix, turns) {
  const messages = []
  for (let t = 0; t < turns; t++) {
    const toolName = TOOL_NAMES[t % TOOL_NAMES.length]
    const invocation = { state: 'result', toolCallId: `${prefix}${t}`, toolName, args: {}, result: { t } }
    const part = { type: 'tool-invocation', toolInvocation: invocation }
    if (t % 3 === 0) part.providerMetadata = { mastra: { modelOutput: `result ${t}` } }
    messages.push(
      { id: `${prefix}u${t}`, role: 'user', content: { format: 2, parts: [{ type: 'text', text: `question ${t}` }] } },
      {
        id: `${prefix}a${t}`,
        role: 'assistant',
        content: { format: 2, parts: [{ type: 'text', text: 'looking' }, part], toolInvocations: [{ ...invocation }] },
      },
    )
  }
  return messages
}

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

/** Rows: a name and, for a side, an async function doing one sample's work. */
const rows = []
for (const [mode, options] of [
  ['exclude all', {}],
  ['preserveModelOutput', { preserveModelOutput: true }],
]) {
  for (const messages of [100, 1000]) {
    const history = promptOf('h', messages / 4)
    const withRun = history.concat(promptOf('r', 1).slice(1, 4))
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
  const history = storedOf('h', 50)
  const run = storedOf('r', 1)
  const all = history.concat(run)
  const list = (messages, response) => ({ get: { all: { db: () => messages }, response: { db: () => response } } })
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
  const history = storedOf('h', 50)
  const run = storedOf('r', 1)
  const all = history.concat(run)
  const list = (messages, response) => ({ get: { all: { db: () => messages }, response: { db: () => response } } })
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
