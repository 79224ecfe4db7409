// What `npm pack` makes of this checkout, as the release's `npm publish` makes
// it: the files (`npm pack --dry-run --json`, scripts allowed, so a script
// that would run when packing shows), and the manifest: no install or prepare
// script, the entry for runtimes without Node-API (worker.mjs), and the
// repository the release names, against which npm resolves the README's
// relative links on the registry.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { parse } from 'yaml'

import { ROOT, withoutNpmRunEnv } from '../scripts/platform-packages.mjs'
import { filesUnder } from './packaging/files.mjs'

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

describe('npm pack --dry-run --json', () => {
  const packed = spawnSync('npm', ['pack', '--dry-run', '--json'], {
    cwd: ROOT,
    env: withoutNpmRunEnv(process.env),
    encoding: 'utf8',
    shell: process.platform === 'win32',
  })

  test('runs no script of the package (npm would print its output before the JSON)', () => {
    assert.equal(packed.status, 0, packed.stderr)
    assert.doesNotMatch(packed.stderr, /> mastra-native-processors@/)
    assert.ok(packed.stdout.trimStart().startsWith('['), packed.stdout.slice(0, 200))
  })

  test('lists the entry points, the loader, lib/ and cli/, the README and the manifest: no binary, no Rust, no tests', () => {
    const [{ files }] = JSON.parse(packed.stdout)
    const expected = [
      'README.md',
      'package.json',
      'index.js',
      'index.mjs',
      'index.d.ts',
      'binding.js',
      'worker.mjs',
      ...filesUnder('lib'),
      ...filesUnder('cli'),
    ]
    assert.deepEqual(files.map((file) => file.path).sort(), expected.sort())
  })
})

describe('the manifest', () => {
  test('has no install script and no prepare (which npm runs when packing, and npm 11 warns of in a tarball)', () => {
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare', 'prepack', 'postpack']) {
      assert.equal(manifest.scripts[hook], undefined, hook)
    }
  })

  test('runtimes without Node-API (workerd, worker, edge-light) get worker.mjs; Node gets index.mjs or index.js', () => {
    assert.deepEqual(manifest.exports['.'], {
      types: './index.d.ts',
      workerd: './worker.mjs',
      worker: './worker.mjs',
      'edge-light': './worker.mjs',
      import: './index.mjs',
      require: './index.js',
    })
  })

  test("the release names this repository in every package it publishes, before publishing (npm resolves the README's relative links against it)", () => {
    const { steps } = parse(readFileSync(join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8')).jobs.publish
    const names = steps.findIndex((step) =>
      /npm pkg set repository\.type=git "repository\.url=git\+\$GITHUB_SERVER_URL\/\$GITHUB_REPOSITORY\.git"/.test(step.run ?? ''),
    )
    assert.ok(names >= 0, 'a step sets repository')
    assert.match(steps[names].run, /for dir in \. npm\/\* models\/\*/)
    const publishes = steps.findIndex((step) => /npm publish|napi pre-publish/.test(step.run ?? ''))
    assert.ok(publishes > names, 'repository is set before the first publish')
  })
})

describe('worker.mjs, as a runtime without Node-API resolves the package', () => {
  test("serves @mastra/core's own processors, says so once, and loads no addon", () => {
    const script = `
      import * as ours from 'mastra-native-processors'
      import * as core from '@mastra/core/processors'
      import { createRequire } from 'node:module'
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.endsWith('.node'))
      console.log(JSON.stringify({
        implementation: ours.implementation,
        fallbackReason: ours.fallbackReason,
        same: ours.ToolSearchProcessor === core.ToolSearchProcessor && ours.ToolCallFilter === core.ToolCallFilter,
        loaded,
      }))`
    const result = spawnSync(process.execPath, ['--conditions=worker', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })
    assert.equal(result.status, 0, result.stderr)
    const reason = 'this runtime loads no native addon (a Cloudflare Worker or an edge runtime)'
    assert.deepEqual(JSON.parse(result.stdout), { implementation: 'fallback', fallbackReason: reason, same: true, loaded: [] })
    assert.equal(result.stderr, `mastra-native-processors: ${reason}; using @mastra/core's own ToolSearchProcessor and ToolCallFilter instead.\n`)
  })
})
