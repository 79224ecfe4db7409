// The seeded differential run of ToolSearchProcessor against one release's
// own processor: random catalogs, options (injectCatalog included, on every
// release), request contexts, messages, steps and meta-tool calls
// (tool-search/scenario-generation.mjs and scenario.mjs), run through both, and
// every observation compared exactly: returned tools (identity and meta-tool
// schemas), every addSystem call, every filter-hook call in order with its
// phase and tool, every execute result, the state stats.
//
//   runDifferential({ version, first, cases, maxFailures }) -> { cases, failures: [text] }
//
// Imported in a worker thread with workerData.toolSearchDifferential set, the
// module runs that and posts the result back, so the releases can run side by
// side.

import { isMainThread, parentPort, workerData } from 'node:worker_threads'

import { toolSearchHarness } from './releases.mjs'

export async function runDifferential({ version, first = 1, cases = 5000, maxFailures = 8 }) {
  const h = await toolSearchHarness(version)
  const Ref = h.release.reference.ToolSearchProcessor
  const Ours = await h.loadOurs()
  const clock = h.installClock(1_700_000_000_000)
  const intervals = h.captureIntervals()
  const failures = []
  const show = (v) => {
    const s = JSON.stringify(v)
    return s === undefined ? String(v) : s.length > 1500 ? s.slice(0, 1500) + '…' : s
  }
  let ran = 0
  try {
    for (let seed = first; seed < first + cases && failures.length < maxFailures; seed++, ran++) {
      const scenario = h.genScenario(seed)
      clock.set(1_700_000_000_000)
      const ref = await h.runScenario(Ref, scenario, { role: 'ref', clock })
      intervals.clearAll()
      clock.set(1_700_000_000_000)
      let ours
      try {
        ours = await h.runScenario(Ours, scenario, { role: 'ours', clock })
      } catch (e) {
        failures.push(`seed ${seed}: ours crashed: ${e?.stack ?? e}`)
        continue
      } finally {
        intervals.clearAll()
      }
      const d = h.firstDiff(ours, ref)
      if (d) {
        failures.push(
          `seed ${seed} differs at ${d.path}\n    ours: ${show(d.ours)}\n    ref:  ${show(d.ref)}\n` +
            `    options: ${show(scenario.opts)} filter: ${show(scenario.filterSpec)}`,
        )
      }
    }
  } finally {
    intervals.restore()
    clock.restore()
  }
  return { cases: ran, failures }
}

if (!isMainThread && workerData?.toolSearchDifferential) {
  parentPort.postMessage(await runDifferential(workerData.toolSearchDifferential))
}
