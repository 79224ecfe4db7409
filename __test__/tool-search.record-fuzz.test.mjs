// The tools-record edit fuzz (issues 19 and 36): seeded random records that
// the caller edits between steps, between meta-tool calls and inside
// filter-hook calls, with names and ids colliding on purpose, run through
// ours and the release's own processor with the rule for an edited record
// modelled on it (docs/differences.md: keys read live, ids through the
// tables); every step's tools, system messages, hook calls and meta-tool
// results equal (helpers/tool-search-record-fuzz.mjs).
// Each release runs in a worker of its own.
//
//   TS_RECORD_CASES=<n> TS_RECORD_SEED=<first> TS_RECORD_RELEASES=1.71.0 node --test __test__/tool-search.record-fuzz.test.mjs

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Worker } from 'node:worker_threads'

import { TESTED_RELEASES } from './helpers/releases.mjs'
import { cases } from './helpers/counts.mjs'

const CASES = cases('TS_RECORD_CASES', { quick: 200, all: 500 })
const FIRST = Number(process.env.TS_RECORD_SEED ?? 1)
const RELEASES = process.env.TS_RECORD_RELEASES?.split(',') ?? TESTED_RELEASES

function inWorker(version) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./helpers/tool-search-record-fuzz.mjs', import.meta.url), {
      workerData: { recordFuzz: { version, first: FIRST, cases: CASES } },
    })
    let result
    worker.once('message', (message) => (result = message))
    worker.once('error', reject)
    worker.once('exit', (code) => (result ? resolve(result) : reject(new Error(`the ${version} worker exited (${code}) without a result`))))
  })
}

describe('ToolSearchProcessor: tools-record edits, colliding names, against the release', () => {
  for (const version of RELEASES) {
    test(`${version}: ${CASES} seeded edit scripts give the release's tools, texts and hook calls`, { timeout: 600_000 }, async () => {
      const { cases, failures, modelDiffers } = await inWorker(version)
      if (failures.length) {
        assert.fail(
          `${failures.length} failing seed(s) on ${version}:\n  ${failures.join('\n  ')}\n` +
            `  rerun one: TS_RECORD_RELEASES=${version} TS_RECORD_SEED=<seed> TS_RECORD_CASES=1 node --test __test__/tool-search.record-fuzz.test.mjs`,
        )
      }
      assert.equal(cases, CASES)
      // The cases reach edits outside the rule, where the model's answer is not the bare reference's.
      if (CASES >= 200) assert.ok(modelDiffers > 0, 'no case found another tool than the bare reference would')
    })
  }
})
