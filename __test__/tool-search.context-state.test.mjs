// The 'context' store's same-process supplemental state (names a thread
// activated that its messages do not show yet) is bounded like the in-memory
// store's: swept after `ttl` idle, by the sweep timer and by cleanupNow(), and
// the state methods see and clear it. Everything else stays the reference's:
// names stay loaded until then, an agent loop whose next step carries the
// result leaves nothing behind (stats read 0, as the reference's always do).

import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const { Ours, both, load, runStep, makeRequestContext, toolInvocationMessage, installClock, docsCatalog, describeTools } = await toolSearchKit('1.71.0')

describe("storage: 'context' supplemental state", () => {
  let clock
  before(() => {
    clock = installClock(1_000_000)
  })
  after(() => clock.restore())

  /** A step on `thread` that loads `name`, its result never reaching the messages. */
  async function loadAndLeave(p, thread, name, labels) {
    const rc = makeRequestContext({ threadId: thread })
    const s = await runStep(p, { labels, messages: [], requestContext: rc })
    return load(s, { toolName: name }, rc)
  }

  test('getStateStats, clearState, clearAllState and cleanupNow see it', async () => {
    const { tools, labels } = docsCatalog()
    clock.set(1_000_000)
    const p = new Ours({ tools, storage: 'context', ttl: 60_000 })
    const out = [p.getStateStats()]
    await loadAndLeave(p, 't1', 'get_weather', labels)
    clock.advance(1000)
    await loadAndLeave(p, 't2', 'send_email', labels)
    await loadAndLeave(p, 't3', 'db_query', labels)
    out.push(p.getStateStats())
    p.clearState('t2')
    out.push(p.getStateStats())
    clock.set(1_060_000)
    out.push(p.cleanupNow()) // 60000 > 60000 is false
    clock.set(1_060_001)
    out.push(p.cleanupNow(), p.getStateStats()) // t1 goes
    p.clearAllState()
    out.push(p.getStateStats())
    assert.deepEqual(out, [
      { threadCount: 0, oldestAccessTime: null },
      { threadCount: 3, oldestAccessTime: 1_000_000 },
      { threadCount: 2, oldestAccessTime: 1_000_000 },
      0,
      1,
      { threadCount: 1, oldestAccessTime: 1_001_000 },
      { threadCount: 0, oldestAccessTime: null },
    ])
  })

  test('a cleared or expired thread loses only the names its messages do not show', async () => {
    const { tools, labels } = docsCatalog()
    clock.set(2_000_000)
    const p = new Ours({ tools, storage: 'context', ttl: 60_000 })
    const rc = makeRequestContext({ threadId: 'x' })
    const result = await loadAndLeave(p, 'x', 'get_weather', labels)
    await loadAndLeave(p, 'x', 'send_email', labels)
    const shown = [toolInvocationMessage([{ toolName: 'load_tool', result }], { id: 'm' })]
    // Within the ttl the resume path still sees both.
    const resume = async () => describeTools(await p.getLoadedToolsForRequestContext({ requestContext: rc }), labels)
    assert.deepEqual(await resume(), [
      ['get_weather', 'getWeather'],
      ['send_email', 'sendEmail'],
    ])
    clock.advance(60_001)
    assert.equal(p.cleanupNow(), 1)
    assert.deepEqual(await resume(), [])
    const step = await runStep(p, { labels, messages: shown, requestContext: rc })
    assert.deepEqual(step.toolNames, ['search_tools', 'load_tool', 'get_weather'])
  })

  test('reading a thread counts as access', async () => {
    const { tools, labels } = docsCatalog()
    clock.set(3_000_000)
    const p = new Ours({ tools, storage: 'context', ttl: 60_000 })
    await loadAndLeave(p, 'r', 'get_weather', labels)
    clock.advance(50_000)
    await p.getLoadedToolsForRequestContext({ requestContext: makeRequestContext({ threadId: 'r' }) })
    clock.advance(50_000)
    assert.equal(p.cleanupNow(), 0)
    assert.deepEqual(p.getStateStats(), { threadCount: 1, oldestAccessTime: 3_050_000 })
  })

  test('ttl 0 keeps it, as for the in-memory store', async () => {
    const { tools, labels } = docsCatalog()
    clock.set(4_000_000)
    const p = new Ours({ tools, storage: 'context', ttl: 0 })
    await loadAndLeave(p, 'k', 'get_weather', labels)
    clock.advance(1e9)
    assert.equal(p.cleanupNow(), 0)
    assert.equal(p.getStateStats().threadCount, 1)
  })

  test('an agent loop whose next step shows the result leaves nothing, as with the reference', async () => {
    const { tools, labels } = docsCatalog()
    const [ref, ours] = await both(async (P) => {
      clock.set(5_000_000)
      const p = new P({ tools, storage: 'context' })
      const out = []
      for (const thread of ['a', 'b', 'c']) {
        const rc = makeRequestContext({ threadId: thread })
        const s1 = await runStep(p, { labels, messages: [], requestContext: rc })
        const result = await load(s1, { toolName: 'get_weather' }, rc)
        const messages = [toolInvocationMessage([{ toolName: 'load_tool', result }], { id: thread })]
        out.push((await runStep(p, { labels, messages, requestContext: rc, stepNumber: 1 })).tools)
        out.push(p.getStateStats(), p.cleanupNow())
      }
      return out
    })
    assert.deepEqual(ours[1], { threadCount: 0, oldestAccessTime: null })
    assert.deepEqual(ours, ref)
  })
})

test("the sweep timer sweeps the 'context' store every max(ttl / 2, 60 s)", async (t) => {
  const { tools, labels } = docsCatalog()
  t.mock.timers.enable({ apis: ['setInterval', 'Date'], now: 0 })
  try {
    const p = new Ours({ tools, storage: 'context', ttl: 1000 })
    const rc = makeRequestContext({ threadId: 'swept' })
    const s = await runStep(p, { labels, messages: [], requestContext: rc })
    await load(s, { toolName: 'get_weather' }, rc)
    t.mock.timers.tick(59_999)
    const before = p.getStateStats().threadCount
    t.mock.timers.tick(1)
    assert.deepEqual([before, p.getStateStats().threadCount], [1, 0])
  } finally {
    t.mock.timers.reset()
  }
})
