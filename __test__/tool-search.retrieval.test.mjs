// Retrieval floors: each ranking's hit@5 on the dev data (data/, the Berkeley
// Function Calling Leaderboard's functions and questions; see data/README.md),
// for the non-live and the live questions apart, must not fall below what it
// was measured at when its settings were chosen, less half a point. A quality
// regression test, not a timed one: `npm run eval:search` prints the table
// (scripts/retrieval.mjs is the measure both use).

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { ToolSearchProcessor as RefToolSearchProcessor } from '@mastra/core/processors'

import { ToolSearchProcessor } from '../index.mjs'
import { toolVectorsReady } from '../lib/tool-search.js'
import { buildTools, builtinEmbeddingModel, evaluate, loadData, searchTool } from '../scripts/retrieval.mjs'

const data = loadData()
const tools = buildTools(data)

/** hit@5 as measured (docs/searching.md, "Quality on public data"), non-live and live. */
const MEASURED = {
  reference: { tidy: 0.887, live: 0.557 },
  fielded: { tidy: 0.957, live: 0.761 },
  hybrid: { tidy: 0.961, live: 0.827 },
  // The same model through the AI SDK's interface embeds one text a tool
  // (name, description and parameters joined), where the built-in one
  // weighs the parameters apart: a point fewer live questions.
  hybridEmbedder: { tidy: 0.959, live: 0.817 },
}
const MARGIN = 0.005

async function hit5(Processor, options) {
  const { processor, search } = await searchTool(Processor, options)
  if (options.search?.embedder) await toolVectorsReady(processor)
  const { tidy, live } = await evaluate(search, data)
  return { tidy: tidy.hit5, live: live.hit5 }
}

function holdsFloor(got, ranking) {
  for (const half of ['tidy', 'live']) {
    const floor = MEASURED[ranking][half] - MARGIN
    assert.ok(got[half] >= floor, `${ranking}, ${half} hit@5 ${(got[half] * 100).toFixed(1)}% is below ${(floor * 100).toFixed(1)}%`)
  }
}

describe('retrieval on the dev data (hit@5 floors)', () => {
  test("'reference' finds what @mastra/core's own finds, and holds its floor", async () => {
    const ours = await hit5(ToolSearchProcessor, { tools })
    assert.deepEqual(ours, await hit5(RefToolSearchProcessor, { tools }))
    holdsFloor(ours, 'reference')
  })

  test("'fielded'", async () => {
    holdsFloor(await hit5(ToolSearchProcessor, { tools, search: { ranking: 'fielded' } }), 'fielded')
  })

  test("'hybrid', with the built-in model", async () => {
    holdsFloor(await hit5(ToolSearchProcessor, { tools, search: { ranking: 'hybrid' } }), 'hybrid')
  })

  test("'hybrid' with an embedder (the built-in model through the AI SDK's interface)", async () => {
    const embedder = builtinEmbeddingModel()
    holdsFloor(await hit5(ToolSearchProcessor, { tools, search: { ranking: 'hybrid', embedder } }), 'hybridEmbedder')
  })
})
