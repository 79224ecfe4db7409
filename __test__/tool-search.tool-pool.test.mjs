// includeResolvedTools over a pool of tools: each step a different seeded
// random selection of the same tool objects, as a server that resolves tools
// per request hands them. Ours keeps each tool's analysis in Rust under the
// tool object and builds each step's index from the kept analyses; these
// tests compare that, step by step, with the reference (tools handed out,
// search_tools answers, load_tool answers), with tools changed in place
// between steps, with the 'fielded' ranking (against a processor that has
// analysed nothing before), and check that analyses never hand one caller
// another's tool instances and are released with their tools.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { mulberry32 } from './helpers/random.mjs'

const require = createRequire(import.meta.url)
const { toolPoolStats, forgetPooledTool } = require('../lib/tool-search.js')

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')

const { Ref, Ours, createTool, z, Labels, runStep, makeRequestContext, execTool, describeTools } = await toolSearchKit('1.71.0')

const WORDS = ['weather', 'forecast', 'email', 'send', 'issue', 'github', 'calendar', 'invoice', 'query', 'records', 'user', 'file']
const QUERIES = ['weather forecast', 'send email', 'github issue', 'query records user', 'tool_3', 'nothing matches this']

/**
 * A pool of `count` tools: most made with createTool and keyed by their id,
 * some plain objects keyed otherwise, some without an id or with an empty one
 * (named by their key), names repeating.
 */
function makePool(rand, count, labels) {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]
  const sentence = () => Array.from({ length: 3 + Math.floor(rand() * 8) }, pick).join(' ')
  const pool = []
  for (let i = 0; i < count; i++) {
    const id = `tool_${Math.floor(rand() * count * 0.8)}_${pick()}`
    const kind = rand()
    let key = id
    let tool
    if (kind < 0.6) {
      tool = createTool({ id, description: sentence(), inputSchema: z.object({ [pick()]: z.string().describe(sentence()) }), execute: async () => ({ i }) })
    } else if (kind < 0.8) {
      key = `key_${i}_${pick()}`
      tool = { id, description: sentence(), execute: async () => ({ i }) }
    } else if (kind < 0.9) {
      key = `named_${i}_${pick()}`
      tool = { description: sentence(), execute: async () => ({ i }) }
    } else {
      key = `empty_${i}`
      tool = { id: '', description: sentence(), execute: async () => ({ i }) }
    }
    labels.set(tool, `t${i}`)
    pool.push([key, tool])
  }
  return pool
}

/** About `share` of the pool, in a random order; the later of two equal keys wins, as in an object. */
function selection(rand, pool, share) {
  const picked = pool.filter(() => rand() < share)
  for (let i = picked.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[picked[i], picked[j]] = [picked[j], picked[i]]
  }
  return Object.fromEntries(picked)
}

/** Changes some tools in place: a new description, a new id, or both. */
function mutate(rand, pool) {
  for (const [, tool] of pool) {
    if (rand() >= 0.08) continue
    const which = rand()
    if (which < 0.5) tool.description = `${tool.description ?? ''} ${WORDS[Math.floor(rand() * WORDS.length)]} changed`
    else if (which < 0.8 && tool.id) tool.id = `renamed_${tool.id}`
    else tool.description = undefined
  }
}

/** One step and everything a model can ask of it: the tools handed out, searches, a load, and the tools loaded after it. */
async function stepAnswers(processor, tools, labels, requestContext, names) {
  const step = await runStep(processor, { labels, tools, requestContext })
  const searches = []
  for (const query of QUERIES) searches.push(await execTool(step.result.tools.search_tools, { query }, { requestContext }))
  const load = await execTool(step.result.tools.load_tool, { toolNames: names }, { requestContext })
  const resumed = describeTools(await processor.getLoadedToolsForRequestContext({ requestContext, tools }), labels)
  return { tools: step.tools, searches, load, resumed }
}

describe('includeResolvedTools over random selections of a pool of tools', () => {
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: every step answers as the reference's, tools changed in place between steps`, async () => {
      const rand = mulberry32(seed)
      const labels = new Labels()
      const pool = makePool(rand, 80, labels)
      const record = Object.fromEntries(makePool(mulberry32(seed + 100), 6, labels).map(([key, tool], i) => [`${key}_r${i}`, tool]))
      const ref = new Ref({ tools: record, ttl: 0, includeResolvedTools: true })
      const ours = new Ours({ tools: record, ttl: 0, includeResolvedTools: true })
      for (let step = 0; step < 12; step++) {
        const tools = selection(rand, pool, 0.75)
        const keys = Object.keys(tools)
        const names = [keys[0], tools[keys[1]]?.id, 'missing_tool', keys[2]].filter((name) => typeof name === 'string')
        // Each step on a thread of its own, and every third on a shared one.
        const threadId = step % 3 === 0 ? 'shared' : `step-${step}`
        const [a, b] = [
          await stepAnswers(ref, tools, labels, makeRequestContext({ threadId }), names),
          await stepAnswers(ours, tools, labels, makeRequestContext({ threadId }), names),
        ]
        assert.deepEqual(b, a, `seed ${seed}, step ${step}`)
        if (step % 2 === 1) mutate(rand, pool)
      }
    })
  }

  for (const ranking of ['reference', 'fielded']) {
    test(`'${ranking}' ranking: reused analyses answer as a processor that analyses everything afresh`, async () => {
      const rand = mulberry32(7)
      const labels = new Labels()
      const pool = makePool(rand, 120, labels)
      const options = { tools: {}, ttl: 0, includeResolvedTools: true, search: { ranking, topK: 8 } }
      const reused = new Ours(options)
      for (let step = 0; step < 10; step++) {
        const tools = selection(rand, pool, 0.85)
        const names = Object.keys(tools).slice(0, 3)
        const threadId = `step-${step}`
        const [a, b] = [
          await stepAnswers(new Ours(options), tools, labels, makeRequestContext({ threadId }), names),
          await stepAnswers(reused, tools, labels, makeRequestContext({ threadId }), names),
        ]
        assert.deepEqual(b, a, `${ranking}, step ${step}`)
        // The input schema counts for 'fielded': one changed in place is read again.
        for (const [, tool] of pool) {
          if (rand() < 0.05) tool.inputSchema = z.object({ [WORDS[step % WORDS.length]]: z.string().describe('changed') })
        }
        mutate(rand, pool)
      }
    })
  }
})

describe('the pool holds analyses, never instances', () => {
  test('two requests whose tools share ids and descriptions each get their own instances', async () => {
    const labels = new Labels()
    const tagged = (tag) => ({
      mail: labels.set(createTool({ id: 'mail', description: 'Send mail as the user', execute: async () => ({ tag }) }), `mail-${tag}`),
      files: labels.set(createTool({ id: 'files', description: 'Read the user files', execute: async () => ({ tag }) }), `files-${tag}`),
    })
    const [alice, bob] = [tagged('alice'), tagged('bob')]
    const run = async (P) => {
      const p = new P({ tools: {}, ttl: 0, includeResolvedTools: true })
      const out = []
      for (let round = 0; round < 3; round++) {
        for (const [who, tools] of [
          ['alice', alice],
          ['bob', bob],
        ]) {
          const requestContext = makeRequestContext({ threadId: who })
          const step = await runStep(p, { labels, tools, requestContext, stepNumber: round })
          const search = await execTool(step.result.tools.search_tools, { query: 'send mail' }, { requestContext })
          const load = await execTool(step.result.tools.load_tool, { toolName: round === 0 ? 'mail' : 'files' }, { requestContext })
          const next = await runStep(p, { labels, tools, requestContext, stepNumber: round + 1 })
          const loaded = await p.getLoadedToolsForRequestContext({ requestContext, tools })
          const ran = await execTool(loaded.mail, {}, { requestContext })
          out.push({ who, tools: step.tools, search, load, next: next.tools, loaded: describeTools(loaded, labels), ran })
        }
      }
      return out
    }
    const [ref, ours] = [await run(Ref), await run(Ours)]
    for (const { who, next, loaded, ran } of ours) {
      for (const [, label] of [...next.slice(2), ...loaded]) assert.ok(label.endsWith(who), `${who} got ${label}`)
      assert.deepEqual(ran.value, { tag: who })
    }
    assert.deepEqual(ours, ref)
  })
})

describe('analyses go with their tools', () => {
  const options = { tools: {}, ttl: 0, includeResolvedTools: true }
  const make = (prefix, count) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}_${i}`, { id: `${prefix}_${i}`, description: `tool ${prefix}${i} number ${i}` }]))

  test("a collected tool's slot is released at the next step and taken by a new tool", async () => {
    const processor = new Ours(options)
    const first = make('a', 30)
    await runStep(processor, { tools: first })
    assert.deepEqual(toolPoolStats(processor), { tools: 30, slots: 30, free: 0, pending: 0 })
    // What the collection of ten of them does (the FinalizationRegistry's callback).
    const gone = Object.keys(first).slice(0, 10)
    for (const key of gone) forgetPooledTool(processor, first[key])
    assert.deepEqual(toolPoolStats(processor), { tools: 30, slots: 30, free: 0, pending: 10 })
    const kept = Object.fromEntries(Object.entries(first).slice(10))
    await runStep(processor, { tools: kept })
    assert.deepEqual(toolPoolStats(processor), { tools: 20, slots: 30, free: 10, pending: 0 })
    // Ten new tools take the free slots: no slot more than were alive at once.
    const second = { ...kept, ...make('b', 10) }
    const step = await runStep(processor, { tools: second })
    assert.deepEqual(toolPoolStats(processor), { tools: 30, slots: 30, free: 0, pending: 0 })
    const found = await execTool(step.result.tools.search_tools, { query: 'b3' })
    assert.equal(found.value.results[0].name, 'b_3')
    const old = await execTool(step.result.tools.search_tools, { query: 'a_3' })
    assert.ok(!old.value.results.some((r) => gone.includes(r.name)), JSON.stringify(old.value.results))
  })

  test('a step that fails on a bad tool leaves the pool as it was', async () => {
    const processor = new Ours(options)
    const tools = make('c', 5)
    await assert.rejects(runStep(processor, { tools: { ...make('d', 3), bad: { id: 7 } } }), TypeError)
    assert.deepEqual(toolPoolStats(processor), { tools: 0, slots: 0, free: 0, pending: 0 })
    await runStep(processor, { tools })
    assert.deepEqual(toolPoolStats(processor), { tools: 5, slots: 5, free: 0, pending: 0 })
  })

  test('collected tools are released', async () => {
    const processor = new Ours(options)
    await runStep(processor, { tools: make('e', 50) })
    // The last step's tools are kept (with its catalog) until another step.
    const kept = make('f', 5)
    await runStep(processor, { tools: kept })
    for (let i = 0; i < 10 && toolPoolStats(processor).pending < 50; i++) {
      gc()
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    assert.equal(toolPoolStats(processor).pending, 50)
    await runStep(processor, { tools: { ...kept, ...make('g', 5) } })
    assert.deepEqual(toolPoolStats(processor), { tools: 10, slots: 60, free: 50, pending: 0 })
  })
})
