// `npm run bench`'s end-to-end rows: a whole `agent.generate` on the
// @mastra/core the benches run against (the 1.71.0 devDependency), with
// Mastra's ToolCallFilter and ToolSearchProcessor against ours. The agent is
// the one `npx mastra-native-processors bench` builds (cli/agent.mjs): a
// scripted model with no latency and no network makes four calls (search_tools,
// load_tool, the loaded tool, which runs, and an answer), both implementations'
// processors made before any request. Most of such a request is Mastra's own
// agent loop, the same on both sides; these rows say what is left of the
// processors' gain once it is counted, and each row's note says how much of a
// request the processors' own work took: their hooks, and their meta-tools'
// executions, which the agent runs outside any hook.
//
// bench.mjs owns timing and the same-work check: it hands them in, with its
// catalog builders, so these rows time the tools its other rows time.

import { Agent } from '@mastra/core/agent'
import { ToolCallFilter as MastraToolCallFilter, ToolSearchProcessor as MastraToolSearchProcessor } from '@mastra/core/processors'

import { agentRequest } from '../cli/agent.mjs'
import { historyOf } from '../cli/bench.mjs'
import { ToolCallFilter as OursToolCallFilter, ToolSearchProcessor as OursToolSearchProcessor } from '../index.mjs'

/** The group `npm run bench -- --only` knows these rows by. */
export const GROUP = 'end-to-end'

/** What the model calls the loaded tool with (the bench's tools take `{ query, limit? }`). */
const USE = { query: 'item 1' }

/** Requests whose processors' own work is timed for a row's note, per side (the timing wraps both sides' hooks and meta-tools in every request, noted or not). */
const HOOK_REQUESTS = 3

const MASTRA = { Agent, ToolCallFilter: MastraToolCallFilter, ToolSearchProcessor: MastraToolSearchProcessor }
const OURS = { Agent, ToolCallFilter: OursToolCallFilter, ToolSearchProcessor: OursToolSearchProcessor }

/** A search that finds `tool`: the first words of its description. */
const queryFor = (tool) =>
  tool.description
    .toLowerCase()
    .match(/[a-z]{4,}/g)
    .slice(0, 3)
    .join(' ')

const formatMs = (ms) => (ms < 1 ? `${(ms * 1e3).toPrecision(3)} µs` : ms < 1e3 ? `${ms.toPrecision(3)} ms` : `${(ms / 1e3).toPrecision(3)} s`)

/**
 * The rows, in bench.mjs's workload shape (`{ name, group, sizes, run(size) }`,
 * `run` giving `measure`'s row). `catalogTools(n)` and `resolvedTools(n)` are
 * bench.mjs's memoised catalogs, `measure` and `assertSame` its timing and
 * same-work check, `history` the messages before the request in the
 * history row.
 */
export function endToEndWorkloads({ catalogTools, resolvedTools, measure, assertSame, history = 400 }) {
  const workload = (name, { sizes, messages = 0, resolved = false, options }) => ({
    name,
    group: GROUP,
    sizes,
    async run(size) {
      const tools = resolved ? resolvedTools(size) : catalogTools(size)
      const keys = Object.keys(tools)
      const toolName = keys[keys.length >> 1]
      const conversation = messages > 0 ? historyOf(keys, messages).conversation : []
      // Resolved per request: the processor is given none, the agent's tools
      // function gives them all, and Mastra makes new tool objects of them on
      // every request (so nothing either side keeps per tool object can serve
      // the next request).
      const request = (host) =>
        agentRequest(host, resolved ? {} : tools, conversation, queryFor(tools[toolName]), toolName, {
          options,
          agentTools: resolved ? tools : undefined,
          use: USE,
        })
      const mastra = request(MASTRA)
      const ours = request(OURS)

      const [theirs, seen] = [await mastra.seen(), await ours.seen()]
      assertSame(`${name} ${size}`, theirs, seen)
      // Same work is not enough: it must be the work described.
      const offered = theirs.calls.map((call) => call.tools)
      if (theirs.calls.length !== 4 || !offered[2].includes(toolName) || offered[1].includes(toolName) || theirs.text !== 'Done.') {
        throw new Error(
          `${name} ${size}: the request did not search, load ${toolName}, call it and answer (tools offered per call: ${JSON.stringify(offered)})`,
        )
      }

      // Each request starts with nothing loaded, as a new conversation's does.
      const fresh = (side) => () => {
        side.reset()
        return side.run()
      }
      const row = await measure(name, size, fresh(mastra), fresh(ours))
      const refHooksMs = await mastra.hooksPerRequest(HOOK_REQUESTS)
      const oursHooksMs = await ours.hooksPerRequest(HOOK_REQUESTS)
      console.log(
        `note: ${name}, ${size.toLocaleString('en-US')} tools: the processors' hooks and meta-tools take ${formatMs(refHooksMs)} of Mastra's ` +
          `request (${formatMs(row.refMs)}), ${formatMs(oursHooksMs)} of ours (${formatMs(row.oursMs)})`,
      )
      return { ...row, refHooksMs, oursHooksMs }
    },
  })

  return [
    workload('agent.generate (search, load, use, answer)', { sizes: [100, 1_000, 10_000] }),
    workload(`agent.generate after ${history} messages of history`, { sizes: [100, 1_000, 10_000], messages: history }),
    workload('agent.generate, tools resolved per request (includeResolvedTools)', {
      sizes: [10_000],
      resolved: true,
      options: { includeResolvedTools: true },
    }),
    workload('agent.generate, catalog in the system prompt (injectCatalog)', { sizes: [1_000], options: { injectCatalog: true } }),
  ]
}
