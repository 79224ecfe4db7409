// Small helpers of the named ToolSearchProcessor tests, bound to one release.
//
//   await toolSearchKit(version) -> everything the harness of that release exports, plus
//     Ref, Ours                    the release's own processor and ours for it
//     both(fn)                     [await fn(Ref, 'ref'), await fn(Ours, 'ours')], run side by side
//     stepOf(P, options, stepOpts) -> { processor, s, labels }: a processor (ttl 0 unless given) and its first step
//     search(s, query, rc), load(s, input, rc)   execute a step's meta-tool; fail the test if it threw
//     tagged(id, description, tag) a createTool tool whose execute returns { tag }
//     lowIdfCatalog()              seven tools sharing the words "helper tool number"

import assert from 'node:assert/strict'

import { toolSearchHarness } from './releases.mjs'

export async function toolSearchKit(version) {
  const h = await toolSearchHarness(version)
  const Ref = h.RefToolSearchProcessor
  const Ours = await h.loadOurs()

  const both = (fn) => Promise.all([fn(Ref, 'ref'), fn(Ours, 'ours')])

  async function stepOf(P, options, stepOpts = {}) {
    const labels = stepOpts.labels ?? new h.Labels()
    const processor = new P({ ttl: 0, ...options })
    const s = await h.runStep(processor, { labels, ...stepOpts })
    return { processor, s, labels }
  }

  async function search(s, query, rc) {
    const r = await h.execTool(s.result.tools.search_tools, { query }, { requestContext: rc })
    assert.ok(!r.threw, `search_tools threw: ${r.threw?.message}`)
    return r.value
  }

  async function load(s, input, rc) {
    const r = await h.execTool(s.result.tools.load_tool, input, { requestContext: rc })
    assert.ok(!r.threw, `load_tool threw: ${r.threw?.message}`)
    return r.value
  }

  function tagged(id, description, tag, extra = {}) {
    return h.createTool({ id, description, inputSchema: h.z.object({ v: h.z.string().optional() }), execute: async () => ({ tag }), ...extra })
  }

  function lowIdfCatalog() {
    const tools = {}
    ;['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'].forEach((w, i) => {
      tools[w] = h.createTool({ id: w, description: `${w} helper tool number ${i}`, execute: async () => ({}) })
    })
    return tools
  }

  return { ...h, Ref, Ours, both, stepOf, search, load, tagged, lowIdfCatalog }
}
