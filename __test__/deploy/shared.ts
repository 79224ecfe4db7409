// What both deployed apps share (deploy.test.mjs builds each with `mastra build`):
// three tools, a scripted mock model (no network) that searches for the user's
// words, loads the first tool found, calls it and answers, and a route with
// the server's own report of what served it.

import { createRequire } from 'node:module'

import { registerApiRoute } from '@mastra/core/server'
import { createTool } from '@mastra/core/tools'
import { MockLanguageModelV2 } from 'ai/test'
import { z } from 'zod'
import { fallbackReason, implementation } from 'mastra-native-processors'

export const tools = {
  getWeather: createTool({
    id: 'getWeather',
    description: 'Get the current weather for a city',
    inputSchema: z.object({ city: z.string().describe('The city') }),
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

type Prompt = { role: string; content: unknown }[]
type Part = { type: string; text?: string; toolName?: string; output?: { type: string; value?: { results?: { name: string }[] } } }
const partsOf = (prompt: Prompt): Part[] => prompt.flatMap((m) => (Array.isArray(m.content) ? (m.content as Part[]) : []))
const call = (toolCallId: string, toolName: string, input: object) => ({ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) })

/** search_tools with the user's words, load_tool of the first tool found, that tool, an answer: one step per tool result so far. */
export const model = new MockLanguageModelV2({
  doGenerate: async ({ prompt }) => {
    const parts = partsOf(prompt as Prompt)
    const words = parts.filter((p) => p.type === 'text').map((p) => p.text ?? '')
    const found = parts.find((p) => p.type === 'tool-result' && p.toolName === 'search_tools')?.output?.value?.results?.[0]?.name
    const step = prompt.filter((m) => m.role === 'tool').length
    const content = [
      [call('c1', 'search_tools', { query: words.at(-1) })],
      [call('c2', 'load_tool', { toolName: found })],
      [call('c3', found ?? 'none', { city: 'Paris' })],
      [{ type: 'text' as const, text: 'It is 18C in Paris.' }],
    ][Math.min(step, 3)]
    const finishReason = content.some((p) => p.type === 'tool-call') ? 'tool-calls' : 'stop'
    return { content, finishReason, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] }
  },
})

const warnings: string[] = []
process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`))

/** GET /served: which implementation serves, why not native if not, the addon files loaded, the process warnings. */
export const servedRoute = registerApiRoute('/served', {
  method: 'GET',
  handler: async (c) => {
    const binaries = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.endsWith('.node'))
    return c.json({ implementation, fallbackReason, binaries, warnings })
  },
})
