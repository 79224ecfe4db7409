#!/usr/bin/env node
// The package's command line. One command, `bench`: times Mastra's own
// ToolSearchProcessor and ToolCallFilter against ours on the user's own tools,
// side by side in one process, with the @mastra/core installed beside it.
//
//   npx mastra-native-processors bench --tools ./src/mastra/tools.mjs

import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'

import { benchCatalog } from './bench.mjs'
import { formatReport } from './report.mjs'

const USAGE = `Usage: npx mastra-native-processors bench --tools <module> [options]

Times @mastra/core's own ToolSearchProcessor and ToolCallFilter against
mastra-native-processors on your own tools, side by side in one process, with
the @mastra/core installed in this project, and says what the figures mean for
this catalog. Your tools are never executed.

  --tools <module>   a module exporting your tools record (a Record<string, Tool>),
                     as its default export or as \`tools\`; a path from here
  --history <n>      messages of generated history for ToolCallFilter and the
                     agent request with history (default 400)
  --quick            fewer samples (about 20 s instead of a minute or two)
  --json             print the results as JSON instead of a table
  -h, --help         this text

Progress goes to stderr. Nothing is sent over the network: the agent request
runs a scripted model (search_tools, load_tool, an answer) with no latency.`

/** The options of `bench`, or a usage error's message. */
function parse(argv) {
  const [command, ...rest] = argv
  if (command !== 'bench') return { error: command ? `unknown command ${JSON.stringify(command)}` : 'no command' }
  const options = { tools: null, history: 400, quick: false, json: false }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]
    if (arg === '--quick') options.quick = true
    else if (arg === '--json') options.json = true
    else if (arg === '--tools' || arg === '--history') {
      const value = rest[++i]
      if (value === undefined) return { error: `${arg} needs a value` }
      if (arg === '--tools') options.tools = value
      else if (!/^\d+$/.test(value) || Number(value) > 100_000) return { error: '--history takes a whole number of messages up to 100000' }
      else options.history = Number(value)
    } else return { error: `unknown option ${JSON.stringify(arg)}` }
  }
  if (!options.tools) return { error: '--tools <module> is required' }
  return { options }
}

/** The tools record a module exports, or throws saying what it exports instead. */
async function loadTools(path) {
  const url = pathToFileURL(resolve(path)).href
  let module
  try {
    module = await import(url)
  } catch (error) {
    const hint =
      /\.[cm]?tsx?$/.test(path) && error.code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ' (run it through a TypeScript loader, e.g. npx tsx node_modules/.bin/mastra-native-processors ..., or point --tools at built JavaScript)'
        : ''
    throw new Error(`cannot import ${path}: ${error.message}${hint}`)
  }
  const tools = module.tools ?? module.default?.tools ?? module.default
  const isRecord = tools && typeof tools === 'object' && !Array.isArray(tools)
  const entries = isRecord ? Object.entries(tools).filter(([, tool]) => tool && typeof tool === 'object') : []
  if (entries.length === 0) {
    throw new Error(
      `${path} exports no tools record: expected \`export default { myTool, ... }\` or \`export const tools = { ... }\` (it exports ${Object.keys(module).join(', ') || 'nothing'})`,
    )
  }
  return Object.fromEntries(entries)
}

async function main(argv) {
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    console.log(USAGE)
    return 0
  }
  const { options, error } = parse(argv)
  if (error) {
    console.error(`mastra-native-processors: ${error}\n\n${USAGE}`)
    return 2
  }
  const tools = await loadTools(options.tools)
  const results = await benchCatalog(tools, options, (line) => process.stderr.write(`${line}\n`))
  console.log(options.json ? JSON.stringify(results, null, 2) : formatReport(results))
  return 0
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`mastra-native-processors: ${error.message}`)
    process.exit(1)
  },
)
