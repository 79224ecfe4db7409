// The tools-record edit fuzz: seeded random tools records that the caller
// edits between steps, between meta-tool calls and inside filter-hook calls
// (tools added, swapped in, deleted, moved to another key; ids changed in
// place, to other keys, to other tools' ids, to nothing; a step's own tools'
// ids changed in place), with colliding names on purpose, run through ours
// and through the release's own processor with ours' deliberate differences
// modelled on it (`withOurFixes`, and `withOurLookups` of
// tool-search-lookups-model.mjs: the rule for an edited record), and
// compared exactly: the tools each step returns (by identity), its system
// messages, every hook call (phase, toolName, the tool), every meta-tool
// result.
//
//   runRecordFuzz({ version, first, cases }) -> { cases, failures: [text], modelDiffers }
//
// `modelDiffers` counts the cases where the model found another tool than the
// bare reference would (an edit outside the rule was exercised).
// Imported in a worker thread with workerData.recordFuzz set, the module runs
// that and posts the result back.

import { isMainThread, parentPort, workerData } from 'node:worker_threads'

import { createRng, sfc32 } from './random.mjs'
import { toolSearchHarness } from './releases.mjs'
import { LOOKUPS_DIFFER, withOurLookups } from './tool-search-lookups-model.mjs'

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'weather', 'email', 'issue', 'query', 'report', 'widget']
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'alpha', 'weather']
const STEP_KEYS = ['s0', 's1', 'k1', 'alpha', 'r2']

/** A scenario as data, so that each run makes its own objects from it. */
export function genRecordScenario(h, seed, { injectCatalog }) {
  const rng = createRng(seed, sfc32)
  const taken = new Set()
  const idFor = (key) => {
    const other = rng.pick(KEYS)
    return rng.weighted([
      [5, key],
      [2, rng.pick(WORDS) + '_' + rng.int(0, 3)],
      [2, other],
      [2, undefined],
      [1, ''],
    ])
  }
  const toolSpec = (key) => ({ id: idFor(key), description: `${rng.pick(WORDS)} ${rng.pick(WORDS)} tool ${key}` })
  const catalog = []
  for (const key of rng.sample(KEYS, rng.int(2, 7))) {
    taken.add(key)
    catalog.push({ key, ...toolSpec(key) })
  }
  const filter = rng.weighted([
    [3, null],
    [3, 'sync'],
    [2, 'async'],
  ])
  const options = {
    includeResolvedTools: rng.bool(0.35),
    injectCatalog: injectCatalog && rng.bool(0.35),
    search: { topK: rng.int(2, 5), ...(rng.bool(0.25) ? { autoLoad: true } : {}) },
  }
  const names = () => [...KEYS, ...STEP_KEYS, ...WORDS.map((w) => `${w}_1`), 'nope', 'k', 'wea']
  const edit = () => {
    const kind = rng.weighted([
      [3, 'add'],
      [3, 'swap'],
      [2, 'delete'],
      [3, 'id'],
      [1, 'move'],
      [1, 'stepId'],
    ])
    return { kind, key: rng.pick(KEYS), to: rng.pick(KEYS), spec: toolSpec(rng.pick(KEYS)), id: idFor(rng.pick(KEYS)), at: rng.int(0, 3) }
  }
  const steps = []
  for (let s = 0, n = rng.int(2, 4); s < n; s++) {
    const stepTools = options.includeResolvedTools && rng.bool(0.8) ? rng.sample(STEP_KEYS, rng.int(1, 3)).map((key) => ({ key, ...toolSpec(key) })) : null
    const actions = []
    for (let a = 0, m = rng.int(1, 5); a < m; a++) {
      actions.push(
        rng.weighted([
          [3, { kind: 'search', query: `${rng.pick(WORDS)} ${rng.bool(0.5) ? rng.pick(names()) : rng.pick(WORDS)}` }],
          [4, { kind: 'load', input: rng.bool(0.5) ? { toolName: rng.pick(names()) } : { toolNames: rng.sample(names(), rng.int(1, 3)) } }],
          [4, { kind: 'edit', edit: edit() }],
          [1, { kind: 'both', first: { toolName: rng.pick(names()) }, second: { toolNames: rng.sample(names(), 2) } }],
        ]),
      )
    }
    steps.push({ stepTools, actions, editsBefore: rng.bool(0.5) ? [edit()] : [] })
  }
  return { seed, catalog, options, filter, hookEdits: rng.bool(0.5), hookSeed: rng.int(1, 1e9), steps }
}

/** Runs a scenario through `P`; the trace both must agree on. */
export async function runRecordScenario(h, P, scenario) {
  const labels = new h.Labels()
  let made = 0
  const make = ({ id, description }, label) =>
    labels.set({ ...(id === undefined ? {} : { id }), description, execute: async () => ({ label }) }, `${label}#${made++}`)
  const record = {}
  for (const spec of scenario.catalog) record[spec.key] = make(spec, spec.key)
  let stepTools = null
  const log = []
  const apply = (e) => {
    switch (e.kind) {
      case 'add':
      case 'swap':
        record[e.kind === 'add' ? `${e.key}_${e.at}` : e.key] = make(e.spec, 'new')
        break
      case 'delete':
        delete record[e.key]
        break
      case 'id': {
        const tool = record[e.key]
        if (tool) tool.id = e.id
        break
      }
      case 'move':
        if (record[e.key]) record[e.to] = record[e.key]
        break
      case 'stepId': {
        const tools = stepTools && Object.values(stepTools)
        if (tools?.length) tools[e.at % tools.length].id = e.id
        break
      }
    }
    log.push(['edit', e.kind, e.key])
  }
  const hookRng = createRng(scenario.hookSeed, sfc32)
  const decide = (toolName, phase) => h.hash32(`${toolName}|${phase}|${scenario.seed}`) % 4 !== 0
  const filter = scenario.filter
    ? ({ toolName, tool, phase }) => {
        log.push(['hook', phase, toolName ?? null, labels.get(tool)])
        if (scenario.hookEdits && hookRng.bool(0.15)) apply(genHookEdit(hookRng))
        const allowed = decide(toolName, phase)
        return scenario.filter === 'async' ? Promise.resolve(allowed) : allowed
      }
    : undefined
  const capture = async (run) => {
    try {
      return await run()
    } catch (e) {
      return { threw: e?.name }
    }
  }
  const processor = await capture(() => new P({ ttl: 0, ...scenario.options, search: { ...scenario.options.search }, tools: record, filter }))
  if (processor.threw) return { log: [['constructor', processor]] }
  const rc = h.makeRequestContext({ threadId: 'fuzz' })
  let current
  const run = (name, input) => {
    const tool = current?.result.tools[name]
    return tool ? capture(() => tool.execute(input, { requestContext: rc })) : { absent: name }
  }
  for (const step of scenario.steps) {
    for (const e of step.editsBefore) apply(e)
    stepTools = step.stepTools && Object.fromEntries(step.stepTools.map((spec) => [spec.key, make(spec, `step:${spec.key}`)]))
    current = undefined
    const s = await capture(() => h.runStep(processor, { labels, requestContext: rc, tools: stepTools ?? undefined, schemas: false }))
    if (s.threw) {
      log.push(['step', s])
      continue
    }
    current = s
    log.push(['step', s.tools.map(([name, tool]) => [name, typeof tool === 'string' ? tool : 'meta']), s.systemCalls])
    for (const action of step.actions) {
      if (action.kind === 'edit') apply(action.edit)
      else if (action.kind === 'search') log.push(['search', action.query, await run('search_tools', { query: action.query })])
      else if (action.kind === 'load') log.push(['load', action.input, await run('load_tool', action.input)])
      else log.push(['both', await Promise.all([run('load_tool', action.first), run('load_tool', action.second)])])
    }
  }
  return { log: h.snapshot(log), differs: processor[LOOKUPS_DIFFER] === true }
}

/** An edit made by the hook, from the hook's own stream. */
function genHookEdit(rng) {
  return {
    kind: rng.weighted([
      [3, 'delete'],
      [3, 'id'],
      [2, 'swap'],
      [1, 'add'],
      [1, 'move'],
      [1, 'stepId'],
    ]),
    key: rng.pick(KEYS),
    to: rng.pick(KEYS),
    spec: { id: rng.pick([...KEYS, undefined]), description: `${rng.pick(WORDS)} hook tool` },
    id: rng.pick([...KEYS, ...STEP_KEYS, undefined, 'fresh']),
    at: rng.int(0, 3),
  }
}

export async function runRecordFuzz({ version, first = 1, cases = 500, maxFailures = 5 }) {
  const h = await toolSearchHarness(version)
  const Model = withOurLookups(h.withOurFixes(h.RefToolSearchProcessor))
  const Ours = await h.loadOurs()
  const failures = []
  let ran = 0
  let modelDiffers = 0
  for (let seed = first; seed < first + cases && failures.length < maxFailures; seed++, ran++) {
    const scenario = genRecordScenario(h, seed, { injectCatalog: h.referenceHas.injectCatalog })
    const model = await runRecordScenario(h, Model, scenario)
    const ours = await runRecordScenario(h, Ours, scenario)
    if (model.differs) modelDiffers++
    const d = h.firstDiff(ours.log, model.log)
    if (d) {
      const show = (v) => JSON.stringify(v)?.slice(0, 1200)
      failures.push(
        `seed ${seed} differs at ${d.path}\n    ours:  ${show(d.ours)}\n    model: ${show(d.ref)}\n    scenario: ${show({ ...scenario, steps: undefined })}`,
      )
    }
  }
  return { cases: ran, failures, modelDiffers }
}

if (!isMainThread && workerData?.recordFuzz) {
  parentPort.postMessage(await runRecordFuzz(workerData.recordFuzz))
}
