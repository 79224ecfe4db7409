// Deliberate differences from the references, asserting our behaviour
// literally. Two are upstream fixes of 1.60.0 that we adopt on every
// release, so they differ only from 1.59.0 (run there); one, only own keys
// being tools, differs from every tested release (run on 1.71.0).

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { TESTED_RELEASES } from './helpers/releases.mjs'
import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { NONE } from './helpers/tool-search-literals.mjs'

const on159 = await toolSearchKit('1.59.0')
const on171 = await toolSearchKit('1.71.0')

describe('differences from 1.59.0, fixed upstream in 1.60.0', () => {
  const { Ref, Ours, load, runStep, makeRequestContext, describeTools, toolInvocationMessage, userMessage, docsCatalog } = on159

  test("(a) 'context' store counts a successful single-toolName load_tool result", async () => {
    const { tools, labels } = docsCatalog()
    const p = new Ours({ tools, storage: 'context' })
    const s1 = await runStep(p, { labels, messages: [] })
    const res = await load(s1, { toolName: 'get_weather' })
    assert.deepEqual(res, {
      success: true,
      message: 'Tool "get_weather" loaded successfully. It will be available on your next turn.',
      toolName: 'get_weather',
    })
    const ok = toolInvocationMessage([{ toolName: 'load_tool', result: res }])
    const already = toolInvocationMessage([
      { toolName: 'load_tool', result: { success: true, message: 'Tool "send_email" is already loaded and available.', toolName: 'send_email' } },
    ])
    const failed = toolInvocationMessage([{ toolName: 'load_tool', result: { success: false, message: 'Tool "db_query" not found.', toolName: 'db_query' } }])
    const s2 = await runStep(p, { labels, messages: [userMessage('x'), ok, already, failed], stepNumber: 1 })
    assert.deepEqual(s2.tools.slice(2), [
      ['get_weather', 'getWeather'],
      ['send_email', 'sendEmail'],
    ])
    // ... and it is "already loaded" for load_tool in that step
    assert.deepEqual(await load(s2, { toolName: 'get_weather' }), {
      success: true,
      message: 'Tool "get_weather" is already loaded and available.',
      toolName: 'get_weather',
    })
    // the reference (1.59.0) ignores the single-toolName shape
    const r = new Ref({ tools, storage: 'context' })
    const rs = await runStep(r, { labels, messages: [userMessage('x'), ok, already, failed], stepNumber: 1 })
    assert.deepEqual(rs.toolNames, ['search_tools', 'load_tool'])
    // and it de-loads when the result leaves the messages
    const s3 = await runStep(p, { labels, messages: [userMessage('x')], stepNumber: 2 })
    assert.deepEqual(s3.toolNames, ['search_tools', 'load_tool'])
  })

  test("(b) the thread id falls back to requestContext.get('MastraMemory')?.thread?.id (in-memory store)", async () => {
    const { tools, labels } = docsCatalog()
    const p = new Ours({ tools, ttl: 0 })
    const memA = makeRequestContext({ memoryThreadId: 'mem-A' })
    const memB = makeRequestContext({ memoryThreadId: 'mem-B' })
    const sA = await runStep(p, { labels, requestContext: memA })
    await load(sA, { toolName: 'get_weather' }, memA)
    assert.deepEqual((await runStep(p, { labels, requestContext: memA })).toolNames, ['search_tools', 'load_tool', 'get_weather'])
    assert.deepEqual((await runStep(p, { labels, requestContext: memB })).toolNames, ['search_tools', 'load_tool'], 'different memory threads do not share')
    assert.deepEqual(
      (await runStep(p, { labels, requestContext: makeRequestContext() })).toolNames,
      ['search_tools', 'load_tool'],
      "nothing leaked into 'default'",
    )
    assert.deepEqual(p.getStateStats().threadCount, 3)
    // explicit mastra__threadId wins over the memory thread
    const both_ = makeRequestContext({ threadId: 'explicit', memoryThreadId: 'mem-A' })
    assert.deepEqual((await runStep(p, { labels, requestContext: both_ })).toolNames, ['search_tools', 'load_tool'])
    // '' as mastra__threadId is no thread: falls back to the memory thread
    const emptyExplicit = makeRequestContext({ threadId: '', memoryThreadId: 'mem-A' })
    assert.deepEqual((await runStep(p, { labels, requestContext: emptyExplicit })).toolNames, ['search_tools', 'load_tool', 'get_weather'])
    // resume path resolves the same thread
    assert.deepEqual(describeTools(await p.getLoadedToolsForRequestContext({ requestContext: memA }), labels), [['get_weather', 'getWeather']])
    assert.deepEqual(describeTools(await p.getLoadedToolsForRequestContext({ requestContext: memB }), labels), [])
    p.clearState('mem-A')
    assert.deepEqual((await runStep(p, { labels, requestContext: memA })).toolNames, ['search_tools', 'load_tool'])
    // the reference shares 'default' between memory threads
    const r = new Ref({ tools, ttl: 0 })
    const rA = await runStep(r, { labels, requestContext: memA })
    await load(rA, { toolName: 'get_weather' }, memA)
    assert.deepEqual((await runStep(r, { labels, requestContext: memB })).toolNames, ['search_tools', 'load_tool', 'get_weather'])
  })

  test("(b) the 'context' store keeps a supplemental set for the memory thread", async () => {
    const { tools, labels } = docsCatalog()
    const p = new Ours({ tools, storage: 'context' })
    const mem = makeRequestContext({ memoryThreadId: 'mem-ctx' })
    const s1 = await runStep(p, { labels, requestContext: mem, messages: [] })
    await load(s1, { toolNames: ['get_weather'] }, mem)
    assert.deepEqual((await runStep(p, { labels, requestContext: mem, messages: [] })).toolNames, ['search_tools', 'load_tool', 'get_weather'])
    assert.deepEqual(describeTools(await p.getLoadedToolsForRequestContext({ requestContext: mem }), labels), [['get_weather', 'getWeather']])
    const other = makeRequestContext({ memoryThreadId: 'mem-other' })
    assert.deepEqual((await runStep(p, { labels, requestContext: other, messages: [] })).toolNames, ['search_tools', 'load_tool'])
  })
})

describe('differences from every tested release', () => {
  const { Ref, Ours, load, search, runStep, makeRequestContext, docsCatalog } = on171

  test('(c) hostile names: only own keys are tools', async () => {
    const { tools, labels } = docsCatalog()
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort()
    const p = new Ours({ tools, ttl: 0 })
    const rc = makeRequestContext({ threadId: 'hostile' })
    const s1 = await runStep(p, { labels, requestContext: rc })
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const r = await load(s1, { toolName: name }, rc)
      assert.equal(r.success, false, name)
      assert.equal(r.toolName, name)
      assert.match(r.message, new RegExp(`^Tool "${name.replace(/[$]/g, '\\$')}" not found\\.`))
    }
    assert.deepEqual(await load(s1, { toolNames: ['toString', 'get_weather', '__proto__'] }, rc), {
      success: false,
      message: 'Loaded: get_weather — available on your next turn | Not found: toString, __proto__',
      loadedCount: 1,
      loaded: ['get_weather'],
      notFound: ['toString', '__proto__'],
      alreadyLoaded: undefined,
    })
    assert.deepEqual(await search(s1, 'constructor __proto__ toString', rc), { results: [], message: NONE('constructor __proto__ toString') })
    const s2 = await runStep(p, { labels, requestContext: rc })
    assert.deepEqual(s2.toolNames, ['search_tools', 'load_tool', 'get_weather'])
    assert.equal(Object.getPrototypeOf(s2.result.tools), Object.prototype)
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore)
    // The reference (1.71.0, like every tested release) "finds" Object.prototype members:
    const r = new Ref({ tools, ttl: 0 })
    const rs = await runStep(r, { labels })
    assert.equal((await load(rs, { toolName: 'constructor' })).success, true)
  })

  for (const version of TESTED_RELEASES) {
    test(`(c) on ${version}, load_tool('constructor') finds Object for the reference and nothing for ours`, async () => {
      const kit = await toolSearchKit(version)
      const { tools, labels } = kit.docsCatalog()
      const [ref, ours] = await kit.both(async (P) => {
        const s = await kit.runStep(new P({ tools, ttl: 0 }), { labels })
        return kit.load(s, { toolName: 'constructor' })
      })
      assert.deepEqual(ref, {
        success: true,
        message: 'Tool "constructor" loaded successfully. It will be available on your next turn.',
        toolName: 'constructor',
      })
      assert.deepEqual(ours, {
        success: false,
        message: 'Tool "constructor" not found. Use search_tools to find available tools.',
        toolName: 'constructor',
      })
    })
  }
})
