// One server of the multi-instance tests: its own Agent, ToolSearchProcessor and
// Mastra memory on the shared database, in its own Node process. The tests
// send it requests over IPC; nothing else is shared with the other servers.
//
//   node server.mjs <name> <storage: context|in-memory> <database url> [catalog]
//
// The database is a libSQL file (a file: URL) or PostgreSQL (a postgres: URL,
// with the schema to use in its `schema` search parameter). The catalog is
// 'weather' (getWeather and sendEmail, the default) or 'words:<n>': n tools
// named `<word>Lookup`, each found by searching for its word alone.
//
// Messages in: { id, kind: 'load' | 'use', thread, tool?, query?, tools?, turn? }.
// 'load' has the model search for `query` and load `tool` (getWeather, 'weather'
// by default); 'use' has it call each of `tools` (['getWeather']) if all are
// offered, else answer without them. `turn`, where given, is put in the prompt
// and in the answer, so the test can find the turn in memory. Requests run
// concurrently: each has its own scripted model. Messages out: { ready: name }
// once, then { id, server, calls: [tool names offered per model call],
// toolResults, text }.

import { Agent } from '@mastra/core/agent'
import { RequestContext } from '@mastra/core/request-context'
import { createTool } from '@mastra/core/tools'
import { Memory } from '@mastra/memory'
import { MockLanguageModelV2 } from 'ai/test'
import { z } from 'zod'

import { ToolSearchProcessor, implementation } from '../../index.mjs'
import { WORDS } from './client.mjs'

const [name, storage, url, catalog = 'weather'] = process.argv.slice(2)

function weatherTools() {
  return {
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
}

function wordTools(count) {
  return Object.fromEntries(
    WORDS.slice(0, count).map((word) => [
      `${word}Lookup`,
      createTool({
        id: `${word}Lookup`,
        description: `Look up ${word} records`,
        inputSchema: z.object({ turn: z.string() }),
        execute: async ({ turn }) => ({ tool: `${word}Lookup`, turn, server: name }),
      }),
    ]),
  )
}

const tools = catalog === 'weather' ? weatherTools() : wordTools(Number(catalog.replace('words:', '')))

const call = (toolCallId, toolName, input) => ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) })
const text = (t) => ({ type: 'text', text: t })
const tagged = (t, turn) => (turn ? `${t} [${turn}]` : t)

/** The model's answer on each call of a request, given the tools it is offered. */
function script({ kind, tool = 'getWeather', query = 'weather', tools: using = ['getWeather'], turn }) {
  // Call ids are unique, as a model's are: Mastra's memory takes a repeated id for the same
  // call, and a turn retried after its server died may have left its first calls there.
  const id = (part) => (turn ? `${turn}@${name}:${part}` : part)
  if (kind === 'load') {
    return [
      () => [call(id('load-1'), 'search_tools', { query })],
      () => [call(id('load-2'), 'load_tool', { toolName: tool })],
      () => [text(tagged(`${tool} is loaded.`, turn))],
    ]
  }
  const weather = using.length === 1 && using[0] === 'getWeather'
  return [
    (offered) =>
      using.every((toolName) => offered.includes(toolName))
        ? using.map((toolName, at) => call(id(`use-${at + 1}`), toolName, weather ? { city: 'Paris' } : { turn }))
        : [text(tagged(weather ? 'I have no weather tool.' : `I have no ${using.join(', ')}.`, turn))],
    () => [text(tagged(weather ? 'It is 18C in Paris.' : `Used ${using.join(', ')}.`, turn))],
  ]
}

/** A model of one request: answers from its script, records the tools offered on each call. */
function scriptedModel(steps, calls) {
  return new MockLanguageModelV2({
    doGenerate: async ({ tools: offered }) => {
      const names = (offered ?? []).map((tool) => tool.name)
      const content = steps[calls.length](names)
      calls.push(names)
      const finishReason = content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop'
      return { content, finishReason, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] }
    },
  })
}

async function openStore() {
  if (url.startsWith('postgres')) {
    const { PostgresStore } = await import('@mastra/pg')
    const parsed = new URL(url)
    const schemaName = parsed.searchParams.get('schema') ?? undefined
    parsed.searchParams.delete('schema')
    return new PostgresStore({ id: `multi-instance-${name}`, connectionString: parsed.href, schemaName, max: 8 })
  }
  const { LibSQLStore } = await import('@mastra/libsql')
  return new LibSQLStore({ id: `multi-instance-${name}`, url })
}

const store = await openStore()
await store.init()
const agent = new Agent({
  id: 'weather-agent',
  name: 'weather-agent',
  instructions: 'Find tools with search_tools, load them with load_tool, then use them.',
  model: ({ requestContext }) => requestContext.get('model'),
  memory: new Memory({ storage: store, options: { lastMessages: 50, semanticRecall: false } }),
  inputProcessors: [new ToolSearchProcessor({ tools, storage })],
})

const PROMPTS = { load: 'Find a weather tool.', use: 'What is the weather in Paris?' }

process.on('message', async (request) => {
  const { id, kind, thread, tool, turn } = request
  const calls = []
  const requestContext = new RequestContext([['model', scriptedModel(script(request), calls)]])
  const prompt = catalog === 'weather' ? PROMPTS[kind] : kind === 'load' ? `Find and load ${tool}.` : `Use ${request.tools.join(', ')}.`
  try {
    const result = await agent.generate(tagged(prompt, turn), { maxSteps: 5, requestContext, memory: { thread, resource: 'user-1' } })
    const toolResults = result.toolResults.map(({ payload }) => [payload.toolName, payload.result])
    process.send({ id, server: name, calls, toolResults, text: result.text })
  } catch (error) {
    process.send({ id, error: String(error?.stack ?? error) })
  }
})
process.on('disconnect', () => process.exit(0))
process.send({ ready: name, implementation })
