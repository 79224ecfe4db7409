// Retrieval quality of search_tools on the dev data: hit@1, hit@5 and MRR@5,
// for the non-live and the live questions apart, and the time a query takes,
// for @mastra/core's own ToolSearchProcessor and for each ranking of ours
// ('hybrid' with its built-in model, and with `search.embedder`: an AI SDK
// embedding model made of that same built-in model, so the row shows the
// embedder's path, not another model's quality). See scripts/retrieval.mjs.
//
//   npm run eval:search                       the table
//   npm run eval:search -- --data <file>      another file of the same shape
//   npm run eval:search -- --misses hybrid    also list a ranking's misses ('core' for @mastra/core's)
//   npm run eval:search -- --ablation         also what each technique of 'fielded' buys, and the
//                                             hybrid fusion's sweep (needs cargo: examples/rank_eval.rs)

import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

import { ToolSearchProcessor as RefToolSearchProcessor } from '@mastra/core/processors'

import { ToolSearchProcessor as OursToolSearchProcessor } from '../index.mjs'
import { DEV_DATA, TOP_K, buildTools, builtinEmbeddingModel, evaluate, loadData, searchTool } from './retrieval.mjs'
import { toolVectorsReady } from '../lib/tool-search.js'

const argv = process.argv.slice(2)
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined)
const DATA = option('--data') ?? process.env.TOOL_RETRIEVAL_DATA ?? fileURLToPath(DEV_DATA)
const MISSES = option('--misses')
const ABLATION = argv.includes('--ablation')

const data = loadData(DATA)
const coreVersion = JSON.parse(readFileSync(new URL('../node_modules/@mastra/core/package.json', import.meta.url))).version
const tools = buildTools(data)

async function row(label, Processor, options) {
  const { processor, search } = await searchTool(Processor, options)
  if (options.search?.embedder) await toolVectorsReady(processor)
  return { label, ...(await evaluate(search, data)) }
}

const rows = [
  await row(`@mastra/core ${coreVersion} (reference)`, RefToolSearchProcessor, { tools }),
  await row("ours, ranking 'reference'", OursToolSearchProcessor, { tools, search: { ranking: 'reference' } }),
  await row("ours, ranking 'fielded'", OursToolSearchProcessor, { tools, search: { ranking: 'fielded' } }),
  await row("ours, ranking 'hybrid' (built-in model)", OursToolSearchProcessor, { tools, search: { ranking: 'hybrid' } }),
  await row("ours, ranking 'hybrid' + embedder", OursToolSearchProcessor, {
    tools,
    search: { ranking: 'hybrid', embedder: builtinEmbeddingModel() },
  }),
]

const pct = (x) => `${(x * 100).toFixed(1)}%`
const scores = (q) => `${pct(q.hit1).padStart(6)}  ${pct(q.hit5).padStart(6)}  ${q.mrr5.toFixed(3).padStart(6)}`
console.log(`data: ${DATA}`)
console.log(`source: ${data.source}`)
const { tidy, live } = rows[0]
console.log(
  `${Object.keys(data.tools).length.toLocaleString('en-US')} tools in one catalog, ${data.cases.length.toLocaleString('en-US')} questions (${tidy.cases} non-live, ${live.cases} live), topK ${TOP_K}\n`,
)
const width = Math.max(...rows.map((r) => r.label.length), 'ranking'.length)
console.log(`${''.padEnd(width)}  ${'non-live'.padEnd(22)}  ${'live'.padEnd(22)}`)
console.log(`${'ranking'.padEnd(width)}   hit@1   hit@5   MRR@5   hit@1   hit@5   MRR@5   ms/query`)
console.log(`${'-'.repeat(width)}  ------  ------  ------  ------  ------  ------  ---------`)
// ms/query: one pass over the questions in this process, so a rough figure (see `npm run bench`).
for (const r of rows) {
  console.log(`${r.label.padEnd(width)}  ${scores(r.tidy)}  ${scores(r.live)}  ${r.ms.toFixed(3).padStart(9)}`)
}
if (MISSES) {
  const r = rows.find((r) => r.label.includes(`'${MISSES}'`) || (MISSES === 'core' && r.label.includes('reference)')))
  for (const m of r?.misses ?? []) console.log(`\n${m.id}: ${m.query}\n  want ${m.relevant.join(', ')}\n  got  ${m.got.join(', ')}`)
}

if (ABLATION) {
  console.log("\nAblation of 'fielded', and the hybrid fusion's weights (the Rust core on the same data):\n")
  const cargo = spawnSync('cargo', ['run', '--quiet', '--release', '--example', 'rank_eval', '--', DATA], {
    cwd: new URL('..', import.meta.url),
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  })
  if (cargo.status !== 0) throw new Error(`cargo run --example rank_eval failed (${cargo.status ?? cargo.error})`)
  // Its header repeats the data and source printed above: from the line naming the halves on.
  const table = cargo.stdout.lastIndexOf('\n', cargo.stdout.indexOf('non-live (')) + 1
  console.log(cargo.stdout.slice(table).trimEnd())
}
