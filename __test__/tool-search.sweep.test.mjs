// The in-memory store's TTL sweep runs on an unref'd interval that holds its
// processor weakly: a dropped processor can be collected, and its sweep stops.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { ToolSearchProcessor } from '../index.mjs'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')

test('a dropped processor stops its sweep and can be collected', async () => {
  const timers = []
  const cleared = []
  const { setInterval: realSetInterval, clearInterval: realClearInterval } = globalThis
  globalThis.setInterval = (callback, ms) => {
    const timer = { callback, ms, unref() {} }
    timers.push(timer)
    return timer
  }
  globalThis.clearInterval = (timer) => cleared.push(timer)
  try {
    let processor = new ToolSearchProcessor({ tools: {}, ttl: 200_000 })
    assert.equal(timers.length, 1)
    assert.equal(timers[0].ms, 100_000) // max(ttl / 2, 60 s)
    timers[0].callback() // sweeping a live processor keeps the timer
    assert.deepEqual(cleared, [])

    processor = null
    for (let i = 0; i < 10 && cleared.length === 0; i++) {
      await new Promise((resolve) => setImmediate(resolve))
      gc()
      timers[0].callback()
    }
    // The timer found its processor collected and stopped itself.
    assert.deepEqual(cleared, [timers[0]])
  } finally {
    globalThis.setInterval = realSetInterval
    globalThis.clearInterval = realClearInterval
  }
})

test('ttl: 0 schedules no sweep', () => {
  const { setInterval: realSetInterval } = globalThis
  let scheduled = 0
  globalThis.setInterval = () => {
    scheduled++
    return { unref() {} }
  }
  try {
    new ToolSearchProcessor({ tools: {}, ttl: 0 })
    new ToolSearchProcessor({ tools: {}, storage: 'context', ttl: 0 })
    assert.equal(scheduled, 0)
    new ToolSearchProcessor({ tools: {} })
    assert.equal(scheduled, 1)
    // The context store's supplemental state is swept by the ttl too.
    new ToolSearchProcessor({ tools: {}, storage: 'context' })
    assert.equal(scheduled, 2)
  } finally {
    globalThis.setInterval = realSetInterval
  }
})

// Node clamps a timer period over 2^31 - 1 ms (or Infinity) to 1 ms, with a
// TimeoutOverflowWarning: `ttl: Infinity` would sweep every millisecond.
test('an infinite ttl schedules no sweep; a huge one sweeps at the longest period a timer allows', () => {
  const { setInterval: realSetInterval } = globalThis
  const periods = []
  globalThis.setInterval = (callback, ms) => {
    periods.push(ms)
    return { unref() {} }
  }
  try {
    new ToolSearchProcessor({ tools: {}, ttl: Infinity })
    assert.deepEqual(periods, [])
    for (const ttl of [2 ** 32, Number.MAX_VALUE, 2 ** 31 * 2 - 2]) new ToolSearchProcessor({ tools: {}, ttl })
    assert.deepEqual(periods, [2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1])
    // Up to there the period is max(ttl / 2, 60 s), as in the reference.
    new ToolSearchProcessor({ tools: {}, ttl: 2 ** 32 - 4 })
    assert.deepEqual(periods.at(-1), 2 ** 31 - 2)
  } finally {
    globalThis.setInterval = realSetInterval
  }
})

test('no ttl value makes Node warn about a timer overflow', async () => {
  const { spawnSync } = await import('node:child_process')
  const { fileURLToPath } = await import('node:url')
  const index = fileURLToPath(new URL('../index.js', import.meta.url))
  const script = `
    const { ToolSearchProcessor } = require(${JSON.stringify(index)});
    for (const ttl of [Infinity, 2 ** 31, 2 ** 40, 1e308]) new ToolSearchProcessor({ tools: {}, ttl });
    setTimeout(() => {}, 20);
  `
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 })
  assert.equal(run.status, 0, run.stderr)
  assert.doesNotMatch(run.stderr, /TimeoutOverflowWarning/)
})
