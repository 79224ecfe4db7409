// `npx mastra-native-processors eval`: each ranking on a user's tools and
// questions (a JSON Lines file, or the search_tools calls their agent's
// memory holds), run as `node cli/main.mjs` from this checkout with
// @mastra/core 1.71.0 and the built-in model installed. The memory is a
// LibSQL-backed Mastra Memory in a file, written by a real Agent with
// ToolSearchProcessor driven by the AI SDK's mock model (no network). Every
// bad input is an error that says what is wrong, with no stack. Times are
// printed, never asserted. cli.test.mjs runs --help, and the command where
// the built-in model is not installed, through npx in a fresh project.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

import { Agent } from '@mastra/core/agent'
import { LibSQLStore } from '@mastra/libsql'
import { Memory } from '@mastra/memory'

import { ToolSearchProcessor } from '../index.mjs'
import { call, scriptedModel, text } from './fixtures/runner/harness.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
// Inside the checkout, so the fixtures' bare imports (@mastra/core, zod) resolve as a user's would.
mkdirSync(join(ROOT, '.scratch'), { recursive: true })
const work = mkdtempSync(join(ROOT, '.scratch', 'cli-eval-'))
after(() => rmSync(work, { recursive: true, force: true }))

const evalCli = (...args) => spawnSync(process.execPath, [join(ROOT, 'cli', 'main.mjs'), 'eval', ...args], { cwd: work, encoding: 'utf8' })
const json = (...args) => {
  const result = evalCli(...args, '--json')
  assert.equal(result.status, 0, result.stderr)
  return JSON.parse(result.stdout)
}

// The user's tools; the agent that writes the memory runs them (\`toolsThat\`), eval must not.
const TOOLS = `
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
export const toolsThat = (execute) => ({
  getWeather: createTool({ id: 'getWeather', description: 'Get the current weather for a city', inputSchema: z.object({ city: z.string() }), execute }),
  searchOrders: createTool({ id: 'searchOrders', description: 'Search the order database by customer or date', inputSchema: z.object({ query: z.string() }), execute }),
  sendEmail: createTool({ id: 'sendEmail', description: 'Send an email to a customer', inputSchema: z.object({ to: z.string().describe('recipient address'), body: z.string() }), execute }),
  translate: createTool({ id: 'translateText', description: 'Translate text between languages', inputSchema: z.object({ text: z.string() }), execute }),
})
export const tools = toolsThat(async () => { throw new Error('eval executed a tool') })
`

// Six questions, after a byte order mark and with a blank line between two; the last names one tool by its key, one by its id.
const QUESTIONS = [
  { question: 'what is the weather in Paris', tools: ['getWeather'] },
  { question: 'is it going to rain in Oslo tomorrow', tools: ['getWeather'] },
  { question: 'find the orders of customer 42', tools: ['searchOrders'] },
  { question: 'mail the recipient a note', tools: ['sendEmail'] },
  { question: 'say this in French', tools: ['translateText'] },
  { question: 'write to the client about the delay', tools: ['sendEmail', 'translate'] },
]
const questionsFile = (questions) =>
  `\uFEFF${questions
    .slice(0, 5)
    .map((q) => JSON.stringify(q))
    .join('\n')}\n\n${JSON.stringify(questions[5])}\n`

// An embedding model of the user's: each word but the small ones hashed into one of 64
// dimensions, a few read as the word they mean (rain as weather), as a model of meaning
// would (no network).
// Its vectors are counts, not unit vectors: they count by their direction.
const EMBEDDER = `
const dimensions = 64
const hash = (word) => [...word].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % dimensions
const MEANS = { rain: 'weather', tomorrow: 'weather', mail: 'email', note: 'email', write: 'email', client: 'customer' }
const SMALL = new Set(['a', 'an', 'the', 'to', 'of', 'in', 'is', 'it', 'this', 'about', 'by', 'or', 'for', 'between'])
export const calls = []
export default {
  specificationVersion: 'v2', provider: 'test', modelId: 'hashed-words', maxEmbeddingsPerCall: 100, supportsParallelCalls: false,
  async doEmbed({ values }) {
    const embeddings = values.map((value) => {
      const vector = new Array(dimensions).fill(0)
      for (const word of value.toLowerCase().match(/[a-z]+/g) ?? []) if (!SMALL.has(word)) vector[hash(MEANS[word] ?? word)] += 1
      return vector
    })
    return { embeddings }
  },
}
`

before(() => {
  writeFileSync(join(work, 'tools.mjs'), TOOLS)
  writeFileSync(join(work, 'questions.jsonl'), questionsFile(QUESTIONS))
  writeFileSync(join(work, 'embedder.mjs'), EMBEDDER)
})

const RANKINGS = ["Mastra's ranking", "'fielded'", "'hybrid', built-in model", "'hybrid', your embedder"]

describe('eval on a catalog and a questions file', () => {
  test('--help prints the usage', () => {
    const result = evalCli('--help')
    assert.equal(result.status, 0)
    assert.match(result.stdout, /^Usage: npx mastra-native-processors eval --tools <module> \(--questions <file> \| --from <module\|file>\) \[options\]\n/)
    assert.equal(result.stderr, '')
  })

  test("prints the four rankings' figures, their misses and which ranking to set", () => {
    const result = evalCli('--tools', 'tools.mjs', '--questions', 'questions.jsonl', '--embedder', 'embedder.mjs', '--misses', '1')
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(
      result.stderr.trim().split('\n'),
      RANKINGS.map((label, i) => `eval: ${label} (${i + 1}/4)`),
    )
    const [heading, source, table, ...rest] = result.stdout.trimEnd().split('\n\n')
    assert.match(heading, /^mastra-native-processors eval: 4 tools, topK 5 \(the processor's default\), @mastra\/core 1\.71\.0, Node v[\d.]+, ours native$/)
    assert.equal(source, '6 questions from questions.jsonl')
    const rows = table.split('\n')
    assert.match(rows[0], /^ranking +hit@1 +hit@5 +MRR@5 +per question$/)
    const figures = rows.slice(2).map((row) => row.replace(/ {2,}/g, '|').replace(/\|[\d.]+ (µs|ms|s)$/, ''))
    assert.deepEqual(figures, [
      "Mastra's ranking|33.3%|50.0%|0.417",
      "'fielded'|50.0%|50.0%|0.500",
      "'hybrid', built-in model|66.7%|66.7%|0.667",
      "'hybrid', your embedder|83.3%|83.3%|0.833",
    ])
    assert.deepEqual(rest.slice(0, 4), [
      `Missed by Mastra's ranking (3 of 6; the first 1):\n  "is it going to rain in Oslo tomorrow"\n    want getWeather\n    got  sendEmail`,
      `Missed by 'fielded' (3 of 6; the first 1):\n  "is it going to rain in Oslo tomorrow"\n    want getWeather\n    got  nothing`,
      `Missed by 'hybrid', built-in model (2 of 6; the first 1):\n  "say this in French"\n    want translateText\n    got  nothing`,
      `Missed by 'hybrid', your embedder (1 of 6):\n  "say this in French"\n    want translateText\n    got  nothing`,
    ])
    const reading = rest[4].split('\n')
    assert.deepEqual(reading.slice(0, 3), [
      'What to set:',
      "- Set 'hybrid', your embedder: it finds 5 of 6 (83.3%) in the first 5, 5 (83.3%) first; Mastra's ranking 3 (50.0%) and 2 (33.3%).",
      "- Paste into new ToolSearchProcessor({ tools, ... }): search: { ranking: 'hybrid', embedder }",
    ])
    assert.match(
      reading[3],
      /^- embedder being the model your --embedder module exports; it is called once per search_tools question \([\d.]+ (µs|ms|s) a question here\)\.$/,
    )
    assert.deepEqual(reading.slice(4), [
      '- With 6 questions one question is 16.7%: a difference of a question or two is chance. More questions (--from with more --threads, or more lines) make the choice surer.',
    ])
  })

  test('a long question is quoted cut past a few hundred characters', () => {
    const long = `zebra ${'x'.repeat(1000)}`
    writeFileSync(join(work, 'long.jsonl'), `${JSON.stringify({ question: long, tools: ['getWeather'] })}\n`)
    const result = evalCli('--tools', 'tools.mjs', '--questions', 'long.jsonl', '--misses', '1')
    assert.equal(result.status, 0, result.stderr)
    const quoted = `"${long.slice(0, 300)}…(cut from 1006 characters)"`
    assert.ok(result.stdout.includes(`Missed by Mastra's ranking (1 of 1):\n  ${quoted}\n    want getWeather\n`), result.stdout)
    assert.ok(!result.stdout.includes('x'.repeat(301)))
  })

  test('--json gives the same figures, every miss up to --misses, and --top-k in the option line', () => {
    const report = json('--tools', 'tools.mjs', '--questions', 'questions.jsonl', '--top-k', '2')
    assert.equal(report.mastra, '1.71.0')
    assert.equal(report.implementation, 'native')
    assert.equal(report.tools, 4)
    assert.equal(report.topK, 2)
    assert.equal(report.defaultTopK, 5)
    assert.deepEqual(report.questions.list.at(-1), { question: 'write to the client about the delay', tools: ['sendEmail', 'translateText'], line: 7 })
    const counts = report.rankings.map((r) => (r.available ? [r.id, r.hits1, r.hits5, r.missed, r.misses.length, r.option] : [r.id, r.reason]))
    assert.deepEqual(counts, [
      ['mastra', 2, 3, 3, 3, 'search: { topK: 2 }'],
      ['fielded', 3, 3, 3, 3, "search: { ranking: 'fielded', topK: 2 }"],
      ['hybrid', 4, 4, 2, 2, "search: { ranking: 'hybrid', topK: 2 }"],
      ['embedder', 'give --embedder <module>, a module exporting your AI SDK embedding model'],
    ])
    assert.deepEqual(report.rankings[0].misses[1], { question: 'mail the recipient a note', want: ['sendEmail'], got: ['getWeather', 'searchOrders'] })
    for (const r of report.rankings.slice(0, 3)) assert.ok(r.msPerQuestion > 0 && r.setupMs > 0, r.id)
    assert.equal(report.reading.choice, 'hybrid')
    assert.equal(report.reading.option, "search: { ranking: 'hybrid', topK: 2 }")
  })

  test('--json through a pipe is whole, however long', { skip: process.platform === 'win32' && 'the late reader is a POSIX shell pipe' }, () => {
    writeFileSync(join(work, 'many.jsonl'), `\uFEFF${Array.from({ length: 100 }, () => questionsFile(QUESTIONS).slice(1)).join('')}`)
    // A reader that starts late: the pipe fills, and what is left waits in the process.
    const command = `"${process.execPath}" "${join(ROOT, 'cli', 'main.mjs')}" eval --tools tools.mjs --questions many.jsonl --misses 1000 --json | (sleep 1; cat)`
    const result = spawnSync('sh', ['-c', command], { cwd: work, encoding: 'utf8', maxBuffer: 64 << 20 })
    assert.equal(result.status, 0, result.stderr)
    assert.ok(result.stdout.length > 1 << 17, String(result.stdout.length))
    const report = JSON.parse(result.stdout)
    assert.equal(report.questions.list.length, 600)
    assert.deepEqual(
      report.rankings.map((r) => r.misses?.length),
      [300, 300, 200, undefined],
    )
  })

  test("where no ranking finds more than Mastra's, the reading says to keep the default", () => {
    writeFileSync(join(work, 'easy.jsonl'), `${JSON.stringify(QUESTIONS[0])}\n${JSON.stringify(QUESTIONS[2])}\n`)
    const report = json('--tools', 'tools.mjs', '--questions', 'easy.jsonl')
    assert.deepEqual(
      report.rankings.map((r) => r.hits5),
      [2, 2, 2, undefined],
    )
    assert.equal(report.reading.choice, 'mastra')
    assert.equal(report.reading.option, null)
    assert.match(
      report.reading.sentences[0],
      /^Keep Mastra's ranking, the default: .* Nothing to set: ToolSearchProcessor without search\.ranking ranks as Mastra's does\.$/,
    )
  })
})

// ─── Questions from the agent's memory ──────────────────────────────────────

/**
 * Five threads written by a real Agent with ToolSearchProcessor and a
 * LibSQL-backed Memory, each request's model calls scripted, oldest first.
 * `autoLoad` for the last: its search loads, and the model calls the tool.
 */
const THREADS = [
  {
    id: 'weather',
    input: 'What is the weather in Paris?',
    script: [
      [call('c1', 'search_tools', { query: 'weather city' })],
      [call('c2', 'load_tool', { toolName: 'getWeather' })],
      [call('c3', 'getWeather', { city: 'Paris' })],
      [text('18C.')],
    ],
  },
  {
    id: 'email',
    input: 'Tell the customer their order shipped.',
    script: [
      [call('c1', 'search_tools', { query: 'email' })],
      [call('c2', 'search_tools', { query: 'send a message to a customer' })],
      [call('c3', 'load_tool', { toolNames: ['sendEmail'] })],
      [call('c4', 'sendEmail', { to: 'a@b.c', body: 'shipped' })],
      [text('Sent.')],
    ],
  },
  { id: 'no-load', input: 'Can you translate?', script: [[call('c1', 'search_tools', { query: 'translate' })], [text('Yes, I can.')]] },
  {
    id: 'unknown',
    input: 'Refund order 7.',
    script: [[call('c1', 'search_tools', { query: 'refund an order' })], [call('c2', 'load_tool', { toolName: 'issueRefund' })], [text('I cannot refund.')]],
  },
  {
    id: 'auto',
    input: 'Find the orders of ACME.',
    autoLoad: true,
    script: [[call('c1', 'search_tools', { query: 'orders customer' })], [call('c2', 'searchOrders', { query: 'ACME' })], [text('None.')]],
  },
]

/** What the five threads hold, most recent first. */
const MINED = [
  { question: 'orders customer', tools: ['searchOrders'], thread: 'auto' },
  { question: 'email', tools: ['sendEmail'], thread: 'email' },
  { question: 'send a message to a customer', tools: ['sendEmail'], thread: 'email' },
  { question: 'weather city', tools: ['getWeather'], thread: 'weather' },
]
const SKIPPED = [
  { reason: 'followed only by load_tool of names your --tools record does not hold', count: 1, examples: ['"refund an order" then load_tool "issueRefund"'] },
  { reason: 'not followed in its thread by a load_tool or a call of one of your tools', count: 1, examples: ['"translate"'] },
]

describe('eval --from the memory a real Agent wrote', () => {
  const dbFile = join(work, 'memory.db')
  before(async () => {
    const { toolsThat } = await import(join(work, 'tools.mjs'))
    const executable = toolsThat(async () => ({ ok: true }))
    const memory = new Memory({ storage: new LibSQLStore({ id: 'eval-test', url: `file:${dbFile}` }) })
    for (const { id, input, script, autoLoad } of THREADS) {
      const { model } = scriptedModel(script)
      const processor = new ToolSearchProcessor({ tools: executable, search: { autoLoad } })
      const agent = new Agent({ id: 'agent', name: 'agent', instructions: 'Find tools, load them, use them.', model, memory, inputProcessors: [processor] })
      await agent.generate(input, { maxSteps: 8, memory: { thread: id, resource: 'user-1' } })
      // Threads are read most recently written first: a few milliseconds apart.
      await sleep(10)
    }
    writeFileSync(
      join(work, 'memory.mjs'),
      `import { LibSQLStore } from '@mastra/libsql'\nimport { Memory } from '@mastra/memory'\nexport const memory = new Memory({ storage: new LibSQLStore({ id: 'app', url: ${JSON.stringify(`file:${dbFile}`)} }) })\n`,
    )
    writeFileSync(
      join(work, 'storage.mjs'),
      `import { LibSQLStore } from '@mastra/libsql'\nexport default new LibSQLStore({ id: 'app', url: ${JSON.stringify(`file:${dbFile}`)} })\n`,
    )
    const store = await memory.storage.getStore('memory')
    const { messages } = await store.listMessages({ threadId: THREADS.map((t) => t.id), perPage: false })
    writeFileSync(join(work, 'messages.json'), JSON.stringify(messages))
  })

  test('a module exporting the Memory: every search_tools call that led to a tool is a question labelled with it', () => {
    const report = json('--tools', 'tools.mjs', '--from', 'memory.mjs')
    const { list, ...source } = report.questions
    assert.deepEqual(list, MINED)
    assert.deepEqual(source, { kind: 'memory', path: 'memory.mjs', limit: 100, threads: 5, searches: 6, found: 4, skipped: SKIPPED })
    assert.deepEqual(
      report.rankings.map((r) => r.questions),
      [4, 4, 4, undefined],
    )
  })

  test('the report says how many were found and skipped, and why', () => {
    const result = evalCli('--tools', 'tools.mjs', '--from', 'storage.mjs')
    assert.equal(result.status, 0, result.stderr)
    assert.equal(
      result.stdout.split('\n\n')[1],
      [
        '4 questions from 5 threads of the memory of storage.mjs (the threads there): 6 search_tools calls, 4 followed by a load_tool or a call of one of your tools, 2 skipped',
        '  skipped 1: followed only by load_tool of names your --tools record does not hold (e.g. "refund an order" then load_tool "issueRefund")',
        '  skipped 1: not followed in its thread by a load_tool or a call of one of your tools (e.g. "translate")',
      ].join('\n'),
    )
    assert.deepEqual(result.stderr.split('\n').slice(0, 2), ['eval: reading the 100 most recent threads of storage.mjs', 'eval: read 5/5 threads'])
  })

  test('--threads reads the most recent threads only', () => {
    const report = json('--tools', 'tools.mjs', '--from', 'storage.mjs', '--threads', '2')
    assert.deepEqual(report.questions.list, [MINED[0]])
    assert.equal(report.questions.threads, 2)
    assert.equal(report.questions.searches, 2)
    assert.deepEqual(report.questions.skipped, [SKIPPED[0]])
  })

  test('a JSON file of the stored messages gives the same questions', () => {
    const report = json('--tools', 'tools.mjs', '--from', 'messages.json')
    assert.deepEqual(report.questions.list, MINED)
    assert.equal(report.questions.kind, 'messages')
    assert.deepEqual(report.questions.skipped, SKIPPED)
  })

  test('reading is read only: no init (which creates or migrates tables), no write', () => {
    // The Memory's storage refuses to be initialised or written to.
    const guarded = [
      "import { LibSQLStore } from '@mastra/libsql'",
      "import { Memory } from '@mastra/memory'",
      "class Guarded extends LibSQLStore { async init() { throw new Error('eval initialised the storage') } }",
      `const storage = new Guarded({ id: 'app', url: ${JSON.stringify(`file:${dbFile}`)} })`,
      "const domain = await storage.getStore('memory')",
      "for (const write of ['saveThread', 'updateThread', 'deleteThread', 'saveMessages', 'updateMessages', 'deleteMessages'])",
      "  domain[write] = () => { throw new Error('eval called ' + write) }",
      'export const memory = new Memory({ storage })',
    ]
    writeFileSync(join(work, 'guarded.mjs'), `${guarded.join('\n')}\n`)
    assert.deepEqual(json('--tools', 'tools.mjs', '--from', 'guarded.mjs').questions.list, MINED)
  })
})

// ─── Bad input ──────────────────────────────────────────────────────────────

describe('eval: bad input is a clear error with no stack', () => {
  const fails = (file, content, args, status, message) => {
    if (file) writeFileSync(join(work, file), content)
    const result = evalCli(...args)
    assert.equal(result.status, status, result.stderr)
    assert.equal(result.stdout, '')
    assert.doesNotMatch(result.stderr, /\n\s+at /)
    if (typeof message === 'string') assert.ok(result.stderr.startsWith(`mastra-native-processors: ${message}\n`), result.stderr)
    else assert.match(result.stderr, message)
    return result
  }

  test('usage errors', () => {
    for (const [args, message] of [
      [[], '--tools <module> is required'],
      [['--tools', 'tools.mjs'], 'give your questions: --questions <file> or --from <module|file>'],
      [['--tools', 'tools.mjs', '--questions', 'q', '--from', 'f'], '--questions and --from are two sources of questions: give one'],
      [['--tools', 'tools.mjs', '--questions', 'q', '--threads', '3'], '--threads reads with --from'],
      [['--tools', 'tools.mjs', '--questions', 'q', '--top-k', '0'], '--top-k takes a whole number from 1 to 10000'],
      [['--tools', 'tools.mjs', '--questions', 'q', '--misses', 'all'], '--misses takes a whole number of questions up to 100000'],
      [['--tools', 'tools.mjs', '--questions'], '--questions needs a value'],
      [['--tools', 'tools.mjs', '--questions', 'q', '--fast'], 'unknown option "--fast"'],
    ]) {
      const result = fails(null, null, args, 2, /^mastra-native-processors: /)
      assert.ok(result.stderr.startsWith(`mastra-native-processors: ${message}\n\nUsage: npx mastra-native-processors eval `), args.join(' '))
    }
  })

  test('a malformed line 2 says "line 2"', () => {
    fails(
      'bad.jsonl',
      `${JSON.stringify(QUESTIONS[0])}\n{"question": "weather", tools: []}\n`,
      ['--tools', 'tools.mjs', '--questions', 'bad.jsonl'],
      1,
      /^mastra-native-processors: bad\.jsonl line 2 is not JSON \(.*\); each line is \{"question": "\.\.\.", "tools": \["name", \.\.\.\]\}\n$/,
    )
    fails(
      'bad.jsonl',
      `${JSON.stringify(QUESTIONS[0])}\n{"question": "weather", "tools": []}\n`,
      ['--tools', 'tools.mjs', '--questions', 'bad.jsonl'],
      1,
      'bad.jsonl line 2: "tools" must be a non-empty array of tool names (the tools any of which is a right answer)',
    )
    fails(
      'bad.jsonl',
      `${JSON.stringify(QUESTIONS[0])}\n["weather"]\n`,
      ['--tools', 'tools.mjs', '--questions', 'bad.jsonl'],
      1,
      'bad.jsonl line 2: expected {"question": "...", "tools": ["name", ...]} with a question that is a non-empty string',
    )
  })

  test('a question naming a tool the record does not hold is reported, with every such line', () => {
    const lines = [QUESTIONS[0], { question: 'weather', tools: ['getWether'] }, QUESTIONS[1], { question: 'mail', tools: ['sendEmail', 'sendSms', 'fax'] }]
    fails(
      'unknown.jsonl',
      lines.map((q) => JSON.stringify(q)).join('\n'),
      ['--tools', 'tools.mjs', '--questions', 'unknown.jsonl'],
      1,
      'unknown.jsonl: 2 questions name tools your --tools record does not hold (by key or id):\n  line 2: "getWether"\n  line 4: "sendSms", "fax"',
    )
  })

  test('an empty questions file, and a missing one', () => {
    fails(
      'empty.jsonl',
      '\n\n',
      ['--tools', 'tools.mjs', '--questions', 'empty.jsonl'],
      1,
      'empty.jsonl holds no questions: write one {"question": "...", "tools": ["name", ...]} a line',
    )
    fails(null, null, ['--tools', 'tools.mjs', '--questions', 'nowhere.jsonl'], 1, 'cannot read nowhere.jsonl: no such file')
  })

  test('a module that exports no tools, and one that cannot be imported', () => {
    fails(
      'not-tools.mjs',
      'export const answer = 42\n',
      ['--tools', 'not-tools.mjs', '--questions', 'questions.jsonl'],
      1,
      /^mastra-native-processors: not-tools\.mjs exports no tools record: expected .* \(it exports answer\)\n$/,
    )
    fails(
      'broken.mjs',
      'export const = 1\n',
      ['--tools', 'broken.mjs', '--questions', 'questions.jsonl'],
      1,
      /^mastra-native-processors: cannot import broken\.mjs: .*\n$/,
    )
  })

  test('an embedder that fails, and a module that exports none', () => {
    fails(
      'failing-embedder.mjs',
      "export default { async doEmbed() { throw new Error('401 Unauthorized: no API key') } }\n",
      ['--tools', 'tools.mjs', '--questions', 'questions.jsonl', '--embedder', 'failing-embedder.mjs'],
      1,
      'the --embedder model failed: 401 Unauthorized: no API key',
    )
    fails(
      'empty-embedder.mjs',
      'export default { async doEmbed({ values }) { return { embeddings: values.map(() => []) } } }\n',
      ['--tools', 'tools.mjs', '--questions', 'questions.jsonl', '--embedder', 'empty-embedder.mjs'],
      1,
      'the --embedder model failed: its doEmbed gave no vector of numbers for a text',
    )
    fails(
      'model-name.mjs',
      "export default 'openai/text-embedding-3-small'\n",
      ['--tools', 'tools.mjs', '--questions', 'questions.jsonl', '--embedder', 'model-name.mjs'],
      1,
      /^mastra-native-processors: model-name\.mjs exports no embedding model: expected an AI SDK embedding model \(with doEmbed\), .* \(it exports default\)\n$/,
    )
  })

  test('an embedder that fails once the tools are embedded', () => {
    const flaky =
      "let calls = 0\nexport default { async doEmbed({ values }) { if (++calls > 2) throw new Error('rate limited'); return { embeddings: values.map(() => [1, 0, 0]) } } }\n"
    fails(
      'flaky-embedder.mjs',
      flaky,
      ['--tools', 'tools.mjs', '--questions', 'questions.jsonl', '--embedder', 'flaky-embedder.mjs'],
      1,
      /\nmastra-native-processors: the --embedder model failed while 'hybrid', your embedder was measured: ToolSearchProcessor: search\.embedder failed \(rate limited\);.*\n$/,
    )
  })

  test('--from: a module with no storage, a JSON file that is not messages, and memory with no questions', () => {
    fails(
      null,
      null,
      ['--tools', 'tools.mjs', '--from', 'not-tools.mjs'],
      1,
      /^eval: reading .*\nmastra-native-processors: not-tools\.mjs exports no Mastra storage or Memory: expected .* \(it exports answer\)\n$/,
    )
    fails(
      'not-messages.json',
      '{"threads": []}',
      ['--tools', 'tools.mjs', '--from', 'not-messages.json'],
      1,
      /\nmastra-native-processors: not-messages\.json: expected a JSON array of stored messages \(objects with role and content\), or \{ "messages": \[\.\.\.\] \}\n$/,
    )
    fails(
      'empty.json',
      '',
      ['--tools', 'tools.mjs', '--from', 'empty.json'],
      1,
      /\nmastra-native-processors: empty\.json is empty: expected a JSON array of stored messages\n$/,
    )
    fails(
      'no-messages.json',
      '[]',
      ['--tools', 'tools.mjs', '--from', 'no-messages.json'],
      1,
      /\nmastra-native-processors: no-messages\.json holds no threads \(is it the storage your agent's memory writes to\?\)\n$/,
    )
    const chat = [{ id: 'm1', threadId: 't', role: 'user', createdAt: '2026-01-01T00:00:00Z', content: { format: 2, parts: [{ type: 'text', text: 'hi' }] } }]
    fails(
      'chat.json',
      JSON.stringify(chat),
      ['--tools', 'tools.mjs', '--from', 'chat.json'],
      1,
      /\nmastra-native-processors: no questions found: 0 questions from 1 thread of chat\.json \(the threads there\): 0 search_tools calls, 0 followed by a load_tool or a call of one of your tools, 0 skipped\n$/,
    )
  })
})
