// `bench`'s agent request: a Mastra Agent of the installed release with
// ToolCallFilter and ToolSearchProcessor (Mastra's or ours), driven by a
// scripted model with no latency that searches, loads a tool and answers.
// Nothing reaches the network and the user's tools are never executed (the
// CLI never passes `use`; `npm run bench`'s end-to-end rows, whose tools are
// its own, call the loaded tool too: benches/end-to-end.mjs).

import { performance } from 'node:perf_hooks'

const HOOKS = ['processInput', 'processInputStep', 'processLLMRequest', 'processOutputStream', 'processOutputStep', 'processOutputResult']
// The meta-tools a step's tools hold: their executions are the processor's
// work too (a search, an index built for the request's tools), run by the
// agent outside any hook.
const META_TOOLS = ['search_tools', 'load_tool']

/**
 * A LanguageModelV2 that answers a request's calls in turn: search_tools with
 * `query`, load_tool of `toolName`, a call of `toolName` with `use` when
 * given, then a text. The call's place in the run is the number of assistant
 * messages after the last user message.
 */
function scriptedModel(query, toolName, use, record) {
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
  const call = (id, name, input) => ({ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) })
  const script = [[call('bench-search', 'search_tools', { query })], [call('bench-load', 'load_tool', { toolName })]]
  if (use !== undefined) script.push([call('bench-use', toolName, use)])
  return {
    specificationVersion: 'v2',
    provider: 'mastra-native-processors',
    modelId: 'bench-script',
    supportedUrls: {},
    async doGenerate({ prompt, tools }) {
      record?.(prompt, tools)
      const lastUser = prompt.findLastIndex((message) => message.role === 'user')
      const step = prompt.slice(lastUser + 1).filter((message) => message.role === 'assistant').length
      const content = script[step] ?? [{ type: 'text', text: 'Done.' }]
      return { content, finishReason: step < script.length ? 'tool-calls' : 'stop', usage, warnings: [] }
    },
    async doStream() {
      throw new Error('the bench model answers generate only')
    },
  }
}

/** What the model was sent on one call: the tools offered and the prompt, as text without the times messages were made. */
const callView = (prompt, tools) => ({
  tools: (tools ?? []).map((tool) => tool.name),
  prompt: JSON.stringify(prompt, (key, value) => (key === 'createdAt' ? undefined : value)),
})

/**
 * One implementation's request (`host` gives Agent, ToolSearchProcessor and
 * ToolCallFilter): `run()` makes one `agent.generate` after `history`;
 * `reset()` forgets the loaded tool; `seen()` runs once and returns what the
 * model was sent; `hooksPerRequest()` times a few requests and returns the
 * median milliseconds the processors' own work took of one: their hooks and their
 * meta-tools' executions (search_tools, load_tool). Both processors are
 * made here, before any request. `options`: more ToolSearchProcessor options
 * (`injectCatalog`, `includeResolvedTools`), `agentTools` the agent's own
 * tools (resolved per request: a function returning them), `use` the input of
 * a call of the loaded tool (which executes it) before the answer.
 */
export function agentRequest(host, tools, history, query, toolName, { options, agentTools, use } = {}) {
  const toolSearch = new host.ToolSearchProcessor({ tools, ...options })
  const filter = new host.ToolCallFilter()
  let recorded = null
  const model = scriptedModel(query, toolName, use, (prompt, offered) => recorded?.push(callView(prompt, offered)))
  const agent = new host.Agent({
    id: 'bench',
    name: 'bench',
    instructions: 'Find the tool you need, load it, then answer.',
    model,
    ...(agentTools === undefined ? {} : { tools: () => agentTools }),
    inputProcessors: [filter, toolSearch],
  })
  const messages = [...history, { role: 'user', content: `I need something about ${query}.` }]
  let ownMs = 0
  const timed = new WeakSet()
  const time = (original) =>
    async function (...args) {
      const started = performance.now()
      try {
        return await original.apply(this, args)
      } finally {
        ownMs += performance.now() - started
      }
    }
  // A step's meta-tools may be new objects or the same as the last step's:
  // each is wrapped once.
  const timeMetaTools = (result) => {
    for (const name of META_TOOLS) {
      const tool = result?.tools?.[name]
      if (!tool || typeof tool.execute !== 'function' || timed.has(tool)) continue
      tool.execute = time(tool.execute)
      timed.add(tool)
    }
    return result
  }
  for (const processor of [filter, toolSearch]) {
    for (const hook of HOOKS) {
      const original = processor[hook]
      if (typeof original !== 'function') continue
      const timedHook = time(original)
      processor[hook] =
        hook === 'processInputStep'
          ? async function (...args) {
              return timeMetaTools(await timedHook.apply(this, args))
            }
          : timedHook
    }
  }
  // One step more than the script's calls, so the answer is never cut off.
  const run = () => agent.generate(messages, { maxSteps: 5 })
  const reset = () => toolSearch.clearAllState()
  return {
    run,
    reset,
    async seen() {
      recorded = []
      reset()
      const result = await run()
      const calls = recorded
      recorded = null
      reset()
      return { calls, text: result.text }
    },
    async hooksPerRequest(requests = 10) {
      const each = []
      for (let i = 0; i < requests; i++) {
        reset()
        ownMs = 0
        await run()
        each.push(ownMs)
      }
      reset()
      // The median: one collection of garbage in a hook (milliseconds) would
      // otherwise outweigh a side whose hooks take tenths of one.
      each.sort((a, b) => a - b)
      return each.length % 2 ? each[each.length >> 1] : (each[each.length / 2 - 1] + each[each.length / 2]) / 2
    },
  }
}
