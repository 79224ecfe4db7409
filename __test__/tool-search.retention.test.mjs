// What a processor keeps alive for a caller that makes steps without a turn
// of the event loop (a loop that awaits processInputStep and nothing else):
// Rust frees a step catalog, and a pooled tool's analysis, when the objects
// holding them are collected, which Node tells it only after a turn. So the
// wrapper lets go of this turn's older step catalogs (and makes one again
// should its step be searched after all) and sweeps the pool of tools no
// recent step used (see `STEP_CATALOGS_PER_TURN` in lib/tool-search.js and
// the protocol's `retention`). These tests
// check that old steps still answer exactly as the reference's, that swept
// tools come back right, and, in a child process, that memory stays flat.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { mulberry32 } from './helpers/random.mjs'

const require = createRequire(import.meta.url)
const { toolPoolStats, stepCatalogStats, STEP_CATALOGS_PER_TURN: stepCatalogsPerTurn } = require('../lib/tool-search.js')
const { toolSearchProtocol } = require('../lib/native.js')
const { poolSweepFloor, poolSweepFactor, poolKeptSelections } = toolSearchProtocol().retention

const { Ref, Ours, createTool, z, Labels, runStep, makeRequestContext, execTool, describeTools } = await toolSearchKit('1.71.0')

const WORDS = ['weather', 'forecast', 'email', 'send', 'issue', 'github', 'calendar', 'invoice', 'query', 'records', 'user', 'file']
const QUERIES = ['weather forecast', 'send email', 'github issue', 'query records user']

function makePool(rand, count, labels) {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]
  const sentence = () => Array.from({ length: 3 + Math.floor(rand() * 8) }, pick).join(' ')
  return Array.from({ length: count }, (_, i) => {
    const id = `tool_${i}_${pick()}`
    const tool =
      i % 4 === 0
        ? { id, description: sentence(), execute: async () => ({ i }) }
        : createTool({ id, description: sentence(), inputSchema: z.object({ [pick()]: z.string().describe(sentence()) }), execute: async () => ({ i }) })
    labels.set(tool, `t${i}`)
    return [i % 5 === 0 ? `key_${i}` : id, tool]
  })
}

function selection(rand, pool) {
  const picked = pool.filter(() => rand() < 0.7)
  for (let i = picked.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[picked[i], picked[j]] = [picked[j], picked[i]]
  }
  return Object.fromEntries(picked)
}

/** Everything a model can ask of a step made earlier: searches, a load, and the tools loaded after it. */
async function laterAnswers(processor, step, tools, labels, requestContext) {
  const searches = []
  for (const query of QUERIES) searches.push(await execTool(step.result.tools.search_tools, { query }, { requestContext }))
  const names = Object.keys(tools).slice(0, 3)
  const load = await execTool(step.result.tools.load_tool, { toolNames: [...names, 'missing_tool'] }, { requestContext })
  const resumed = describeTools(await processor.getLoadedToolsForRequestContext({ requestContext, tools }), labels)
  return { tools: step.tools, system: step.systemCalls, searches, load, resumed }
}

/**
 * `steps` selections of a pool made steps of one after another in one turn
 * (by `makeSteps(tools, labels, requestContext)`, which gives `[processor,
 * step]` pairs), with `change(tool, i)` done to some tools between them;
 * then each step searched, loaded from and resumed, oldest first: per
 * selection, the answers of each pair.
 */
async function stepsThenAnswers(seed, steps, change, makeSteps) {
  const rand = mulberry32(seed)
  const labels = new Labels()
  const pool = makePool(rand, 60, labels)
  const made = []
  for (let i = 0; i < steps; i++) {
    const tools = selection(rand, pool)
    const requestContext = makeRequestContext({ threadId: `step-${i}` })
    made.push({ pairs: await makeSteps(tools, labels, requestContext), tools, requestContext })
    // What the earlier steps read must stay what they answer from.
    for (const [, tool] of pool) if (rand() < 0.1) change(tool, i)
  }
  const answers = []
  for (const { pairs, tools, requestContext } of made) {
    const each = []
    for (const [processor, step] of pairs) each.push(await laterAnswers(processor, step, tools, labels, requestContext))
    answers.push(each)
  }
  return answers
}

const describeAgain = (tool, i) => (tool.description = `${tool.description} ${WORDS[i % WORDS.length]} changed`)
const schemaAgain = (tool, i) => (tool.inputSchema = z.object({ [WORDS[i % WORDS.length]]: z.string().describe('changed') }))

describe('step catalogs made within one turn of the event loop', () => {
  const steps = stepCatalogsPerTurn + 5
  const oneStep = (processor) => async (tools, labels, requestContext) => [[processor, await runStep(processor, { labels, tools, requestContext })]]

  const hook = { filter: ({ toolName }) => !toolName.startsWith('tool_3'), injectCatalog: true }
  for (const [seed, extra] of [
    [1, {}],
    [2, {}],
    [3, hook],
  ]) {
    const named = extra.filter ? ', with a filter hook and the catalog injected' : ''
    test(`seed ${seed}${named}: the older ones are let go of, made again when searched, and answer as the reference's`, async () => {
      const options = { tools: {}, ttl: 0, includeResolvedTools: true, ...extra }
      const ours = new Ours(options)
      const a = await stepsThenAnswers(seed, steps, describeAgain, oneStep(new Ref(options)))
      const b = await stepsThenAnswers(seed, steps, describeAgain, oneStep(ours))
      assert.deepEqual(b, a)
      const { letGo, madeAgain } = stepCatalogStats(ours)
      assert.ok(letGo >= steps - stepCatalogsPerTurn, `let go of ${letGo}`)
      assert.ok(madeAgain >= steps - stepCatalogsPerTurn, `made again ${madeAgain}`)
    })
  }

  test("'fielded' ranking (parameters read): a catalog made again answers as one never let go of", async () => {
    const options = { tools: {}, ttl: 0, includeResolvedTools: true, search: { ranking: 'fielded', topK: 8 } }
    const ours = new Ours(options)
    // A processor of its own for each step makes one catalog and never lets go of it.
    const alone = []
    const answers = await stepsThenAnswers(9, steps, schemaAgain, async (tools, labels, requestContext) => {
      alone.push(new Ours(options))
      return Promise.all([ours, alone.at(-1)].map(async (p) => [p, await runStep(p, { labels, tools, requestContext })]))
    })
    for (const [i, [made, kept]] of answers.entries()) assert.deepEqual(made, kept, `step ${i}`)
    assert.ok(stepCatalogStats(ours).madeAgain >= steps - stepCatalogsPerTurn)
    for (const processor of alone) assert.equal(stepCatalogStats(processor).letGo, 0)
  })
})

describe('the tool pool within one turn of the event loop', () => {
  test('tools no recent step used are swept once the pool outgrows its bounds, and answer as the reference when they come back', async () => {
    const size = Math.ceil(poolSweepFloor / (poolSweepFactor - 1))
    const make = (prefix) =>
      Object.fromEntries(
        Array.from({ length: size }, (_, i) => [`${prefix}_${i}`, { id: `${prefix}_${i}`, description: `${prefix} tool ${WORDS[i % WORDS.length]} ${i}` }]),
      )
    const options = { tools: {}, ttl: 0, includeResolvedTools: true }
    const ours = new Ours(options)
    const first = make('first')
    const bound = Math.max(poolSweepFloor, poolSweepFactor * size)
    let swept = false
    for (let i = 0; i <= Math.max(poolSweepFactor, poolKeptSelections) + 1; i++) {
      await runStep(ours, { tools: i === 0 ? first : make(`s${i}`) })
      const { tools } = toolPoolStats(ours)
      assert.ok(tools <= bound + size, `step ${i}: ${tools} tools analysed`)
      swept ||= tools < (i + 1) * size
    }
    assert.ok(swept, 'the pool was never swept')
    // The first step's tools were swept: they are analysed again.
    const requestContext = makeRequestContext({ threadId: 'back' })
    const answers = async (processor) => {
      const step = await runStep(processor, { tools: first, requestContext })
      const out = []
      for (const query of ['first weather 7', 'tool email', 'first_12']) out.push(await execTool(step.result.tools.search_tools, { query }, { requestContext }))
      return out
    }
    assert.deepEqual(await answers(ours), await answers(new Ref(options)))
  })
})

describe('memory of steps made without a turn of the event loop', () => {
  // In a process of its own, so that nothing else is on the heap.
  const child = fileURLToPath(new URL('./helpers/retention-loop.mjs', import.meta.url))
  for (const mode of ['selection', 'hooked', 'new-tools']) {
    test(`${mode}: resident memory stays flat over 150 steps`, () => {
      const run = spawnSync(process.execPath, ['--expose-gc', child, mode], { encoding: 'utf8' })
      assert.equal(run.status, 0, run.stderr)
      const { early, late } = JSON.parse(run.stdout)
      // Before the bounds, 70 MB (selection, hooked) and 150 MB (new tools)
      // stayed from the 60th step to the 150th; since, at most 15 MB (Node 24).
      assert.ok(late - early < 32 * 2 ** 20, `RSS grew ${((late - early) / 2 ** 20).toFixed(1)} MiB`)
    })
  }
})

describe("what a step's meta-tools keep alive", () => {
  // Mastra keeps a step's tools while the model calls them. They must hold
  // only what their execute uses: a closure over the step's arguments kept
  // the arguments' MessageList alive with every tool, and, once V8
  // pretenured the tools, promoted every step's message list (docs/differences.md).
  test('the step arguments and their message list go while the tools are kept', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc')
    const tools = Object.fromEntries(makePool(mulberry32(5), 20, new Labels()))
    const processor = new Ours({ tools, ttl: 0 })
    const requestContext = makeRequestContext({ threadId: 'kept' })
    let collected = 0
    const registry = new FinalizationRegistry(() => collected++)
    /** A step's tools, made of arguments nothing else holds. */
    const stepTools = async (i) => {
      const messageList = { addSystem() {}, get: { all: { db: () => [] } } }
      const args = { messageList, requestContext, messages: [], tools: {}, stepNumber: 0, steps: [], state: {} }
      registry.register(messageList, i)
      registry.register(args, i)
      return (await processor.processInputStep(args)).tools
    }
    const kept = []
    for (let i = 0; i < 4; i++) kept.push(await stepTools(i))
    for (let round = 0; round < 3 && collected < 8; round++) {
      await new Promise((resolve) => setImmediate(resolve))
      gc()
      await new Promise((resolve) => setImmediate(resolve))
    }
    assert.equal(collected, 8, 'every step argument and message list collected')
    // The tools kept still answer.
    const found = await kept[0].search_tools.execute({ query: 'weather forecast' }, { requestContext })
    assert.ok(found.results.length > 0)
    const loaded = await kept[3].load_tool.execute({ toolName: found.results[0].name }, { requestContext })
    assert.equal(loaded.success, true)
  })
})
