// Retrieval quality of search_tools on a tool-retrieval data file: what
// `npm run eval:search` prints and what the retrieval floors of `npm test`
// (__test__/tool-search.retrieval.test.mjs) hold.
//
// The data (data/tool-retrieval-dev.json: see data/README.md) is `{ source,
// tools: { name: { description, parameters: { name: description } } }, cases:
// [{ id, query, relevant }] }`. Every tool becomes a Mastra tool made with
// `createTool`, its parameters a zod object of described fields; one processor
// holds the whole catalog; each case's query is sent whole to search_tools
// (topK 5) and scored against `relevant`: hit@k is the share of cases with a
// relevant tool among the first k results, MRR@5 the mean of 1/rank of the
// first relevant result (0 past 5). Cases whose id starts with `live_`
// (questions real users sent) and the others (written for the benchmark) are
// scored apart. The search and the scores are cli/search.mjs's, which
// `npx mastra-native-processors eval` uses on a user's own tools.

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

import { createTool } from '@mastra/core/tools'
import { z } from 'zod'

import { Quality, rankOf, searchToolOf } from '../cli/search.mjs'

const require = createRequire(import.meta.url)

export const TOP_K = 5
export const DEV_DATA = new URL('../data/tool-retrieval-dev.json', import.meta.url)

export function loadData(path = DEV_DATA) {
  return JSON.parse(readFileSync(path, 'utf8'))
}

/** The data's tools as an application would define them. */
export function buildTools(data) {
  const tools = {}
  for (const [name, { description, parameters }] of Object.entries(data.tools)) {
    const shape = {}
    for (const [param, about] of Object.entries(parameters ?? {})) shape[param] = z.unknown().describe(about)
    tools[name] = createTool({ id: name, description, inputSchema: z.object(shape), execute: async () => ({}) })
  }
  return tools
}

/** `search_tools` of a new processor's first step: `{ processor, search }`, `search(query)` giving `{ results }`. */
export async function searchTool(Processor, options) {
  const processor = new Processor(options)
  const results = await searchToolOf(processor)
  return { processor, search: async (query) => ({ results: await results(query) }) }
}

/**
 * Searches every case: `{ tidy, live }` (each `{ cases, hit1, hit5, mrr5 }`),
 * the milliseconds a query took on average, and the misses (no relevant tool
 * in the first five).
 */
export async function evaluate(search, data) {
  const tidy = new Quality()
  const live = new Quality()
  const misses = []
  const started = performance.now()
  for (const { id, query, relevant } of data.cases) {
    const { results } = await search(query)
    const rank = rankOf(results, (r) => relevant.includes(r.name), TOP_K)
    ;(id.startsWith('live_') ? live : tidy).add(rank)
    if (rank < 0) misses.push({ id, query, relevant, got: results.map((r) => r.name) })
  }
  const ms = (performance.now() - started) / data.cases.length
  return { tidy: tidy.scores, live: live.scores, ms, misses }
}

/**
 * An AI SDK v5 embedding model (`EmbeddingModelV2`) made of this package's
 * built-in model, through the binding: for the eval's and the tests' rows of
 * 'hybrid' with `search.embedder`, with no network. `calls` records each
 * `doEmbed`'s values.
 */
export function builtinEmbeddingModel({ maxEmbeddingsPerCall = 256 } = {}) {
  const binding = require('../lib/native.js')
  binding.locateBuiltinModel(require('mastra-native-processors-potion-base-8m').path)
  const calls = []
  return {
    specificationVersion: 'v2',
    provider: 'mastra-native-processors',
    modelId: 'potion-base-8M',
    maxEmbeddingsPerCall,
    supportsParallelCalls: false,
    calls,
    async doEmbed({ values }) {
      calls.push(values)
      const flat = binding.builtinModelEmbed(values)
      const dimensions = flat.length / Math.max(values.length, 1)
      const embeddings = values.map((_, i) => Array.from(flat.subarray(i * dimensions, (i + 1) * dimensions)))
      return { embeddings, usage: { tokens: 0 } }
    },
  }
}
