// The filter hook, literally: the docs' plan example, the exact calls a
// synchronous hook sees (order, phase, tool, request context), promises,
// throws and rejections, id-over-key lookup, id-less resolved tools, and
// parallel tool calls started as the Agent starts them. Release-independent:
// run on 1.71.0, also compared with its reference.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { FOUND, NONE } from './helpers/tool-search-literals.mjs'

const { Ref, Ours, both, search, load, tagged, Labels, runStep, execTool, makeRequestContext, describeTools, makeFilter, docsCatalog, snapshot } =
  await toolSearchKit('1.71.0')

describe('filter', () => {
  const docsFilter = ({ toolName, requestContext, phase }) => {
    const plan = requestContext?.get('plan')
    if (phase === 'search') return true
    return plan === 'pro' || !toolName.startsWith('premium_')
  }

  test("the docs' plan example: search shows premium tools, load and active depend on the plan", async () => {
    const { tools, labels } = docsCatalog()
    const run = async (P) => {
      const p = new P({ tools, ttl: 0, filter: docsFilter })
      const free = makeRequestContext({ values: { plan: 'free' } })
      const pro = makeRequestContext({ values: { plan: 'pro' } })
      const out = {}
      const s1 = await runStep(p, { labels, requestContext: free })
      out.search = await search(s1, 'premium export report', free)
      out.loadFree = await load(s1, { toolName: 'premium_export' }, free)
      out.loadFreeMulti = await load(s1, { toolNames: ['premium_export', 'get_weather'] }, free)
      const s2 = await runStep(p, { labels, requestContext: pro })
      out.loadPro = await load(s2, { toolName: 'premium_export' }, pro)
      out.activePro = (await runStep(p, { labels, requestContext: pro })).toolNames
      out.activeFree = (await runStep(p, { labels, requestContext: free })).toolNames
      out.resumeFree = describeTools(await p.getLoadedToolsForRequestContext({ requestContext: free }), labels)
      out.resumePro = describeTools(await p.getLoadedToolsForRequestContext({ requestContext: pro }), labels)
      return out
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(
      ours.search.results.map((r) => r.name),
      ['premium_export'],
    )
    assert.deepEqual(ours.loadFree, {
      success: false,
      message: 'Tool "premium_export" not found. Use search_tools to find available tools.',
      toolName: 'premium_export',
    })
    assert.deepEqual(ours.loadFreeMulti, {
      success: false,
      message: 'Loaded: get_weather — available on your next turn | Not found: premium_export',
      loadedCount: 1,
      loaded: ['get_weather'],
      notFound: ['premium_export'],
      alreadyLoaded: undefined,
    })
    assert.deepEqual(ours.loadPro, {
      success: true,
      message: 'Tool "premium_export" loaded successfully. It will be available on your next turn.',
      toolName: 'premium_export',
    })
    assert.deepEqual(ours.activePro, ['search_tools', 'load_tool', 'get_weather', 'premium_export'])
    assert.deepEqual(ours.activeFree, ['search_tools', 'load_tool', 'get_weather'])
    assert.deepEqual(ours.resumeFree, [['get_weather', 'getWeather']])
    assert.deepEqual(ours.resumePro, [
      ['get_weather', 'getWeather'],
      ['premium_export', 'premiumExport'],
    ])
    assert.deepEqual(snapshot(ours), snapshot(ref))
  })

  test('a synchronous hook sees exactly the same calls, in the same order, as with the reference', async () => {
    const { tools, labels } = docsCatalog()
    const run = async (P) => {
      const log = []
      const filter = (arg) => {
        log.push({
          keys: Object.keys(arg),
          toolName: arg.toolName,
          phase: arg.phase,
          tool: labels.get(arg.tool),
          requestContext: labels.get(arg.requestContext),
        })
        return !(arg.phase === 'load' && arg.toolName === 'send_email') && !(arg.phase === 'search' && arg.toolName === 'create_issue')
      }
      const p = new P({ tools, ttl: 0, filter })
      const rc = labels.set(makeRequestContext({ threadId: 'f' }), 'rc-f')
      const s1 = await runStep(p, { labels, requestContext: rc })
      await search(s1, 'github issue create', rc)
      await search(s1, 'send', rc)
      await load(s1, { toolName: 'send' }, rc) // suggestions with filter: phase 'load', capped at 3 allowed
      await load(s1, { toolName: 'sendEmail' }, rc)
      await load(s1, { toolNames: ['get_weather', 'getWeather', 'send_email', 'nope'] }, rc)
      await runStep(p, { labels, requestContext: rc, stepNumber: 1 })
      const rc2 = labels.set(makeRequestContext({ threadId: 'f' }), 'rc-resume')
      await p.getLoadedToolsForRequestContext({ requestContext: rc2 })
      await p.getLoadedToolsForRequestContext({ stepArgs: s1.args })
      return log
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours, ref)
    const K = ['toolName', 'tool', 'requestContext', 'phase']
    assert.deepEqual(ours.slice(0, 4), [
      { keys: K, toolName: 'create_issue', phase: 'search', tool: 'createIssue', requestContext: 'rc-f' },
      { keys: K, toolName: 'create_slack_channel', phase: 'search', tool: 'createChannel', requestContext: 'rc-f' },
      { keys: K, toolName: 'merge_pull_request', phase: 'search', tool: 'mergePR', requestContext: 'rc-f' },
      { keys: K, toolName: 'list_pull_requests', phase: 'search', tool: 'listPRs', requestContext: 'rc-f' },
    ])
    assert.ok(ours.some((c) => c.phase === 'active' && c.requestContext === 'rc-resume'))
  })

  test('promise-returning, throwing and rejecting hooks (throw/reject = not allowed)', async () => {
    const { tools, labels } = docsCatalog()
    const filter = ({ toolName }) => {
      if (toolName === 'get_weather') return Promise.resolve(true)
      if (toolName === 'send_email') throw new Error('boom')
      if (toolName === 'send_slack_message') return Promise.reject(new Error('nope'))
      if (toolName === 'db_query') return Promise.resolve(false)
      if (toolName === 'db_insert') return 1 // truthy
      if (toolName === 'db_update') return '' // falsy
      return new Promise((r) => setTimeout(() => r(true), 1))
    }
    const run = async (P) => {
      const p = new P({ tools, ttl: 0, filter })
      const rc = makeRequestContext({ threadId: 'async' })
      const s = await runStep(p, { labels, requestContext: rc })
      const r = {}
      r.search = await search(s, 'send weather database email message slack', rc)
      r.load = await load(s, { toolNames: ['get_weather', 'send_email', 'send_slack_message', 'db_query', 'db_insert', 'db_update', 'create_issue'] }, rc)
      r.next = (await runStep(p, { labels, requestContext: rc })).toolNames
      return r
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours.load.loaded, ['get_weather', 'db_insert', 'create_issue'])
    assert.deepEqual(ours.load.notFound, ['send_email', 'send_slack_message', 'db_query', 'db_update'])
    assert.deepEqual(ours.next, ['search_tools', 'load_tool', 'get_weather', 'db_insert', 'create_issue'])
    assert.ok(!ours.search.results.some((x) => ['send_email', 'send_slack_message', 'db_query', 'db_update'].includes(x.name)))
    assert.deepEqual(ours, ref)
  })

  test('with a filter, denied high-ranking matches do not starve the result set; lookup prefers id over key', async () => {
    const a = tagged('weather_one', 'weather weather weather', 'a')
    const b = tagged('weather_two', 'weather', 'b')
    const c = tagged('weather_three', 'weather report', 'c')
    const keyClash = tagged('weather_two_clone', 'clone', 'clash')
    const labels = new Labels()
    labels.set(a, 'a')
    labels.set(b, 'b')
    labels.set(c, 'c')
    labels.set(keyClash, 'clash')
    // key 'weather_two' maps to a different tool than id 'weather_two'
    const tools = { one: a, weather_two: keyClash, two: b, three: c }
    const run = async (filter) => {
      const out = []
      for (const P of [Ref, Ours]) {
        const p = new P({ tools, ttl: 0, search: { topK: 1 }, filter })
        const s = await runStep(p, { labels })
        const r = await search(s, 'weather')
        await load(s, { toolName: 'weather_two' })
        const s2 = await runStep(p, { labels, stepNumber: 1 })
        out.push({ r, tools: s2.tools.slice(2) })
      }
      return out
    }
    const [refF, oursF] = await run(({ toolName }) => toolName !== 'weather_one')
    assert.equal(oursF.r.results.length, 1)
    assert.notEqual(oursF.r.results[0].name, 'weather_one')
    assert.deepEqual(oursF.tools, [['weather_two', 'b']], 'with a filter the id wins')
    assert.deepEqual(oursF, refF)
    const [refN, oursN] = await run(undefined)
    assert.deepEqual(oursN.tools, [['weather_two', 'clash']], 'without a filter the key wins')
    assert.deepEqual(oursN, refN)
  })

  test('filter is called with toolName === tool.id (undefined for id-less resolved tools)', async () => {
    const labels = new Labels()
    const idless = labels.set({ description: 'an mcp weather tool', execute: async () => ({ mcp: true }) }, 'idless')
    const run = async (P) => {
      const log = []
      const p = new P({ tools: {}, ttl: 0, includeResolvedTools: true, filter: makeFilter({ mode: 'sync', denyPct: 0 }, log, labels) })
      const stepTools = { mcp_weather: idless }
      const s = await runStep(p, { labels, tools: stepTools })
      const r = await search(s, 'weather')
      const l = await load(s, { toolName: 'mcp_weather' })
      const s2 = await runStep(p, { labels, tools: stepTools, stepNumber: 1 })
      return { r, l, tools: s2.tools.slice(2), log }
    }
    const [ref, ours] = await both(run)
    // id-less tools are indexed under their key but never returned by search (lookup by id fails)
    assert.deepEqual(ours.r, { results: [], message: NONE('weather') })
    assert.equal(ours.l.success, true)
    assert.deepEqual(ours.tools, [['mcp_weather', 'idless']])
    assert.equal(ours.log[0].toolName, undefined)
    assert.deepEqual(ours, ref)
  })
})

describe('parallel tool calls', () => {
  // The Agent runs a step's tool calls concurrently, each execute started from its own
  // setImmediate (see createExecute in Mastra's tool builder). With microtask-only
  // work that makes them effectively sequential; a filter doing real I/O interleaves them.
  const likeAgent = (fn) => new Promise((resolve, reject) => setImmediate(() => fn().then(resolve, reject)))
  const parallelFilters = {
    none: undefined,
    sync: () => true,
    microtask: () => Promise.resolve(true),
    macrotask: () => new Promise((r) => setTimeout(() => r(true), 1)),
  }
  for (const [fname, filter] of Object.entries(parallelFilters)) {
    test(`parallel tool calls in one step, started like the Agent starts them (filter: ${fname})`, async () => {
      const { tools, labels } = docsCatalog()
      const [ref, ours] = await both(async (P) => {
        const p = new P({ tools, ttl: 0, filter })
        const s = await runStep(p, { labels })
        const outs = await Promise.all([
          likeAgent(() => execTool(s.result.tools.load_tool, { toolName: 'get_weather' })),
          likeAgent(() => execTool(s.result.tools.load_tool, { toolName: 'get_weather' })),
          likeAgent(() => execTool(s.result.tools.load_tool, { toolNames: ['get_weather', 'send_email'] })),
          likeAgent(() => execTool(s.result.tools.search_tools, { query: 'weather' })),
        ])
        const s2 = await runStep(p, { labels, stepNumber: 1 })
        return { outs, names: s2.toolNames }
      })
      if (fname !== 'macrotask') {
        assert.deepEqual(
          ours.outs.map((o) => o.value.message),
          [
            'Tool "get_weather" loaded successfully. It will be available on your next turn.',
            'Tool "get_weather" is already loaded and available.',
            'Loaded: send_email — available on your next turn | Already loaded: get_weather',
            FOUND(1),
          ],
        )
      }
      assert.deepEqual(ours, ref)
    })
  }
})
