// Which thread a request's loaded tools belong to, literally: in-memory
// threads are isolated, anonymous requests share 'default', and the memory
// thread the Agent sets (MastraMemory.thread.id) counts when there is no
// mastra__threadId, as from 1.60.0. Run on 1.71.0, also compared with its
// reference; a malformed thread or memory context is refused where 1.71.0's
// own processor throws.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const { Ref, Ours, both, load, runStep, makeRequestContext, describeTools, docsCatalog, RequestContext } = await toolSearchKit('1.71.0')

test('in-memory threads are isolated and anonymous requests share "default"', async () => {
  const { tools, labels } = docsCatalog()
  const [ref, ours] = await both(async (P) => {
    const p = new P({ tools, ttl: 0 })
    const a = makeRequestContext({ threadId: 'A' })
    const sA = await runStep(p, { labels, requestContext: a })
    await load(sA, { toolName: 'get_weather' }, a)
    const sAnon = await runStep(p, { labels, requestContext: makeRequestContext() })
    await load(sAnon, { toolName: 'send_email' }, undefined)
    const empty = makeRequestContext({ threadId: '' }) // '' is no thread
    return [
      (await runStep(p, { labels, requestContext: a })).toolNames,
      (await runStep(p, { labels, requestContext: makeRequestContext({ threadId: 'B' }) })).toolNames,
      (await runStep(p, { labels, requestContext: empty })).toolNames,
      (await runStep(p, { labels, requestContext: undefined })).toolNames,
      p.getStateStats().threadCount,
    ]
  })
  assert.deepEqual(ours, [
    ['search_tools', 'load_tool', 'get_weather'],
    ['search_tools', 'load_tool'],
    ['search_tools', 'load_tool', 'send_email'],
    ['search_tools', 'load_tool', 'send_email'],
    3,
  ])
  assert.deepEqual(ours, ref)
})

test('the memory thread (MastraMemory.thread.id) is the thread when there is no mastra__threadId', async () => {
  const { tools, labels } = docsCatalog()
  const [ref, ours] = await both(async (P) => {
    const p = new P({ tools, ttl: 0 })
    const memA = makeRequestContext({ memoryThreadId: 'mem-A' })
    const memB = makeRequestContext({ memoryThreadId: 'mem-B' })
    const sA = await runStep(p, { labels, requestContext: memA })
    await load(sA, { toolName: 'get_weather' }, memA)
    const out = [
      (await runStep(p, { labels, requestContext: memA })).toolNames,
      (await runStep(p, { labels, requestContext: memB })).toolNames,
      (await runStep(p, { labels, requestContext: makeRequestContext() })).toolNames,
      // mastra__threadId wins; '' is no thread, so the memory thread counts
      (await runStep(p, { labels, requestContext: makeRequestContext({ threadId: 'explicit', memoryThreadId: 'mem-A' }) })).toolNames,
      (await runStep(p, { labels, requestContext: makeRequestContext({ threadId: '', memoryThreadId: 'mem-A' }) })).toolNames,
      describeTools(await p.getLoadedToolsForRequestContext({ requestContext: memA }), labels),
      p.getStateStats().threadCount,
    ]
    p.clearState('mem-A')
    out.push((await runStep(p, { labels, requestContext: memA })).toolNames)
    return out
  })
  assert.deepEqual(ours, [
    ['search_tools', 'load_tool', 'get_weather'],
    ['search_tools', 'load_tool'],
    ['search_tools', 'load_tool'],
    ['search_tools', 'load_tool'],
    ['search_tools', 'load_tool', 'get_weather'],
    [['get_weather', 'getWeather']],
    4,
    ['search_tools', 'load_tool'],
  ])
  assert.deepEqual(ours, ref)
})

test("the 'context' store keeps its supplemental set for the memory thread", async () => {
  const { tools, labels } = docsCatalog()
  const [ref, ours] = await both(async (P) => {
    const p = new P({ tools, storage: 'context' })
    const mem = makeRequestContext({ memoryThreadId: 'mem-ctx' })
    const s1 = await runStep(p, { labels, requestContext: mem, messages: [] })
    await load(s1, { toolNames: ['get_weather'] }, mem)
    return [
      (await runStep(p, { labels, requestContext: mem, messages: [] })).toolNames,
      describeTools(await p.getLoadedToolsForRequestContext({ requestContext: mem }), labels),
      (await runStep(p, { labels, requestContext: makeRequestContext({ memoryThreadId: 'mem-other' }), messages: [] })).toolNames,
    ]
  })
  assert.deepEqual(ours, [['search_tools', 'load_tool', 'get_weather'], [['get_weather', 'getWeather']], ['search_tools', 'load_tool']])
  assert.deepEqual(ours, ref)
})

describe('a malformed thread or memory context: a TypeError naming it', () => {
  const memory = (value) => {
    const rc = new RequestContext()
    rc.set('MastraMemory', value)
    return rc
  }
  // [name, request context, our message, whether the reference refuses it too]
  const cases = [
    // The reference uses any truthy mastra__threadId as a map key and goes on.
    ['mastra__threadId: 5', makeRequestContext({ threadId: 5 }), "the request context's mastra__threadId must be a string, got the number 5", false],
    ["MastraMemory: 'x'", memory('x'), 'the request context\'s MastraMemory must be an object, got the string "x"', true],
    ['MastraMemory: a function', memory(() => {}), "the request context's MastraMemory must be an object, got a function", true],
    ['MastraMemory.thread: null', memory({ thread: null }), "the request context's MastraMemory.thread must be an object, got null", true],
    ["MastraMemory.thread: 'x'", memory({ thread: 'x' }), 'the request context\'s MastraMemory.thread must be an object, got the string "x"', true],
    ['MastraMemory.thread without an id', memory({ thread: {} }), "the request context's MastraMemory.thread.id must be a string, got undefined", true],
    ['MastraMemory.thread.id: 7', memory({ thread: { id: 7 } }), "the request context's MastraMemory.thread.id must be a string, got the number 7", true],
    [
      'MastraMemory.resourceId: 1',
      memory({ thread: { id: 't' }, resourceId: 1 }),
      "the request context's MastraMemory.resourceId must be a string, got the number 1",
      true,
    ],
  ]
  for (const [name, requestContext, message, refRefuses] of cases) {
    test(name, async () => {
      const { tools, labels } = docsCatalog()
      const outcome = async (P) => {
        const out = []
        for (const storage of ['in-memory', 'context']) {
          const p = new P({ tools, ttl: 0, storage })
          for (const call of [() => runStep(p, { labels, requestContext }), () => p.getLoadedToolsForRequestContext({ requestContext })]) {
            out.push(
              await call().then(
                () => 'returned',
                (e) => e,
              ),
            )
          }
        }
        return out
      }
      for (const e of await outcome(Ref)) {
        if (refRefuses) assert.ok(e instanceof Error && /^Invalid MemoryRequestContext/.test(e.message), String(e))
        else assert.equal(e, 'returned')
      }
      for (const e of await outcome(Ours)) {
        assert.ok(e instanceof TypeError, String(e))
        assert.equal(e.message, `ToolSearchProcessor: ${message}`)
      }
    })
  }

  test("well-formed memory contexts without a thread id are no thread: the step uses 'default'", async () => {
    const { tools, labels } = docsCatalog()
    for (const value of [{}, { thread: undefined, resourceId: 'r' }, { thread: { id: '' } }, 0, '', null]) {
      const [ref, ours] = await both(async (P) => {
        const p = new P({ tools, ttl: 0 })
        await runStep(p, { labels, requestContext: memory(value) })
        const threads = p.getStateStats().threadCount
        p.clearState() // 'default'
        return [threads, p.getStateStats().threadCount]
      })
      assert.deepEqual(ours, [1, 0], JSON.stringify(value))
      assert.deepEqual(ours, ref)
    }
  })
})
