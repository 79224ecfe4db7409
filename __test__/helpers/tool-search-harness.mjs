// Test harness for ToolSearchProcessor: drives a processor the way the Agent
// does (processInputStep -> execute the returned meta-tools -> next step), and
// records everything a model or user can observe, so that a release's own
// processor (the reference) and ours for that release can be compared exactly.
// The module is bound to one release: import it through
// toolSearchHarness(version) (releases.mjs); a plain import takes
// MASTRA_RELEASE, else 1.59.0.
//
// API (all exports are plain functions; nothing here touches global state
// unless named install*/capture*):
//   loadOurs()                      -> our ToolSearchProcessor class (env TOOL_SEARCH_OURS=fixed-ref
//                                      swaps in FixedReferenceToolSearchProcessor, the reference plus
//                                      our deliberate differences (a), (b), (c))
//   RefToolSearchProcessor          the reference class
//   release, referenceHas           the release ({ version, reference, ours, importCore }) and
//                                      what its reference does that 1.59.0's did not
//   runStep(processor, { messages, tools, requestContext, stepNumber, realMessageList, labels, schemas, events })
//                                   -> { args, result, resultKeys, toolNames, tools, systemCalls }
//                                      (args is the exact ProcessInputStepArgs passed; reuse it as stepArgs)
//   execTool(tool, input, { requestContext }) -> { value } | { threw: { name, message, isTypeError } }
//   describeTools(record, labels)   -> [[name, label | { meta: describeMetaTool(tool) }], ...]
//   describeMetaTool(tool)          -> { isMastraTool, keys, fields (incl. JSON schemas via Mastra) }
//   makeRequestContext({ threadId, memoryThreadId, values }) -> real RequestContext
//   toolInvocationMessage(parts) / userMessage(text)          -> MastraDBMessage (format 2)
//   installClock(start)             -> mocks Date.now: { now, set, advance, restore }
//   captureIntervals()              -> records/clears setInterval handles: { calls, clearAll, restore }
//   makeFilter(spec, log, labels)   -> deterministic filter hook that logs each call
//   genScenario(seed) / runScenario(Impl, scenario, { role, clock }) -> full trace (differential):
//                                      tool lists, addSystem calls and filter calls in one ordered
//                                      log per step and action, execute results, state stats
//   docsCatalog()                   -> the docs' example catalog ({ tools, labels })
//   sameOrTypeError(refFn, oursFn)  -> bad-input rule (same result, or ours throws TypeError)
//   probeProcessor(processor, opts) -> a fixed step, searches and loads, to compare odd processors
//   hash32(str), snapshot(value), firstDiff(a, b), Labels (random generator: random.mjs, sfc32)

import { z } from 'zod/v4';
import { createRng, sfc32 } from './random.mjs';
import { loadRelease } from './releases.mjs';

/**
 * The release under test: the `release` parameter this module was imported
 * with (`toolSearchHarness(version)` in releases.mjs gives each release its own
 * instance of this module), else MASTRA_RELEASE, else the one the docs describe.
 */
export const release = await loadRelease(
  new URL(import.meta.url).searchParams.get('release') ?? process.env.MASTRA_RELEASE ?? '1.59.0',
);
const RefToolSearchProcessor = release.reference.ToolSearchProcessor;

const atLeast = (version) => {
  const [a, b] = [release.version, version].map((v) => v.split('.').map(Number));
  return a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] >= b[2];
};

/**
 * What the release's own processor does that 1.59.0's did not (from its
 * sources). Ours does all of it on every release; where the reference lacks
 * it, scenarios avoid it (memory threads) or adapt the reference's input to it
 * (single-toolName load results): see the deliberate differences tests.
 */
export const referenceHas = {
  /** The thread falls back to requestContext.get('MastraMemory').thread.id (1.60.0). */
  memoryThread: atLeast('1.60.0'),
  /** The context store counts { success: true, toolName } load_tool results (1.60.0). */
  singleLoadResults: atLeast('1.60.0'),
  /** The injectCatalog option (1.67.0). */
  injectCatalog: atLeast('1.67.0'),
};
const { RequestContext, MASTRA_THREAD_ID_KEY } = await release.importCore('request-context');
const { MessageList } = await release.importCore('agent');
const { createTool, Tool, MASTRA_TOOL_MARKER } = await release.importCore('tools');
const { isStandardSchemaWithJSON, standardSchemaToJSONSchema, toStandardSchema } = await release.importCore('schema');

export { RefToolSearchProcessor, RequestContext, MASTRA_THREAD_ID_KEY, MessageList, createTool, Tool, z };

// The literal system messages, for the agent tests that import them from here.
export { INSTRUCTION, INSTRUCTION_AUTOLOAD, CATALOG_HEADER, CATALOG_HEADER_AUTOLOAD } from './tool-search-literals.mjs';

/**
 * Our implementation (ESM entry point of this package).
 * TOOL_SEARCH_OURS=fixed-ref swaps in FixedReferenceToolSearchProcessor (the
 * reference plus our deliberate differences), to validate the tests themselves
 * while index.js still re-exports the plain reference.
 * TOOL_SEARCH_OURS=fixed-ref:/abs/path/processors/index.js does the same on top of
 * another build of the reference (used for mutation testing of this suite).
 */
export async function loadOurs() {
  const sel = process.env.TOOL_SEARCH_OURS;
  if (sel === 'fixed-ref') return FixedReferenceToolSearchProcessor;
  if (sel && sel.startsWith('fixed-ref:')) {
    const mod = await import(sel.slice('fixed-ref:'.length));
    return withOurFixes(mod.ToolSearchProcessor);
  }
  return release.ours.ToolSearchProcessor;
}

/** Thread id as ours resolves it: mastra__threadId, then the memory thread, then none. */
function oursThreadId(requestContext) {
  return (
    requestContext?.get(MASTRA_THREAD_ID_KEY) ||
    requestContext?.get('MastraMemory')?.thread?.id ||
    undefined
  );
}

/**
 * Executable model of OUR intended behaviour, built on the reference (test-only
 * oracle; relies on the reference's private members at runtime):
 *  (a) the 'context' store also counts { success: true, toolName } load_tool results;
 *  (b) the thread id falls back to requestContext.get('MastraMemory')?.thread?.id;
 *  (c) only own keys of the tools record are tools;
 *  (d) the 'context' store's supplemental state is bounded and visible
 *      (modelBoundedContextState).
 */
export function withOurFixes(Base) {
  return class FixedReferenceToolSearchProcessor extends Base {
    constructor(options) {
      super(options);
      const store = this.store;
      if (options?.storage === 'context') {
        modelBoundedContextState(this, options.ttl);
        const orig = store.getLoadedNames.bind(store);
        store.getLoadedNames = ctx =>
          orig(ctx.args ? { ...ctx, args: { ...ctx.args, messages: adjustMessagesForReference(ctx.args.messages) } } : ctx);
      }
    }
    getThreadId(args) {
      return oursThreadId(args.requestContext);
    }
    findToolForDynamicName(catalog, toolName) {
      const toolByKey = Object.hasOwn(catalog.tools, toolName) ? catalog.tools[toolName] : undefined;
      const toolById = this.findToolById(catalog, toolName);
      return this.filter ? (toolById ?? toolByKey) : (toolByKey ?? toolById);
    }
    async getLoadedToolsForRequestContext(args) {
      if (args?.stepArgs) return super.getLoadedToolsForRequestContext(args);
      const threadId = oursThreadId(args?.requestContext);
      const loadedNames = await this.store.getLoadedNames({ threadId, args: undefined });
      return this.getLoadedTools(this.catalogForStep(args?.tools), loadedNames, args?.requestContext);
    }
  };
}

export const FixedReferenceToolSearchProcessor = withOurFixes(RefToolSearchProcessor);

/**
 * Executable model of our deliberate difference for the 'context' store, put
 * on a reference processor (test-only; relies on its private `store`): the
 * supplemental sets keep a last-access time (set when names are added, and
 * when a thread that has a set is read), expire after `ttl` idle exactly as
 * the in-memory store's threads do, and getStateStats, cleanupNow, clearState
 * and clearAllState act on them. Nothing else changes.
 */
export function modelBoundedContextState(processor, ttlOption) {
  const store = processor.store;
  const sets = store.supplemental;
  const ttl = ttlOption ?? 3_600_000;
  const lastAccessed = new Map();
  const getLoadedNames = store.getLoadedNames.bind(store);
  const addLoaded = store.addLoaded.bind(store);
  store.getLoadedNames = ctx => {
    if (ctx.threadId && sets.has(ctx.threadId)) lastAccessed.set(ctx.threadId, Date.now());
    const names = getLoadedNames(ctx);
    if (ctx.threadId && !sets.has(ctx.threadId)) lastAccessed.delete(ctx.threadId);
    return names;
  };
  store.addLoaded = (names, ctx) => {
    addLoaded(names, ctx);
    if (names.length > 0 && ctx.threadId) lastAccessed.set(ctx.threadId, Date.now());
  };
  const forget = threadId => {
    sets.delete(threadId);
    lastAccessed.delete(threadId);
  };
  processor.clearState = (threadId = 'default') => forget(threadId);
  processor.clearAllState = () => {
    sets.clear();
    lastAccessed.clear();
  };
  processor.cleanupNow = () => {
    if (ttl <= 0) return 0;
    const now = Date.now();
    let cleaned = 0;
    for (const threadId of [...sets.keys()]) {
      if (now - lastAccessed.get(threadId) > ttl) {
        forget(threadId);
        cleaned++;
      }
    }
    return cleaned;
  };
  processor.getStateStats = () => {
    if (sets.size === 0) return { threadCount: 0, oldestAccessTime: null };
    let oldest = Date.now();
    for (const threadId of sets.keys()) oldest = Math.min(oldest, lastAccessed.get(threadId));
    return { threadCount: sets.size, oldestAccessTime: oldest };
  };
  return processor;
}

/** FNV-1a 32-bit over UTF-16 code units (deterministic filter decisions). */
export function hash32(str) {
  let h = 0x811c9dc5;
  for (let i = 0; i < str.length; i++) {
    h ^= str.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// ---------------------------------------------------------------------------
// Controllable clock (mocks Date.now for BOTH implementations) and timer capture.
// ---------------------------------------------------------------------------

/**
 * Replace Date.now with a controllable clock. Returns { now, set, advance, restore }.
 * Our native processor must read time through Date.now for this to be meaningful.
 */
export function installClock(start = 1_700_000_000_000) {
  const realNow = Date.now;
  const clock = {
    t: start,
    now: () => clock.t,
    set: t => {
      clock.t = t;
    },
    advance: ms => {
      clock.t += ms;
    },
    restore: () => {
      Date.now = realNow;
    },
  };
  Date.now = () => clock.t;
  return clock;
}

/**
 * Record every setInterval created while installed so a test can clear them
 * (processors with ttl > 0 each start an unref'd sweep interval).
 * Returns { calls: [{delay, unrefCalled}], clearAll, restore }.
 */
export function captureIntervals() {
  const realSetInterval = globalThis.setInterval;
  const handles = [];
  const calls = [];
  globalThis.setInterval = function patchedSetInterval(fn, delay, ...rest) {
    const h = realSetInterval(fn, delay, ...rest);
    const rec = { delay, unrefCalled: false };
    calls.push(rec);
    const realUnref = h.unref?.bind(h);
    if (realUnref) {
      h.unref = () => {
        rec.unrefCalled = true;
        return realUnref();
      };
    }
    handles.push(h);
    return h;
  };
  return {
    calls,
    clearAll: () => {
      for (const h of handles.splice(0)) clearInterval(h);
      calls.length = 0;
    },
    restore: () => {
      for (const h of handles.splice(0)) clearInterval(h);
      globalThis.setInterval = realSetInterval;
    },
  };
}

// ---------------------------------------------------------------------------
// Labels: stable names for objects shared by both runs (tools, request contexts)
// so that identity can be compared across implementations.
// ---------------------------------------------------------------------------

export class Labels {
  constructor() {
    this.map = new WeakMap();
  }
  set(obj, label) {
    if (obj !== null && (typeof obj === 'object' || typeof obj === 'function')) this.map.set(obj, label);
    return obj;
  }
  get(obj) {
    if (obj === undefined) return '<undefined>';
    if (obj === null) return '<null>';
    if (typeof obj !== 'object' && typeof obj !== 'function') return `<${typeof obj}:${String(obj)}>`;
    return this.map.get(obj) ?? null;
  }
}

// ---------------------------------------------------------------------------
// Request contexts, message lists, messages.
// ---------------------------------------------------------------------------

/**
 * A real RequestContext. threadId sets 'mastra__threadId'; memoryThreadId sets
 * 'MastraMemory' = { thread: { id } } the way the Agent's memory step does.
 */
export function makeRequestContext({ threadId, memoryThreadId, values } = {}) {
  const rc = new RequestContext();
  if (threadId !== undefined) rc.set(MASTRA_THREAD_ID_KEY, threadId);
  if (memoryThreadId !== undefined) {
    rc.set('MastraMemory', { thread: { id: memoryThreadId, resourceId: 'res' }, resourceId: 'res', memoryConfig: {} });
  }
  for (const [k, v] of Object.entries(values ?? {})) rc.set(k, v);
  return rc;
}

/**
 * A message list that records addSystem calls (every argument).
 * real=true wraps a real MessageList (slower, ~0.4 ms per addSystem);
 * real=false is a minimal fake with addSystem and get.all.db().
 */
export function makeMessageList({ real = false, messages = [], events } = {}) {
  const systemCalls = [];
  // With an events log (shared with a filter's log), each call also leaves
  // `{ addSystem: i }` there, so the order of system messages and hook calls shows.
  const record = args => {
    systemCalls.push(args);
    events?.push({ addSystem: systemCalls.length - 1 });
  };
  if (real) {
    const ml = new MessageList();
    const orig = ml.addSystem.bind(ml);
    ml.addSystem = (...args) => {
      record(args);
      return orig(...args);
    };
    return { messageList: ml, systemCalls };
  }
  const ml = {
    addSystem: (...args) => {
      record(args);
    },
    get: { all: { db: () => messages } },
  };
  return { messageList: ml, systemCalls };
}

let msgCounter = 0;
/** A MastraDBMessage (format 2) holding tool-invocation parts. */
export function toolInvocationMessage(parts, { id } = {}) {
  return {
    id: id ?? `msg-${++msgCounter}`,
    role: 'assistant',
    createdAt: new Date(0),
    content: {
      format: 2,
      parts: parts.map(p => ({
        type: 'tool-invocation',
        toolInvocation: {
          state: p.state ?? 'result',
          toolCallId: p.toolCallId ?? `call-${++msgCounter}`,
          toolName: p.toolName,
          args: p.args ?? {},
          ...(p.state === 'call' ? {} : { result: p.result }),
        },
      })),
    },
  };
}

export function userMessage(text, { id } = {}) {
  return {
    id: id ?? `msg-${++msgCounter}`,
    role: 'user',
    createdAt: new Date(0),
    content: { format: 2, parts: [{ type: 'text', text }] },
  };
}

/**
 * Model our deliberate difference (a) for the reference: the 'context' store of
 * ours also counts a successful single-toolName load_tool result
 * ({ success: true, toolName }). Rewrites such results for the reference as
 * { ...result, loaded: [toolName] } (only when the result has no `loaded`
 * array), which makes the reference derive the same names in the same order.
 */
export function adjustMessagesForReference(messages) {
  if (!Array.isArray(messages)) return messages;
  return messages.map(m => {
    const parts = m?.content?.parts;
    if (!Array.isArray(parts)) return m;
    let changed = false;
    const newParts = parts.map(p => {
      const inv = p?.toolInvocation;
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
        changed = true;
        return { ...p, toolInvocation: { ...inv, result: { ...inv.result, loaded: [inv.result.toolName] } } };
      }
      return p;
    });
    return changed ? { ...m, content: { ...m.content, parts: newParts } } : m;
  });
}

// ---------------------------------------------------------------------------
// Observing tools and results.
// ---------------------------------------------------------------------------

/** JSON schema of a tool schema, via Mastra's own conversion (what the Agent sends). */
export function schemaJson(schema, io = 'input') {
  if (schema === undefined) return '<undefined>';
  if (schema === null) return '<null>';
  try {
    const std = isStandardSchemaWithJSON(schema) ? schema : toStandardSchema(schema);
    return standardSchemaToJSONSchema(std, { io });
  } catch (e) {
    return `<schema error: ${e?.message}>`;
  }
}

/** A stable description of a freshly created meta-tool (search_tools / load_tool). */
export function describeMetaTool(tool, { schemas = true } = {}) {
  if (tool === null || typeof tool !== 'object') return { notAnObject: typeof tool };
  const keys = Object.keys(tool);
  const fields = {};
  for (const k of keys) {
    const v = tool[k];
    if (k === 'inputSchema' || k === 'outputSchema' || k === 'suspendSchema' || k === 'resumeSchema' || k === 'requestContextSchema') {
      fields[k] = v === undefined ? '<undefined>' : schemas ? schemaJson(v, k === 'outputSchema' ? 'output' : 'input') : '<schema>';
    } else if (typeof v === 'function') {
      fields[k] = '<function>';
    } else if (v === undefined || v === null || typeof v !== 'object') {
      fields[k] = v;
    } else {
      fields[k] = `<object:${Object.keys(v).join(',')}>`;
    }
  }
  return {
    isMastraTool: tool instanceof Tool || MASTRA_TOOL_MARKER in tool,
    keys,
    fields,
  };
}

/** Deep copy that keeps undefined-valued keys and key order; functions become markers. */
export function snapshot(value, seen = new Map()) {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function') return '<function>';
    if (typeof value === 'symbol') return `<symbol:${value.description}>`;
    if (typeof value === 'bigint') return `<bigint:${value}>`;
    return value;
  }
  if (seen.has(value)) return '<cycle>';
  seen.set(value, true);
  let out;
  if (Array.isArray(value)) out = value.map(v => snapshot(v, seen));
  else if (value instanceof Date) out = `<date:${value.getTime()}>`;
  else {
    out = {};
    for (const k of Object.keys(value)) out[k] = snapshot(value[k], seen);
  }
  seen.delete(value);
  return out;
}

/** Run fn, capturing { value } or { threw: { name, message, isTypeError } }. */
export async function capture(fn) {
  try {
    return { value: await fn() };
  } catch (e) {
    return { threw: { name: e?.name, message: e?.message, isTypeError: e instanceof TypeError } };
  }
}

/** Execute a tool the way Mastra does: execute(inputData, context). */
export async function execTool(tool, input, { requestContext } = {}) {
  const r = await capture(() => tool.execute(input, { requestContext: requestContext ?? new RequestContext() }));
  return r.threw ? r : { value: snapshot(r.value) };
}

/**
 * Describe a tools record returned by processInputStep (or by
 * getLoadedToolsForRequestContext): names in order, and for each tool either its
 * label (a known catalog/step tool, compared by identity) or a meta-tool description.
 */
export function describeTools(tools, labels, { schemas = true } = {}) {
  if (tools === undefined) return '<undefined>';
  if (tools === null || typeof tools !== 'object') return `<${typeof tools}>`;
  return Object.keys(tools).map(name => {
    const t = tools[name];
    const label = labels.get(t);
    if (label !== null) return [name, label];
    return [name, { meta: describeMetaTool(t, { schemas }) }];
  });
}

/**
 * Run one processInputStep the way the Agent does.
 * Returns { result, toolNames, tools (description), systemCalls, resultKeys, args }.
 */
export async function runStep(processor, {
  messages = [],
  tools,
  requestContext,
  stepNumber = 0,
  realMessageList = false,
  labels = new Labels(),
  schemas = true,
  state = {},
  omit = [],
  events,
} = {}) {
  const { messageList, systemCalls } = makeMessageList({ real: realMessageList, messages, events });
  const args = {
    messages,
    messageList,
    tools,
    requestContext,
    state,
    stepNumber,
    steps: [],
    systemMessages: [],
    retryCount: 0,
    abort: reason => {
      throw new Error(`abort: ${reason}`);
    },
  };
  for (const k of omit) delete args[k];
  const result = await processor.processInputStep(args);
  return {
    args,
    result,
    resultKeys: result && typeof result === 'object' ? Object.keys(result) : `<${typeof result}>`,
    toolNames: result?.tools ? Object.keys(result.tools) : [],
    tools: describeTools(result?.tools, labels, { schemas }),
    systemCalls: snapshot(systemCalls),
  };
}

// ---------------------------------------------------------------------------
// Filters: deterministic hooks that log every call.
// ---------------------------------------------------------------------------

/**
 * A filter hook whose decision is a hash of (toolName, phase, plan, salt).
 * mode: 'sync' | 'async' | 'mixed' (mixed also throws, rejects, and returns
 * truthy/falsy non-booleans). Every call is appended to `log`.
 */
export function makeFilter({ mode = 'sync', denyPct = 30, salt = 0 } = {}, log, labels) {
  return function filter(arg) {
    const { toolName, tool, requestContext, phase } = arg;
    const plan = requestContext?.get?.('plan');
    log.push({
      keys: Object.keys(arg),
      toolName,
      phase,
      tool: labels ? labels.get(tool) : undefined,
      requestContext: labels ? labels.get(requestContext) : undefined,
    });
    const h = hash32(`${String(toolName)}|${phase}|${String(plan)}|${salt}`);
    const allow = h % 100 >= denyPct;
    if (mode === 'sync') return allow;
    if (mode === 'async') return Promise.resolve(allow);
    switch ((h >>> 8) % 12) {
      case 0:
        throw new Error('filter exploded');
      case 1:
        return Promise.reject(new Error('filter rejected'));
      case 2:
        return allow ? 1 : 0;
      case 3:
        return allow ? 'yes' : '';
      case 4:
        return Promise.resolve(allow ? {} : null);
      case 5:
        return new Promise(resolve => queueMicrotask(() => resolve(allow)));
      case 6:
        return allow ? Promise.resolve(true) : false;
      default:
        return allow;
    }
  };
}

// ---------------------------------------------------------------------------
// Random catalogs, options and scenarios.
// ---------------------------------------------------------------------------

const WORDS = [
  'weather', 'forecast', 'email', 'send', 'create', 'issue', 'github', 'list', 'pull', 'request', 'merge',
  'slack', 'message', 'channel', 'database', 'query', 'insert', 'update', 'delete', 'user', 'file', 'read',
  'write', 'search', 'calendar', 'event', 'invoice', 'payment', 'stripe', 'refund', 'ticket', 'jira',
  'deploy', 'build', 'log', 'metrics', 'alert', 'translate', 'image', 'resize', 'pdf', 'export', 'import',
  'get', 'set', 'run', 'tool', 'data', 'city', 'api', 'v2', 'a', 'an', 'the', 'of', 'to', 'is', 'x',
  'premium', 'admin', 'report', 'summary', 'chart', 'map', 'geo', 'time', 'zone', 'currency', 'convert',
  // unicode
  '天気', '予報', '邮件', '发送', '数据库', '查询', 'メール', '送信', '検索', '東京', '北京',
  '🔥', '🚀', '🌦️', 'Σ', 'σ', 'ς', 'ΣΊΣΥΦΟΣ', 'İstanbul', 'İ', 'ß', 'straße', 'Ǆ', 'ǅ', 'ﬁle', 'Ωmega',
  'café', 'cafe\u0301', 'naïve', 'Ångström', 'K', 'ı', 'ǰ', 'ŉ', 'Привет', 'ПОГОДА', 'погода', 'مرحبا', 'שלום',
  'données', 'über', 'ÜBER',
];

const SEPARATORS_IN_TEXT = [
  ' ', ' ', ' ', ' ', '  ', '\t', '\n', '-', '_', '.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '{', '}',
  "'", '"', ' / ', ' & ', '+', '#', '@', '|', '~', '*',
  '\uFEFF', // BOM: \s in JS, not char::is_whitespace in Rust
  '\u0085', // NEL: not \s in JS, whitespace in Rust
  '\u00A0', // NBSP: \s in JS
  '\u2028', '\u3000', '\u1680', '\u200B', '\u180E', '\u2007', '\u000B', '\u000C', '\r\n',
];

const ID_SEPARATORS = ['_', '-', '.', '', ':', '/', ' ', '__'];

function randomWord(rng) {
  const w = rng.pick(WORDS);
  const r = rng.next();
  if (r < 0.1) return w.toUpperCase();
  if (r < 0.2) return w[0].toUpperCase() + w.slice(1);
  if (r < 0.25) return w + rng.int(0, 99);
  return w;
}

function randomText(rng, nWords) {
  let s = '';
  for (let i = 0; i < nWords; i++) {
    if (i > 0) s += rng.pick(SEPARATORS_IN_TEXT);
    s += randomWord(rng);
  }
  return s;
}

function randomId(rng) {
  const n = rng.int(1, 4);
  const sep = rng.pick(ID_SEPARATORS);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(randomWord(rng));
  if (sep === '' && rng.bool(0.7)) {
    // camelCase
    return parts.map((p, i) => (i === 0 ? p.toLowerCase() : p[0].toUpperCase() + p.slice(1))).join('');
  }
  return parts.join(sep);
}

/** Names a differential run must avoid: ours treats only own keys as tools. */
export function isInheritedName(name) {
  return typeof name === 'string' && name in Object.prototype;
}

function safeName(rng, make) {
  for (let i = 0; i < 20; i++) {
    const n = make();
    if (!isInheritedName(n)) return n;
  }
  return `tool_${rng.int(0, 1e6)}`;
}

function randomDescription(rng) {
  const kind = rng.weighted([
    [6, 'normal'],
    [1, 'empty'],
    [1, 'long'],
    [0.5, 'exact150'],
    [0.5, 'exact151'],
    [0.3, 'undefined'],
  ]);
  switch (kind) {
    case 'empty':
      return '';
    case 'undefined':
      return undefined;
    case 'long': {
      let s = randomText(rng, rng.int(30, 60));
      return s;
    }
    case 'exact150':
    case 'exact151': {
      const target = kind === 'exact150' ? 150 : 151;
      let s = randomText(rng, 40);
      while (s.length < target) s += ' ' + randomText(rng, 5);
      s = s.slice(0, target);
      // never cut a surrogate pair in half (no lone surrogates in differential data)
      if (/[\uD800-\uDBFF]$/.test(s)) s = s.slice(0, -1) + 'x';
      return s;
    }
    default:
      return randomText(rng, rng.int(1, 14));
  }
}

let toolSerial = 0;
const SHARED_INPUT_SCHEMA = z.object({ value: z.string().optional() });

/**
 * A tool for a catalog. kind: 'mastra' (createTool with zod schema) or 'plain'
 * (a plain object with id/description/execute, or without id when idless).
 */
function makeTool(rng, { id, description, kind = 'mastra', idless = false, tag }) {
  const serial = ++toolSerial;
  const execute = async input => ({ tag, serial, input });
  if (kind === 'mastra') {
    const opts = {
      id,
      description,
      inputSchema: SHARED_INPUT_SCHEMA, // shared: catalog schemas are never inspected by the processor
      execute,
    };
    if (description === undefined) delete opts.description;
    return createTool(opts);
  }
  const t = idless ? { description, execute } : { id, description, execute };
  if (description === undefined) delete t.description;
  return t;
}

/**
 * Random catalog: { tools, labels, names } where names collects keys and ids.
 * opts.allowIdless: plain tools without id (used only for resolved step tools).
 */
export function randomCatalog(rng, { min = 1, max = 60, prefix = 'c', labels = new Labels(), allowIdless = false, keys: takenKeys = new Set() } = {}) {
  const n = rng.int(min, max);
  const tools = {};
  const ids = [];
  for (let i = 0; i < n; i++) {
    let id;
    const idKind = rng.weighted([
      [10, 'fresh'],
      [1, 'dup'],
      [0.4, 'intlike'],
      [0.2, 'empty'],
      [0.3, 'long'],
    ]);
    if (idKind === 'dup' && ids.length > 0) id = rng.pick(ids);
    else if (idKind === 'intlike') id = String(rng.int(0, 300));
    else if (idKind === 'empty') id = '';
    else if (idKind === 'long') id = safeName(rng, () => randomId(rng) + '_' + 'x'.repeat(rng.int(100, 400)));
    else id = safeName(rng, () => randomId(rng));
    ids.push(id);

    let key;
    const keyKind = rng.weighted([
      [6, 'same'],
      [3, 'different'],
      [0.3, 'intlike'],
      [0.5, 'otherId'],
    ]);
    if (keyKind === 'same' && id !== '') key = id;
    else if (keyKind === 'intlike') key = String(rng.int(0, 300));
    else if (keyKind === 'otherId' && ids.length > 1) key = rng.pick(ids);
    else key = safeName(rng, () => randomId(rng));
    if (key === '' || takenKeys.has(key) || isInheritedName(key)) key = `${prefix}${i}_${safeName(rng, () => randomId(rng))}`;
    if (takenKeys.has(key)) continue;
    takenKeys.add(key);

    const idless = allowIdless && rng.bool(0.25);
    const kind = idless || rng.bool(0.2) ? 'plain' : 'mastra';
    const description = randomDescription(rng);
    let tool;
    try {
      tool = makeTool(rng, { id, description, kind, idless, tag: `${prefix}:${key}` });
    } catch {
      tool = makeTool(rng, { id, description, kind: 'plain', idless, tag: `${prefix}:${key}` });
    }
    labels.set(tool, `${prefix}:${key}`);
    tools[key] = tool;
  }
  return { tools, labels };
}

/** Names (keys and ids) present in a catalog. */
export function catalogNames(tools) {
  const names = [];
  for (const [k, t] of Object.entries(tools)) {
    names.push(k);
    if (t && typeof t.id === 'string') names.push(t.id);
  }
  return names;
}

/** Query text built from catalog words, partial words, unicode, empty, very long. */
export function randomQuery(rng, names, descriptions) {
  const kind = rng.weighted([
    [5, 'words'],
    [3, 'name'],
    [2, 'partial'],
    [1, 'random'],
    [0.5, 'empty'],
    [0.3, 'spaces'],
    [0.3, 'long'],
    [0.1, 'verylong'],
    [0.5, 'unicode'],
    [0.5, 'dupTokens'],
  ]);
  const pickDescWords = () => {
    const d = rng.pick(descriptions.filter(Boolean)) ?? 'weather';
    const words = d.split(/[\s\-_.,;:!?()[\]{}'"]+/).filter(Boolean);
    return rng.sample(words, rng.int(1, 3)).join(rng.pick([' ', '  ', '-', ', ', '_']));
  };
  switch (kind) {
    case 'words':
      return pickDescWords();
    case 'name': {
      const n = rng.pick(names) ?? 'x';
      return rng.bool(0.3) ? n.toUpperCase() : rng.bool(0.3) ? `${n} ${pickDescWords()}` : n;
    }
    case 'partial': {
      const n = rng.pick(names) ?? 'weather';
      const a = rng.int(0, Math.max(0, n.length - 2));
      const part = n.slice(a, a + rng.int(1, 6));
      return /[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/.test(part) ? 'part' : part;
    }
    case 'empty':
      return '';
    case 'spaces':
      return rng.pick([' ', '   ', '\t\n', '\uFEFF', '\u0085', '-_-', '!?', '\u3000']);
    case 'long':
      return Array.from({ length: rng.int(50, 300) }, () => randomWord(rng)).join(' ');
    case 'verylong':
      return pickDescWords().concat(' ').repeat(rng.int(500, 2000));
    case 'unicode':
      return rng.pick(['天気 予報', '邮件', '🔥', '🚀 deploy', 'ΣΊΣΥΦΟΣ', 'σίσυφος', 'İstanbul', 'i̇stanbul', 'STRASSE', 'straße', 'ǅ', 'ǆ', 'ﬁle', 'file', 'ω', 'k', 'ı', 'cafe\u0301', 'café', 'погода', '\u0085weather\u0085', 'weather\uFEFFemail']);
    case 'dupTokens': {
      const w = pickDescWords();
      return `${w} ${w} ${w}`;
    }
    default:
      return randomText(rng, rng.int(1, 5));
  }
}

/** A name near an existing one (to trigger suggestions), or a miss. */
export function nearMiss(rng, names) {
  const n = rng.pick(names) ?? 'tool';
  const kind = rng.int(0, 6);
  let out;
  switch (kind) {
    case 0:
      out = n.slice(0, Math.max(1, Math.floor(n.length / 2)));
      break;
    case 1:
      out = n.toUpperCase();
      break;
    case 2:
      out = n + rng.pick(['s', '_v2', 'X', ' ']);
      break;
    case 3:
      out = n.length > 3 ? n.slice(1) : n + 'z';
      break;
    case 4:
      out = rng.pick(['weather', 'email', 'get', 'send', 'a', 'xyz', '天気', 'Σ', 'İ']);
      break;
    case 5:
      out = n.length > 2 ? n[1] + n[0] + n.slice(2) : n;
      break;
    default:
      out = 'no_such_tool_' + rng.int(0, 9);
  }
  if (/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/.test(out) || isInheritedName(out)) out = 'near_' + rng.int(0, 99);
  return out;
}

export function randomLoadInput(rng, names, extraNames = []) {
  const pool = [...names, ...extraNames];
  const nameOf = () =>
    rng.weighted([
      [5, () => rng.pick(pool) ?? 'x'],
      [3, () => nearMiss(rng, pool)],
      [0.3, () => ''],
    ])();
  const kind = rng.weighted([
    [5, 'single'],
    [4, 'multi'],
    [1, 'both'],
    [0.4, 'emptyArray'],
    [0.3, 'emptyArrayWithName'],
    [0.3, 'none'],
    [0.2, 'emptyName'],
    [0.15, 'invalid'],
  ]);
  switch (kind) {
    case 'single':
      return { toolName: nameOf() };
    case 'multi': {
      const arr = Array.from({ length: rng.int(1, 6) }, nameOf);
      if (rng.bool(0.3) && arr.length) arr.push(arr[0]); // duplicates
      return { toolNames: arr };
    }
    case 'both':
      return { toolName: nameOf(), toolNames: Array.from({ length: rng.int(1, 3) }, nameOf) };
    case 'emptyArray':
      return { toolNames: [] };
    case 'emptyArrayWithName':
      return { toolNames: [], toolName: nameOf() };
    case 'none':
      return {};
    case 'emptyName':
      return { toolName: '' };
    default:
      return rng.pick([{ toolNames: 'x' }, { toolName: 5 }, { toolNames: [1, 2] }, { toolName: null }]);
  }
}

/** Random processor options (filter given as a spec; materialised per run). */
export function randomOptions(rng) {
  const opts = {};
  const search = {};
  if (rng.bool(0.8)) search.topK = rng.int(0, 8);
  if (rng.bool(0.6)) search.minScore = rng.weighted([[3, 0], [2, rng.int(0, 30) / 10], [1, rng.next() * 3], [0.5, 0.1]]);
  if (rng.bool(0.35)) search.autoLoad = rng.bool(0.8);
  if (rng.bool(0.85)) opts.search = search;
  if (rng.bool(0.5)) opts.storage = rng.bool(0.55) ? 'context' : 'in-memory';
  if (rng.bool(0.6)) opts.ttl = rng.pick([0, 0, -5, 1000, 60_000, 3_600_000, 1.5, 45_000]);
  if (rng.bool(0.3)) opts.includeResolvedTools = rng.bool(0.85);
  // Kept on every release: those before 1.67.0 must ignore it, as theirs do.
  if (rng.bool(0.35)) opts.injectCatalog = rng.bool(0.8);
  let filterSpec = null;
  if (rng.bool(0.4)) {
    filterSpec = {
      mode: rng.weighted([[3, 'sync'], [2, 'async'], [2, 'mixed']]),
      denyPct: rng.pick([0, 10, 30, 50, 90, 100]),
      salt: rng.int(0, 1000),
    };
  }
  return { opts, filterSpec };
}

/**
 * Generate one random scenario. Tool objects are created here and shared by
 * both runs (identity is compared through labels).
 */
export function genScenario(seed, { maxTools = 60, maxSteps = 4 } = {}) {
  const rng = createRng(seed, sfc32);
  const labels = new Labels();
  const takenKeys = new Set();
  const { tools } = randomCatalog(rng, { min: 1, max: maxTools, prefix: 's', labels, keys: takenKeys });
  const { opts, filterSpec } = randomOptions(rng);

  // Resolved (per-step) tool sets. Id-less plain tools only when includeResolvedTools.
  const resolvedSets = [];
  const nSets = rng.int(0, 2);
  for (let i = 0; i < nSets; i++) {
    const set = randomCatalog(rng, {
      min: 0,
      max: 12,
      prefix: `r${i}`,
      labels,
      allowIdless: !!opts.includeResolvedTools,
      keys: new Set(),
    }).tools;
    // collide with static keys sometimes (resolved overrides static)
    if (rng.bool(0.3)) {
      const k = rng.pick(Object.keys(tools));
      if (k !== undefined) {
        const t = makeTool(rng, { id: rng.bool(0.5) ? k : `${k}_resolved`, description: randomDescription(rng), tag: `r${i}:override:${k}` });
        labels.set(t, `r${i}:override:${k}`);
        set[k] = t;
      }
    }
    // meta-tool keys in the step tools (as the Agent may pass a previous step's tools)
    if (rng.bool(0.12)) {
      const fake = makeTool(rng, { id: 'search_tools', description: 'fake search', tag: `r${i}:fake-search` });
      labels.set(fake, `r${i}:fake-search`);
      set.search_tools = fake;
    }
    if (rng.bool(0.12)) {
      const fake = makeTool(rng, { id: 'load_tool', description: 'fake load', tag: `r${i}:fake-load` });
      labels.set(fake, `r${i}:fake-load`);
      set.load_tool = fake;
    }
    resolvedSets.push(set);
  }

  const allNames = [...new Set([...catalogNames(tools), ...resolvedSets.flatMap(s => catalogNames(s))])].filter(
    n => !isInheritedName(n),
  );
  const descriptions = [...Object.values(tools), ...resolvedSets.flatMap(s => Object.values(s))].map(t => t?.description);

  // A thread is a mastra__threadId, or { thread, memory } for the memory
  // context the Agent sets (only where the reference reads it).
  const threadPools = [['t1'], ['t1', 't2'], [undefined], [undefined, 't1'], ['', 't1'], ['t1', 't2', undefined]];
  if (referenceHas.memoryThread) {
    threadPools.push(
      [{ memory: 'm1' }, { memory: 'm2' }, undefined],
      [{ thread: 't1', memory: 'm1' }, { memory: 'm1' }, { thread: '', memory: 'm2' }, { memory: '' }, 't1'],
    );
  }
  const threadPool = rng.pick(threadPools);
  const planPool = rng.pick([[undefined], ['pro'], ['pro', 'free']]);
  const nSteps = rng.int(1, maxSteps);
  const steps = [];
  for (let s = 0; s < nSteps; s++) {
    const stepToolsKind = rng.weighted([
      [3, 'undefined'],
      [2, 'empty'],
      [resolvedSets.length ? 5 : 0, 'set'],
      [0.3, 'null'],
    ]);
    const stepTools =
      stepToolsKind === 'set'
        ? rng.pick(resolvedSets)
        : stepToolsKind === 'empty'
          ? {}
          : stepToolsKind === 'null'
            ? null
            : undefined;
    const actions = [];
    const nActions = rng.int(0, 6);
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
      ]);
      const advance = rng.bool(0.3) ? rng.pick([1, 500, 1000, 1001, 30_000, 60_000, 3_600_001, -5000]) : 0; // -5000: clock going backwards
      const act = { kind, advance };
      switch (kind) {
        case 'search':
          act.input = { query: randomQuery(rng, allNames, descriptions) };
          break;
        case 'searchInvalid':
          act.input = rng.pick([{}, { query: 5 }, { query: null }, { query: ['a'] }]);
          break;
        case 'load':
          act.input = randomLoadInput(rng, allNames);
          break;
        case 'clearState':
          act.threadId = rng.pick(['t1', 't2', 'default', undefined, '', 'nope']);
          break;
        case 'getLoaded':
          act.variant = rng.pick(['rcOnly', 'rcTools', 'stepArgs', 'stepArgsRc', 'none', 'toolsOnly', 'otherRc']);
          break;
        case 'stale':
          act.stepBack = rng.int(1, s);
          act.which = rng.bool(0.5) ? 'search' : 'load';
          act.input = act.which === 'search' ? { query: randomQuery(rng, allNames, descriptions) } : randomLoadInput(rng, allNames);
          break;
        default:
      }
      actions.push(act);
    }
    steps.push({
      threadId: rng.pick(threadPool),
      plan: rng.pick(planPool),
      stepTools,
      realMessageList: rng.bool(0.08),
      advance: rng.weighted([[2, 0], [1, 1], [1, 1000], [1, 30_000], [1, 59_999], [1, 60_001], [1, 3_600_001], [0.1, -5000]]), // rarely backwards
      // context-store message shaping
      trim: rng.bool(0.15) ? rng.int(1, 3) : 0,
      junk: rng.bool(0.2),
      callState: rng.bool(0.2),
      messagesUndefined: rng.bool(0.03),
      // Converting the meta-tools' schemas is the costliest observation:
      // made on the first step of one scenario in five.
      schemas: s === 0 && rng.bool(0.2),
      actions,
    });
  }
  const junkSeed = rng.int(0, 2 ** 31);
  return { seed, labels, tools, opts, filterSpec, steps, junkSeed, mutations: genMutations(seed, tools, labels, steps) };
}

/**
 * Changes to the tools record after construction, which both run the same way
 * on copies of it (the processor reads the caller's record live): a tool
 * added under a new key, a tool swapped in under a key (same id or a new
 * one), a key deleted, each at a step's start (`action: -1`) or before one of
 * its actions, optionally followed by a `load_tool` call naming it. New ids
 * are fresh, so that no change gives a name another tool had (where ours
 * differs by design: see `live_reads` in src/tool_search/operation.rs). Drawn from a
 * stream of their own, so the rest of a seed's scenario stays as it was.
 */
function genMutations(seed, tools, labels, steps) {
  const rng = createRng((seed ^ 0x6d757461) >>> 0, sfc32);
  if (!rng.bool(0.4)) return [];
  const keys = Object.keys(tools).filter(k => !isInheritedName(k));
  const mutations = [];
  for (let i = 0, n = rng.int(1, 4); i < n; i++) {
    const step = rng.int(0, steps.length - 1);
    const action = rng.int(-1, steps[step].actions.length - 1);
    const kind = keys.length === 0 ? 'add' : rng.weighted([[3, 'add'], [3, 'swap'], [2, 'delete']]);
    const fresh = `mutant_${seed}_${i}`;
    const key = kind === 'add' ? `${fresh}_key` : rng.pick(keys);
    let tool;
    let id;
    if (kind !== 'delete') {
      id = kind === 'swap' && rng.bool(0.5) ? tools[key].id : rng.bool(0.5) && kind === 'add' ? key : fresh;
      tool = makeTool(rng, { id, description: randomDescription(rng), kind: rng.bool(0.8) ? 'mastra' : 'plain', tag: `mutant:${i}` });
      labels.set(tool, `mutant:${i}:${kind}:${key}`);
    }
    const named = [key, ...(typeof id === 'string' ? [id] : []), rng.pick(keys) ?? key];
    const probe = rng.bool(0.7)
      ? rng.bool(0.5)
        ? { toolName: rng.pick(named) }
        : { toolNames: named.filter(() => rng.bool(0.7)) }
      : undefined;
    mutations.push({ step, action, kind, key, tool, probe });
  }
  return mutations;
}

/** Junk/odd messages for the context store (never ambiguous w.r.t. fix (a)). */
function junkMessages(rng, names) {
  const n = () => rng.pick(names) ?? 'x';
  const pick = rng.int(0, 11);
  switch (pick) {
    case 0:
      return [toolInvocationMessage([{ toolName: 'load_tool', result: { loaded: [n(), 5, null, n()] } }])];
    case 1:
      return [toolInvocationMessage([{ toolName: 'search_tools', result: { results: [{ name: n() }, { name: 7 }, null, 'str', { name: n() }] } }])];
    case 2:
      return [toolInvocationMessage([{ toolName: 'other_tool', result: { loaded: [n()], results: [{ name: n() }] } }])];
    case 3:
      return [toolInvocationMessage([{ toolName: 'load_tool', state: 'call' }, { toolName: 'load_tool', state: 'partial-call', result: { loaded: [n()] } }])];
    case 4:
      return [{ id: 'j1', role: 'assistant', createdAt: new Date(0), content: 'plain string content' }];
    case 5:
      return [{ id: 'j2', role: 'assistant', createdAt: new Date(0), content: { format: 2 } }];
    case 6:
      return [{ id: 'j3', role: 'assistant', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'tool-invocation' }, { type: 'text', text: 'hi' }, { type: 'tool-invocation', toolInvocation: null }] } }];
    case 7:
      return [toolInvocationMessage([{ toolName: 'load_tool', result: 'not an object' }, { toolName: 'search_tools', result: null }, { toolName: 'load_tool', result: { loaded: 'x' } }])];
    case 8:
      return [toolInvocationMessage([{ toolName: 'load_tool', result: { success: false, toolName: n(), message: 'no' } }])];
    case 9:
      return [toolInvocationMessage([{ toolName: 'load_tool', result: { success: true, toolName: n(), message: 'ok' } }])];
    case 10:
      return [toolInvocationMessage([{ toolName: 'search_tools', result: { results: [{ name: n() }], loaded: [n()] } }])];
    default:
      return [userMessage('hello ' + n())];
  }
}

/**
 * Run a scenario against one implementation and return the full trace.
 * role: 'ref' applies adjustMessagesForReference for the 'context' store.
 */
export async function runScenario(Impl, scenario, { role = 'ours', clock } = {}) {
  const { labels, tools, opts, filterSpec, steps } = scenario;
  const filterLog = [];
  // Each run's own copy of the record, which the mutations change.
  const record = { ...tools };
  const options = { ...opts, tools: record };
  if (opts.search) options.search = { ...opts.search };
  if (filterSpec) options.filter = makeFilter(filterSpec, filterLog, labels);
  const isContext = opts.storage === 'context';
  const adjust = msgs =>
    role === 'ref' && isContext && !referenceHas.singleLoadResults ? adjustMessagesForReference(msgs) : msgs;

  const trace = { steps: [] };
  const processor = new Impl(options);
  // Our bounded context-store state, a deliberate difference, modelled on the reference.
  if (role === 'ref' && isContext) modelBoundedContextState(processor, opts.ttl);
  trace.identity = { id: processor.id, name: processor.name, description: processor.description };
  const jrng = createRng(scenario.junkSeed, sfc32);
  const names = catalogNames(tools).filter(n => !isInheritedName(n));
  let history = [userMessage('start', { id: 'u0' })];
  const prevMeta = []; // per step: { search_tools, load_tool, requestContext }
  /** Applies the record changes due at (step, action), each probed with a load_tool call. */
  const mutate = async (si, action, log) => {
    for (const m of scenario.mutations ?? []) {
      if (m.step !== si || m.action !== action) continue;
      if (m.kind === 'delete') delete record[m.key];
      else record[m.key] = m.tool;
      const entry = { mutation: m.kind, key: m.key };
      const last = prevMeta.at(-1);
      if (m.probe && last?.load) entry.probe = await execTool(last.load, m.probe, { requestContext: last.rc });
      log.push(entry);
    }
  };

  for (let si = 0; si < steps.length; si++) {
    const step = steps[si];
    if (clock) clock.advance(step.advance);
    const st = { mutations: [] };
    await mutate(si, -1, st.mutations);
    // message shaping (context store reads them; in-memory ignores them)
    if (step.trim && history.length > 1) history = history.slice(Math.min(step.trim, history.length - 1));
    if (step.junk) history = [...history, ...junkMessages(jrng, names)];
    if (step.callState) history = [...history, toolInvocationMessage([{ toolName: 'load_tool', state: 'call', args: { toolName: 'x' } }])];
    const messages = step.messagesUndefined ? undefined : history;

    const thread = typeof step.threadId === 'object' ? step.threadId : { thread: step.threadId };
    const rc = makeRequestContext({
      threadId: thread.thread,
      memoryThreadId: thread.memory,
      values: step.plan !== undefined ? { plan: step.plan } : {},
    });
    labels.set(rc, `rc${si}`);
    const fl0 = filterLog.length;
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
    );
    if (r.threw) {
      st.threw = r.threw;
      trace.steps.push(st);
      break;
    }
    const out = r.value;
    st.resultKeys = out.resultKeys;
    st.tools = out.tools;
    st.systemCalls = out.systemCalls;
    st.filterCalls = filterLog.slice(fl0);
    st.stats = processor.getStateStats();
    const returned = out.result.tools ?? {};
    const metaOf = name => {
      const t = returned[name];
      return t && labels.get(t) === null ? t : undefined; // only fresh meta-tools are executed
    };
    prevMeta.push({ search: metaOf('search_tools'), load: metaOf('load_tool'), rc });

    st.actions = [];
    const newParts = [];
    let callN = 0;
    for (const [ai, act] of step.actions.entries()) {
      await mutate(si, ai, st.mutations);
      if (clock && act.advance) clock.advance(act.advance);
      const fl = filterLog.length;
      const rec = { kind: act.kind };
      switch (act.kind) {
        case 'search':
        case 'searchInvalid':
        case 'load': {
          const tool = act.kind === 'load' ? metaOf('load_tool') : metaOf('search_tools');
          if (!tool) {
            rec.absent = true;
            break;
          }
          rec.out = await execTool(tool, act.input, { requestContext: rc });
          if (rec.out.value && !rec.out.value.error) {
            newParts.push({
              toolName: act.kind === 'load' ? 'load_tool' : 'search_tools',
              toolCallId: `s${si}c${callN++}`,
              args: act.input,
              result: structuredClone(rec.out.value),
            });
          }
          break;
        }
        case 'stale': {
          const pm = prevMeta[si - act.stepBack];
          const tool = pm && (act.which === 'search' ? pm.search : pm.load);
          if (!tool) {
            rec.absent = true;
            break;
          }
          rec.out = await execTool(tool, act.input, { requestContext: rc });
          break;
        }
        case 'stats':
          rec.out = processor.getStateStats();
          break;
        case 'cleanup':
          rec.out = processor.cleanupNow();
          break;
        case 'clearState':
          rec.out = act.threadId === undefined ? processor.clearState() : processor.clearState(act.threadId);
          break;
        case 'clearAllState':
          rec.out = processor.clearAllState();
          break;
        case 'getLoaded': {
          const otherRc = makeRequestContext({ threadId: 't2', values: { plan: 'free' } });
          labels.set(otherRc, `rc${si}-other`);
          const stepArgs = { ...out.args, messages: adjust(history) };
          const argsByVariant = {
            rcOnly: { requestContext: rc },
            rcTools: { requestContext: rc, tools: step.stepTools },
            stepArgs: { stepArgs },
            stepArgsRc: { stepArgs, requestContext: otherRc, tools: step.stepTools },
            none: undefined,
            toolsOnly: { tools: step.stepTools },
            otherRc: { requestContext: otherRc },
          };
          const res = await capture(() => processor.getLoadedToolsForRequestContext(argsByVariant[act.variant]));
          rec.out = res.threw ? res : describeTools(res.value, labels, { schemas: false });
          break;
        }
        default:
      }
      rec.filterCalls = filterLog.slice(fl);
      rec.statsAfter = processor.getStateStats();
      st.actions.push(rec);
    }
    if (newParts.length) history = [...history, toolInvocationMessage(newParts, { id: `a${si}` })];
    trace.steps.push(st);
  }
  trace.finalStats = processor.getStateStats();
  trace.finalCleanup = processor.cleanupNow();
  return trace;
}

/** Path of the first difference between two values (for readable failures). */
export function firstDiff(a, b, path = '$') {
  if (Object.is(a, b)) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return { path, ours: a, ref: b };
  }
  if (Array.isArray(a) !== Array.isArray(b)) return { path, ours: a, ref: b };
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.join('\u0000') !== kb.join('\u0000')) return { path: `${path} (keys)`, ours: ka, ref: kb };
  for (const k of ka) {
    const d = firstDiff(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

/**
 * Bad-input rule: ours must give the reference's result, or throw a TypeError.
 * refFn/oursFn return a value (already observed/snapshotted) or throw.
 * Returns { ref, ours, outcome: 'same' | 'typeerror' } or throws an AssertionError-like Error.
 */
export async function sameOrTypeError(refFn, oursFn, { timeoutMs = 20_000, label = '' } = {}) {
  const withTimeout = p =>
    Promise.race([
      p,
      new Promise((_, rej) => {
        const t = setTimeout(() => rej(new Error(`timeout after ${timeoutMs} ms ${label}`)), timeoutMs);
        t.unref?.();
      }),
    ]);
  const ref = await capture(() => withTimeout(Promise.resolve().then(refFn)));
  let oursErr;
  let oursVal;
  try {
    oursVal = await withTimeout(Promise.resolve().then(oursFn));
  } catch (e) {
    oursErr = e;
  }
  if (oursErr !== undefined) {
    if (oursErr instanceof TypeError) return { ref, ours: { threw: { name: 'TypeError', message: oursErr.message } }, outcome: 'typeerror' };
    const err = new Error(`${label}: ours threw a non-TypeError: ${oursErr?.name}: ${oursErr?.message}`);
    err.cause = oursErr;
    throw err;
  }
  if (ref.threw) {
    throw new Error(`${label}: reference threw ${ref.threw.name}: ${ref.threw.message} but ours returned ${JSON.stringify(snapshot(oursVal)).slice(0, 500)}`);
  }
  const d = firstDiff(snapshot(oursVal), snapshot(ref.value));
  if (d) {
    throw new Error(`${label}: ours differs from the reference at ${d.path}: ours=${JSON.stringify(d.ours)?.slice(0, 300)} ref=${JSON.stringify(d.ref)?.slice(0, 300)}`);
  }
  return { ref, ours: { value: oursVal }, outcome: 'same' };
}

/**
 * A fixed probe used to compare two processors built from odd options:
 * one step, a few searches and loads, a second step, stats.
 */
export async function probeProcessor(processor, { labels = new Labels(), queries = ['weather', 'email send', ''], loads = [{ toolName: 'get_weather' }, { toolNames: ['send_email', 'nope'] }], stepTools, threadId = 'probe', requestContext } = {}) {
  const rc = requestContext ?? makeRequestContext({ threadId });
  labels.set(rc, 'probe-rc');
  const s1 = await runStep(processor, { requestContext: rc, tools: stepTools, labels });
  const out = { s1: { tools: s1.tools, systemCalls: s1.systemCalls }, searches: [], loads: [] };
  const search = s1.result.tools?.search_tools;
  const load = s1.result.tools?.load_tool;
  for (const q of queries) out.searches.push(search ? await execTool(search, { query: q }, { requestContext: rc }) : 'absent');
  for (const l of loads) out.loads.push(load ? await execTool(load, l, { requestContext: rc }) : 'absent');
  const s2 = await runStep(processor, { requestContext: rc, tools: stepTools, labels, stepNumber: 1 });
  out.s2 = { tools: s2.tools };
  out.stats = processor.getStateStats();
  return out;
}

/** The docs' example catalog (github/slack/db/weather/email), with labels. */
export function docsCatalog(labels = new Labels()) {
  const mk = (key, id, description, extra = {}) => {
    const t = createTool({
      id,
      description,
      inputSchema: z.object({ q: z.string().optional() }),
      execute: async input => ({ ran: id, input }),
      ...extra,
    });
    labels.set(t, key);
    return [key, t];
  };
  const tools = Object.fromEntries([
    mk('createIssue', 'create_issue', 'Create a new GitHub issue in a repository'),
    mk('listPRs', 'list_pull_requests', 'List open pull requests for a GitHub repository'),
    mk('mergePR', 'merge_pull_request', 'Merge a GitHub pull request'),
    mk('sendMessage', 'send_slack_message', 'Send a message to a Slack channel'),
    mk('createChannel', 'create_slack_channel', 'Create a new Slack channel'),
    mk('sendEmail', 'send_email', 'Send an email to a recipient'),
    mk('getWeather', 'get_weather', 'Get the current weather forecast for a city'),
    mk('query', 'db_query', 'Run a read-only SQL query against the database'),
    mk('insert', 'db_insert', 'Insert a row into a database table'),
    mk('update', 'db_update', 'Update rows in a database table'),
    mk('premiumExport', 'premium_export', 'Export a premium analytics report as PDF'),
  ]);
  return { tools, labels };
}
