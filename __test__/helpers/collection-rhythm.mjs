// Both ToolCallFilter stages in a server's rhythm: requests of two calls
// sharing `state`, until V8 has compiled what runs hot; then the line
// `COLLECTING`, a full garbage collection, more requests, and `DONE`. Run with
// --expose-gc and V8's --trace-deopt --trace-opt (see
// tool-call-filter.collection.test.mjs): what V8 prints between the two lines
// is what the collection cost the compiled code.

import { createRequire } from 'node:module'

import { runRhythm } from './collection.mjs'

const require = createRequire(import.meta.url)
const { hostRelease } = require('../../lib/host.js')
const { processorsFor } = require('../../lib/processors.js')

const { ToolCallFilter: PromptFilter } = processorsFor(hostRelease('1.71.0', () => require('@mastra/core/tools')))
const { ToolCallFilter: MessageListFilter } = processorsFor(hostRelease('1.59.0', () => require('mastra-core-1.59.0/tools')))

const MODES = [undefined, { exclude: ['searchDatabase'] }, { preserveModelOutput: true }, { filterAfterToolSteps: 2 }]
const TOOLS = ['searchDatabase', 'getWeather', 'sendEmail']
const TURNS = 25

/** A provider prompt: turns of a question, a call, its result (every third with a model output) and an answer. */
function prompt(prefix) {
  const messages = [{ role: 'system', content: 'You are a helpful assistant.' }]
  for (let t = 0; t < TURNS; t++) {
    const toolCallId = `${prefix}${t}`
    const toolName = TOOLS[t % TOOLS.length]
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

/** The same history as stored messages (format 2), for the message-list stage. */
function storedMessages(prefix) {
  const messages = []
  for (let t = 0; t < TURNS; t++) {
    const toolName = TOOLS[t % TOOLS.length]
    const invocation = { state: 'result', toolCallId: `${prefix}${t}`, toolName, args: {}, result: { t } }
    const part = { type: 'tool-invocation', toolInvocation: invocation }
    if (t % 3 === 0) part.providerMetadata = { mastra: { modelOutput: `result ${t}` } }
    messages.push(
      { id: `u${t}`, role: 'user', content: { format: 2, parts: [{ type: 'text', text: `question ${t}` }] } },
      {
        id: `a${t}`,
        role: 'assistant',
        content: { format: 2, parts: [{ type: 'text', text: 'looking' }, part], toolInvocations: [{ ...invocation }] },
      },
    )
  }
  return messages
}

const history = prompt('h')
const withRun = history.concat(prompt('r').slice(1, 4))
const stored = storedMessages('h')
const storedWithRun = stored.concat(storedMessages('r').slice(0, 2))

const requests = MODES.flatMap((options) => {
  const promptFilter = new PromptFilter(options)
  const listFilter = new MessageListFilter(options)
  const listArgs = (messages) => ({ messages, messageList: { get: { all: { db: () => messages }, response: { db: () => messages.slice(-2) } } } })
  // Arguments made as Mastra's processor runners make them: a literal with
  // a spread of per-request context (1.71), a spread of a base context then
  // more fields (1.59). Their hidden classes are reached only by transitions,
  // which V8 holds weakly, so they die with the request.
  const context = function requestContext() {
    return { tracingContext: {}, requestContext: {} }
  }
  return [
    async function promptRequest() {
      const state = {}
      await promptFilter.processLLMRequest({ prompt: history, stepNumber: 0, state, ...context() })
      await promptFilter.processLLMRequest({ prompt: withRun, stepNumber: 1, state, ...context() })
    },
    async function messageListRequest() {
      const state = {}
      await listFilter.processInput({ ...context(), ...listArgs(stored) })
      await listFilter.processInputStep({ ...context(), ...listArgs(storedWithRun), state, stepNumber: 0, steps: [] })
    },
  ]
})

const round = async (count) => {
  for (let i = 0; i < count; i++) for (const request of requests) await request()
}

await runRhythm(round, { warm: 3000, settled: 200, between: 40 })
