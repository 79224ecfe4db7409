// Observation: running a processor's step or a tool the way the Agent does,
// recording everything a model or user can observe of it as plain data, and
// comparing two recordings. Identity is observed through Labels: stable names
// for the objects both runs share. What reads the release's own classes and
// schema conversion comes from `observers(core)`, once per release binding.
//
//   Labels                          set(obj, label) / get(obj) -> label | null
//   snapshot(value)                 deep copy keeping undefined keys and key order; functions become markers
//   capture(fn)                     -> { value } | { threw: { name, message, isTypeError } }
//   firstDiff(a, b)                 -> { path, ours, ref } of the first difference, or null
//   sameOrTypeError(refFn, oursFn)  the bad-input rule: the reference's result, or a TypeError
//   observers({ RequestContext, MessageList, Tool, MASTRA_TOOL_MARKER, schema }) ->  (schema: the release's '@mastra/core/schema')
//     makeMessageList({ real, messages, events }) -> { messageList, systemCalls } (every addSystem call)
//     schemaJson(schema, io)        JSON schema via Mastra's own conversion
//     describeMetaTool(tool)        -> { isMastraTool, keys, fields (incl. JSON schemas) }
//     describeTools(record, labels) -> [[name, label | { meta: describeMetaTool(tool) }], ...]
//     execTool(tool, input, { requestContext }) -> { value } | { threw: ... }
//     runStep(processor, { messages, tools, requestContext, stepNumber, realMessageList, labels, schemas, events })
//       -> { args, result, resultKeys, toolNames, tools, systemCalls } (args is the exact
//          ProcessInputStepArgs passed; reuse it as stepArgs)

/** Stable names for objects shared by both runs (tools, request contexts), so identity compares across implementations. */
export class Labels {
  constructor() {
    this.map = new WeakMap()
  }
  set(obj, label) {
    if (obj !== null && (typeof obj === 'object' || typeof obj === 'function')) this.map.set(obj, label)
    return obj
  }
  get(obj) {
    if (obj === undefined) return '<undefined>'
    if (obj === null) return '<null>'
    if (typeof obj !== 'object' && typeof obj !== 'function') return `<${typeof obj}:${String(obj)}>`
    return this.map.get(obj) ?? null
  }
}

/** Deep copy that keeps undefined-valued keys and key order; functions become markers. */
export function snapshot(value, seen = new Map()) {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function') return '<function>'
    if (typeof value === 'symbol') return `<symbol:${value.description}>`
    if (typeof value === 'bigint') return `<bigint:${value}>`
    return value
  }
  if (seen.has(value)) return '<cycle>'
  seen.set(value, true)
  let out
  if (Array.isArray(value)) out = value.map((v) => snapshot(v, seen))
  else if (value instanceof Date) out = `<date:${value.getTime()}>`
  else {
    out = {}
    for (const k of Object.keys(value)) out[k] = snapshot(value[k], seen)
  }
  seen.delete(value)
  return out
}

/** Run fn, capturing { value } or { threw: { name, message, isTypeError } }. */
export async function capture(fn) {
  try {
    return { value: await fn() }
  } catch (e) {
    return { threw: { name: e?.name, message: e?.message, isTypeError: e instanceof TypeError } }
  }
}

/** Path of the first difference between two values (for readable failures). */
export function firstDiff(a, b, path = '$') {
  if (Object.is(a, b)) return null
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return { path, ours: a, ref: b }
  }
  if (Array.isArray(a) !== Array.isArray(b)) return { path, ours: a, ref: b }
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.join('\u0000') !== kb.join('\u0000')) return { path: `${path} (keys)`, ours: ka, ref: kb }
  for (const k of ka) {
    const d = firstDiff(a[k], b[k], `${path}.${k}`)
    if (d) return d
  }
  return null
}

/**
 * Bad-input rule: ours must give the reference's result, or throw a TypeError.
 * refFn/oursFn return a value (already observed/snapshotted) or throw.
 * Returns { ref, ours, outcome: 'same' | 'typeerror' } or throws an AssertionError-like Error.
 */
export async function sameOrTypeError(refFn, oursFn, { timeoutMs = 20_000, label = '' } = {}) {
  const withTimeout = (p) =>
    Promise.race([
      p,
      new Promise((_, rej) => {
        const t = setTimeout(() => rej(new Error(`timeout after ${timeoutMs} ms ${label}`)), timeoutMs)
        t.unref?.()
      }),
    ])
  const ref = await capture(() => withTimeout(Promise.resolve().then(refFn)))
  let oursErr
  let oursVal
  try {
    oursVal = await withTimeout(Promise.resolve().then(oursFn))
  } catch (e) {
    oursErr = e
  }
  if (oursErr !== undefined) {
    if (oursErr instanceof TypeError) return { ref, ours: { threw: { name: 'TypeError', message: oursErr.message } }, outcome: 'typeerror' }
    const err = new Error(`${label}: ours threw a non-TypeError: ${oursErr?.name}: ${oursErr?.message}`)
    err.cause = oursErr
    throw err
  }
  if (ref.threw) {
    throw new Error(`${label}: reference threw ${ref.threw.name}: ${ref.threw.message} but ours returned ${JSON.stringify(snapshot(oursVal)).slice(0, 500)}`)
  }
  const d = firstDiff(snapshot(oursVal), snapshot(ref.value))
  if (d) {
    throw new Error(
      `${label}: ours differs from the reference at ${d.path}: ours=${JSON.stringify(d.ours)?.slice(0, 300)} ref=${JSON.stringify(d.ref)?.slice(0, 300)}`,
    )
  }
  return { ref, ours: { value: oursVal }, outcome: 'same' }
}

export function observers({ RequestContext, MessageList, Tool, MASTRA_TOOL_MARKER, schema }) {
  const { isStandardSchemaWithJSON, standardSchemaToJSONSchema, toStandardSchema } = schema

  /**
   * A message list that records addSystem calls (every argument).
   * real=true wraps a real MessageList (slower, ~0.4 ms per addSystem);
   * real=false is a minimal fake with addSystem and get.all.db().
   */
  function makeMessageList({ real = false, messages = [], events } = {}) {
    const systemCalls = []
    // With an events log (shared with a filter's log), each call also leaves
    // `{ addSystem: i }` there, so the order of system messages and hook calls shows.
    const record = (args) => {
      systemCalls.push(args)
      events?.push({ addSystem: systemCalls.length - 1 })
    }
    if (real) {
      const ml = new MessageList()
      const orig = ml.addSystem.bind(ml)
      ml.addSystem = (...args) => {
        record(args)
        return orig(...args)
      }
      return { messageList: ml, systemCalls }
    }
    const ml = {
      addSystem: (...args) => {
        record(args)
      },
      get: { all: { db: () => messages } },
    }
    return { messageList: ml, systemCalls }
  }

  /** JSON schema of a tool schema, via Mastra's own conversion (what the Agent sends). */
  function schemaJson(schema, io = 'input') {
    if (schema === undefined) return '<undefined>'
    if (schema === null) return '<null>'
    try {
      const std = isStandardSchemaWithJSON(schema) ? schema : toStandardSchema(schema)
      return standardSchemaToJSONSchema(std, { io })
    } catch (e) {
      return `<schema error: ${e?.message}>`
    }
  }

  /** A stable description of a freshly created meta-tool (search_tools / load_tool). */
  function describeMetaTool(tool, { schemas = true } = {}) {
    if (tool === null || typeof tool !== 'object') return { notAnObject: typeof tool }
    const keys = Object.keys(tool)
    const fields = {}
    for (const k of keys) {
      const v = tool[k]
      if (k === 'inputSchema' || k === 'outputSchema' || k === 'suspendSchema' || k === 'resumeSchema' || k === 'requestContextSchema') {
        fields[k] = v === undefined ? '<undefined>' : schemas ? schemaJson(v, k === 'outputSchema' ? 'output' : 'input') : '<schema>'
      } else if (typeof v === 'function') {
        fields[k] = '<function>'
      } else if (v === undefined || v === null || typeof v !== 'object') {
        fields[k] = v
      } else {
        fields[k] = `<object:${Object.keys(v).join(',')}>`
      }
    }
    return {
      isMastraTool: tool instanceof Tool || MASTRA_TOOL_MARKER in tool,
      keys,
      fields,
    }
  }

  /**
   * Describe a tools record returned by processInputStep (or by
   * getLoadedToolsForRequestContext): names in order, and for each tool either its
   * label (a known catalog/step tool, compared by identity) or a meta-tool description.
   */
  function describeTools(tools, labels, { schemas = true } = {}) {
    if (tools === undefined) return '<undefined>'
    if (tools === null || typeof tools !== 'object') return `<${typeof tools}>`
    return Object.keys(tools).map((name) => {
      const t = tools[name]
      const label = labels.get(t)
      if (label !== null) return [name, label]
      return [name, { meta: describeMetaTool(t, { schemas }) }]
    })
  }

  /** Execute a tool the way Mastra does: execute(inputData, context). */
  async function execTool(tool, input, { requestContext } = {}) {
    const r = await capture(() => tool.execute(input, { requestContext: requestContext ?? new RequestContext() }))
    return r.threw ? r : { value: snapshot(r.value) }
  }

  /**
   * Run one processInputStep the way the Agent does.
   * Returns { result, toolNames, tools (description), systemCalls, resultKeys, args }.
   */
  async function runStep(
    processor,
    {
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
    } = {},
  ) {
    const { messageList, systemCalls } = makeMessageList({ real: realMessageList, messages, events })
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
      abort: (reason) => {
        throw new Error(`abort: ${reason}`)
      },
    }
    for (const k of omit) delete args[k]
    const result = await processor.processInputStep(args)
    return {
      args,
      result,
      resultKeys: result && typeof result === 'object' ? Object.keys(result) : `<${typeof result}>`,
      toolNames: result?.tools ? Object.keys(result.tools) : [],
      tools: describeTools(result?.tools, labels, { schemas }),
      systemCalls: snapshot(systemCalls),
    }
  }

  return { makeMessageList, schemaJson, describeMetaTool, describeTools, execTool, runStep }
}
