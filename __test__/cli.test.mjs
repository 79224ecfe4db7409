// The command the published package installs: `npx mastra-native-processors
// bench --tools <module>`, run in a fresh Mastra project (our tarballs
// installed with --ignore-scripts, as package.test.mjs installs them) on a small
// catalog of the user's own tools. Its table and its --json give every row with
// both sides timed; --help answers at once; bad arguments are usage errors.
// Times are printed, never asserted.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { freshProject, run } from './packaging/project.mjs'
import { packForThisMachine } from '../scripts/platform-packages.mjs'

const work = mkdtempSync(join(tmpdir(), 'mnp-cli-'))
after(() => rmSync(work, { recursive: true, force: true }))
let project

// The user's tools: a module exporting a record, as `tools`. Executing one fails the run.
const TOOLS = `
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
const never = async () => { throw new Error('bench executed a tool') }
export const tools = {
  getWeather: createTool({ id: 'getWeather', description: 'Get the current weather for a city', inputSchema: z.object({ city: z.string() }), execute: never }),
  searchOrders: createTool({ id: 'searchOrders', description: 'Search the order database by customer or date', inputSchema: z.object({ query: z.string() }), execute: never }),
  sendEmail: createTool({ id: 'sendEmail', description: 'Send an email to a customer', inputSchema: z.object({ to: z.string(), body: z.string() }), execute: never }),
  translateText: createTool({ id: 'translateText', description: 'Translate text between languages', inputSchema: z.object({ text: z.string() }), execute: never }),
}
`

// Questions about them, for eval: one a line, the tools any of which is right.
const QUESTIONS = [
  { question: 'what is the weather in Paris', tools: ['getWeather'] },
  { question: 'find the orders of customer 42', tools: ['searchOrders'] },
  { question: 'say this in French', tools: ['translateText'] },
]

before(() => {
  const { main, platformPackage } = packForThisMachine(work)
  project = freshProject(join(work, 'project'), [main.tarball, platformPackage.tarball])
  writeFileSync(join(project, 'tools.mjs'), TOOLS)
  writeFileSync(join(project, 'questions.jsonl'), QUESTIONS.map((q) => JSON.stringify(q)).join('\n'))
})

const bench = (...args) => run('npx', ['--no-install', 'mastra-native-processors', ...args], project)

const WORKLOADS = [
  'construct',
  'construct + first search',
  'search_tools',
  'a step with your tools resolved per request (includeResolvedTools)',
  'a step with the catalog in the system prompt (injectCatalog)',
  'ToolCallFilter over 20 messages of history',
  'agent.generate: search, load, answer',
  'agent.generate: search, load, answer, after 20 messages',
]

describe('npx mastra-native-processors bench', () => {
  test('--help prints the usage at once', () => {
    const result = bench('--help')
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /^Usage: npx mastra-native-processors bench --tools <module> \[options\]/)
    assert.equal(result.stderr, '')
  })

  test('bad arguments are usage errors', () => {
    for (const [args, message] of [
      [['bench'], '--tools <module> is required'],
      [['bench', '--tools', 'tools.mjs', '--history', 'lots'], '--history takes a whole number of messages up to 100000'],
      [['bench', '--tools', 'tools.mjs', '--fast'], 'unknown option "--fast"'],
      [['benchmark'], 'unknown command "benchmark"'],
    ]) {
      const result = bench(...args)
      assert.equal(result.status, 2, args.join(' '))
      assert.ok(result.stderr.startsWith(`mastra-native-processors: ${message}\n\nUsage:`), result.stderr)
    }
  })

  test('a module that exports no tools record says what it exports', () => {
    writeFileSync(join(project, 'not-tools.mjs'), 'export const answer = 42\n')
    const result = bench('bench', '--tools', 'not-tools.mjs')
    assert.equal(result.status, 1)
    assert.match(result.stderr, /not-tools\.mjs exports no tools record: expected .* \(it exports answer\)\n$/)
  })

  test("times every workload on the user's tools, with progress on stderr and a reading of the figures", () => {
    const result = bench('bench', '--tools', 'tools.mjs', '--quick', '--history', '20')
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(
      result.stderr.trim().split('\n'),
      WORKLOADS.map((workload, i) => `bench: ${workload} (${i + 1}/${WORKLOADS.length})`),
    )
    const lines = result.stdout.split('\n')
    assert.match(lines[0], /^mastra-native-processors bench: 4 tools, @mastra\/core 1\.71\.0, Node v\d+\.\d+\.\d+, ours native; medians/)
    assert.match(lines[2], /^workload +Mastra's +ours +speedup +samples$/)
    const rows = lines.slice(4, 4 + WORKLOADS.length)
    rows.forEach((line, i) =>
      assert.match(line, new RegExp(`^${WORKLOADS[i].replace(/[.()+]/g, '\\$&')} +[\\d.]+ (µs|ms|s) +[\\d.]+ (µs|ms|s) +[\\d.]+x +\\d+$`), line),
    )
    assert.equal(lines[5 + WORKLOADS.length], 'What it means for this catalog:')
    assert.match(result.stdout, /- Startup: building the processor for your 4 tools blocks for /)
    assert.match(
      result.stdout,
      /- agent\.generate: search, load, answer: .* Their hooks and meta-tools \(search_tools, load_tool\) take .* is Mastra's own agent loop, the same for both\./,
    )
  })

  test('--json gives the same rows for machines', () => {
    const result = bench('bench', '--tools', 'tools.mjs', '--quick', '--history', '20', '--json')
    assert.equal(result.status, 0, result.stderr)
    const report = JSON.parse(result.stdout)
    assert.equal(report.mastra, '1.71.0')
    assert.equal(report.implementation, 'native')
    assert.equal(report.fallbackReason, null)
    assert.equal(report.tools, 4)
    assert.equal(report.history, 20)
    assert.deepEqual(report.queries, ['current weather city', 'search order database', 'send email customer', 'translate text between'])
    assert.deepEqual(
      report.rows.map((row) => row.workload),
      WORKLOADS,
    )
    for (const row of report.rows) {
      for (const key of ['mastraMs', 'oursMs', 'speedup']) assert.ok(Number.isFinite(row[key]) && row[key] > 0, `${row.workload} ${key}`)
      assert.ok(row.samples >= 5, row.workload)
    }
    for (const row of report.rows.slice(-2)) assert.ok(row.mastraHooksMs > 0 && row.oursHooksMs > 0, row.workload)
  })
})

// eval in the user's project, where the built-in model's optional package is
// not installed: its row says how to install it. cli.eval.test.mjs covers the
// command's figures, its questions from memory and its bad input.
describe('npx mastra-native-processors eval', () => {
  test('--help prints the usage at once', () => {
    const result = bench('eval', '--help')
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /^Usage: npx mastra-native-processors eval --tools <module> \(--questions <file> \| --from <module\|file>\) \[options\]\n/)
    assert.equal(result.stderr, '')
  })

  test("ranks the user's questions; without the built-in model its row says how to install it", () => {
    const result = bench('eval', '--tools', 'tools.mjs', '--questions', 'questions.jsonl', '--misses', '0')
    assert.equal(result.status, 0, result.stderr)
    const [, source, table, reading] = result.stdout.trimEnd().split('\n\n')
    assert.equal(source, '3 questions from questions.jsonl')
    const rows = table.split('\n').slice(2)
    assert.match(rows[0], /^Mastra's ranking +[\d.]+% +[\d.]+% +[\d.]+ +[\d.]+ (µs|ms|s)$/)
    assert.match(rows[1], /^'fielded' +[\d.]+% +[\d.]+% +[\d.]+ +[\d.]+ (µs|ms|s)$/)
    assert.equal(rows[2], "'hybrid', built-in model  not measured: needs the built-in model: npm install mastra-native-processors-potion-base-8m")
    assert.equal(rows[3], "'hybrid', your embedder   not measured: give --embedder <module>, a module exporting your AI SDK embedding model")
    assert.match(reading, /\n- 'hybrid' with the built-in model was not measured: npm install mastra-native-processors-potion-base-8m, then run eval again\.\n/)
  })
})
