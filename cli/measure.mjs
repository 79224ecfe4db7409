// Timing for `bench`: Mastra's side and ours alternately, sample by sample,
// with a turn of the event loop between samples (as an agent's steps have);
// each sample a batch of calls long enough to time; medians.

import { performance } from 'node:perf_hooks'
import { isDeepStrictEqual } from 'node:util'

const SETTINGS = {
  quick: { minSamples: 7, minSideMs: 30, sampleMs: 3, warmupMs: 20, capMs: 3_000 },
  full: { minSamples: 15, minSideMs: 300, sampleMs: 10, warmupMs: 100, capMs: 10_000 },
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/** Refuses to time two sides that do not give the same answer. */
export function assertSameWork(label, mastra, ours) {
  if (isDeepStrictEqual(mastra, ours)) return
  const show = (value) => JSON.stringify(value)?.slice(0, 400)
  throw new Error(`${label}: Mastra's processor and ours answered differently, so they are not timed.\nMastra's: ${show(mastra)}\nours:     ${show(ours)}`)
}

/**
 * Median milliseconds per call of `sides.mastra` and `sides.ours` (each
 * `(k) => result | Promise`, `k` the call's index in its batch); `reset`, if
 * given, runs untimed before every sample.
 */
export async function measure(sides, { quick = false, reset } = {}) {
  const settings = quick ? SETTINGS.quick : SETTINGS.full
  const runs = Object.entries(sides).map(([side, call]) => ({ side, call, times: [], total: 0, batch: 1 }))
  for (const run of runs) {
    await reset?.()
    const started = performance.now()
    let calls = 0
    while (calls < 2 || performance.now() - started < settings.warmupMs) {
      await run.call(calls)
      calls++
    }
    const perCall = (performance.now() - started) / calls
    run.batch = Math.max(1, Math.ceil(settings.sampleMs / Math.max(perCall, 1e-4)))
  }
  const started = performance.now()
  for (let round = 0; ; round++) {
    for (const run of round % 2 ? [...runs].reverse() : runs) {
      await nextTurn()
      await reset?.()
      const t0 = performance.now()
      for (let k = 0; k < run.batch; k++) await run.call(k)
      const elapsed = performance.now() - t0
      run.times.push(elapsed / run.batch)
      run.total += elapsed
    }
    const samples = round + 1
    const enough = samples >= settings.minSamples && runs.every((run) => run.total >= settings.minSideMs)
    if (enough || (samples >= 5 && performance.now() - started > settings.capMs)) break
  }
  await reset?.()
  const [mastra, ours] = runs.map((run) => median(run.times))
  return { mastraMs: mastra, oursMs: ours, speedup: mastra / ours, samples: runs[0].times.length }
}
