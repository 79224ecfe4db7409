// The scaling suites' one rule (issue 29): the same call at sizes s, 4s and
// 16s, its input built before the clock starts, best of a few runs, fails
// where 16 times the size takes more than LIMIT times the time (linear is 16,
// quadratic 256). A ratio of our own code at two sizes holds on a slow or busy
// machine where an absolute time would not; best-of-N keeps a busy moment of
// another process out of it, and a ratio past the limit is measured once more
// (unless three times past it) before the dimension fails. 4 times the size
// may take at most LIMIT_4 times the time, so a cubic path fails at 4s
// without 16s ever being run. No test asserts a duration.
//
//   scalingSuite(title, dimensions)   one `test` per dimension, inside a `describe`
//
// A dimension is `{ name, base, build(n), call(input) }`: `build(n)` makes the
// input at size n (sync or async, untimed), `call(input)` is the timed call.
// With `fresh: true` the input is built again before every run (for a call
// that uses its input up, e.g. a `state` it records into or a thread it
// loads tools into). With `reference(input)`, the release's own processor
// answers the same input at size s once, and ours must give a deep-equal
// answer (so the call timed does the work the dimension means). With
// `sharedGrowth: why`, a growth that is the engine's and the release's alike
// (V8's own `JSON.stringify`), the rule is instead that ours at 16s takes at
// most REFERENCE_LIMIT times what the release's own processor takes on the
// same input: a ratio of two implementations in one run, no duration.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'

/** 16 times the size may take at most this many times the time. */
export const LIMIT = 40
/** 4 times the size (s to 4s) may take at most this many times the time (linear 4, quadratic 16): a cubic path fails here before 16s is ever tried. */
export const LIMIT_4 = 12

/** Where the growth is shared with the release (`sharedGrowth`), ours at 16s may take at most this many times its time. */
export const REFERENCE_LIMIT = 2

/**
 * At most this many runs of one size, and at least this many while they are
 * quick: on a machine shared with other processes a run of a few milliseconds
 * is more often preempted than one of a tenth, so the larger size needs more
 * tries to find a run that was not.
 */
const RUNS = 15
const MIN_RUNS = 5
/** Stop adding runs of a size once they took this long in all (ms). */
const BUDGET_MS = 150

/** Warm up at s for this many runs or this long (ms), whichever comes first: our code and the builder's shapes are compiled before any run is timed. */
const WARM_RUNS = 20
const WARM_MS = 40

/**
 * The best time (ms) of a few runs of `call` on the input of size n. The
 * first run warms the code up for this size (a larger input may meet shapes
 * the smaller did not) and is not counted, unless it alone outlasts the budget.
 */
async function bestOf(dimension, n, input) {
  let best = Number.POSITIVE_INFINITY
  let spent = 0
  for (let run = 0; run <= RUNS; run++) {
    if (dimension.fresh && run > 0) input = await dimension.build(n)
    const started = performance.now()
    await dimension.call(input)
    const took = performance.now() - started
    if ((run > 0 || took > BUDGET_MS) && took < best) best = took
    spent += took
    // A run that alone outlasts the budget is no busy moment: it ends the measure.
    if (took > BUDGET_MS || (spent > BUDGET_MS && run >= MIN_RUNS)) break
  }
  return best
}

/**
 * Times at s, 4s and 16s: `{ sizes, times, r4, r16 }`, 16s left out
 * (Infinity) where 4s already failed. Given an `earlier` measure, each size's
 * time is the best of both.
 */
export async function measure(dimension, earlier = undefined) {
  const s = dimension.base
  const sizes = [s, 4 * s, 16 * s]
  const inputs = []
  for (const n of sizes.slice(0, 2)) inputs.push(await dimension.build(n))
  const warming = performance.now()
  for (let i = 0; i < WARM_RUNS && performance.now() - warming < WARM_MS; i++) {
    await dimension.call(dimension.fresh && i > 0 ? await dimension.build(s) : inputs[0])
  }
  if (dimension.fresh) inputs[0] = await dimension.build(s)
  const best = (i, t) => Math.min(t, earlier?.times[i] ?? Number.POSITIVE_INFINITY)
  const times = [best(0, await bestOf(dimension, s, inputs[0])), best(1, await bestOf(dimension, 4 * s, inputs[1]))]
  const r4 = times[1] / times[0]
  if (r4 > LIMIT_4) return { sizes, times: [...times, Number.POSITIVE_INFINITY], r4, r16: Number.POSITIVE_INFINITY }
  inputs[1] = null
  const large = await dimension.build(16 * s)
  times.push(best(2, await bestOf(dimension, 16 * s, large)))
  return { sizes, times, r4, r16: times[2] / times[0] }
}

const ms = (t) => (Number.isFinite(t) ? `${t < 1 ? t.toFixed(3) : t.toFixed(1)} ms` : 'not run')
export const describeMeasure = ({ sizes, times, r4, r16 }) =>
  `${sizes.map((n, i) => `${n}: ${ms(times[i])}`).join(', ')}; 4x size ${r4.toFixed(1)}x time, 16x size ${Number.isFinite(r16) ? r16.toFixed(1) : '-'}x time`

/** Whether a measure breaks the rule, and whether by far. */
const superLinear = (m) => m.r4 > LIMIT_4 || m.r16 > LIMIT
const farPast = (m) => m.r4 > 3 * LIMIT_4 || m.r16 > 3 * LIMIT

/**
 * Ours against the release's own processor at 16s, each the best of a few
 * runs after a warm-up: `{ ours, reference, ratio }`.
 */
async function againstReference(dimension) {
  const n = 16 * dimension.base
  const referenceDimension = { ...dimension, call: dimension.reference }
  const times = []
  for (const each of [dimension, referenceDimension]) {
    const input = await each.build(n)
    for (let i = 0; i < 3; i++) await each.call(each.fresh && i > 0 ? await each.build(n) : input)
    times.push(await bestOf(each, n, each.fresh ? await each.build(n) : input))
  }
  return { n, ours: times[0], reference: times[1], ratio: times[0] / times[1] }
}

const describeAgainst = ({ n, ours, reference, ratio }) => `${n}: ours ${ms(ours)}, the release's ${ms(reference)}, ${ratio.toFixed(2)}x`

/** One test per dimension: its answer at size s against the release's, then its growth. */
export function scalingSuite(title, dimensions) {
  describe(title, () => {
    for (const dimension of dimensions) {
      test(dimension.name, { skip: dimension.skip }, async (t) => {
        if (dimension.reference) {
          const ours = await dimension.call(await dimension.build(dimension.base))
          assert.deepStrictEqual(
            ours,
            await dimension.reference(await dimension.build(dimension.base)),
            `${dimension.name}: ours answers as the release's own processor`,
          )
        }
        if (dimension.sharedGrowth) {
          // Measured again once before failing, as below.
          let against = await againstReference(dimension)
          if (against.ratio > REFERENCE_LIMIT) against = await againstReference(dimension)
          t.diagnostic(`${dimension.sharedGrowth}: ${describeAgainst(against)}`)
          assert.ok(against.ratio <= REFERENCE_LIMIT, `${dimension.name}: ${describeAgainst(against)} (limit ${REFERENCE_LIMIT}x)`)
          return
        }
        let m = await measure(dimension)
        // Past the limit: measure once more (each size's best of both) before failing, so a busy moment of the machine
        // is not a failure; three times past it is no busy moment (main's cubic walk would take seconds again).
        if (superLinear(m) && !farPast(m)) m = await measure(dimension, m)
        t.diagnostic(describeMeasure(m))
        assert.ok(!superLinear(m), `${dimension.name} grows faster than linear: ${describeMeasure(m)} (limits: ${LIMIT_4}x time at 4x size, ${LIMIT}x at 16x)`)
      })
    }
  })
}
