// ttl and the in-memory store, literally, under a mocked clock: state
// stats, cleanup, clearState/clearAllState, expiry, and the sweep timer
// (every max(ttl/2, 60 s), unref'd, none for ttl 0). Release-independent:
// run on 1.71.0, also compared with its reference.

import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const { Ref, Ours, both, load, runStep, makeRequestContext, installClock, docsCatalog } = await toolSearchKit('1.71.0')
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

describe('ttl and in-memory state (mocked Date.now)', () => {
  let clock
  before(() => {
    clock = installClock(1_000_000)
  })
  after(() => clock.restore())

  async function touch(p, threadId, labels) {
    return runStep(p, { labels, requestContext: makeRequestContext({ threadId }) })
  }

  test('getStateStats / cleanupNow / clearState / clearAllState with ttl 1000', async () => {
    const { tools, labels } = docsCatalog()
    const run = async (P) => {
      clock.set(1_000_000)
      const p = new P({ tools, ttl: 1000 })
      const log = []
      log.push(p.getStateStats())
      await touch(p, 't1', labels)
      log.push(p.getStateStats())
      clock.set(1_000_500)
      const s = await touch(p, 't2', labels)
      log.push(p.getStateStats())
      clock.set(1_000_700)
      await load(s, { toolName: 'get_weather' }, s.args.requestContext) // touches t2 again
      log.push(p.getStateStats())
      clock.set(1_001_000)
      log.push(p.cleanupNow()) // 1000 > 1000 is false
      clock.set(1_001_001)
      log.push(p.cleanupNow()) // t1 expires
      log.push(p.getStateStats())
      await touch(p, undefined, labels) // 'default'
      log.push(p.getStateStats())
      p.clearState('t2')
      log.push(p.getStateStats())
      p.clearState() // 'default'
      log.push(p.getStateStats())
      await touch(p, 'a', labels)
      await touch(p, 'b', labels)
      log.push(p.getStateStats())
      p.clearAllState()
      log.push(p.getStateStats())
      return log
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours, [
      { threadCount: 0, oldestAccessTime: null },
      { threadCount: 1, oldestAccessTime: 1_000_000 },
      { threadCount: 2, oldestAccessTime: 1_000_000 },
      { threadCount: 2, oldestAccessTime: 1_000_000 },
      0,
      1,
      { threadCount: 1, oldestAccessTime: 1_000_700 },
      { threadCount: 2, oldestAccessTime: 1_000_700 },
      { threadCount: 1, oldestAccessTime: 1_001_001 },
      { threadCount: 0, oldestAccessTime: null },
      { threadCount: 2, oldestAccessTime: 1_001_001 },
      { threadCount: 0, oldestAccessTime: null },
    ])
    assert.deepEqual(ours, ref)
  })

  test('a loaded tool disappears when its thread expires', async () => {
    const { tools, labels } = docsCatalog()
    const [ref, ours] = await both(async (P) => {
      clock.set(5_000_000)
      const p = new P({ tools, ttl: 60_000 })
      const rc = makeRequestContext({ threadId: 'exp' })
      const s1 = await runStep(p, { labels, requestContext: rc })
      await load(s1, { toolName: 'get_weather' }, rc)
      clock.advance(60_001)
      const cleaned = p.cleanupNow()
      const s2 = await runStep(p, { labels, requestContext: rc, stepNumber: 1 })
      return [cleaned, s2.toolNames]
    })
    assert.deepEqual(ours, [1, ['search_tools', 'load_tool']])
    assert.deepEqual(ours, ref)
  })

  test('default ttl is one hour; ttl 0 and negative ttl disable cleanup', async () => {
    const { tools, labels } = docsCatalog()
    const [ref, ours] = await both(async (P) => {
      const out = []
      for (const ttl of [undefined, 0, -1]) {
        clock.set(10_000_000)
        const p = new P(ttl === undefined ? { tools } : { tools, ttl })
        await touch(p, 'x', labels)
        clock.set(10_000_000 + 3_600_000)
        out.push(p.cleanupNow())
        clock.set(10_000_000 + 3_600_001)
        out.push(p.cleanupNow())
        clock.set(10_000_000 + 10 * 3_600_000)
        out.push(p.cleanupNow(), p.getStateStats())
      }
      return out
    })
    assert.deepEqual(ours, [
      0,
      1,
      0,
      { threadCount: 0, oldestAccessTime: null },
      0,
      0,
      0,
      { threadCount: 1, oldestAccessTime: 10_000_000 },
      0,
      0,
      0,
      { threadCount: 1, oldestAccessTime: 10_000_000 },
    ])
    assert.deepEqual(ours, ref)
  })

  test('oldestAccessTime is capped at the current time when the clock went backwards', async () => {
    const { tools, labels } = docsCatalog()
    const [ref, ours] = await both(async (P) => {
      clock.set(2_000_000)
      const p = new P({ tools, ttl: 0 })
      await touch(p, 'x', labels)
      clock.set(1_000_000)
      return p.getStateStats()
    })
    assert.deepEqual(ours, { threadCount: 1, oldestAccessTime: 1_000_000 })
    assert.deepEqual(ours, ref)
  })
})

describe('ttl sweep timer', () => {
  test('sweeps automatically every max(ttl/2, 60 s) (node:test mock timers)', async (t) => {
    const { tools, labels } = docsCatalog()
    const run = async (P) => {
      t.mock.timers.enable({ apis: ['setInterval', 'Date'], now: 0 })
      try {
        const out = []
        for (const ttl of [1000, 300_000]) {
          t.mock.timers.setTime(0)
          const p = new P({ tools, ttl })
          await runStep(p, { labels, requestContext: makeRequestContext({ threadId: 'sweep' }) })
          const period = Math.max(ttl / 2, 60_000)
          const seen = []
          for (let i = 1; i <= 4; i++) {
            t.mock.timers.tick(period - 1)
            seen.push(p.getStateStats().threadCount)
            t.mock.timers.tick(1)
            seen.push(p.getStateStats().threadCount)
          }
          out.push(seen)
          p.clearAllState()
        }
        const p0 = new P({ tools, ttl: 0 })
        await runStep(p0, { labels, requestContext: makeRequestContext({ threadId: 'never' }) })
        t.mock.timers.tick(100 * 3_600_000)
        out.push(p0.getStateStats().threadCount)
        return out
      } finally {
        t.mock.timers.reset()
      }
    }
    const ref = await run(Ref)
    const ours = await run(Ours)
    assert.deepEqual(ours, [
      [1, 0, 0, 0, 0, 0, 0, 0], // ttl 1000: period 60 s, swept at 60 s
      [1, 1, 1, 1, 1, 0, 0, 0], // ttl 300 s: period 150 s, 300 > 300 is false, swept at 450 s
      1, // ttl 0: never
    ])
    assert.deepEqual(ours, ref)
  })

  test('the sweep timer does not keep the process alive (unref) and ttl 0 creates none', () => {
    const script = `
      const { ToolSearchProcessor } = require(${JSON.stringify(path.join(root, 'index.js'))});
      const p = new ToolSearchProcessor({ tools: {} });
      const q = new ToolSearchProcessor({ tools: {}, ttl: 1000 });
      globalThis.keep = [p, q];
    `
    const started = Date.now()
    const r = spawnSync(process.execPath, ['-e', script], { cwd: root, timeout: 30_000, encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    assert.ok(Date.now() - started < 30_000, 'process exited on its own')
  })
})
