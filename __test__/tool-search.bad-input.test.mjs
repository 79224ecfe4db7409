// Bad input: ours returns the reference's result or throws a TypeError
// naming what was wrong; never another error, a crash or a hang.
// Release-independent: run on 1.71.0 (a malformed thread or memory context
// is in tool-search.threads.test.mjs).

import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const { Ref, Ours, tagged, Labels, runStep, execTool, makeRequestContext, MASTRA_THREAD_ID_KEY, installClock, sameOrTypeError, probeProcessor, snapshot } =
  await toolSearchKit('1.71.0')

describe('bad input (same result as the reference, or a TypeError; never another error, a crash or a hang)', () => {
  // A frozen clock so getStateStats().oldestAccessTime compares exactly.
  let clock
  before(() => {
    clock = installClock(1_800_000_000_000)
  })
  after(() => clock.restore())

  const weather = tagged('get_weather', 'Get the weather', 'w')
  const email = tagged('send_email', 'Send an email', 'e')
  const base = { getWeather: weather, sendEmail: email }
  const labels = new Labels()
  labels.set(weather, 'weather')
  labels.set(email, 'email')

  const construct = (P, opts) => (opts === '<none>' ? new P() : new P(opts))
  /** The bad-input rule on run(Ref) and run(Ours), each an async function to call. */
  const same = (label, run) => sameOrTypeError(run(Ref), run(Ours), { label })

  const optionCases = [
    ['no options', '<none>'],
    ['{}', {}],
    ['tools: null', { tools: null }],
    ['tools: undefined', { tools: undefined }],
    ['tools: "abc"', { tools: 'abc' }],
    ['tools: []', { tools: [] }],
    ["search.topK: '3'", { tools: base, search: { topK: '3' } }],
    ['search.topK: 2.5', { tools: base, search: { topK: 2.5 } }],
    ['search.topK: -1', { tools: base, search: { topK: -1 } }],
    ['search.topK: NaN', { tools: base, search: { topK: NaN } }],
    ['search.topK: Infinity', { tools: base, search: { topK: Infinity } }],
    ['search.minScore: NaN', { tools: base, search: { minScore: NaN } }],
    ["search.minScore: '0.5'", { tools: base, search: { minScore: '0.5' } }],
    ['search.minScore: -1', { tools: base, search: { minScore: -1 } }],
    ['search: null', { tools: base, search: null }],
    ['search.autoLoad: 1', { tools: base, search: { autoLoad: 1 } }],
    ["storage: 'disk'", { tools: base, storage: 'disk' }],
    ['storage: null', { tools: base, storage: null }],
    ['filter: 5', { tools: base, filter: 5 }],
    ["filter: 'yes'", { tools: base, filter: 'yes' }],
    ['filter: null', { tools: base, filter: null }],
    ["ttl: 'abc'", { tools: base, ttl: 'abc' }],
    ['ttl: NaN', { tools: base, ttl: NaN }],
    ['includeResolvedTools: "yes"', { tools: base, includeResolvedTools: 'yes' }],
    ["injectCatalog: 'yes'", { tools: base, injectCatalog: 'yes' }],
    ['injectCatalog: null', { tools: base, injectCatalog: null }],
    ['injectCatalog with a null tool in the record', { tools: { ...base, broken: null }, injectCatalog: true }],
    ['search: 5', { tools: base, search: 5 }],
    ['filter: false', { tools: base, filter: false }],
    ["storage: ''", { tools: base, storage: '' }],
    ['null tool in the record', { tools: { ...base, broken: null } }],
    ['undefined tool in the record', { tools: { ...base, broken: undefined } }],
    ['string tool in the record', { tools: { ...base, str: 'weather' } }],
    ['number tool in the record', { tools: { ...base, n: 42 } }],
    ['tool with numeric id', { tools: { ...base, num: { id: 5, description: 'numeric weather', execute: async () => ({}) } } }],
    ['tool with object description', { tools: { ...base, od: { id: 'od', description: { text: 'weather' }, execute: async () => ({}) } } }],
    ['tool with numeric description', { tools: { ...base, nd: { id: 'nd', description: 12345, execute: async () => ({}) } } }],
    ["tool with '' id", { tools: { ...base, emptyId: { id: '', description: 'weather tool with empty id', execute: async () => ({}) } } }],
    ['very long names', { tools: { ...base, ['k'.repeat(20000)]: { id: 'weather_' + 'i'.repeat(20000), description: 'weather', execute: async () => ({}) } } }],
  ]

  for (const [name, opts] of optionCases) {
    test(`options: ${name}`, async () => {
      await same(name, (P) => async () => probeProcessor(construct(P, opts), { labels }))
    })
  }

  test('hostile step arguments', async () => {
    const cases = [
      ['tools: null', { tools: null }],
      ['tools: "x"', { tools: 'x' }],
      ['requestContext: undefined', { requestContext: undefined }],
      ['requestContext: Map', { requestContext: new Map([[MASTRA_THREAD_ID_KEY, 'map-thread']]) }],
      ['requestContext: {}', { requestContext: {} }],
      ['messageList missing', { omit: ['messageList'] }],
      ['messages: "x"', { messages: 'x' }],
      ['messages with null entry', { messages: [null] }],
      ['messages with null part', { messages: [{ id: 'x', role: 'assistant', content: { format: 2, parts: [null] } }] }],
      ['messages with numeric parts', { messages: [{ id: 'x', role: 'assistant', content: { format: 2, parts: 5 } }] }],
    ]
    for (const storage of ['in-memory', 'context']) {
      for (const includeResolvedTools of [false, true]) {
        for (const [name, args] of cases) {
          await same(`${storage}/${includeResolvedTools}/${name}`, (P) => async () => {
            const p = new P({ tools: base, ttl: 0, storage, includeResolvedTools })
            const s = await runStep(p, { labels, requestContext: makeRequestContext(), ...args })
            return { tools: s.tools, sys: s.systemCalls, stats: p.getStateStats() }
          })
        }
      }
    }
  })

  test('odd resolved step tools with includeResolvedTools, with and without injectCatalog', async () => {
    const cases = {
      nullTool: { a: null },
      numberTool: { a: 5 },
      numericId: { a: { id: 7, description: 'weather seven', execute: async () => ({}) } },
      stringTool: { a: 'weather' },
      arrayTools: [weather],
    }
    for (const injectCatalog of [false, true]) {
      for (const [name, stepTools] of Object.entries(cases)) {
        const run = (P) => async () => {
          const p = new P({ tools: base, ttl: 0, includeResolvedTools: true, injectCatalog })
          const loads = [{ toolName: 'a' }, { toolNames: ['7', 'a', '0'] }]
          return probeProcessor(p, { labels, stepTools, queries: ['weather', 'seven'], loads })
        }
        await same(`${name}, injectCatalog ${injectCatalog}`, run)
      }
    }
  })

  // Mastra's answers echo the query and an unknown name whole (ours cut only what they echo of their own: tool-search.regex, tool-search.hybrid).
  test('huge queries and names (100k chars, 1 MiB), lone surrogates, control characters', async () => {
    const big = 'weather '.repeat(12_500) // 100k chars
    const inputs = [
      { query: big },
      { query: 'x'.repeat(100_000) },
      { query: 'x'.repeat(1 << 20) },
      { query: '\uD800weather' },
      { query: 'weather\uDC00' },
      { query: '\uDBFF\uDFFF\uD800' },
      { query: '\u0000weather\u0000' },
      { query: 'İ'.repeat(50_000) },
    ]
    const loads = [
      { toolName: 'n'.repeat(100_000) },
      { toolName: 'n'.repeat(1 << 20) },
      { toolName: '\uD800' },
      { toolNames: ['\uDC00weather', 'get_weather\uD800'] },
      { toolNames: Array.from({ length: 5000 }, (_, i) => `t${i}`) },
    ]
    /** A first step's meta-tool `tool` executed with input. */
    const exec = (tool, input) => (P) => async () => {
      const p = new P({ tools: base, ttl: 0 })
      const s = await runStep(p, { labels })
      return execTool(s.result.tools[tool], input)
    }
    for (const input of inputs) {
      const t = performance.now()
      await same(`query ${JSON.stringify(input.query.slice(0, 20))}…`, exec('search_tools', input))
      assert.ok(performance.now() - t < 20_000)
    }
    for (const input of loads) await same(`load ${JSON.stringify(input).slice(0, 40)}`, exec('load_tool', input))
    // Whole, to the byte.
    const mib = 'x'.repeat(1 << 20)
    assert.equal((await exec('search_tools', { query: mib })(Ours)()).value.message, `No tools found matching "${mib}". Try different keywords.`)
    assert.equal((await exec('load_tool', { toolName: mib })(Ours)()).value.message, `Tool "${mib}" not found. Use search_tools to find available tools.`)
    // lone surrogates inside the catalog
    const odd = { ['k\uD800']: { id: 'weather\uDC00', description: 'lone \uD800 surrogate weather', execute: async () => ({}) }, ...base }
    await same(
      'lone surrogates in the catalog',
      (P) => async () =>
        probeProcessor(new P({ tools: odd, ttl: 0 }), {
          labels,
          queries: ['weather', 'lone'],
          loads: [{ toolName: 'weather\uDC00' }, { toolName: 'k\uD800' }],
        }),
    )
  })

  test("a tools record's key is named in our TypeError whole up to a few hundred characters, then cut and marked", () => {
    const refusal = (key) => {
      try {
        new Ours({ tools: { ...base, [key]: null } })
      } catch (error) {
        assert.equal(error.name, 'TypeError')
        return error.message
      }
      assert.fail('no TypeError')
    }
    assert.equal(refusal('k'.repeat(300)), `ToolSearchProcessor: options.tools.${'k'.repeat(300)} must be a tool, got null`)
    assert.equal(refusal('k'.repeat(1 << 20)), `ToolSearchProcessor: options.tools.${'k'.repeat(300)}…(cut from 1048576 characters) must be a tool, got null`)
    assert.equal(refusal(`k${'😀'.repeat(200)}`), `ToolSearchProcessor: options.tools.k${'😀'.repeat(149)}…(cut from 401 characters) must be a tool, got null`)
  })

  test('state methods with odd arguments', async () => {
    const run = (P) => async () => {
      const p = new P({ tools: base, ttl: 1000 })
      await runStep(p, { labels, requestContext: makeRequestContext({ threadId: 't' }) })
      const out = []
      for (const a of [null, 5, {}, '', 'default', 't', Symbol.iterator]) {
        out.push(String(p.clearState(a)))
        out.push(p.getStateStats())
      }
      out.push(p.cleanupNow(1, 2, 3))
      out.push(snapshot(await p.getLoadedToolsForRequestContext(null)))
      out.push(snapshot(await p.getLoadedToolsForRequestContext({ requestContext: null, tools: null })))
      return out
    }
    await same('state methods', run)
  })
})
