// `filterConcurrency` against the reference: the seeded scenarios of the
// differential run (tool-search-harness.mjs: genScenario/runScenario), with
// our processor asking the hook about up to `concurrency` tools at once.
//
//   withConcurrency(Ours, concurrency) -> a class that adds `filterConcurrency` to its options
//   compareAskingAhead(ref, ours, concurrency, firstDiff) -> null, or where and how they differ
//   hookCalls(trace)                 -> how many hook calls a trace holds
//
// Every observation must be the reference's but the hook calls: a step's
// (the injected catalog, the loaded tools) are the reference's, in order;
// an action's start with the reference's, in order, and may go on with up to
// `concurrency - 1` more of its phase ('search' for search_tools, 'load' for
// load_tool's suggestions), the tools it asked ahead about.

/** `Ours` with `filterConcurrency: concurrency` added to every options object it is given. */
export function withConcurrency(Ours, concurrency) {
  return class extends Ours {
    constructor(options) {
      super(options !== null && typeof options === 'object' ? { ...options, filterConcurrency: concurrency } : options)
    }
  }
}

/**
 * The trace without its hook calls, and the hook calls by place:
 * `{ place, calls, asksAhead }`, `asksAhead` naming the phase in which the
 * place may ask ahead (an action that runs a meta-tool), if any.
 */
function split(trace) {
  const places = []
  const steps = trace.steps.map((step, i) => {
    const { filterCalls, actions, ...rest } = step
    places.push({ place: `steps[${i}]`, calls: filterCalls })
    return {
      ...rest,
      actions: actions?.map((action, j) => {
        const { filterCalls: calls, ...kept } = action
        places.push({ place: `steps[${i}].actions[${j}]`, calls, asksAhead: ASKS_AHEAD[action.kind] })
        return kept
      }),
    }
  })
  return { trace: { ...trace, steps }, places }
}

/** The phase in which an action may ask ahead: a search's, a load's suggestions', either for a stale meta-tool. */
const ASKS_AHEAD = { search: ['search'], searchInvalid: ['search'], load: ['load'], stale: ['search', 'load'] }

export function compareAskingAhead(ref, ours, concurrency, firstDiff) {
  const [r, o] = [split(ref), split(ours)]
  const diff = firstDiff(o.trace, r.trace)
  if (diff) return diff
  for (const [i, { place, calls: refCalls }] of r.places.entries()) {
    const { calls: ourCalls, asksAhead } = o.places[i]
    if (refCalls === undefined || ourCalls === undefined) {
      if (refCalls !== ourCalls) return { path: `${place}.filterCalls`, ours: ourCalls, ref: refCalls }
      continue
    }
    const prefix = firstDiff(ourCalls.slice(0, refCalls.length), refCalls, `${place}.filterCalls`)
    if (prefix) return prefix
    const ahead = ourCalls.slice(refCalls.length)
    if (ahead.length === 0) continue
    const phases = new Set(ahead.map((call) => call.phase))
    const inOnePhase = phases.size === 1 && (asksAhead ?? []).includes(ahead[0].phase)
    if (!inOnePhase || ahead.length > concurrency - 1) {
      return { path: `${place}.filterCalls (asked ahead)`, ours: ahead, ref: [] }
    }
  }
  return null
}

/** How many hook calls a trace holds (the steps' and the actions'). */
export function hookCalls(trace) {
  return split(trace).places.reduce((sum, { calls }) => sum + (calls?.filter((call) => call.phase !== undefined).length ?? 0), 0)
}
