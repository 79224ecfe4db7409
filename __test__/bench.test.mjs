// `npm run bench` (benches/bench.mjs): --help answers without starting a run,
// a bad option is a usage error that names it, and the end-to-end group, run
// quick on a tiny catalog and history, prints one row per workload with both
// sides timed and its progress on stderr. Times are printed, never asserted.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const BENCH = fileURLToPath(new URL('../benches/bench.mjs', import.meta.url))

// The timeout only keeps a run started by mistake (minutes) from hanging the
// suite; how long the bench takes is not what these tests check.
const bench = (...args) => spawnSync(process.execPath, ['--expose-gc', BENCH, ...args], { encoding: 'utf8', timeout: 300_000 })

describe('npm run bench', () => {
  test('--help prints the usage, with every option, and runs nothing', () => {
    for (const flag of ['--help', '-h']) {
      const result = bench('--quick', flag)
      assert.equal(result.signal, null, 'it did not exit by itself')
      assert.equal(result.status, 0, result.stderr)
      assert.match(result.stdout, /^Usage: npm run bench -- \[options\]\n/)
      for (const option of ['--only <group>', '--filter <text>', '--sizes <n,...>', '--history <n>', '--quick', '--json', '--chart', '-h, --help']) {
        assert.ok(result.stdout.includes(`\n  ${option} `), option)
      }
      for (const group of ['filter', 'search', 'step', 'large', 'end-to-end']) assert.match(result.stdout, new RegExp(`\\n {23}${group} +\\S`), group)
      assert.equal(result.stderr, '')
    }
  })

  test('a bad option is a usage error that names it', () => {
    for (const [args, message] of [
      [['--fast'], 'unknown option "--fast"'],
      [['--quick', 'end-to-end'], 'unknown option "end-to-end"'],
      [['--only', 'agents'], 'unknown group "agents" (the groups: filter, search, step, large, end-to-end, other)'],
      [['--only'], '--only needs a value'],
      [['--sizes', '10,lots'], '--sizes takes whole numbers from 1 to 1000000, separated by commas'],
      [['--history', '0'], '--history takes a whole number of messages from 1 to 100000'],
    ]) {
      const result = bench(...args)
      assert.equal(result.signal, null, args.join(' '))
      assert.equal(result.status, 2, args.join(' '))
      assert.equal(result.stdout, '')
      assert.ok(result.stderr.startsWith(`bench: ${message}\n\nUsage: npm run bench`), result.stderr)
    }
  })

  test('a filter that keeps no row says so', () => {
    const result = bench('--only', 'end-to-end', '--filter', 'no such row')
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^bench: no row is chosen by --only end-to-end --filter no such row\n$/)
  })

  test('the end-to-end group, quick, on 20 tools and 20 messages of history', () => {
    const result = bench('--only', 'end-to-end', '--quick', '--sizes', '20', '--history', '20')
    assert.equal(result.status, 0, result.stderr)
    const workloads = [
      'agent.generate (search, load, use, answer)',
      'agent.generate after 20 messages of history',
      'agent.generate, tools resolved per request (includeResolvedTools)',
      'agent.generate, catalog in the system prompt (injectCatalog)',
    ]
    const time = String.raw`\d[\d.]* (?:ns|µs|ms|s)`
    const rows = result.stdout.split('\n').filter((line) => line.startsWith('agent.generate'))
    assert.deepEqual(
      rows.map((line) => line.split(/ {2,}/)[0]),
      workloads,
    )
    for (const line of rows) {
      const [, size, reference, native, speedup, samples] = line.split(/ {2,}/)
      assert.equal(size, '20', line)
      assert.match(reference, new RegExp(`^${time}$`), line)
      assert.match(native, new RegExp(`^${time}$`), line)
      assert.match(speedup, /^\d+\.\d\dx$/, line)
      assert.ok(Number(samples) >= 5, line)
    }
    // Each row's note: the share of a request the processors' own work took.
    for (const workload of workloads) {
      assert.ok(result.stdout.includes(`note: ${workload}, 20 tools: the processors' hooks and meta-tools take `), workload)
    }
    assert.match(result.stdout, /\n4 rows in [\d.]+ s\n/)
    const progress = result.stderr.split('\n').filter((line) => line.startsWith('bench: '))
    assert.deepEqual(progress, [
      'bench: 4 rows of 4 workloads, each workload in a process of its own',
      ...workloads.map((workload, i) => `bench: row ${i + 1} of 4: ${workload}, 20 (end-to-end)`),
    ])
  })
})
