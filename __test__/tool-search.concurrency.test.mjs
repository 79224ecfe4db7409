// A filter hook that never answers for one request must not hold up another:
// operations that consult the hook suspend without holding any Rust lock.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { RequestContext } from '@mastra/core/request-context'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { ToolSearchProcessor } from '../index.mjs'

const tool = (id, description) => createTool({ id, description, inputSchema: z.object({}), execute: async () => ({ ran: id }) })

const tools = {
  get_weather: tool('get_weather', 'Get the weather forecast for a city'),
  send_email: tool('send_email', 'Send an email to a recipient'),
}

function context(threadId, user) {
  const requestContext = new RequestContext()
  requestContext.set('mastra__threadId', threadId)
  requestContext.set('user', user)
  return requestContext
}

function stepArgs(requestContext) {
  return { messages: [], messageList: { addSystem() {} }, tools: {}, requestContext, state: {} }
}

test('a hook stuck on one request does not stall another request', async () => {
  const calls = []
  const processor = new ToolSearchProcessor({
    tools,
    ttl: 0,
    filter: ({ toolName, requestContext, phase }) => {
      calls.push(`${requestContext.get('user')}:${phase}:${toolName}`)
      // The stuck user's hook never settles.
      return requestContext.get('user') === 'stuck' ? new Promise(() => {}) : true
    },
  })

  const stuck = await processor.processInputStep(stepArgs(context('thread-stuck', 'stuck')))
  let stuckSettled = false
  stuck.tools.search_tools.execute({ query: 'weather' }, {}).finally(() => {
    stuckSettled = true
  })
  stuck.tools.load_tool.execute({ toolName: 'send_email' }, {}).finally(() => {
    stuckSettled = true
  })

  const free = await processor.processInputStep(stepArgs(context('thread-free', 'free')))
  assert.deepEqual(await free.tools.search_tools.execute({ query: 'weather' }, {}), {
    results: [{ name: 'get_weather', description: 'Get the weather forecast for a city', score: 2.97 }],
    message: 'Found 1 tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.',
  })
  assert.deepEqual(await free.tools.load_tool.execute({ toolName: 'get_weather' }, {}), {
    success: true,
    message: 'Tool "get_weather" loaded successfully. It will be available on your next turn.',
    toolName: 'get_weather',
  })
  const next = await processor.processInputStep(stepArgs(context('thread-free', 'free')))
  assert.deepEqual(Object.keys(next.tools), ['search_tools', 'load_tool', 'get_weather'])

  assert.equal(stuckSettled, false)
  assert.deepEqual(processor.getStateStats().threadCount, 2)
  assert.deepEqual(calls, ['stuck:search:get_weather', 'stuck:load:send_email', 'free:search:get_weather', 'free:load:get_weather', 'free:active:get_weather'])
})
