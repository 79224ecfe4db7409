// `filterConcurrency` (this package's own option): the filter hook asked
// about up to N tools at once, in every phase, deciding exactly as one at a
// time does. Against each tested release's own processor: the seeded
// differential scenarios with N above 1 (the same tools, messages, results
// and stats; the hook asked about the reference's tools, in its order, and
// in a search or a load's suggestions about at most N - 1 more), hooks that
// wait, throw, reject or answer oddly, how many calls are in flight at once,
// that nothing is left pending when a call returns, and the refusals.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchHarness, TESTED_RELEASES } from './helpers/releases.mjs'
import { compareAskingAhead, hookCalls, withConcurrency } from './helpers/filter-concurrency.mjs'
import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { cases } from './helpers/counts.mjs'

const CASES = cases('TS_CONCURRENCY_CASES', { quick: 100, all: 300 })
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

describe('seeded scenarios against each release, with the hook asked ahead', () => {
  for (const version of TESTED_RELEASES) {
    test(`${version}: ${CASES} scenarios at filterConcurrency 2 and 8`, { timeout: 600_000 }, async () => {
      const h = await toolSearchHarness(version)
      const Ref = h.release.reference.ToolSearchProcessor
      const Ours = await h.loadOurs()
      const clock = h.installClock(1_700_000_000_000)
      const intervals = h.captureIntervals()
      const failures = []
      let askedAhead = 0
      try {
        for (let seed = 1; seed <= CASES && failures.length < 4; seed++) {
          const scenario = h.genScenario(seed)
          clock.set(1_700_000_000_000)
          const ref = await h.runScenario(Ref, scenario, { role: 'ref', clock })
          intervals.clearAll()
          for (const concurrency of [2, 8]) {
            clock.set(1_700_000_000_000)
            const ours = await h.runScenario(withConcurrency(Ours, concurrency), scenario, { role: 'ours', clock })
            intervals.clearAll()
            const diff = compareAskingAhead(ref, ours, concurrency, h.firstDiff)
            if (diff)
              failures.push(
                `seed ${seed} at ${concurrency}: ${diff.path}\n  ours: ${JSON.stringify(diff.ours)?.slice(0, 600)}\n  ref:  ${JSON.stringify(diff.ref)?.slice(0, 600)}`,
              )
            askedAhead += hookCalls(ours) - hookCalls(ref)
          }
        }
      } finally {
        intervals.restore()
        clock.restore()
      }
      assert.deepEqual(failures, [])
      assert.ok(askedAhead > 0, 'some searches asked ahead')
    })
  }
})

const { both, search, load, runStep, makeRequestContext, createTool, z, Ref, Ours } = await toolSearchKit('1.71.0')

/** Twenty tools, each with a parameter; ids `tool_00` to `tool_19`. */
function catalog() {
  const tools = {}
  for (let i = 0; i < 20; i++) {
    const id = `tool_${String(i).padStart(2, '0')}`
    tools[id] = createTool({
      id,
      description: `Weather ${i % 3 === 0 ? 'forecast' : 'report'} number ${i}`,
      inputSchema: z.object({ city: z.string() }),
      execute: async () => ({ id }),
    })
  }
  return tools
}

/**
 * A hook whose answer for each tool is one of the ways a hook can answer:
 * at once, later, by throwing, by rejecting, with a truthy or falsy
 * non-boolean, a thenable. It logs each call as `phase:toolName` and counts
 * the calls in flight (`inFlight`, most at once `peak`, `settled`).
 */
function mixedHook() {
  const ways = [
    () => true,
    () => sleep(3).then(() => true),
    () => {
      throw new Error('denied by throwing')
    },
    () => Promise.reject(new Error('denied by rejecting')),
    () => sleep(1).then(() => false),
    () => 'yes',
    () => 0,
    () => ({ then: (resolve) => setTimeout(() => resolve(true), 2) }),
    () =>
      sleep(5).then(() => {
        throw new Error('late failure')
      }),
    () => new Promise((resolve) => queueMicrotask(() => resolve(1))),
  ]
  const state = { calls: [], inFlight: 0, peak: 0, settled: 0 }
  state.filter = ({ toolName, phase }) => {
    state.calls.push(`${phase}:${toolName}`)
    const way = ways[Number(toolName.slice(-2)) % ways.length]
    state.inFlight++
    state.peak = Math.max(state.peak, state.inFlight)
    let answer
    try {
      answer = way()
    } catch (error) {
      state.inFlight--
      state.settled++
      throw error
    }
    if (answer === null || typeof answer !== 'object' || typeof answer.then !== 'function') {
      state.inFlight--
      state.settled++
      return answer
    }
    return Promise.resolve(answer).finally(() => {
      state.inFlight--
      state.settled++
    })
  }
  return state
}

/** Every phase through one processor: the catalog, searches, loads, the next step's tools. */
async function everyPhase(P, options, hook) {
  const rc = makeRequestContext({ threadId: 'thread' })
  const tools = catalog()
  const processor = new P({ tools, ttl: 0, injectCatalog: true, filter: hook.filter, ...options })
  const first = await runStep(processor, { tools: {}, requestContext: rc })
  const observed = { system: first.systemCalls, searches: [], loads: [] }
  for (const query of ['weather', 'forecast number', 'report 7', 'nothing']) observed.searches.push(await search(first, query, rc))
  for (const input of [{ toolName: 'tool_01' }, { toolName: 'tool_0' }, { toolNames: Object.keys(tools) }, { toolName: 'nope' }]) {
    observed.loads.push(await load(first, input, rc))
  }
  const next = await runStep(processor, { tools: {}, requestContext: rc })
  observed.next = { tools: next.toolNames, system: next.systemCalls }
  return observed
}

/** Whether `short` is `long` with some elements left out. */
function isSubsequence(short, long) {
  let i = 0
  for (const item of long) if (i < short.length && item === short[i]) i++
  return i === short.length
}

describe('hooks that wait, throw, reject or answer oddly', () => {
  for (const concurrency of [1, 2, 4, 32]) {
    test(`filterConcurrency ${concurrency}: every phase answers as the reference, one call at a time or not`, async () => {
      const hooks = { ref: mixedHook(), ours: mixedHook() }
      const [ref, ours] = await both((P, side) => everyPhase(P, side === 'ours' ? { filterConcurrency: concurrency } : {}, hooks[side]))
      assert.deepEqual(ours, ref)
      assert.equal(hooks.ref.peak, 1)
      assert.ok(hooks.ours.peak <= concurrency && (concurrency === 1 || hooks.ours.peak > 1), `${hooks.ours.peak} at once`)
      // The reference's calls, in its order; searches and suggestions may ask
      // ahead of it (four of each here), by at most N - 1 each.
      if (concurrency === 1) assert.deepEqual(hooks.ours.calls, hooks.ref.calls)
      assert.ok(isSubsequence(hooks.ref.calls, hooks.ours.calls))
      assert.ok(hooks.ours.calls.length - hooks.ref.calls.length <= (concurrency - 1) * 8)
      assert.equal(hooks.ours.inFlight, 0)
      assert.equal(hooks.ours.settled, hooks.ours.calls.length)
    })
  }
})

test('as many calls in flight as allowed, in every phase', async () => {
  for (const concurrency of [1, 3, 8, 64]) {
    const peaks = {}
    let inFlight = 0
    const filter = async ({ phase }) => {
      inFlight++
      peaks[phase] = Math.max(peaks[phase] ?? 0, inFlight)
      await sleep(2)
      inFlight--
      return true
    }
    const tools = catalog()
    const processor = new Ours({ tools, ttl: 0, injectCatalog: true, filter, filterConcurrency: concurrency, search: { topK: 20 } })
    const rc = makeRequestContext({ threadId: 'thread' })
    const step = await runStep(processor, { tools: {}, requestContext: rc })
    assert.equal((await search(step, 'weather', rc)).results.length, 20)
    assert.equal((await load(step, { toolNames: Object.keys(tools) }, rc)).loadedCount, 20)
    await runStep(processor, { tools: {}, requestContext: rc })
    const most = Math.min(concurrency, 20)
    assert.deepEqual(peaks, { search: most, load: most, active: most }, `filterConcurrency ${concurrency}`)
  }
})

test('nothing is left pending when a call returns, not even a question asked ahead and no longer needed', async () => {
  // topK 1: the first tool allowed ends the search; the tools after it,
  // asked ahead, answer later than it does.
  const state = { calls: [], pending: 0 }
  const filter = async ({ toolName }) => {
    state.calls.push(toolName)
    state.pending++
    await sleep(toolName === 'tool_00' ? 1 : 15)
    state.pending--
    return true
  }
  const processor = new Ours({ tools: catalog(), ttl: 0, filter, filterConcurrency: 6, search: { topK: 1 } })
  const rc = makeRequestContext({ threadId: 'thread' })
  const step = await runStep(processor, { tools: {}, requestContext: rc })
  const result = await search(step, 'forecast', rc)
  assert.deepEqual(
    result.results.map((r) => r.name),
    ['tool_00'],
  )
  assert.equal(state.pending, 0, 'every hook call asked had settled')
  assert.deepEqual(state.calls, ['tool_00', 'tool_03', 'tool_06', 'tool_09', 'tool_12', 'tool_15'], 'asked ahead: five more, never more than N - 1')
})

test('questions not yet handed to the hook when the walk ends are never asked', async () => {
  // A synchronous hook: each batch is asked and answered at once; the walk
  // stops within the first batch, so no second is asked.
  const calls = []
  const processor = new Ours({
    tools: catalog(),
    ttl: 0,
    filter: ({ toolName }) => (calls.push(toolName), true),
    filterConcurrency: 3,
    search: { topK: 2 },
  })
  const rc = makeRequestContext({ threadId: 'thread' })
  const step = await runStep(processor, { tools: {}, requestContext: rc })
  assert.deepEqual(
    (await search(step, 'forecast', rc)).results.map((r) => r.name),
    ['tool_00', 'tool_03'],
  )
  assert.deepEqual(calls, ['tool_00', 'tool_03', 'tool_06'])
})

test('a synchronous hook keeps the injected catalog synchronous and asks in batches', async () => {
  const calls = []
  const tools = catalog()
  const processor = new Ours({
    tools,
    ttl: 0,
    injectCatalog: true,
    filterConcurrency: 8,
    filter: ({ toolName }) => (calls.push(toolName), !toolName.endsWith('3')),
  })
  const reference = new Ref({ tools, ttl: 0, injectCatalog: true, filter: ({ toolName }) => !toolName.endsWith('3') })
  const rc = makeRequestContext({ threadId: 'thread' })
  const [ours, ref] = [await runStep(processor, { tools: {}, requestContext: rc }), await runStep(reference, { tools: {}, requestContext: rc })]
  assert.deepEqual(ours.systemCalls, ref.systemCalls)
  assert.deepEqual(calls, Object.keys(tools))
})

test('a value the record refuses fails the call once the calls in flight have settled', async () => {
  const tools = catalog()
  const errors = []
  for (const concurrency of [1, 4]) {
    const record = { ...tools }
    let pending = 0
    const filter = async () => {
      pending++
      await sleep(2)
      pending--
      return true
    }
    const processor = new Ours({ tools: record, ttl: 0, filter, filterConcurrency: concurrency })
    const rc = makeRequestContext({ threadId: 'thread' })
    const step = await runStep(processor, { tools: {}, requestContext: rc })
    // A key put in the record since, holding no tool: looked up by its name, it is read and refused.
    record.broken = 5
    const error = await step.result.tools.load_tool.execute({ toolNames: ['tool_01', 'broken', 'tool_02'] }, { requestContext: rc }).then(
      () => null,
      (e) => e,
    )
    assert.equal(pending, 0, `${concurrency}: nothing in flight`)
    errors.push(error && `${error.name}: ${error.message}`)
  }
  assert.equal(errors[1], errors[0])
  assert.match(errors[0], /^TypeError: ToolSearchProcessor: /)
})

test('filterConcurrency must be a positive integer', () => {
  for (const [value, described] of [
    [0, 'the number 0'],
    [-1, 'the number -1'],
    [1.5, 'the number 1.5'],
    ['4', 'the string "4"'],
    [NaN, 'the number NaN'],
    [Infinity, 'the number Infinity'],
    [true, 'the boolean true'],
    [{}, 'an object'],
  ]) {
    assert.throws(() => new Ours({ tools: catalog(), filterConcurrency: value }), {
      name: 'TypeError',
      message: `ToolSearchProcessor: options.filterConcurrency must be a positive integer, got ${described}`,
    })
  }
  for (const value of [undefined, null, 1, 2, 1e9, Number.MAX_SAFE_INTEGER]) new Ours({ tools: catalog(), filterConcurrency: value })
})
