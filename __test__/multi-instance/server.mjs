// One server of the multi-instance test: its own Agent, ToolSearchProcessor and
// Mastra memory on the shared database, in its own Node process. The test
// sends it requests over IPC; nothing else is shared with the other servers.
//
//   node server.mjs <name> <storage: context|in-memory> <database url>
//
// Messages in: { id, kind: 'load' | 'use', thread }. 'load' has the model search
// for the weather tool and load it; 'use' has it call getWeather if it is
// offered, else answer without it. Messages out: { ready: name } once, then
// { id, calls: [tool names offered per model call], toolResults, text }.

import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { LibSQLStore } from '@mastra/libsql'
import { Memory } from '@mastra/memory'
import { MockLanguageModelV2 } from 'ai/test'
import { z } from 'zod'

import { ToolSearchProcessor, implementation } from '../../index.mjs'

const [name, storage, url] = process.argv.slice(2)

const tools = {
  getWeather: createTool({
    id: 'getWeather',
    description: 'Get the current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, tempC: 18, server: name }),
  }),
  sendEmail: createTool({
    id: 'sendEmail',
    description: 'Send an email to a customer',
    inputSchema: z.object({ to: z.string(), body: z.string() }),
    execute: async () => ({ sent: true, server: name }),
  }),
}

const call = (toolCallId, toolName, input) => ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) })
const text = (t) => ({ type: 'text', text: t })

/** The model's answer on each call of a request, given the tools it is offered. */
const SCRIPTS = {
  load: [
    () => [call('load-1', 'search_tools', { query: 'weather' })],
    () => [call('load-2', 'load_tool', { toolName: 'getWeather' })],
    () => [text('getWeather is loaded.')],
  ],
  use: [
    (offered) => (offered.includes('getWeather') ? [call('use-1', 'getWeather', { city: 'Paris' })] : [text('I have no weather tool.')]),
    () => [text('It is 18C in Paris.')],
  ],
}

let script = []
let calls = []
const model = new MockLanguageModelV2({
  doGenerate: async ({ tools: offered }) => {
    const names = (offered ?? []).map((tool) => tool.name)
    const content = script[calls.length](names)
    calls.push(names)
    const finishReason = content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop'
    return { content, finishReason, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] }
  },
})

const store = new LibSQLStore({ id: `multi-instance-${name}`, url })
await store.init()
const agent = new Agent({
  id: 'weather-agent',
  name: 'weather-agent',
  instructions: 'Find tools with search_tools, load them with load_tool, then use them.',
  model,
  memory: new Memory({ storage: store, options: { lastMessages: 50, semanticRecall: false } }),
  inputProcessors: [new ToolSearchProcessor({ tools, storage })],
})

process.on('message', async ({ id, kind, thread }) => {
  script = SCRIPTS[kind]
  calls = []
  try {
    const result = await agent.generate(kind === 'load' ? 'Find a weather tool.' : 'What is the weather in Paris?', {
      maxSteps: 5,
      memory: { thread, resource: 'user-1' },
    })
    process.send({ id, calls, toolResults: result.toolResults.map(({ payload }) => [payload.toolName, payload.result]), text: result.text })
  } catch (error) {
    process.send({ id, error: String(error?.stack ?? error) })
  }
})
process.on('disconnect', () => process.exit(0))
process.send({ ready: name, implementation })
