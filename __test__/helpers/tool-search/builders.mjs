// What the tests hand a ToolSearchProcessor: tools, messages, request
// contexts and filter hooks. Tools and request contexts must be the release's
// own (each release's createTool and RequestContext), so those builders come
// from `builders(core)`, called once per release binding (tool-search-harness.mjs);
// the message ids and tool serial numbers count per binding.
//
//   builders({ RequestContext, MASTRA_THREAD_ID_KEY, createTool }) ->
//     makeRequestContext({ threadId, memoryThreadId, values }) -> a real RequestContext
//     toolInvocationMessage(parts, { id }) / userMessage(text, { id }) -> MastraDBMessage (format 2)
//     docsCatalog(labels)                  -> the docs' example catalog ({ tools, labels })
//     scenarioTool({ id, description, kind, idless, tag }) -> a catalog tool of a random scenario
//   makeFilter(spec, log, labels)          -> deterministic filter hook that logs each call
//   hash32(str)                            -> FNV-1a, the filter hook's decisions

import { z } from 'zod/v4'

import { Labels } from './observation.mjs'

export function builders({ RequestContext, MASTRA_THREAD_ID_KEY, createTool }) {
  /**
   * A real RequestContext. threadId sets 'mastra__threadId'; memoryThreadId sets
   * 'MastraMemory' = { thread: { id } } the way the Agent's memory step does.
   */
  function makeRequestContext({ threadId, memoryThreadId, values } = {}) {
    const rc = new RequestContext()
    if (threadId !== undefined) rc.set(MASTRA_THREAD_ID_KEY, threadId)
    if (memoryThreadId !== undefined) {
      rc.set('MastraMemory', { thread: { id: memoryThreadId, resourceId: 'res' }, resourceId: 'res', memoryConfig: {} })
    }
    for (const [k, v] of Object.entries(values ?? {})) rc.set(k, v)
    return rc
  }

  let msgCounter = 0
  /** A MastraDBMessage (format 2) holding tool-invocation parts. */
  function toolInvocationMessage(parts, { id } = {}) {
    return {
      id: id ?? `msg-${++msgCounter}`,
      role: 'assistant',
      createdAt: new Date(0),
      content: {
        format: 2,
        parts: parts.map((p) => ({
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
    }
  }

  function userMessage(text, { id } = {}) {
    return {
      id: id ?? `msg-${++msgCounter}`,
      role: 'user',
      createdAt: new Date(0),
      content: { format: 2, parts: [{ type: 'text', text }] },
    }
  }

  /** The docs' example catalog (github/slack/db/weather/email), with labels. */
  function docsCatalog(labels = new Labels()) {
    const mk = (key, id, description, extra = {}) => {
      const t = createTool({
        id,
        description,
        inputSchema: z.object({ q: z.string().optional() }),
        execute: async (input) => ({ ran: id, input }),
        ...extra,
      })
      labels.set(t, key)
      return [key, t]
    }
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
    ])
    return { tools, labels }
  }

  let toolSerial = 0
  // One per binding: a release's createTool patches the schemas it is given.
  const SHARED_INPUT_SCHEMA = z.object({ value: z.string().optional() })

  /**
   * A tool for a random catalog. kind: 'mastra' (createTool with zod schema) or 'plain'
   * (a plain object with id/description/execute, or without id when idless).
   */
  function scenarioTool({ id, description, kind = 'mastra', idless = false, tag }) {
    const serial = ++toolSerial
    const execute = async (input) => ({ tag, serial, input })
    if (kind === 'mastra') {
      const opts = {
        id,
        description,
        inputSchema: SHARED_INPUT_SCHEMA, // shared: catalog schemas are never inspected by the processor
        execute,
      }
      if (description === undefined) delete opts.description
      return createTool(opts)
    }
    const t = idless ? { description, execute } : { id, description, execute }
    if (description === undefined) delete t.description
    return t
  }

  return { makeRequestContext, toolInvocationMessage, userMessage, docsCatalog, scenarioTool }
}

/** FNV-1a 32-bit over UTF-16 code units (deterministic filter decisions). */
export function hash32(str) {
  let h = 0x811c9dc5
  for (let i = 0; i < str.length; i++) {
    h ^= str.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/**
 * A filter hook whose decision is a hash of (toolName, phase, plan, salt).
 * mode: 'sync' | 'async' | 'mixed' (mixed also throws, rejects, and returns
 * truthy/falsy non-booleans). Every call is appended to `log`.
 */
export function makeFilter({ mode = 'sync', denyPct = 30, salt = 0 } = {}, log, labels) {
  return function filter(arg) {
    const { toolName, tool, requestContext, phase } = arg
    const plan = requestContext?.get?.('plan')
    log.push({
      keys: Object.keys(arg),
      toolName,
      phase,
      tool: labels ? labels.get(tool) : undefined,
      requestContext: labels ? labels.get(requestContext) : undefined,
    })
    const h = hash32(`${String(toolName)}|${phase}|${String(plan)}|${salt}`)
    const allow = h % 100 >= denyPct
    if (mode === 'sync') return allow
    if (mode === 'async') return Promise.resolve(allow)
    switch ((h >>> 8) % 12) {
      case 0:
        throw new Error('filter exploded')
      case 1:
        return Promise.reject(new Error('filter rejected'))
      case 2:
        return allow ? 1 : 0
      case 3:
        return allow ? 'yes' : ''
      case 4:
        return Promise.resolve(allow ? {} : null)
      case 5:
        return new Promise((resolve) => queueMicrotask(() => resolve(allow)))
      case 6:
        return allow ? Promise.resolve(true) : false
      default:
        return allow
    }
  }
}
