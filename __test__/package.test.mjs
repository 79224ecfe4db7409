// The packages as npm publishes them: the main package (the JavaScript and the
// loader napi-rs generates, and the optionalDependencies the release gives it; no
// binary, no install script) and the platform package for this machine
// (npm/<platform>/ with the binary built here). Installed from
// their tarballs into a fresh Mastra project with `--ignore-scripts` and no Rust
// toolchain on PATH, an Agent runs through both processors natively; installed
// alone, the main package serves @mastra/core's own processors to the same Agent
// and says so in one line on stderr.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

import { EXPECTED_RUN, env, freshProject, runAgent } from './packaging/project.mjs'
import { ROOT, packForThisMachine, packageForThisMachine } from '../scripts/platform-packages.mjs'
import { filesUnder } from './packaging/files.mjs'

const platform = packageForThisMachine()
const work = mkdtempSync(join(tmpdir(), 'mnp-package-'))
let main
let platformPackage

before(() => {
  assert.ok(platform, `npm/ has a platform package for ${process.platform}-${process.arch}`)
  const packed = packForThisMachine(work)
  main = packed.main
  platformPackage = packed.platformPackage
})
after(() => rmSync(work, { recursive: true, force: true }))

describe('the tarballs', () => {
  test('the main package carries the JavaScript, the types, the generated loader and the bench command: no binary, no install script, no Rust', () => {
    const expected = [
      'README.md',
      'binding.js',
      'index.d.ts',
      'index.js',
      'index.mjs',
      'package.json',
      'worker.mjs',
      ...filesUnder('lib'),
      ...filesUnder('cli'),
    ].sort()
    assert.deepEqual(main.files, expected)
  })

  test(`the platform package carries its binary, ${platform?.manifest.main}, and its manifest`, () => {
    assert.deepEqual(platformPackage.files, ['README.md', platform.manifest.main, 'package.json'].sort())
  })

  test('npm run tarballs packs the same two for installing from a clone, and each model package, and says how to install them', () => {
    const dest = join(work, 'from-a-clone')
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'tarballs.mjs'), dest], { encoding: 'utf8' })
    assert.equal(result.status, 0, result.stderr)
    const models = readdirSync(join(ROOT, 'models')).map((dir) => {
      const { name, version } = JSON.parse(readFileSync(join(ROOT, 'models', dir, 'package.json'), 'utf8'))
      return `${name}-${version}.tgz`
    })
    assert.deepEqual(readdirSync(dest).sort(), [basename(main.tarball), basename(platformPackage.tarball), ...models].sort())
    const install = `npm install ${join(dest, basename(main.tarball))} ${join(dest, basename(platformPackage.tarball))}`
    assert.ok(result.stdout.split('\n').includes(`  ${install}`), result.stdout)
  })
})

// ─── A fresh Mastra project ────────────────────────────────────────────────

describe('installed into a fresh Mastra project, with --ignore-scripts and no Rust toolchain on PATH', () => {
  test('there is no cargo to build with', () => {
    const cargo = spawnSync('cargo', ['--version'], { env, encoding: 'utf8' })
    assert.equal(cargo.error?.code, 'ENOENT')
  })

  test('the main and the platform package: an Agent runs through both processors, native', () => {
    const dir = freshProject(join(work, 'both'), [main.tarball, platformPackage.tarball])
    assert.deepEqual(
      readdirSync(join(dir, 'node_modules')).filter((name) => name.startsWith('mastra-native-processors')),
      ['mastra-native-processors', platform.manifest.name],
    )
    const result = runAgent(dir)
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stderr, '')
    assert.deepEqual(JSON.parse(result.stdout), {
      implementation: 'native',
      ours: join('node_modules', 'mastra-native-processors', 'index.js'),
      binaries: [join('node_modules', platform.manifest.name, platform.manifest.main)],
      ...EXPECTED_RUN,
    })
  })

  test("the main package alone: the same Agent runs through @mastra/core's own processors, after one line on stderr", () => {
    const dir = freshProject(join(work, 'alone'), [main.tarball])
    assert.deepEqual(
      readdirSync(join(dir, 'node_modules')).filter((name) => name.startsWith('mastra-native-processors')),
      ['mastra-native-processors'],
    )
    const result = runAgent(dir)
    assert.equal(result.status, 0, result.stderr)
    assert.equal(
      result.stderr,
      `mastra-native-processors: ${platform.manifest.name} is not installed; using @mastra/core's own ToolSearchProcessor and ToolCallFilter instead.\n`,
    )
    assert.deepEqual(JSON.parse(result.stdout), {
      implementation: 'fallback',
      ours: join('node_modules', 'mastra-native-processors', 'index.js'),
      binaries: [],
      ...EXPECTED_RUN,
    })
  })
})
