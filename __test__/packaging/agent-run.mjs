// One Agent run through both processors, inside a user's project (the package
// tests copy this file into a fresh project that installed our tarballs), so
// every bare import below resolves as the user's would. Prints one JSON line:
//
//   { implementation, ours, binaries, calls: [{ tools, toolCallIds, texts }], text, toolResults }
//
// `ours` is where mastra-native-processors was loaded from, `binaries` every
// native addon file this process loaded (relative to the project).

import { createRequire } from 'node:module'
import { relative } from 'node:path'

import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { MockLanguageModelV2 } from 'ai/test'
import { z } from 'zod'
import { ToolCallFilter, ToolSearchProcessor, implementation } from 'mastra-native-processors'

const require = createRequire(import.meta.url)
const project = process.cwd()

const tools = {
  getWeather: createTool({
    id: 'getWeather',
    description: 'Get the current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, tempC: 18 }),
  }),
  searchDatabase: createTool({
    id: 'searchDatabase',
    description: 'Search the order database',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => ({ rows: [], query }),
  }),
  sendEmail: createTool({
    id: 'sendEmail',
    description: 'Send an email to a customer',
    inputSchema: z.object({ to: z.string(), body: z.string() }),
    execute: async () => ({ sent: true }),
  }),
}

const call = (toolCallId, toolName, input) => ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) })
const script = [
  [call('c1', 'search_tools', { query: 'weather city' })],
  [call('c2', 'load_tool', { toolName: 'getWeather' })],
  [call('c3', 'getWeather', { city: 'Paris' })],
  [{ type: 'text', text: 'It is 18C in Paris.' }],
]

// What the model is sent on each call: the tools offered, the tool calls and the texts in the prompt.
const calls = []
const parts = (prompt) => prompt.flatMap((m) => (Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }]))
const model = new MockLanguageModelV2({
  doGenerate: async ({ tools: offered, prompt }) => {
    calls.push({
      tools: (offered ?? []).map((tool) => tool.name),
      toolCallIds: parts(prompt)
        .filter((p) => p.type === 'tool-call')
        .map((p) => p.toolCallId),
      texts: parts(prompt)
        .filter((p) => p.type === 'text')
        .map((p) => p.text),
    })
    const content = script[calls.length - 1]
    const finishReason = content.some((p) => p.type === 'tool-call') ? 'tool-calls' : 'stop'
    return { content, finishReason, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] }
  },
})

const agent = new Agent({
  id: 'package-test',
  name: 'package-test',
  instructions: 'Search for tools, load them, then use them.',
  model,
  inputProcessors: [new ToolCallFilter({ exclude: ['searchDatabase'] }), new ToolSearchProcessor({ tools, search: { topK: 2 } })],
})

// An earlier searchDatabase call, which the filter removes from what the model is sent.
const history = [
  { role: 'user', content: 'Find order 42.' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'earlier-search', toolName: 'searchDatabase', input: { query: 'order 42' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'earlier-search', toolName: 'searchDatabase', output: { type: 'json', value: { rows: [] } } }] },
  { role: 'assistant', content: 'There is no order 42.' },
  { role: 'user', content: 'What is the weather in Paris?' },
]

const result = await agent.generate(history, { maxSteps: 6 })

const loaded = Object.keys(require.cache)
  .filter((file) => file.endsWith('.node'))
  .map((file) => relative(project, file))
console.log(
  JSON.stringify({
    implementation,
    ours: relative(project, require.resolve('mastra-native-processors')),
    binaries: loaded,
    calls,
    text: result.text,
    toolResults: result.toolResults.map(({ payload }) => [payload.toolName, payload.result]),
  }),
)
