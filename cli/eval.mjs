// `eval`'s measure: each ranking `search_tools` can use, on the user's own
// tools and questions. Mastra's own ToolSearchProcessor (from the @mastra/core
// installed beside this package), ours with 'fielded', ours with 'hybrid' and
// the built-in model, ours with 'hybrid' and the user's embedding model. Each
// question is sent whole to a processor's search_tools, as a model would send
// it, and scored by where the first right tool comes (cli/search.mjs). The
// user's tools are never executed.

import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'

import { UsageError } from './questions.mjs'
import { Quality, rankOf, searchToolOf } from './search.mjs'

const require = createRequire(import.meta.url)

/** How many results hit@5 and MRR@5 look at. */
const DEPTH = 5

/** The rankings, in the order they are shown (and preferred, on a tie). */
export const RANKINGS = [
  { id: 'mastra', label: "Mastra's ranking" },
  { id: 'fielded', label: "'fielded'" },
  { id: 'hybrid', label: "'hybrid', built-in model" },
  { id: 'embedder', label: "'hybrid', your embedder" },
]

/** The `search` option that selects a ranking, as a user pastes it (`undefined`: Mastra's, the default). */
export function optionLine(id, topK) {
  const k = topK === undefined ? '' : `, topK: ${topK}`
  if (id === 'fielded') return `search: { ranking: 'fielded'${k} }`
  if (id === 'hybrid') return `search: { ranking: 'hybrid'${k} }`
  if (id === 'embedder') return `search: { ranking: 'hybrid', embedder${k} }`
  return topK === undefined ? undefined : `search: { topK: ${topK} }`
}

/**
 * What stops a ranking being measured here, in a sentence, or null. `ours`
 * is the package's index; `embedder` the user's model, if given.
 */
function unavailable(id, ours, embedder, modelPackage) {
  if (id === 'mastra') return null
  if (ours.implementation === 'fallback') return `ours does not run here (${ours.fallbackReason})`
  if (id === 'hybrid') {
    try {
      require.resolve(modelPackage)
    } catch {
      return `needs the built-in model: npm install ${modelPackage}`
    }
  }
  if (id === 'embedder' && embedder === undefined) return 'give --embedder <module>, a module exporting your AI SDK embedding model'
  return null
}

/**
 * Every ranking on these questions (`[{ question, tools }]`, tools named as
 * search_tools names them): `{ mastra, implementation, fallbackReason, node,
 * tools, topK, defaultTopK, rankings: [{ id, label, option, available,
 * reason, questions, hit1, hit5, mrr5, hits1, hits5, reciprocal,
 * msPerQuestion, setupMs, missed, misses: [{ question, want, got }] }] }`.
 * A miss is a question none of whose tools search_tools returned (within
 * `topK`); `misses` keeps the first `missesShown`.
 */
export async function evalRankings(tools, questions, { topK, embedder, missesShown }, progress) {
  const mastra = {
    version: require('@mastra/core/package.json').version,
    ...(await import('@mastra/core/processors')),
  }
  const ours = require('../index.js')
  const { MODEL_PACKAGE, WARNING_TYPE } = require('../lib/embedder.js')
  const defaultTopK = ours.implementation === 'native' ? require('../lib/native.js').toolSearchProtocol().defaults.topK : undefined
  const search = topK === undefined ? {} : { topK }
  const optionsOf = {
    mastra: () => ({ tools, search }),
    fielded: () => ({ tools, search: { ...search, ranking: 'fielded' } }),
    hybrid: () => ({ tools, search: { ...search, ranking: 'hybrid' } }),
    embedder: () => ({ tools, search: { ...search, ranking: 'hybrid', embedder } }),
  }

  const rankings = []
  for (const [i, { id, label }] of RANKINGS.entries()) {
    const row = { id, label, option: optionLine(id, topK) ?? null, available: true, reason: null }
    rankings.push(row)
    const reason = unavailable(id, ours, embedder, MODEL_PACKAGE)
    if (reason !== null) {
      Object.assign(row, { available: false, reason })
      progress(`eval: ${label} (${i + 1}/${RANKINGS.length}): not measured, ${reason}`)
      continue
    }
    progress(`eval: ${label} (${i + 1}/${RANKINGS.length})`)
    const Processor = id === 'mastra' ? mastra.ToolSearchProcessor : ours.ToolSearchProcessor
    // A failing embedder is said as a process warning and ranks lexically: here it is an error.
    let failure
    const onWarning = (warning) => {
      if (warning.name === WARNING_TYPE) failure ??= warning.message
    }
    process.on('warning', onWarning)
    try {
      Object.assign(
        row,
        await measureRanking(Processor, optionsOf[id](), questions, {
          missesShown,
          progress: (done) => progress(`eval: ${label}: ${done}/${questions.length} questions`),
        }),
      )
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    if (failure !== undefined) throw new UsageError(`the --embedder model failed while ${label} was measured: ${failure}`)
  }
  return {
    mastra: mastra.version,
    implementation: ours.implementation,
    fallbackReason: ours.fallbackReason,
    node: process.version,
    tools: Object.keys(tools).length,
    topK: topK ?? defaultTopK ?? null,
    defaultTopK: defaultTopK ?? null,
    rankings,
  }
}

/** One ranking's figures over the questions. */
async function measureRanking(Processor, options, questions, { missesShown, progress }) {
  const { toolVectorsReady } = require('../lib/tool-search.js')
  const started = performance.now()
  const processor = new Processor(options)
  const searchTools = await searchToolOf(processor)
  if (options.search.embedder !== undefined) await toolVectorsReady(processor)
  const setupMs = performance.now() - started
  // Untimed: the first search of a process also compiles the code it runs.
  await searchTools(questions[0].question)
  const quality = new Quality()
  const misses = []
  let missed = 0
  let searchMs = 0
  let said = performance.now()
  for (const [i, { question, tools }] of questions.entries()) {
    const t0 = performance.now()
    const results = await searchTools(question)
    searchMs += performance.now() - t0
    const right = (result) => tools.includes(result.name)
    quality.add(rankOf(results, right, DEPTH))
    if (!results.some(right)) {
      missed++
      if (misses.length < missesShown) misses.push({ question, want: tools, got: results.map((result) => result.name) })
    }
    // A slow embedder (a network call a question) says how far it got, every few seconds.
    if (performance.now() - said > 3000 && i + 1 < questions.length) {
      progress(i + 1)
      said = performance.now()
    }
  }
  const { hit1, hit5, mrr5 } = quality.scores
  return {
    questions: questions.length,
    hit1,
    hit5,
    mrr5,
    hits1: quality.hit1,
    hits5: quality.hit5,
    reciprocal: quality.reciprocal,
    msPerQuestion: searchMs / questions.length,
    setupMs,
    missed,
    misses,
  }
}

/** The ranking to set: the most questions right in the top 5, then MRR@5, then hit@1; on a tie the one listed first. */
export function bestRanking(rankings) {
  let best
  for (const row of rankings) {
    if (!row.available) continue
    const better =
      best === undefined ||
      row.hits5 > best.hits5 ||
      (row.hits5 === best.hits5 && (row.reciprocal > best.reciprocal + 1e-9 || (Math.abs(row.reciprocal - best.reciprocal) <= 1e-9 && row.hits1 > best.hits1)))
    if (better) best = row
  }
  return best
}
