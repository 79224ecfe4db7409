// Runs one script against a release's own ToolSearchProcessor and ours, on
// separate but identical tools records, and returns both logs, for the tests
// of edges where the caller changes the record, runs meta-tools at once, or
// hands over odd objects (tool-search.parity-edges.test.mjs, the record-edit
// fuzz).
//
//   const edges = await toolSearchEdges(version)
//   const [ref, ours] = await edges.compare(options, script)
//
// `options(ctx)` gives the processor's options (its `tools` become
// `ctx.record`; a `filter(args, ctx)` is logged before it runs). `script(ctx)`
// drives it with:
//   ctx.tool(id, description, label)   a tool (createTool, labelled); `id` undefined: none
//   ctx.step(stepTools?, rc?)          processInputStep; logs the tools returned and the system messages
//   ctx.search(query), ctx.load(input) a meta-tool of the last step; gives (and logs nothing of) the result
//   ctx.log                            the log both runs must agree on
// Every thrown error is logged as `{ threw: name }` (and its message, when
// `messages` is set), so a run never stops at one.

import assert from 'node:assert/strict'

import { toolSearchKit } from './tool-search-kit.mjs'

export async function toolSearchEdges(version) {
  const kit = await toolSearchKit(version)
  const { Ref, Ours, runStep, execTool, makeRequestContext, Labels } = kit

  async function runOne(P, options, script, { messages = true } = {}) {
    const labels = new Labels()
    const log = []
    const threw = (e) => (messages ? { threw: e?.name, message: e?.message } : { threw: e?.name })
    const ctx = {
      labels,
      log,
      tool(id, description, label, extra = {}) {
        const tool = id === undefined ? { description, execute: async () => ({ label }), ...extra } : kit.tagged(id, description, label, extra)
        return labels.set(tool, label)
      },
      rc: makeRequestContext({ threadId: 'edges' }),
    }
    const { tools, filter, ...rest } = options(ctx)
    ctx.record = tools
    const hooked = filter
      ? (args) => {
          log.push(['hook', args.phase, args.toolName, labels.get(args.tool)])
          return filter(args, ctx)
        }
      : undefined
    let processor
    try {
      processor = new P({ ttl: 0, ...rest, tools, filter: hooked })
    } catch (e) {
      log.push(['constructor', threw(e)])
      return log
    }
    ctx.processor = processor
    ctx.step = async (stepTools, rc = ctx.rc) => {
      ctx.s = undefined
      try {
        const s = await runStep(processor, { labels, requestContext: rc, tools: stepTools })
        ctx.s = s
        log.push(['step', s.tools.map(([name, t]) => [name, typeof t === 'string' ? t : 'meta']), s.systemCalls])
        return s
      } catch (e) {
        log.push(['step', threw(e)])
      }
    }
    const run = async (name, input) => {
      const tool = ctx.s?.result.tools[name]
      if (!tool) return { absent: name }
      const out = await execTool(tool, input, { requestContext: ctx.rc })
      return out.threw ? threw(out.threw) : out.value
    }
    ctx.search = (query) => run('search_tools', { query })
    ctx.load = (input) => run('load_tool', input)
    await script(ctx)
    return log
  }

  /** `[reference's log, ours]` of `script` over `options`. */
  async function compare(options, script, settings) {
    return [await runOne(Ref, options, script, settings), await runOne(Ours, options, script, settings)]
  }

  /** Ours' log of `script` over `options`, having asserted it equals the reference's. */
  async function same(options, script) {
    const [ref, ours] = await compare(options, script)
    assert.deepEqual(ours, ref)
    return ours
  }

  return { ...kit, compare, same, runOne }
}

/** A hook that allows every tool. */
export const allow = () => true

/** Three tools under keys `a`, `b`, `c`, each with its key as its id. */
export const three = ({ tool }) => ({ a: tool('a', 'alpha tool', 'A'), b: tool('b', 'beta tool', 'B'), c: tool('c', 'gamma tool', 'C') })
