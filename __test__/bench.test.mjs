// `npm run bench` (benches/bench.mjs): --help answers without starting a run,
// and a bad option is a usage error that names it.

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
      [['--quick', 'filter'], 'unknown option "filter"'],
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
    const result = bench('--only', 'filter', '--filter', 'no such row')
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^bench: no row is chosen by --only filter --filter no such row\n$/)
  })
})
