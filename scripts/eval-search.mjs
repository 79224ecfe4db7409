// Retrieval quality of search_tools on the dev data: hit@1, hit@5 and MRR@5 for
// @mastra/core's own ToolSearchProcessor and for each ranking of ours.
//
//   npm run eval:search                       the table
//   npm run eval:search -- --data <file>      another file of the same shape
//   npm run eval:search -- --misses fielded   also list a ranking's misses ('core' for @mastra/core's)
//   npm run eval:search -- --ablation         also what each technique of 'fielded' buys
//                                             (needs cargo: examples/rank_eval.rs, same data)
//
// The data (default /work/shared/data/tool-retrieval-dev.json, or
// $TOOL_RETRIEVAL_DATA) is `{ source, tools: { name: { description,
// parameters: { name: description } } }, cases: [{ id, query, relevant }] }`.
// Every tool becomes a Mastra tool made with `createTool`, its parameters a zod
// object of described fields; one processor holds the whole catalog; each case's
// query is sent whole to search_tools (topK 5) and scored against `relevant`:
// hit@k is the share of cases with a relevant tool among the first k results,
// MRR@5 the mean of 1/rank of the first relevant result (0 past 5).

import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

import { ToolSearchProcessor as RefToolSearchProcessor } from '@mastra/core/processors'
import { RequestContext } from '@mastra/core/request-context'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'

import { ToolSearchProcessor as OursToolSearchProcessor } from '../index.mjs'

const { toolSearchProtocol } = createRequire(import.meta.url)('../lib/native.js')

const argv = process.argv.slice(2)
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined)
const DATA = option('--data') ?? process.env.TOOL_RETRIEVAL_DATA ?? '/work/shared/data/tool-retrieval-dev.json'
const MISSES = option('--misses')
const ABLATION = argv.includes('--ablation')
const TOP_K = 5

const data = JSON.parse(readFileSync(DATA, 'utf8'))
const coreVersion = JSON.parse(readFileSync(new URL('../node_modules/@mastra/core/package.json', import.meta.url))).version

/** The dev tools as an application would define them. */
function buildTools() {
  const tools = {}
  for (const [name, { description, parameters }] of Object.entries(data.tools)) {
    const shape = {}
    for (const [param, about] of Object.entries(parameters ?? {})) shape[param] = z.unknown().describe(about)
    tools[name] = createTool({ id: name, description, inputSchema: z.object(shape), execute: async () => ({}) })
  }
  return tools
}

async function searchTool(Processor, options) {
  const requestContext = new RequestContext()
  const processor = new Processor(options)
  const messageList = { addSystem() {}, get: { all: { db: () => [] } } }
  const { tools } = await processor.processInputStep({
    messages: [],
    messageList,
    tools: {},
    requestContext,
    state: {},
    stepNumber: 0,
    steps: [],
    abort() {},
  })
  return (query) => tools.search_tools.execute({ query }, { requestContext })
}

async function evaluate(label, Processor, options) {
  const search = await searchTool(Processor, options)
  let hit1 = 0
  let hit5 = 0
  let reciprocal = 0
  const misses = []
  const started = performance.now()
  for (const { id, query, relevant } of data.cases) {
    const { results } = await search(query)
    const rank = results.slice(0, TOP_K).findIndex((r) => relevant.includes(r.name))
    if (rank === 0) hit1++
    if (rank >= 0) {
      hit5++
      reciprocal += 1 / (rank + 1)
    } else {
      misses.push({ id, query, relevant, got: results.map((r) => r.name) })
    }
  }
  const ms = (performance.now() - started) / data.cases.length
  const n = data.cases.length
  return { label, hit1: hit1 / n, hit5: hit5 / n, mrr5: reciprocal / n, ms, misses }
}

const tools = buildTools()
const rows = [await evaluate(`@mastra/core ${coreVersion} (reference)`, RefToolSearchProcessor, { tools })]
for (const ranking of toolSearchProtocol().rankings) {
  rows.push(await evaluate(`ours, ranking '${ranking}'`, OursToolSearchProcessor, { tools, search: { ranking } }))
}

const pct = (x) => `${(x * 100).toFixed(1)}%`
console.log(`data: ${DATA}`)
console.log(`source: ${data.source}`)
console.log(`${Object.keys(data.tools).length.toLocaleString('en-US')} tools in one catalog, ${data.cases.length.toLocaleString('en-US')} questions, topK ${TOP_K}\n`)
const width = Math.max(...rows.map((r) => r.label.length), 'ranking'.length)
console.log(`${'ranking'.padEnd(width)}   hit@1   hit@5   MRR@5   ms/query`)
console.log(`${'-'.repeat(width)}  ------  ------  ------  ---------`)
// ms/query: one pass over the questions in this process, so a rough figure (see `npm run bench`).
for (const r of rows) {
  console.log(
    `${r.label.padEnd(width)}  ${pct(r.hit1).padStart(6)}  ${pct(r.hit5).padStart(6)}  ${r.mrr5.toFixed(3).padStart(6)}  ${r.ms.toFixed(3).padStart(9)}`,
  )
}
if (MISSES) {
  const row = rows.find((r) => r.label.includes(`'${MISSES}'`) || (MISSES === 'core' && r.label.includes('reference)')))
  for (const m of row?.misses ?? []) console.log(`\n${m.id}: ${m.query}\n  want ${m.relevant.join(', ')}\n  got  ${m.got.join(', ')}`)
}

if (ABLATION) {
  console.log("\nAblation of 'fielded' (the Rust core on the same data, parameters as sent from JavaScript):\n")
  const cargo = spawnSync('cargo', ['run', '--quiet', '--release', '--example', 'rank_eval', '--', DATA], {
    cwd: new URL('..', import.meta.url),
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  })
  if (cargo.status !== 0) throw new Error(`cargo run --example rank_eval failed (${cargo.status ?? cargo.error})`)
  // Its header repeats the data and source printed above.
  console.log(cargo.stdout.slice(cargo.stdout.indexOf('ranking')).trimEnd())
}
