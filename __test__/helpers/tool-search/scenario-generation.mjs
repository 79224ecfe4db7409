// Random ToolSearchProcessor scenarios, one per seed: a catalog of the
// release's tools, options, per-step tool sets, threads, plans, actions (search,
// load, stats, cleanup, stale meta-tools...) and changes to the tools record,
// all drawn with the sfc32 generator (random.mjs) so that a seed names the
// same scenario it always did. The tools are made by the binding's
// scenarioTool (builders.mjs), shared by both runs and compared through labels.
//
//   scenarioGenerator({ referenceHas, scenarioTool }) ->
//     randomCatalog(rng, { min, max, prefix, labels, allowIdless, keys }) -> { tools, labels }
//     genScenario(seed, { maxTools, maxSteps }) -> { seed, labels, tools, opts, filterSpec, steps, junkSeed, mutations }

import { createRng, sfc32 } from '../random.mjs'

import { Labels } from './observation.mjs'
import { catalogNames, isInheritedName, randomDescription, randomId, randomLoadInput, randomOptions, randomQuery, safeName } from './random-inputs.mjs'

export function scenarioGenerator({ referenceHas, scenarioTool }) {
  /**
   * Random catalog: { tools, labels, names } where names collects keys and ids.
   * opts.allowIdless: plain tools without id (used only for resolved step tools).
   */
  function randomCatalog(rng, { min = 1, max = 60, prefix = 'c', labels = new Labels(), allowIdless = false, keys: takenKeys = new Set() } = {}) {
    const n = rng.int(min, max)
    const tools = {}
    const ids = []
    for (let i = 0; i < n; i++) {
      let id
      const idKind = rng.weighted([
        [10, 'fresh'],
        [1, 'dup'],
        [0.4, 'intlike'],
        [0.2, 'empty'],
        [0.3, 'long'],
      ])
      if (idKind === 'dup' && ids.length > 0) id = rng.pick(ids)
      else if (idKind === 'intlike') id = String(rng.int(0, 300))
      else if (idKind === 'empty') id = ''
      else if (idKind === 'long') id = safeName(rng, () => randomId(rng) + '_' + 'x'.repeat(rng.int(100, 400)))
      else id = safeName(rng, () => randomId(rng))
      ids.push(id)

      let key
      const keyKind = rng.weighted([
        [6, 'same'],
        [3, 'different'],
        [0.3, 'intlike'],
        [0.5, 'otherId'],
      ])
      if (keyKind === 'same' && id !== '') key = id
      else if (keyKind === 'intlike') key = String(rng.int(0, 300))
      else if (keyKind === 'otherId' && ids.length > 1) key = rng.pick(ids)
      else key = safeName(rng, () => randomId(rng))
      if (key === '' || takenKeys.has(key) || isInheritedName(key)) key = `${prefix}${i}_${safeName(rng, () => randomId(rng))}`
      if (takenKeys.has(key)) continue
      takenKeys.add(key)

      const idless = allowIdless && rng.bool(0.25)
      const kind = idless || rng.bool(0.2) ? 'plain' : 'mastra'
      const description = randomDescription(rng)
      let tool
      try {
        tool = scenarioTool({ id, description, kind, idless, tag: `${prefix}:${key}` })
      } catch {
        tool = scenarioTool({ id, description, kind: 'plain', idless, tag: `${prefix}:${key}` })
      }
      labels.set(tool, `${prefix}:${key}`)
      tools[key] = tool
    }
    return { tools, labels }
  }

  /**
   * Generate one random scenario. Tool objects are created here and shared by
   * both runs (identity is compared through labels).
   */
  function genScenario(seed, { maxTools = 60, maxSteps = 4 } = {}) {
    const rng = createRng(seed, sfc32)
    const labels = new Labels()
    const takenKeys = new Set()
    const { tools } = randomCatalog(rng, { min: 1, max: maxTools, prefix: 's', labels, keys: takenKeys })
    const { opts, filterSpec } = randomOptions(rng)

    // Resolved (per-step) tool sets. Id-less plain tools only when includeResolvedTools.
    const labelled = (tag, tool) => labels.set(scenarioTool({ ...tool, tag }), tag)
    const resolvedSets = []
    const nSets = rng.int(0, 2)
    for (let i = 0; i < nSets; i++) {
      const set = randomCatalog(rng, {
        min: 0,
        max: 12,
        prefix: `r${i}`,
        labels,
        allowIdless: !!opts.includeResolvedTools,
        keys: new Set(),
      }).tools
      // collide with static keys sometimes (resolved overrides static)
      if (rng.bool(0.3)) {
        const k = rng.pick(Object.keys(tools))
        if (k !== undefined) {
          set[k] = labelled(`r${i}:override:${k}`, { id: rng.bool(0.5) ? k : `${k}_resolved`, description: randomDescription(rng) })
        }
      }
      // meta-tool keys in the step tools (as the Agent may pass a previous step's tools)
      if (rng.bool(0.12)) set.search_tools = labelled(`r${i}:fake-search`, { id: 'search_tools', description: 'fake search' })
      if (rng.bool(0.12)) set.load_tool = labelled(`r${i}:fake-load`, { id: 'load_tool', description: 'fake load' })
      resolvedSets.push(set)
    }

    const allNames = [...new Set([...catalogNames(tools), ...resolvedSets.flatMap((s) => catalogNames(s))])].filter((n) => !isInheritedName(n))
    const descriptions = [...Object.values(tools), ...resolvedSets.flatMap((s) => Object.values(s))].map((t) => t?.description)

    // A thread is a mastra__threadId, or { thread, memory } for the memory
    // context the Agent sets (only where the reference reads it).
    const threadPools = [['t1'], ['t1', 't2'], [undefined], [undefined, 't1'], ['', 't1'], ['t1', 't2', undefined]]
    if (referenceHas.memoryThread) {
      threadPools.push(
        [{ memory: 'm1' }, { memory: 'm2' }, undefined],
        [{ thread: 't1', memory: 'm1' }, { memory: 'm1' }, { thread: '', memory: 'm2' }, { memory: '' }, 't1'],
      )
    }
    const threadPool = rng.pick(threadPools)
    const planPool = rng.pick([[undefined], ['pro'], ['pro', 'free']])
    const nSteps = rng.int(1, maxSteps)
    const steps = []
    for (let s = 0; s < nSteps; s++) {
      const stepToolsKind = rng.weighted([
        [3, 'undefined'],
        [2, 'empty'],
        [resolvedSets.length ? 5 : 0, 'set'],
        [0.3, 'null'],
      ])
      const stepTools = stepToolsKind === 'set' ? rng.pick(resolvedSets) : stepToolsKind === 'empty' ? {} : stepToolsKind === 'null' ? null : undefined
      const actions = []
      const nActions = rng.int(0, 6)
      for (let a = 0; a < nActions; a++) {
        const kind = rng.weighted([
          [5, 'search'],
          [5, 'load'],
          [0.3, 'searchInvalid'],
          [1, 'stats'],
          [0.6, 'cleanup'],
          [0.3, 'clearState'],
          [0.1, 'clearAllState'],
          [0.8, 'getLoaded'],
          [s > 0 ? 0.5 : 0, 'stale'],
        ])
        const advance = rng.bool(0.3) ? rng.pick([1, 500, 1000, 1001, 30_000, 60_000, 3_600_001, -5000]) : 0 // -5000: clock going backwards
        const act = { kind, advance }
        switch (kind) {
          case 'search':
            act.input = { query: randomQuery(rng, allNames, descriptions) }
            break
          case 'searchInvalid':
            act.input = rng.pick([{}, { query: 5 }, { query: null }, { query: ['a'] }])
            break
          case 'load':
            act.input = randomLoadInput(rng, allNames)
            break
          case 'clearState':
            act.threadId = rng.pick(['t1', 't2', 'default', undefined, '', 'nope'])
            break
          case 'getLoaded':
            act.variant = rng.pick(['rcOnly', 'rcTools', 'stepArgs', 'stepArgsRc', 'none', 'toolsOnly', 'otherRc'])
            break
          case 'stale':
            act.stepBack = rng.int(1, s)
            act.which = rng.bool(0.5) ? 'search' : 'load'
            act.input = act.which === 'search' ? { query: randomQuery(rng, allNames, descriptions) } : randomLoadInput(rng, allNames)
            break
          default:
        }
        actions.push(act)
      }
      steps.push({
        threadId: rng.pick(threadPool),
        plan: rng.pick(planPool),
        stepTools,
        realMessageList: rng.bool(0.08),
        advance: rng.weighted([
          [2, 0],
          [1, 1],
          [1, 1000],
          [1, 30_000],
          [1, 59_999],
          [1, 60_001],
          [1, 3_600_001],
          [0.1, -5000],
        ]), // rarely backwards
        // context-store message shaping
        trim: rng.bool(0.15) ? rng.int(1, 3) : 0,
        junk: rng.bool(0.2),
        callState: rng.bool(0.2),
        messagesUndefined: rng.bool(0.03),
        // Converting the meta-tools' schemas is the costliest observation:
        // made on the first step of one scenario in five.
        schemas: s === 0 && rng.bool(0.2),
        actions,
      })
    }
    const junkSeed = rng.int(0, 2 ** 31)
    return { seed, labels, tools, opts, filterSpec, steps, junkSeed, mutations: genMutations(seed, tools, labels, steps) }
  }

  /**
   * Changes to the tools record after construction, which both run the same way
   * on copies of it (the processor reads the caller's record live), each within
   * the rule for an edited record (docs/differences.md: keys are read live,
   * ids come from the tables made at construction, and what lists the record,
   * the injected catalog and load_tool's suggestions, lists the tables' keys):
   * a tool swapped in under a key with the id the key's tool had, at a step's
   * start (`action: -1`) or before one of its actions, optionally followed by
   * a `load_tool` call naming it. Tools added or deleted are compared with the
   * release in tool-search.live-tools.test.mjs, and every kind of edit against
   * a model of the rule by the record fuzz. Drawn from a stream of their own,
   * so the rest of a seed's scenario stays as it was.
   */
  function genMutations(seed, tools, labels, steps) {
    const rng = createRng((seed ^ 0x6d757461) >>> 0, sfc32)
    if (!rng.bool(0.4)) return []
    const keys = Object.keys(tools).filter((k) => !isInheritedName(k))
    if (keys.length === 0) return []
    const mutations = []
    for (let i = 0, n = rng.int(1, 4); i < n; i++) {
      const step = rng.int(0, steps.length - 1)
      const action = rng.int(-1, steps[step].actions.length - 1)
      const kind = 'swap'
      const key = rng.pick(keys)
      const id = tools[key].id
      const tool = scenarioTool({ id, description: randomDescription(rng), kind: rng.bool(0.8) ? 'mastra' : 'plain', tag: `mutant:${i}` })
      labels.set(tool, `mutant:${i}:${kind}:${key}`)
      const named = [key, ...(typeof id === 'string' ? [id] : []), rng.pick(keys)]
      const probe = rng.bool(0.7) ? (rng.bool(0.5) ? { toolName: rng.pick(named) } : { toolNames: named.filter(() => rng.bool(0.7)) }) : undefined
      mutations.push({ step, action, kind, key, tool, probe })
    }
    return mutations
  }

  return { randomCatalog, genScenario }
}
