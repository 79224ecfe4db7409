// ToolSearchProcessor's documented defaults and surface, literally: the
// processor's identity, the step's meta-tools and instruction, and
// search_tools' ranking (BM25, name boosts, topK 5, minScore 0, truncated
// descriptions, JavaScript's lowercasing). Release-independent: run on
// 1.71.0, each result also compared with its reference.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import {
  INSTRUCTION,
  SEARCH_DESCRIPTION,
  LOAD_DESCRIPTION,
  FOUND,
  NONE,
  SEARCH_INPUT_SCHEMA,
  SEARCH_OUTPUT_SCHEMA,
  LOAD_INPUT_SCHEMA,
  LOAD_OUTPUT_SCHEMA,
} from './helpers/tool-search-literals.mjs'

const require = createRequire(import.meta.url)
const { toolSearchProtocol } = require('../lib/native.js')
const { Ref, Ours, both, stepOf, search, load, lowIdfCatalog, createTool, runStep, makeRequestContext, describeMetaTool, docsCatalog } =
  await toolSearchKit('1.71.0')
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

describe('identity and surface', () => {
  test("id === 'tool-search', name === 'Tool Search Processor', description equals the reference's", () => {
    const ours = new Ours({ tools: {}, ttl: 0 })
    const ref = new Ref({ tools: {}, ttl: 0 })
    assert.equal(ours.id, 'tool-search')
    assert.equal(ours.name, 'Tool Search Processor')
    assert.equal(ours.description, 'Enables dynamic tool discovery and loading via search')
    assert.equal(ours.description, ref.description)
    assert.equal(ours.id, ref.id)
    assert.equal(ours.name, ref.name)
  })

  test('exposes exactly the processor hooks the reference exposes (the Agent probes them)', () => {
    const ours = new Ours({ tools: {}, ttl: 0 })
    const ref = new Ref({ tools: {}, ttl: 0 })
    const hooks = [
      'processInput',
      'processInputStep',
      'processOutputStream',
      'processOutputResult',
      'processOutputStep',
      'processAPIError',
      'computeStateSignal',
      'getLoadedToolsForRequestContext',
      'clearState',
      'clearAllState',
      'getStateStats',
      'cleanupNow',
      '__registerMastra',
      'processInputStepFinal',
    ]
    for (const h of hooks) {
      assert.equal(typeof ours[h], typeof ref[h], `typeof processor.${h}`)
      assert.equal(ours[h]?.length, ref[h]?.length, `processor.${h}.length`)
    }
    assert.equal(typeof ours.processInputStep, 'function')
    assert.equal(typeof ours.getLoadedToolsForRequestContext, 'function')
  })

  test('works through the CommonJS entry point too', () => {
    const require = createRequire(import.meta.url)
    const cjs = require(path.join(root, 'index.js'))
    assert.equal(typeof cjs.ToolSearchProcessor, 'function')
    const p = new cjs.ToolSearchProcessor({ tools: {}, ttl: 0 })
    assert.equal(p.id, 'tool-search')
  })
})

describe('documented defaults (topK 5, minScore 0)', () => {
  test('step returns search_tools then load_tool, adds the instruction with addSystem, meta-tools are byte-identical', async () => {
    const { tools, labels } = docsCatalog()
    const rc = makeRequestContext({ threadId: 'th' })
    const [ref, ours] = await both((P) => stepOf(P, { tools }, { requestContext: rc, labels, realMessageList: true }))
    assert.deepEqual(ours.s.toolNames, ['search_tools', 'load_tool'])
    assert.deepEqual(ours.s.resultKeys, ['tools'])
    assert.deepEqual(ours.s.systemCalls, [[INSTRUCTION]])
    const st = describeMetaTool(ours.s.result.tools.search_tools)
    const lt = describeMetaTool(ours.s.result.tools.load_tool)
    assert.equal(st.isMastraTool, true)
    assert.equal(st.fields.id, 'search_tools')
    assert.equal(st.fields.description, SEARCH_DESCRIPTION)
    assert.deepEqual(st.fields.inputSchema, SEARCH_INPUT_SCHEMA)
    assert.deepEqual(st.fields.outputSchema, SEARCH_OUTPUT_SCHEMA)
    assert.equal(lt.fields.id, 'load_tool')
    assert.equal(lt.fields.description, LOAD_DESCRIPTION)
    assert.deepEqual(lt.fields.inputSchema, LOAD_INPUT_SCHEMA)
    assert.deepEqual(lt.fields.outputSchema, LOAD_OUTPUT_SCHEMA)
    // Everything observable about the step equals the reference.
    assert.deepEqual(ours.s.tools, ref.s.tools)
    assert.deepEqual(ours.s.systemCalls, ref.s.systemCalls)
  })

  test('the instruction is added on every step, once, with a single argument', async () => {
    const { tools, labels } = docsCatalog()
    for (const P of [Ref, Ours]) {
      const p = new P({ tools, ttl: 0 })
      for (let i = 0; i < 3; i++) {
        const s = await runStep(p, { labels, stepNumber: i, requestContext: makeRequestContext() })
        assert.deepEqual(s.systemCalls, [[INSTRUCTION]])
      }
    }
  })

  test('search_tools: literal ranking with name boosts, ties keep first-scored order, topK defaults to 5', async () => {
    const { tools } = docsCatalog()
    const expected = {
      'github issue': [
        ['create_issue', 'Create a new GitHub issue in a repository', 6.2],
        ['merge_pull_request', 'Merge a GitHub pull request', 1.31],
        ['list_pull_requests', 'List open pull requests for a GitHub repository', 1.11],
      ],
      weather: [['get_weather', 'Get the current weather forecast for a city', 4.86]],
      send: [
        ['send_email', 'Send an email to a recipient', 4.33],
        ['send_slack_message', 'Send a message to a Slack channel', 4.24],
      ],
      'slack channel': [
        ['create_slack_channel', 'Create a new Slack channel', 8.67],
        ['send_slack_message', 'Send a message to a Slack channel', 5.81],
      ],
      'pull request': [
        ['merge_pull_request', 'Merge a GitHub pull request', 9.43],
        ['list_pull_requests', 'List open pull requests for a GitHub repository', 6.07],
      ],
      database: [
        ['db_insert', 'Insert a row into a database table', 1.31],
        ['db_update', 'Update rows in a database table', 1.31],
        ['db_query', 'Run a read-only SQL query against the database', 1.11],
      ],
      // 8 matches, cut to the default topK of 5; three-way tie at 5.09 in index order.
      'create send get merge list run insert update': [
        ['merge_pull_request', 'Merge a GitHub pull request', 5.09],
        ['db_insert', 'Insert a row into a database table', 5.09],
        ['db_update', 'Update rows in a database table', 5.09],
        ['get_weather', 'Get the current weather forecast for a city', 4.86],
        ['list_pull_requests', 'List open pull requests for a GitHub repository', 4.75],
      ],
    }
    const [ref, ours] = await both((P) => stepOf(P, { tools }))
    for (const [q, rows] of Object.entries(expected)) {
      const got = await search(ours.s, q)
      assert.deepEqual(
        got,
        { results: rows.map(([name, description, score]) => ({ name, description, score })), message: FOUND(rows.length) },
        `query ${JSON.stringify(q)}`,
      )
      assert.deepEqual(got, await search(ref.s, q))
    }
    assert.deepEqual(await search(ours.s, 'xyz'), { results: [], message: NONE('xyz') })
    assert.deepEqual(await search(ours.s, ''), { results: [], message: NONE('') })
    assert.deepEqual(await search(ours.s, 'a'), { results: [], message: NONE('a') }, 'one-letter tokens are dropped')
  })

  test('the weather score is BM25 (k1 1.5, b 0.75, IDF ln((N-df+.5)/(df+.5)+1)) plus the +2 id-contains boost', async () => {
    const { tools } = docsCatalog()
    // independent computation over the same documents "<id> <description>"
    const tok = (s) =>
      s
        .toLowerCase()
        .split(/[\s\-_.,;:!?()[\]{}'"]+/)
        .filter((t) => t.length >= 2)
    const docs = Object.values(tools).map((t) => tok(`${t.id} ${t.description}`))
    const avg = docs.reduce((a, d) => a + d.length, 0) / docs.length
    const doc = tok(`get_weather ${tools.getWeather.description}`)
    const tf = doc.filter((t) => t === 'weather').length
    const df = docs.filter((d) => d.includes('weather')).length
    const idf = Math.log((docs.length - df + 0.5) / (df + 0.5) + 1)
    const bm25 = idf * ((tf * 2.5) / (tf + 1.5 * (1 - 0.75 + 0.75 * (doc.length / avg))))
    const expected = Math.round((bm25 + 2) * 100) / 100
    assert.equal(expected, 4.86)
    const { s } = await stepOf(Ours, { tools })
    assert.equal((await search(s, 'weather')).results[0].score, expected)
  })

  test('minScore 0 (default) keeps low-IDF matches; `search: { topK: 5, minScore: 0.1 }` drops them', async () => {
    const tools = lowIdfCatalog()
    const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon']
    const { s: def } = await stepOf(Ours, { tools })
    assert.deepEqual(await search(def, 'tool'), {
      results: names.map((n, i) => ({ name: n, description: `${n} helper tool number ${i}`, score: 0.06 })),
      message: FOUND(5),
    })
    const { s: strict } = await stepOf(Ours, { tools, search: { topK: 5, minScore: 0.1 } })
    assert.deepEqual(await search(strict, 'tool'), { results: [], message: NONE('tool') })
    // The docs example: same catalog shape as in the docs with topK 5 / minScore 0.1.
    const { tools: docsTools } = docsCatalog()
    const [ref, ours] = await both((P) => stepOf(P, { tools: docsTools, search: { topK: 5, minScore: 0.1 } }))
    for (const q of ['github issue', 'send', 'a', 'database query', 'create']) {
      assert.deepEqual(await search(ours.s, q), await search(ref.s, q), q)
    }
    assert.deepEqual(
      (await search(ours.s, 'github issue')).results.map((r) => r.name),
      ['create_issue', 'merge_pull_request', 'list_pull_requests'],
    )
  })

  test('topK bounds the results; topK 0 finds nothing', async () => {
    const tools = lowIdfCatalog()
    const { s: k3 } = await stepOf(Ours, { tools, search: { topK: 3 } })
    assert.deepEqual(
      (await search(k3, 'tool')).results.map((r) => r.name),
      ['alpha', 'beta', 'gamma'],
    )
    const { s: k0 } = await stepOf(Ours, { tools, search: { topK: 0 } })
    assert.deepEqual(await search(k0, 'tool'), { results: [], message: NONE('tool') })
  })

  test('a score exactly equal to minScore is dropped (score <= minScore), found by bisection on the reference', async () => {
    const { tools } = docsCatalog()
    const included = async (P, minScore) => {
      const { s } = await stepOf(P, { tools, search: { minScore } })
      return (await search(s, 'weather')).results.length === 1
    }
    // bisect the reference's unrounded score of get_weather for "weather"
    let lo = 4.8
    let hi = 4.9
    assert.equal(await included(Ref, lo), true)
    assert.equal(await included(Ref, hi), false)
    for (let i = 0; i < 200; i++) {
      const mid = lo + (hi - lo) / 2
      if (mid === lo || mid === hi) break
      if (await included(Ref, mid)) lo = mid
      else hi = mid
    }
    // hi is the exact score (the smallest minScore that drops it), lo the double below it
    assert.equal(await included(Ours, lo), true, 'minScore just below the score keeps the tool')
    assert.equal(await included(Ours, hi), false, 'minScore equal to the score drops the tool')
  })

  test('descriptions over 150 UTF-16 units become the first 147 + "..."; exactly 150 is kept', async () => {
    const d150 = 'weather ' + 'x'.repeat(142)
    const d151 = 'weather ' + 'y'.repeat(143)
    const emoji = 'weather ' + '🔥'.repeat(80) // 168 units; cut inside a surrogate pair at 147
    const tools = {
      a: createTool({ id: 'a150', description: d150, execute: async () => ({}) }),
      b: createTool({ id: 'b151', description: d151, execute: async () => ({}) }),
      c: createTool({ id: 'c_emoji', description: emoji, execute: async () => ({}) }),
    }
    const [ref, ours] = await both((P) => stepOf(P, { tools }))
    const got = await search(ours.s, 'weather')
    const byName = Object.fromEntries(got.results.map((r) => [r.name, r.description]))
    assert.equal(byName.a150, d150)
    assert.equal(byName.b151, d151.slice(0, 147) + '...')
    assert.equal(byName.c_emoji, emoji.slice(0, 147) + '...')
    assert.equal(byName.c_emoji.length, 150)
    assert.deepEqual(got, await search(ref.s, 'weather'))
  })
})

test('the defaults the core applies are the documented ones', () => {
  assert.deepEqual(toolSearchProtocol().defaults, {
    topK: 5,
    minScore: 0,
    autoLoad: false,
    storage: 'in-memory',
    ttl: 3_600_000,
    includeResolvedTools: false,
    injectCatalog: false,
    ranking: 'reference',
    syntax: 'words',
    filterConcurrency: 1,
    thread: 'default',
  })
  assert.deepEqual(toolSearchProtocol().storages, ['in-memory', 'context'])
  assert.deepEqual(toolSearchProtocol().rankings, ['reference', 'fielded', 'hybrid'])
  assert.deepEqual(toolSearchProtocol().syntaxes, ['words', 'regex'])
  assert.deepEqual(toolSearchProtocol().phases, ['search', 'load', 'active'])
})

describe('JavaScript string semantics', () => {
  test('JS toLowerCase semantics: final sigma, dotted İ, ß (tokenizer, name boost and suggestions)', async () => {
    const mk = (id, d) => createTool({ id, description: d, execute: async () => ({}) })
    const tools = {
      σ: mk('sigma_small', 'small sigma'),
      'email.channel.Σ': mk('email.channel.Σ', 'ends with capital sigma ΟΔΟΣ'),
      ΣΊΣΥΦΟΣ: mk('ΣΊΣΥΦΟΣ', 'Sisyphus ΣΊΣΥΦΟΣ'),
      İstanbul: mk('İstanbul', 'city İstanbul'),
      straße: mk('STRASSE', 'street straße'),
    }
    const [ref, ours] = await both(async (P) => {
      const { s } = await stepOf(P, { tools })
      const loads = {}
      for (const n of ['Σ', 'ς', 'σ', 'i̇stanbul', 'ΣΊΣ', 'strasse']) loads[n] = await load(s, { toolName: n })
      const searches = {}
      for (const q of ['σίσυφος', 'ΣΊΣΥΦΟΣ', 'οδος', 'οδοσ', 'i̇stanbul', 'istanbul', 'İSTANBUL', 'strasse', 'STRAßE', 'Σ']) {
        searches[q] = (await search(s, q)).results.map((r) => [r.name, r.score])
      }
      return { loads, searches }
    })
    assert.equal(ours.loads['Σ'].message, 'Tool "Σ" not found. Did you mean: σ, ΣΊΣΥΦΟΣ?')
    assert.equal(ours.loads['ς'].message, 'Tool "ς" not found. Did you mean: email.channel.Σ, ΣΊΣΥΦΟΣ?')
    assert.equal(ours.loads['ΣΊΣ'].message, 'Tool "ΣΊΣ" not found. Did you mean: σ?')
    assert.equal(ours.loads['i̇stanbul'].message, 'Tool "i̇stanbul" not found. Did you mean: İstanbul?')
    assert.deepEqual(ours.searches, {
      σίσυφος: [['ΣΊΣΥΦΟΣ', 7.15]],
      ΣΊΣΥΦΟΣ: [['ΣΊΣΥΦΟΣ', 7.15]],
      οδος: [['email.channel.Σ', 1.04]],
      οδοσ: [],
      i̇stanbul: [['İstanbul', 7.15]],
      istanbul: [],
      İSTANBUL: [['İstanbul', 7.15]],
      strasse: [['STRASSE', 6.56]],
      STRAßE: [['STRASSE', 1.56]],
      Σ: [],
    })
    assert.deepEqual(ours, ref)
  })
})
