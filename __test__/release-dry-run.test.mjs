// The release workflow's publish job, as far as this machine can run it, on a copy
// of what it publishes: the binary built here is laid out as the build job uploads
// it (artifacts/bindings-<target>/), `napi artifacts` puts it into its platform
// package, `napi pre-publish --dry-run` checks that package is complete, and
// `npm publish --dry-run` shows what each package would publish. Only this
// machine's target is built here, so with the full target list napi artifacts
// refuses, naming every binary it is missing: the release cannot go out short.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseTriple } from '@napi-rs/cli'

import { ROOT, binaryOf, packageForThisMachine, publishedOptionalDependencies, withoutNpmRunEnv } from '../scripts/platform-packages.mjs'

const require = createRequire(import.meta.url)
const manifest = require('../package.json')
const platform = packageForThisMachine()
const target = manifest.napi.targets.find((triple) => parseTriple(triple).platformArchABI === platform?.dir)

const work = mkdtempSync(join(tmpdir(), 'mnp-release-'))
const stage = join(work, 'stage')
const artifacts = join(work, 'artifacts')
after(() => rmSync(work, { recursive: true, force: true }))

const env = withoutNpmRunEnv(process.env)
const shell = process.platform === 'win32'
const NAPI = join(ROOT, 'node_modules', '@napi-rs', 'cli', require('@napi-rs/cli/package.json').bin.napi)
/** Runs the napi CLI in the stage; `output` is what it printed (it reports errors on stdout), without colours. */
const napi = (args) => {
  const result = spawnSync(process.execPath, [NAPI, ...args], { cwd: stage, env, encoding: 'utf8' })
  return { status: result.status, output: `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, '') }
}
const npm = (args, cwd) => spawnSync('npm', args, { cwd, env, encoding: 'utf8', shell })

before(() => {
  assert.ok(target, `napi.targets has a target for this machine (${platform?.dir})`)
  mkdirSync(stage)
  for (const entry of ['package.json', 'README.md', 'npm', ...manifest.files]) cpSync(join(ROOT, entry), join(stage, entry), { recursive: true })
  // As actions/download-artifact lays out the build job's bindings-<target> artifact.
  mkdirSync(join(artifacts, `bindings-${target}`), { recursive: true })
  cpSync(binaryOf(platform), join(artifacts, `bindings-${target}`, platform.manifest.main))
})

describe('the publish job, dry', () => {
  test('napi artifacts refuses while any target in napi.targets has no binary, naming each', () => {
    const result = napi(['artifacts', '--output-dir', artifacts])
    assert.notEqual(result.status, 0)
    const missing = manifest.napi.targets
      .filter((triple) => triple !== target)
      .map((triple) => `${triple} (mastra-native-processors.${parseTriple(triple).platformArchABI}.node)`)
    assert.ok(result.output.includes(`Internal Error: Missing artifacts for configured targets: ${missing.join(', ')}\n`), result.output)
  })

  test(`napi pre-publish refuses a platform package without its binary`, () => {
    const pkg = join(stage, 'package.json')
    assert.equal(npm(['pkg', 'set', '--json', `napi.targets=${JSON.stringify([target])}`], stage).status, 0)
    const result = napi(['pre-publish', '--dry-run', '--tagstyle', 'npm', '--no-gh-release'])
    assert.notEqual(result.status, 0)
    assert.ok(
      result.output.includes(`Internal Error: Release package ${platform.manifest.name} is incomplete: missing ${platform.manifest.main}\n`),
      result.output,
    )
    assert.deepEqual(JSON.parse(readFileSync(pkg, 'utf8')).napi.targets, [target])
  })

  test(`with napi.targets cut to ${target}: napi artifacts puts its binary into npm/${platform?.dir}/, and pre-publish passes`, () => {
    const copied = napi(['artifacts', '--output-dir', artifacts])
    assert.equal(copied.status, 0, copied.output)
    assert.ok(readFileSync(binaryOf(platform, join(stage, 'npm', platform.dir))).equals(readFileSync(binaryOf(platform))))
    const checked = napi(['pre-publish', '--dry-run', '--tagstyle', 'npm', '--no-gh-release'])
    assert.equal(checked.status, 0, checked.output)
  })

  test('pre-publish gives the main package the optionalDependencies the package tests publish it with', () => {
    // The workflow's step, without publishing: --skip-optional-publish only rewrites the manifest.
    const before = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8'))
    assert.equal(before.optionalDependencies, undefined)
    const rewritten = napi(['pre-publish', '--skip-optional-publish', '--tagstyle', 'npm', '--no-gh-release'])
    assert.equal(rewritten.status, 0, rewritten.output)
    const after = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8'))
    assert.deepEqual(after.optionalDependencies, { [platform.manifest.name]: manifest.version })
    assert.deepEqual(after.optionalDependencies, publishedOptionalDependencies(before))
    assert.deepEqual({ ...after, optionalDependencies: undefined }, { ...before, optionalDependencies: undefined })
  })

  test('npm publish --dry-run: the platform package, then the main package, each with exactly its files', () => {
    const publish = (dir, extra = []) => {
      const result = npm(['publish', '--dry-run', '--json', '--access', 'public', ...extra], dir)
      assert.equal(result.status, 0, result.stderr)
      const [report] = Object.values(JSON.parse(result.stdout))
      return { id: report.id, files: report.files.map((file) => file.path).sort() }
    }
    assert.deepEqual(publish(join(stage, 'npm', platform.dir)), {
      id: `${platform.manifest.name}@${manifest.version}`,
      files: ['README.md', platform.manifest.main, 'package.json'],
    })
    const main = publish(stage, ['--ignore-scripts'])
    assert.equal(main.id, `mastra-native-processors@${manifest.version}`)
    assert.deepEqual(JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8')).optionalDependencies, { [platform.manifest.name]: manifest.version })
    assert.ok(!main.files.some((file) => file.endsWith('.node')), 'the main package carries no binary')
    assert.deepEqual(
      main.files.filter((file) => !file.startsWith('lib/') && !file.startsWith('cli/')),
      ['README.md', 'binding.js', 'index.d.ts', 'index.js', 'index.mjs', 'package.json', 'worker.mjs'],
    )
    assert.ok(main.files.includes('cli/main.mjs'), 'the bench command is published')
  })
})
