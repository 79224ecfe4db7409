// load_tool, literally: its three result shapes, suggestions from record
// keys, duplicates and already-loaded names, input validation, JavaScript
// key order and '' ids, own keys named like Object.prototype members, and a
// previous step's meta-tools. Release-independent: run on 1.71.0, each
// result also compared with its reference.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const { Ours, both, stepOf, search, load, tagged, Labels, runStep, execTool, makeRequestContext, docsCatalog } = await toolSearchKit('1.71.0')

describe('load_tool', () => {
  test('load_tool: single and multi shapes, suggestions from record keys, duplicates, already loaded, empty input', async () => {
    const { tools, labels } = docsCatalog()
    const rc = makeRequestContext({ threadId: 'th-load' })
    const run = async (P) => {
      const p = new P({ tools, ttl: 0 })
      const s = await runStep(p, { labels, requestContext: rc })
      const outs = []
      for (const input of [
        { toolName: 'get_weather' },
        { toolName: 'getWeather' },
        { toolName: 'weather' },
        { toolName: 'send' },
        { toolNames: ['send_email', 'db_query', 'nope', 'send_email'] },
        { toolName: 'get_weather' },
        { toolNames: ['get_weather'], toolName: 'mergePR' },
        {},
        { toolNames: [] },
        { toolNames: [], toolName: 'listPRs' },
        { toolName: '' },
      ])
        outs.push(await load(s, input, rc))
      const s2 = await runStep(p, { labels, requestContext: rc, stepNumber: 1 })
      return { outs, s2 }
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours.outs, [
      { success: true, message: 'Tool "get_weather" loaded successfully. It will be available on your next turn.', toolName: 'get_weather' },
      { success: true, message: 'Tool "getWeather" loaded successfully. It will be available on your next turn.', toolName: 'getWeather' },
      { success: false, message: 'Tool "weather" not found. Did you mean: getWeather?', toolName: 'weather' },
      { success: false, message: 'Tool "send" not found. Did you mean: sendMessage, sendEmail?', toolName: 'send' },
      {
        success: false,
        message: 'Loaded: send_email, db_query — available on your next turn | Not found: nope',
        loadedCount: 2,
        loaded: ['send_email', 'db_query'],
        notFound: ['nope'],
        alreadyLoaded: undefined,
      },
      { success: true, message: 'Tool "get_weather" is already loaded and available.', toolName: 'get_weather' },
      {
        success: true,
        message: 'Loaded: mergePR — available on your next turn | Already loaded: get_weather',
        loadedCount: 1,
        loaded: ['mergePR'],
        notFound: undefined,
        alreadyLoaded: ['get_weather'],
      },
      { success: false, message: 'You must provide either toolName (string) or toolNames (array) to load.' },
      { success: false, message: 'toolNames array must not be empty.' },
      {
        success: true,
        message: 'Loaded: listPRs — available on your next turn',
        loadedCount: 1,
        loaded: ['listPRs'],
        notFound: undefined,
        alreadyLoaded: undefined,
      },
      { success: false, message: 'You must provide either toolName (string) or toolNames (array) to load.' },
    ])
    // Loaded by id and by key are separate entries, in load order, after the meta-tools.
    assert.deepEqual(ours.s2.tools, [
      ['search_tools', ours.s2.tools[0][1]],
      ['load_tool', ours.s2.tools[1][1]],
      ['get_weather', 'getWeather'],
      ['getWeather', 'getWeather'],
      ['send_email', 'sendEmail'],
      ['db_query', 'query'],
      ['mergePR', 'mergePR'],
      ['listPRs', 'listPRs'],
    ])
    assert.deepEqual(ours.outs, ref.outs)
    assert.deepEqual(ours.s2.tools, ref.s2.tools)
  })

  test('more than three suggestions are cut to three', async () => {
    const tools = {}
    for (const k of ['sendA', 'sendB', 'sendC', 'sendD', 'sendE']) tools[k] = tagged(`id_${k}`, 'sender', k)
    const [ref, ours] = await both(async (P) => {
      const { s } = await stepOf(P, { tools })
      return load(s, { toolName: 'send' })
    })
    assert.deepEqual(ours, { success: false, message: 'Tool "send" not found. Did you mean: sendA, sendB, sendC?', toolName: 'send' })
    assert.deepEqual(ours, ref)
  })

  test('meta-tools validate input like createTool tools (same error objects as the reference)', async () => {
    const { tools } = docsCatalog()
    const [ref, ours] = await both(async (P) => {
      const { s } = await stepOf(P, { tools })
      const out = []
      for (const q of [{}, { query: 5 }, { query: null }, { query: ['x'] }, { query: 'weather', extra: true }]) {
        out.push(await execTool(s.result.tools.search_tools, q))
      }
      for (const l of [{ toolNames: 'x' }, { toolName: 5 }, { toolNames: [1] }, { toolName: null }, { toolName: 'get_weather', extra: 1 }]) {
        out.push(await execTool(s.result.tools.load_tool, l))
      }
      return out
    })
    assert.deepEqual(ours, ref)
    assert.equal(ours[1].value.error, true)
    assert.match(ours[1].value.message, /^Tool input validation failed for search_tools\./)
  })
})

describe('names', () => {
  test('integer-like keys and ids follow JS property order (they come first)', async () => {
    const labels = new Labels()
    const tools = {}
    for (const [k, id] of [
      ['b', '42'],
      ['7', 'seven'],
      ['a', 'alpha_1'],
      ['3', '3'],
    ])
      tools[k] = labels.set(tagged(id, `number tool ${k}`, k), k)
    const [ref, ours] = await both(async (P) => {
      const p = new P({ tools, ttl: 0 })
      const s = await runStep(p, { labels })
      const r = await search(s, 'number tool')
      await load(s, { toolNames: ['42', 'a', '7', 'seven', '3'] })
      const s2 = await runStep(p, { labels, stepNumber: 1 })
      return { r, names: s2.toolNames, tools: s2.tools.map(([n, d]) => [n, typeof d === 'string' ? d : 'meta']) }
    })
    assert.deepEqual(ours.names, ['3', '7', '42', 'search_tools', 'load_tool', 'a', 'seven'])
    assert.deepEqual(
      ours.r.results.map((x) => x.name),
      ['3', 'seven', '42', 'alpha_1'],
    )
    assert.deepEqual(ours, ref)
  })

  test("a tool whose id is '' is found by load_tool('') (lookup by id), like any other id", async () => {
    const labels = new Labels()
    const emptyId = labels.set({ id: '', description: 'weather tool with an empty id', execute: async () => ({}) }, 'emptyId')
    const tools = { keyed: emptyId, getWeather: labels.set(tagged('get_weather', 'weather', 'w'), 'w') }
    const [ref, ours] = await both(async (P) => {
      const { s, processor } = await stepOf(P, { tools })
      const out = [await load(s, { toolNames: ['', 'get_weather'] }), await search(s, 'weather empty')]
      const s2 = await runStep(processor, { labels, stepNumber: 1 })
      return { out, tools: s2.tools.slice(2) }
    })
    assert.deepEqual(ours.out[0], {
      success: true,
      message: 'Loaded: , get_weather — available on your next turn',
      loadedCount: 2,
      loaded: ['', 'get_weather'],
      notFound: undefined,
      alreadyLoaded: undefined,
    })
    // indexed under its key, but search cannot map the key back to a tool
    assert.deepEqual(
      ours.out[1].results.map((r) => r.name),
      ['get_weather'],
    )
    assert.deepEqual(ours.tools, [
      ['', 'emptyId'],
      ['get_weather', 'w'],
    ])
    assert.deepEqual(ours, ref)
  })

  test('(c) hostile names as OWN keys/ids behave like any other name (same as the reference)', async () => {
    const labels = new Labels()
    const mk = (id, tag) => labels.set(tagged(id, `hostile ${tag} tool`, tag), tag)
    const tools = {}
    Object.defineProperty(tools, '__proto__', { value: mk('__proto__', 'proto'), enumerable: true, configurable: true, writable: true })
    tools.constructor = mk('constructor', 'ctor')
    tools.toString = mk('to_string', 'tostr')
    tools[''] = mk('empty_key', 'emptykey')
    tools.long = mk('L'.repeat(5000), 'long')
    tools.valueOf = mk('', 'emptyid')
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort()
    const run = async (P) => {
      const p = new P({ tools, ttl: 0 })
      const s = await runStep(p, { labels })
      const out = []
      out.push(await search(s, 'hostile constructor'))
      out.push(await search(s, 'hostile ' + 'l'.repeat(5000)))
      out.push(await load(s, { toolNames: ['constructor', 'toString', 'to_string', '', 'L'.repeat(5000), 'valueOf'] }))
      out.push(await load(s, { toolName: 'tostr' }))
      const s2 = await runStep(p, { labels, stepNumber: 1 })
      out.push(s2.tools.slice(2))
      return out
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours, ref)
    assert.deepEqual(ours[2].loaded, ['constructor', 'toString', 'to_string', '', 'L'.repeat(5000), 'valueOf'])
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore)
    // own '__proto__' key: must not crash, must not pollute prototypes
    const p = new Ours({ tools, ttl: 0 })
    const s = await runStep(p, { labels })
    const r = await execTool(s.result.tools.load_tool, { toolName: '__proto__' })
    assert.ok(!r.threw || r.threw.isTypeError, `load_tool('__proto__') threw ${r.threw?.name}`)
    const s2 = await runStep(p, { labels, stepNumber: 1 })
    assert.equal(Object.getPrototypeOf(s2.result.tools), Object.prototype)
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore)
  })
})

describe('steps', () => {
  test("a previous step's meta-tools keep working on that step's snapshot", async () => {
    const { tools, labels } = docsCatalog()
    const [ref, ours] = await both(async (P) => {
      const p = new P({ tools, ttl: 0, search: { autoLoad: false } })
      const s1 = await runStep(p, { labels })
      await load(s1, { toolName: 'get_weather' })
      const s2 = await runStep(p, { labels, stepNumber: 1 })
      return {
        staleAgain: await load(s1, { toolName: 'get_weather' }), // s1's snapshot already has it (this call)
        fresh: await load(s2, { toolName: 'get_weather' }),
        staleNew: await load(s1, { toolName: 'send_email' }),
        names: (await runStep(p, { labels, stepNumber: 2 })).toolNames,
      }
    })
    assert.deepEqual(ours, ref)
    assert.equal(ours.fresh.message, 'Tool "get_weather" is already loaded and available.')
  })
})
