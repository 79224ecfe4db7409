// Models of the reference's behaviour that the tests use as oracles: what a
// release's own ToolSearchProcessor does that 1.59.0's did not, and our
// deliberate differences put on a reference processor, so that "the reference
// plus our differences" can be run and compared with ours exactly. Test-only;
// the models rely on the reference's private members at runtime. Nothing here
// imports a release: the processor class and the thread key are passed in.
//
//   referenceFeatures(version)        -> { memoryThread, singleLoadResults, injectCatalog }
//   withOurFixes(Base, threadIdKey)   -> Base plus our deliberate differences (a) to (d)
//   modelBoundedContextState(processor, ttl) -> (d) on a reference processor
//   adjustMessagesForReference(messages)     -> (a) as the reference's input

const atLeast = (release, version) => {
  const [a, b] = [release, version].map((v) => v.split('.').map(Number))
  return a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] >= b[2]
}

/**
 * What the release's own processor does that 1.59.0's did not (from its
 * sources). Ours does all of it on every release; where the reference lacks
 * it, scenarios avoid it (memory threads) or adapt the reference's input to it
 * (single-toolName load results): see the deliberate differences tests.
 */
export function referenceFeatures(version) {
  return {
    /** The thread falls back to requestContext.get('MastraMemory').thread.id (1.60.0). */
    memoryThread: atLeast(version, '1.60.0'),
    /** The context store counts { success: true, toolName } load_tool results (1.60.0). */
    singleLoadResults: atLeast(version, '1.60.0'),
    /** The injectCatalog option (1.67.0). */
    injectCatalog: atLeast(version, '1.67.0'),
  }
}

/**
 * Executable model of OUR intended behaviour, built on the reference (test-only
 * oracle; relies on the reference's private members at runtime):
 *  (a) the 'context' store also counts { success: true, toolName } load_tool results;
 *  (b) the thread id falls back to requestContext.get('MastraMemory')?.thread?.id;
 *  (c) only own keys of the tools record are tools;
 *  (d) the 'context' store's supplemental state is bounded and visible
 *      (modelBoundedContextState).
 * `threadIdKey` is the release's MASTRA_THREAD_ID_KEY.
 */
export function withOurFixes(Base, threadIdKey) {
  /** Thread id as ours resolves it: mastra__threadId, then the memory thread, then none. */
  const oursThreadId = (requestContext) => requestContext?.get(threadIdKey) || requestContext?.get('MastraMemory')?.thread?.id || undefined

  return class FixedReferenceToolSearchProcessor extends Base {
    constructor(options) {
      super(options)
      const store = this.store
      if (options?.storage === 'context') {
        modelBoundedContextState(this, options.ttl)
        const orig = store.getLoadedNames.bind(store)
        store.getLoadedNames = (ctx) => orig(ctx.args ? { ...ctx, args: { ...ctx.args, messages: adjustMessagesForReference(ctx.args.messages) } } : ctx)
      }
    }
    getThreadId(args) {
      return oursThreadId(args.requestContext)
    }
    findToolForDynamicName(catalog, toolName) {
      const toolByKey = Object.hasOwn(catalog.tools, toolName) ? catalog.tools[toolName] : undefined
      const toolById = this.findToolById(catalog, toolName)
      return this.filter ? (toolById ?? toolByKey) : (toolByKey ?? toolById)
    }
    async getLoadedToolsForRequestContext(args) {
      if (args?.stepArgs) return super.getLoadedToolsForRequestContext(args)
      const threadId = oursThreadId(args?.requestContext)
      const loadedNames = await this.store.getLoadedNames({ threadId, args: undefined })
      return this.getLoadedTools(this.catalogForStep(args?.tools), loadedNames, args?.requestContext)
    }
  }
}

/**
 * Executable model of our deliberate difference for the 'context' store, put
 * on a reference processor (test-only; relies on its private `store`): the
 * supplemental sets keep a last-access time (set when names are added, and
 * when a thread that has a set is read), expire after `ttl` idle exactly as
 * the in-memory store's threads do, and getStateStats, cleanupNow, clearState
 * and clearAllState act on them. Nothing else changes.
 */
export function modelBoundedContextState(processor, ttlOption) {
  const store = processor.store
  const sets = store.supplemental
  const ttl = ttlOption ?? 3_600_000
  const lastAccessed = new Map()
  const getLoadedNames = store.getLoadedNames.bind(store)
  const addLoaded = store.addLoaded.bind(store)
  store.getLoadedNames = (ctx) => {
    if (ctx.threadId && sets.has(ctx.threadId)) lastAccessed.set(ctx.threadId, Date.now())
    const names = getLoadedNames(ctx)
    if (ctx.threadId && !sets.has(ctx.threadId)) lastAccessed.delete(ctx.threadId)
    return names
  }
  store.addLoaded = (names, ctx) => {
    addLoaded(names, ctx)
    if (names.length > 0 && ctx.threadId) lastAccessed.set(ctx.threadId, Date.now())
  }
  const forget = (threadId) => {
    sets.delete(threadId)
    lastAccessed.delete(threadId)
  }
  processor.clearState = (threadId = 'default') => forget(threadId)
  processor.clearAllState = () => {
    sets.clear()
    lastAccessed.clear()
  }
  processor.cleanupNow = () => {
    if (ttl <= 0) return 0
    const now = Date.now()
    let cleaned = 0
    for (const threadId of [...sets.keys()]) {
      if (now - lastAccessed.get(threadId) > ttl) {
        forget(threadId)
        cleaned++
      }
    }
    return cleaned
  }
  processor.getStateStats = () => {
    if (sets.size === 0) return { threadCount: 0, oldestAccessTime: null }
    let oldest = Date.now()
    for (const threadId of sets.keys()) oldest = Math.min(oldest, lastAccessed.get(threadId))
    return { threadCount: sets.size, oldestAccessTime: oldest }
  }
  return processor
}

/**
 * Model our deliberate difference (a) for the reference: the 'context' store of
 * ours also counts a successful single-toolName load_tool result
 * ({ success: true, toolName }). Rewrites such results for the reference as
 * { ...result, loaded: [toolName] } (only when the result has no `loaded`
 * array), which makes the reference derive the same names in the same order.
 */
export function adjustMessagesForReference(messages) {
  if (!Array.isArray(messages)) return messages
  return messages.map((m) => {
    const parts = m?.content?.parts
    if (!Array.isArray(parts)) return m
    let changed = false
    const newParts = parts.map((p) => {
      const inv = p?.toolInvocation
      if (
        p?.type === 'tool-invocation' &&
        inv &&
        inv.toolName === 'load_tool' &&
        inv.state === 'result' &&
        inv.result &&
        typeof inv.result === 'object' &&
        inv.result.success === true &&
        typeof inv.result.toolName === 'string' &&
        !Array.isArray(inv.result.loaded)
      ) {
        changed = true
        return { ...p, toolInvocation: { ...inv, result: { ...inv.result, loaded: [inv.result.toolName] } } }
      }
      return p
    })
    return changed ? { ...m, content: { ...m.content, parts: newParts } } : m
  })
}
