#!/usr/bin/env node
// The package's command line. `bench`: times Mastra's own ToolSearchProcessor
// and ToolCallFilter against ours on the user's own tools, side by side in one
// process, with the @mastra/core installed beside it. `eval`: how often each
// ranking of search_tools finds the right tool among the user's own tools, on
// their questions or on those their agent's memory holds.
//
//   npx mastra-native-processors bench --tools ./src/mastra/tools.mjs
//   npx mastra-native-processors eval --tools ./src/mastra/tools.mjs --from ./src/mastra/storage.mjs
//
// Nothing of @mastra/core or the addon is loaded before the options are read,
// so --help answers at once.

import { UsageError } from './questions.mjs'

const BENCH_USAGE = `Usage: npx mastra-native-processors bench --tools <module> [options]

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

const EVAL_USAGE = `Usage: npx mastra-native-processors eval --tools <module> (--questions <file> | --from <module|file>) [options]

How often search_tools finds the right tool among your own tools, with each
ranking: Mastra's own (the @mastra/core installed here), 'fielded', 'hybrid'
with the built-in model and 'hybrid' with your embedding model. Prints hit@1,
hit@5, MRR@5 and the time a question takes, the questions each ranking missed
with what it ranked instead, and which ranking to set. Your tools are never
executed.

  --tools <module>      a module exporting your tools record (a Record<string, Tool>),
                        as its default export or as \`tools\`; a path from here
  --questions <file>    JSON Lines, one {"question": "...", "tools": ["name", ...]} a
                        line: the tools (key or id) any of which is a right answer
  --from <module|file>  questions from your agent's memory: a module exporting the
                        Mastra storage, Memory or Mastra instance your agent uses, or a
                        JSON file of stored messages. Each search_tools call followed in
                        its thread by a load_tool or a call of one of your tools is a
                        question, labelled with that tool. Read only.
  --threads <n>         with --from: the n threads most recently written (default 100)
  --embedder <module>   a module exporting an AI SDK embedding model, for the row
                        'hybrid' with search.embedder (it is called once per question)
  --top-k <n>           search_tools' topK (default the processor's)
  --misses <n>          missed questions shown per ranking (default 5; 0 for none)
  --json                print the results as JSON instead of a report
  -h, --help            this text

A question is missed when none of its tools is among the results search_tools
returns. Progress goes to stderr.`

const wholeNumber = (value, min, max) => /^\d+$/.test(value) && Number(value) >= min && Number(value) <= max

/** The options of `bench`, or a usage error's message. */
function parseBench(rest) {
  const options = { tools: null, history: 400, quick: false, json: false }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]
    if (arg === '--quick') options.quick = true
    else if (arg === '--json') options.json = true
    else if (arg === '--tools' || arg === '--history') {
      const value = rest[++i]
      if (value === undefined) return { error: `${arg} needs a value` }
      if (arg === '--tools') options.tools = value
      else if (!wholeNumber(value, 0, 100_000)) return { error: '--history takes a whole number of messages up to 100000' }
      else options.history = Number(value)
    } else return { error: `unknown option ${JSON.stringify(arg)}` }
  }
  if (!options.tools) return { error: '--tools <module> is required' }
  return { options }
}

/** The options of `eval`, or a usage error's message. */
function parseEval(rest) {
  const options = { tools: null, questions: null, from: null, threads: undefined, embedder: null, topK: undefined, misses: 5, json: false }
  const numbers = {
    '--threads': ['threads', 1, 100_000, '--threads takes a whole number of threads from 1 to 100000'],
    '--top-k': ['topK', 1, 10_000, '--top-k takes a whole number from 1 to 10000'],
    '--misses': ['misses', 0, 100_000, '--misses takes a whole number of questions up to 100000'],
  }
  const paths = { '--tools': 'tools', '--questions': 'questions', '--from': 'from', '--embedder': 'embedder' }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]
    if (arg === '--json') options.json = true
    else if (arg in numbers || arg in paths) {
      const value = rest[++i]
      if (value === undefined) return { error: `${arg} needs a value` }
      if (arg in paths) options[paths[arg]] = value
      else {
        const [key, min, max, error] = numbers[arg]
        if (!wholeNumber(value, min, max)) return { error }
        options[key] = Number(value)
      }
    } else return { error: `unknown option ${JSON.stringify(arg)}` }
  }
  if (!options.tools) return { error: '--tools <module> is required' }
  if (!options.questions && !options.from) return { error: 'give your questions: --questions <file> or --from <module|file>' }
  if (options.questions && options.from) return { error: '--questions and --from are two sources of questions: give one' }
  if (options.threads !== undefined && !options.from) return { error: '--threads reads with --from' }
  options.threads ??= 100
  return { options }
}

const COMMANDS = {
  bench: { usage: BENCH_USAGE, parse: parseBench, run: runBench },
  eval: { usage: EVAL_USAGE, parse: parseEval, run: runEval },
}

const progress = (line) => process.stderr.write(`${line}\n`)
/** Writes the command's output; resolves once it is written (main exits then, which would cut a pipe's output short). */
const print = (text) => new Promise((resolve) => process.stdout.write(`${text}\n`, resolve))

async function runBench(options) {
  const { loadTools } = await import('./load.mjs')
  const { benchCatalog } = await import('./bench.mjs')
  const { formatReport } = await import('./report.mjs')
  const tools = await loadTools(options.tools)
  const results = await benchCatalog(tools, options, progress)
  await print(options.json ? JSON.stringify(results, null, 2) : formatReport(results))
}

async function runEval(options) {
  // Read only: Mastra's storages create or migrate their tables when first
  // used, unless this says not to (the user's module is imported after it).
  process.env.MASTRA_DISABLE_STORAGE_INIT = 'true'
  const { checkEmbedder, loadEmbedder, loadMemoryStore, loadTools } = await import('./load.mjs')
  const { Catalog, memoryStoreOf, mineThreads, readQuestionsFile, readThreads, threadsOfFile } = await import('./questions.mjs')
  const { evalRankings } = await import('./eval.mjs')
  const { formatEvalReport, reading, sourceLines } = await import('./eval-report.mjs')
  const tools = await loadTools(options.tools)
  const catalog = new Catalog(tools)
  let questions
  let source
  if (options.questions) {
    questions = readQuestionsFile(options.questions, catalog)
    source = { kind: 'file', path: options.questions, found: questions.length }
  } else {
    const fromFile = /\.json$/i.test(options.from)
    progress(`eval: reading the ${options.threads} most recent threads of ${options.from}`)
    const threads = fromFile
      ? threadsOfFile(options.from).slice(0, options.threads)
      : await readThreads(await loadMemoryStore(options.from, memoryStoreOf), options.threads, (done, of) => {
          if (done % 25 === 0 || done === of) progress(`eval: read ${done}/${of} threads`)
        })
    if (threads.length === 0) throw new UsageError(`${options.from} holds no threads (is it the storage your agent's memory writes to?)`)
    const mined = mineThreads(threads, catalog)
    questions = mined.questions
    source = {
      kind: fromFile ? 'messages' : 'memory',
      path: options.from,
      limit: options.threads,
      threads: threads.length,
      searches: mined.searches,
      found: questions.length,
      skipped: mined.skipped,
    }
    if (questions.length === 0) throw new UsageError(`no questions found: ${sourceLines(source).join('\n')}`)
  }
  let embedder
  if (options.embedder) {
    embedder = await loadEmbedder(options.embedder)
    await checkEmbedder(embedder, questions[0].question)
  }
  const results = await evalRankings(tools, questions, { topK: options.topK, embedder, missesShown: options.misses }, progress)
  await print(
    options.json
      ? JSON.stringify({ ...results, questions: { ...source, list: questions }, reading: reading(results) }, null, 2)
      : formatEvalReport(results, source),
  )
}

async function main(argv) {
  const [command, ...rest] = argv
  const known = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    console.log(known?.usage ?? `${BENCH_USAGE}\n\n${EVAL_USAGE}`)
    return 0
  }
  if (known === undefined) {
    console.error(`mastra-native-processors: unknown command ${JSON.stringify(command)}\n\n${BENCH_USAGE}\n\n${EVAL_USAGE}`)
    return 2
  }
  const { options, error } = known.parse(rest)
  if (error) {
    console.error(`mastra-native-processors: ${error}\n\n${known.usage}`)
    return 2
  }
  await known.run(options)
  return 0
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    // The message alone, never a stack: a user's mistake (UsageError) says what to do.
    console.error(`mastra-native-processors: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  },
)
