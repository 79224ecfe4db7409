// ToolSearchProcessor against each tested release's own processor: thousands
// of seeded random cases per release (helpers/tool-search-differential.mjs),
// every observation compared exactly. The releases run side by side in
// worker threads, as many at a time as there are cores.
//
// Env knobs: TS_DIFF_CASES (per release; default 500 in npm test, 5000 in
// npm run test:all, helpers/counts.mjs), TS_DIFF_SEED (first seed, default 1),
// TS_DIFF_RELEASES (comma-separated, default all).

import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

import { TESTED_RELEASES } from './helpers/releases.mjs'
import { cases } from './helpers/counts.mjs'

const CASES = cases('TS_DIFF_CASES', { quick: 500, all: 5000 })
const FIRST = Number(process.env.TS_DIFF_SEED ?? 1)
const RELEASES = process.env.TS_DIFF_RELEASES?.split(',') ?? TESTED_RELEASES

function inWorker(version) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./helpers/tool-search-differential.mjs', import.meta.url), {
      workerData: { toolSearchDifferential: { version, first: FIRST, cases: CASES } },
    })
    let result
    worker.once('message', (message) => (result = message))
    worker.once('error', reject)
    worker.once('exit', (code) => (result ? resolve(result) : reject(new Error(`the ${version} worker exited (${code}) without a result`))))
  })
}

describe('differential: seeded random cases against each release', { concurrency: availableParallelism() }, () => {
  for (const version of RELEASES) {
    test(`${version}: ${CASES} cases, every tool list, system message, hook call, execute result and stat equal`, { timeout: 600_000 }, async () => {
      const { cases, failures } = await inWorker(version)
      if (failures.length) {
        assert.fail(
          `${failures.length} failing seed(s) on ${version}:\n  ${failures.join('\n  ')}\n` +
            `  rerun one: TS_DIFF_RELEASES=${version} TS_DIFF_SEED=<seed> TS_DIFF_CASES=1 node --test __test__/tool-search.differential.test.mjs`,
        )
      }
      assert.equal(cases, CASES)
    })
  }
})
