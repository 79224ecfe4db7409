// Both ToolCallFilter stages in a server's rhythm: requests of two calls
// sharing `state`, until V8 has compiled what runs hot; then the line
// `COLLECTING`, a full garbage collection, more requests, and `DONE`. Run with
// --expose-gc and V8's --trace-deopt --trace-opt (see
// tool-call-filter.collection.test.mjs): what V8 prints between the two lines
// is what the collection cost the compiled code.

import { createRequire } from 'node:module'

import { runRhythm } from './collection.mjs'
import { providerPrompt, storedHistory } from './histories.mjs'

const require = createRequire(import.meta.url)
const { hostRelease } = require('../../lib/host.js')
const { processorsFor } = require('../../lib/processors.js')

const { ToolCallFilter: PromptFilter } = processorsFor(hostRelease('1.71.0', () => require('@mastra/core/tools')))
const { ToolCallFilter: MessageListFilter } = processorsFor(hostRelease('1.59.0', () => require('mastra-core-1.59.0/tools')))

const MODES = [undefined, { exclude: ['searchDatabase'] }, { preserveModelOutput: true }, { filterAfterToolSteps: 2 }]
const TURNS = 25

const history = providerPrompt('h', TURNS)
const withRun = history.concat(providerPrompt('r', TURNS).slice(1, 4))
const stored = storedHistory('h', TURNS)
const storedWithRun = stored.concat(storedHistory('r', TURNS).slice(0, 2))

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
