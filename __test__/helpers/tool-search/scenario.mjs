// The scenario engine: runs a scenario (scenario-generation.mjs) against one
// implementation the way the Agent drives a processor (processInputStep, then
// the returned meta-tools, then the next step, the clock advancing between),
// applies the tools-record changes, shapes the history the 'context' store
// reads, and records everything observable into one trace: tool lists,
// addSystem calls and filter-hook calls in one ordered log per step and
// action, execute results, state stats. Two traces compare with firstDiff.
// The reference runs with our deliberate differences modelled on it
// (reference-models.mjs).
//
//   scenarioRunner({ referenceHas, makeRequestContext, toolInvocationMessage, userMessage, runStep, execTool, describeTools }) ->
//     runScenario(Impl, scenario, { role: 'ref' | 'ours', clock }) -> trace
//     probeProcessor(processor, opts) -> a fixed step, searches, loads and a second step, to compare odd processors

import { createRng, sfc32 } from '../random.mjs'

import { makeFilter } from './builders.mjs'
import { Labels, capture } from './observation.mjs'
import { catalogNames, isInheritedName } from './random-inputs.mjs'
import { adjustMessagesForReference, modelBoundedContextState } from './reference-models.mjs'

export function scenarioRunner({ referenceHas, makeRequestContext, toolInvocationMessage, userMessage, runStep, execTool, describeTools }) {
  /** Junk/odd messages for the context store (never ambiguous w.r.t. fix (a)). */
  function junkMessages(rng, names) {
    const n = () => rng.pick(names) ?? 'x'
    const pick = rng.int(0, 11)
    switch (pick) {
      case 0:
        return [toolInvocationMessage([{ toolName: 'load_tool', result: { loaded: [n(), 5, null, n()] } }])]
      case 1:
        return [toolInvocationMessage([{ toolName: 'search_tools', result: { results: [{ name: n() }, { name: 7 }, null, 'str', { name: n() }] } }])]
      case 2:
        return [toolInvocationMessage([{ toolName: 'other_tool', result: { loaded: [n()], results: [{ name: n() }] } }])]
      case 3:
        return [
          toolInvocationMessage([
            { toolName: 'load_tool', state: 'call' },
            { toolName: 'load_tool', state: 'partial-call', result: { loaded: [n()] } },
          ]),
        ]
      case 4:
        return [{ id: 'j1', role: 'assistant', createdAt: new Date(0), content: 'plain string content' }]
      case 5:
        return [{ id: 'j2', role: 'assistant', createdAt: new Date(0), content: { format: 2 } }]
      case 6:
        return [
          {
            id: 'j3',
            role: 'assistant',
            createdAt: new Date(0),
            content: { format: 2, parts: [{ type: 'tool-invocation' }, { type: 'text', text: 'hi' }, { type: 'tool-invocation', toolInvocation: null }] },
          },
        ]
      case 7:
        return [
          toolInvocationMessage([
            { toolName: 'load_tool', result: 'not an object' },
            { toolName: 'search_tools', result: null },
            { toolName: 'load_tool', result: { loaded: 'x' } },
          ]),
        ]
      case 8:
        return [toolInvocationMessage([{ toolName: 'load_tool', result: { success: false, toolName: n(), message: 'no' } }])]
      case 9:
        return [toolInvocationMessage([{ toolName: 'load_tool', result: { success: true, toolName: n(), message: 'ok' } }])]
      case 10:
        return [toolInvocationMessage([{ toolName: 'search_tools', result: { results: [{ name: n() }], loaded: [n()] } }])]
      default:
        return [userMessage('hello ' + n())]
    }
  }

  /**
   * Run a scenario against one implementation and return the full trace.
   * role: 'ref' applies adjustMessagesForReference for the 'context' store.
   */
  async function runScenario(Impl, scenario, { role = 'ours', clock } = {}) {
    const { labels, tools, opts, filterSpec, steps } = scenario
    const filterLog = []
    // Each run's own copy of the record, which the mutations change.
    const record = { ...tools }
    const options = { ...opts, tools: record }
    if (opts.search) options.search = { ...opts.search }
    if (filterSpec) options.filter = makeFilter(filterSpec, filterLog, labels)
    const isContext = opts.storage === 'context'
    const adjust = (msgs) => (role === 'ref' && isContext && !referenceHas.singleLoadResults ? adjustMessagesForReference(msgs) : msgs)

    const trace = { steps: [] }
    const processor = new Impl(options)
    // Our bounded context-store state, a deliberate difference, modelled on the reference.
    if (role === 'ref' && isContext) modelBoundedContextState(processor, opts.ttl)
    trace.identity = { id: processor.id, name: processor.name, description: processor.description }
    const jrng = createRng(scenario.junkSeed, sfc32)
    const names = catalogNames(tools).filter((n) => !isInheritedName(n))
    let history = [userMessage('start', { id: 'u0' })]
    const prevMeta = [] // per step: { search_tools, load_tool, requestContext }
    /** Applies the record changes due at (step, action), each probed with a load_tool call. */
    const mutate = async (si, action, log) => {
      for (const m of scenario.mutations ?? []) {
        if (m.step !== si || m.action !== action) continue
        if (m.kind === 'delete') delete record[m.key]
        else record[m.key] = m.tool
        const entry = { mutation: m.kind, key: m.key }
        const last = prevMeta.at(-1)
        if (m.probe && last?.load) entry.probe = await execTool(last.load, m.probe, { requestContext: last.rc })
        log.push(entry)
      }
    }

    for (let si = 0; si < steps.length; si++) {
      const step = steps[si]
      if (clock) clock.advance(step.advance)
      const st = { mutations: [] }
      await mutate(si, -1, st.mutations)
      // message shaping (context store reads them; in-memory ignores them)
      if (step.trim && history.length > 1) history = history.slice(Math.min(step.trim, history.length - 1))
      if (step.junk) history = [...history, ...junkMessages(jrng, names)]
      if (step.callState) history = [...history, toolInvocationMessage([{ toolName: 'load_tool', state: 'call', args: { toolName: 'x' } }])]
      const messages = step.messagesUndefined ? undefined : history

      const thread = typeof step.threadId === 'object' ? step.threadId : { thread: step.threadId }
      const rc = makeRequestContext({
        threadId: thread.thread,
        memoryThreadId: thread.memory,
        values: step.plan !== undefined ? { plan: step.plan } : {},
      })
      labels.set(rc, `rc${si}`)
      const fl0 = filterLog.length
      const r = await capture(() =>
        runStep(processor, {
          messages: adjust(messages),
          tools: step.stepTools,
          requestContext: rc,
          stepNumber: si,
          realMessageList: step.realMessageList,
          labels,
          schemas: step.schemas,
          events: filterLog,
        }),
      )
      if (r.threw) {
        st.threw = r.threw
        trace.steps.push(st)
        break
      }
      const out = r.value
      st.resultKeys = out.resultKeys
      st.tools = out.tools
      st.systemCalls = out.systemCalls
      st.filterCalls = filterLog.slice(fl0)
      st.stats = processor.getStateStats()
      const returned = out.result.tools ?? {}
      const metaOf = (name) => {
        const t = returned[name]
        return t && labels.get(t) === null ? t : undefined // only fresh meta-tools are executed
      }
      prevMeta.push({ search: metaOf('search_tools'), load: metaOf('load_tool'), rc })

      st.actions = []
      const newParts = []
      let callN = 0
      for (const [ai, act] of step.actions.entries()) {
        await mutate(si, ai, st.mutations)
        if (clock && act.advance) clock.advance(act.advance)
        const fl = filterLog.length
        const rec = { kind: act.kind }
        switch (act.kind) {
          case 'search':
          case 'searchInvalid':
          case 'load': {
            const tool = act.kind === 'load' ? metaOf('load_tool') : metaOf('search_tools')
            if (!tool) {
              rec.absent = true
              break
            }
            rec.out = await execTool(tool, act.input, { requestContext: rc })
            if (rec.out.value && !rec.out.value.error) {
              newParts.push({
                toolName: act.kind === 'load' ? 'load_tool' : 'search_tools',
                toolCallId: `s${si}c${callN++}`,
                args: act.input,
                result: structuredClone(rec.out.value),
              })
            }
            break
          }
          case 'stale': {
            const pm = prevMeta[si - act.stepBack]
            const tool = pm && (act.which === 'search' ? pm.search : pm.load)
            if (!tool) {
              rec.absent = true
              break
            }
            rec.out = await execTool(tool, act.input, { requestContext: rc })
            break
          }
          case 'stats':
            rec.out = processor.getStateStats()
            break
          case 'cleanup':
            rec.out = processor.cleanupNow()
            break
          case 'clearState':
            rec.out = act.threadId === undefined ? processor.clearState() : processor.clearState(act.threadId)
            break
          case 'clearAllState':
            rec.out = processor.clearAllState()
            break
          case 'getLoaded': {
            const otherRc = makeRequestContext({ threadId: 't2', values: { plan: 'free' } })
            labels.set(otherRc, `rc${si}-other`)
            const stepArgs = { ...out.args, messages: adjust(history) }
            const argsByVariant = {
              rcOnly: { requestContext: rc },
              rcTools: { requestContext: rc, tools: step.stepTools },
              stepArgs: { stepArgs },
              stepArgsRc: { stepArgs, requestContext: otherRc, tools: step.stepTools },
              none: undefined,
              toolsOnly: { tools: step.stepTools },
              otherRc: { requestContext: otherRc },
            }
            const res = await capture(() => processor.getLoadedToolsForRequestContext(argsByVariant[act.variant]))
            rec.out = res.threw ? res : describeTools(res.value, labels, { schemas: false })
            break
          }
          default:
        }
        rec.filterCalls = filterLog.slice(fl)
        rec.statsAfter = processor.getStateStats()
        st.actions.push(rec)
      }
      if (newParts.length) history = [...history, toolInvocationMessage(newParts, { id: `a${si}` })]
      trace.steps.push(st)
    }
    trace.finalStats = processor.getStateStats()
    trace.finalCleanup = processor.cleanupNow()
    return trace
  }

  /**
   * A fixed probe used to compare two processors built from odd options:
   * one step, a few searches and loads, a second step, stats.
   */
  async function probeProcessor(
    processor,
    {
      labels = new Labels(),
      queries = ['weather', 'email send', ''],
      loads = [{ toolName: 'get_weather' }, { toolNames: ['send_email', 'nope'] }],
      stepTools,
      threadId = 'probe',
      requestContext,
    } = {},
  ) {
    const rc = requestContext ?? makeRequestContext({ threadId })
    labels.set(rc, 'probe-rc')
    const s1 = await runStep(processor, { requestContext: rc, tools: stepTools, labels })
    const out = { s1: { tools: s1.tools, systemCalls: s1.systemCalls }, searches: [], loads: [] }
    const search = s1.result.tools?.search_tools
    const load = s1.result.tools?.load_tool
    for (const q of queries) out.searches.push(search ? await execTool(search, { query: q }, { requestContext: rc }) : 'absent')
    for (const l of loads) out.loads.push(load ? await execTool(load, l, { requestContext: rc }) : 'absent')
    const s2 = await runStep(processor, { requestContext: rc, tools: stepTools, labels, stepNumber: 1 })
    out.s2 = { tools: s2.tools }
    out.stats = processor.getStateStats()
    return out
  }

  return { runScenario, probeProcessor }
}
