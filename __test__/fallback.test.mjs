// Where no build of the addon loads, importing the package still works: it
// serves @mastra/core's own processors, says so once on stderr with the reason,
// and exports implementation: 'fallback'. The reasons: a platform we publish no
// build for, a platform package npm left out (package.test.mjs installs the main
// package alone), a build that is there but does not load. A
// @mastra/core older than 1.59.0 is still an error at import; a later release
// than this package knows is releases.test.mjs's matter.

import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import { ROOT, binaryOf, packageForThisMachine, platformPackages } from '../scripts/platform-packages.mjs'

const require = createRequire(import.meta.url)
const { checkVersionWithoutAddon } = require('../lib/host.js')
const { serveHost } = require('../lib/native.js')

const USING = "; using @mastra/core's own ToolSearchProcessor and ToolCallFilter instead.\n"
const work = mkdtempSync(join(tmpdir(), 'mnp-fallback-'))
after(() => rmSync(work, { recursive: true, force: true }))

/**
 * Runs a CommonJS snippet in a child Node, optionally made to look like another
 * platform first: process.platform, process.arch, and the libc the process report
 * tells (glibc reports its version there, musl none).
 */
function node(code, { cwd = ROOT, platform, arch, libc } = {}) {
  const preload = []
  if (platform || arch || libc) {
    const file = join(work, `as-${platform ?? process.platform}-${arch ?? process.arch}-${libc ?? 'same'}.cjs`)
    const lines = []
    if (platform) lines.push(`Object.defineProperty(process, 'platform', { value: ${JSON.stringify(platform)} })`)
    if (arch) lines.push(`Object.defineProperty(process, 'arch', { value: ${JSON.stringify(arch)} })`)
    if (libc) {
      // Both places a libc is read from: the process report, and /usr/bin/ldd (which the loader reads first).
      lines.push(
        'const getReport = process.report.getReport.bind(process.report)',
        `process.report.getReport = () => { const report = getReport(); report.header.glibcVersionRuntime = ${libc === 'glibc' ? "'2.36'" : 'undefined'}; return report }`,
        "const fs = require('fs'); const readFileSync = fs.readFileSync",
        `fs.readFileSync = (path, ...rest) => path === '/usr/bin/ldd' ? ${JSON.stringify(libc === 'musl' ? '#!/bin/sh\n# musl libc\n' : '#!/bin/bash\n# GNU C Library\n')} : readFileSync(path, ...rest)`,
      )
    }
    writeFileSync(file, lines.join('\n'))
    preload.push('--require', file)
  }
  return spawnSync(process.execPath, [...preload, '-e', code], { cwd, encoding: 'utf8' })
}

const SERVED = `
  const ours = require(${JSON.stringify(ROOT)})
  const core = require('@mastra/core/processors')
  console.log(JSON.stringify({
    implementation: ours.implementation,
    ownToolSearch: ours.ToolSearchProcessor === core.ToolSearchProcessor,
    ownToolCallFilter: ours.ToolCallFilter === core.ToolCallFilter,
    id: new ours.ToolSearchProcessor({ tools: {} }).id,
  }))
`
const FALLBACK = { implementation: 'fallback', ownToolSearch: true, ownToolCallFilter: true, id: 'tool-search' }

describe('a platform with no build', () => {
  for (const [platform, arch, name] of [
    ['linux', 'riscv64', process.platform === 'linux' ? `linux-riscv64-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}` : null],
    ['freebsd', 'x64', 'freebsd-x64'],
    ['aix', 'ppc64', 'aix-ppc64'],
  ]) {
    test(`${name ?? `${platform}-${arch}`}: @mastra/core's own processors, and one line saying there is no build`, {
      skip: name === null && 'the libc part of the name needs Linux',
    }, () => {
      const result = node(SERVED, { platform, arch })
      assert.equal(result.status, 0, result.stderr)
      assert.equal(result.stderr, `mastra-native-processors: there is no build for ${name}${USING}`)
      assert.deepEqual(JSON.parse(result.stdout), FALLBACK)
    })
  }

  test('this platform, for comparison: the native processors and nothing on stderr', () => {
    const result = node(SERVED)
    assert.equal(result.stderr, '')
    assert.deepEqual(JSON.parse(result.stdout), { implementation: 'native', ownToolSearch: false, ownToolCallFilter: false, id: 'tool-search' })
  })

  test('the notice comes once, for CommonJS and ESM imports in one process', () => {
    const code = `
      require(${JSON.stringify(ROOT)})
      import(${JSON.stringify(join(ROOT, 'index.mjs'))}).then((esm) => {
        require(${JSON.stringify(ROOT)})
        console.log(esm.implementation, esm.ToolCallFilter === require('@mastra/core/processors').ToolCallFilter)
      })
    `
    const result = node(code, { arch: 'riscv64', platform: 'freebsd' })
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stderr, `mastra-native-processors: there is no build for freebsd-riscv64${USING}`)
    assert.equal(result.stdout, 'fallback true\n')
  })

  test("the addon's members are not handed out as undefined: reading one says why it is missing", () => {
    const result = node(`const native = require('./lib/native.js'); console.log(JSON.stringify(native.outcome)); native.NativeToolSearch`, {
      arch: 'riscv64',
      platform: 'freebsd',
    })
    assert.equal(result.stdout, `${JSON.stringify({ implementation: 'fallback', reason: 'there is no build for freebsd-riscv64' })}\n`)
    assert.match(
      result.stderr,
      /Error: mastra-native-processors: the native addon is not loaded \(there is no build for freebsd-riscv64\), so it has no NativeToolSearch\n/,
    )
  })
})

// ─── A project with the package installed ──────────────────────────────────

/**
 * A project with this package (its published files) and, as given, a platform
 * package and a @mastra/core: 'real' links this checkout's, a version string
 * writes a fake one of that version, null leaves it out.
 */
function project(name, { platformPackage, core = 'real' } = {}) {
  const dir = join(work, name)
  const ours = join(dir, 'node_modules', 'mastra-native-processors')
  mkdirSync(ours, { recursive: true })
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  for (const entry of ['package.json', ...manifest.files]) cpSync(join(ROOT, entry), join(ours, entry), { recursive: true })
  if (platformPackage) {
    const target = join(dir, 'node_modules', platformPackage.manifest.name)
    mkdirSync(target, { recursive: true })
    if (existsSync(platformPackage.path)) cpSync(platformPackage.path, target, { recursive: true })
    platformPackage.write(target)
  }
  if (core === 'real') {
    symlinkSync(join(ROOT, 'node_modules', '@mastra'), join(dir, 'node_modules', '@mastra'), 'junction')
  } else if (core !== null) {
    mkdirSync(join(dir, 'node_modules', '@mastra', 'core'), { recursive: true })
    writeFileSync(join(dir, 'node_modules', '@mastra', 'core', 'package.json'), JSON.stringify({ name: '@mastra/core', version: core }))
  }
  return dir
}

const INSTALLED = `
  const ours = require('mastra-native-processors')
  const core = require('@mastra/core/processors')
  console.log(JSON.stringify({
    implementation: ours.implementation,
    ownToolSearch: ours.ToolSearchProcessor === core.ToolSearchProcessor,
    ownToolCallFilter: ours.ToolCallFilter === core.ToolCallFilter,
    id: new ours.ToolSearchProcessor({ tools: {} }).id,
  }))
`

describe('a platform we publish a build for, without its package', () => {
  // What npm does with --omit=optional, or with a lockfile made on another platform.
  for (const { dir, manifest } of platformPackages()) {
    const machine = { platform: manifest.os[0], arch: manifest.cpu[0], libc: manifest.libc?.[0] }
    test(`${dir}: the reason names ${manifest.name}`, () => {
      const result = node(INSTALLED, { cwd: project(`without-${dir}`), ...machine })
      assert.equal(result.status, 0, result.stderr)
      assert.equal(result.stderr, `mastra-native-processors: ${manifest.name} is not installed${USING}`)
      assert.deepEqual(JSON.parse(result.stdout), FALLBACK)
    })
  }
})

describe('a platform package whose build does not load', () => {
  const platform = packageForThisMachine()

  // (A file cut short inside the ELF image can crash dlopen itself; no JavaScript can catch that.)
  test('a download that is not a binary at all: the reason is the loader error, on one line', {
    skip: !platform && 'npm/ has no package for this machine',
  }, () => {
    const page = '<html><body>502 Bad Gateway</body></html>\n'.repeat(50)
    const dir = project('not-a-binary', { platformPackage: { ...platform, write: (target) => writeFileSync(binaryOf(platform, target), page) } })
    const result = node(INSTALLED, { cwd: dir })
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(JSON.parse(result.stdout), FALLBACK)
    const prefix = `mastra-native-processors: the ${platform.dir} build did not load: `
    assert.ok(result.stderr.startsWith(prefix), result.stderr)
    assert.ok(result.stderr.endsWith(USING), result.stderr)
    assert.equal(result.stderr.split('\n').length, 2, 'one line')
    // The operating system's own words about the file npm installed.
    assert.ok(result.stderr.includes(binaryOf(platform, join(dir, 'node_modules', platform.manifest.name))), result.stderr)
  })
})

describe('a WebAssembly build', () => {
  // The generated loader tries mastra-native-processors-wasm32-wasi where no native
  // build loads. We publish none, and refuse one: under emnapi, what Rust writes
  // into a JavaScript Int32Array never reaches JavaScript.
  test("is refused: @mastra/core's own processors, and one line saying why", () => {
    const dir = project('wasm', {
      platformPackage: {
        manifest: { name: 'mastra-native-processors-wasm32-wasi' },
        path: join(work, 'wasm-package-template'),
        write: (target) => {
          writeFileSync(join(target, 'package.json'), JSON.stringify({ name: 'mastra-native-processors-wasm32-wasi', version: '0.1.0', main: 'binding.cjs' }))
          writeFileSync(join(target, 'binding.cjs'), "module.exports = { mastraPeerRange: () => '^1.59.0' }\n")
        },
      },
    })
    const result = node(INSTALLED, { cwd: dir, arch: 'riscv64' })
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(JSON.parse(result.stdout), FALLBACK)
    assert.equal(
      result.stderr,
      `mastra-native-processors: the wasm32-wasi (WebAssembly) build is not supported: its ToolCallFilter answers would be lost${USING}`,
    )
  })
})

describe('without the addon, a @mastra/core older than 1.59.0 is still an error at import', () => {
  test('1.58.0 is refused with the message the addon gives; 1.72.0 is served its own processors', () => {
    const dir = project('host-1.58.0', { core: '1.58.0' })
    const result = node("require('mastra-native-processors')", { cwd: dir })
    assert.notEqual(result.status, 0)
    assert.ok(result.stderr.includes(`Error: ${addonsVerdict('1.58.0')}\n`), result.stderr)
    assert.ok(!result.stderr.includes('using @mastra/core'), 'no fallback notice for a host it cannot serve')

    assert.equal(addonsVerdict('1.72.0'), 'accepted')
    const newer = node("require('mastra-native-processors')", { cwd: project('host-1.72.0', { core: '1.72.0' }), arch: 'riscv64', platform: 'freebsd' })
    assert.equal(newer.status, 1, 'a fake @mastra/core has no processors to serve')
    assert.match(newer.stderr, /Cannot find module '@mastra\/core\/processors'/, 'the version passed the check')
  })

  test('no @mastra/core at all: the error says it is needed', () => {
    const dir = project('no-host', { core: null })
    const result = node("require('mastra-native-processors')", { cwd: dir })
    assert.notEqual(result.status, 0)
    assert.match(
      result.stderr,
      /Error: mastra-native-processors needs @mastra\/core \^1\.59\.0 installed beside it: Cannot find module '@mastra\/core\/package\.json'/,
    )
  })

  test('the check without the addon accepts and refuses exactly the versions the addon does, with its message', () => {
    const versions = [
      '1.59.0',
      '1.60.0',
      '1.63.2',
      '1.71.0',
      '1.71.9',
      '1.63.2+build.7',
      '1.58.0',
      '1.58.99',
      '1.72.0',
      '2.0.0',
      '0.24.9',
      '1.67.0-alpha.4',
      '1.71.0-rc.1',
      '1.58.9-rc.1',
      '1.59.0-rc.1',
      'latest',
      '',
      '1',
      '1.2',
      '1.2.3.4',
      'v1.60.0',
      '1.060.0',
      '1.60.x',
      '1.60.0-',
      ' 1.60.0',
      '1..3',
      '1.60.0+',
      '1.60.0+a..b',
      '1.60.0+a+b',
      '1.60.0+build.7',
      '1.60.0-rc.1+b.2',
      '1.60.0-alpha..1',
      '1.60.0-ä',
      '1.60.0+ä',
    ]
    for (const version of versions) {
      let ours
      try {
        checkVersionWithoutAddon(version)
        ours = 'accepted'
      } catch (error) {
        ours = error.message
      }
      assert.equal(ours, addonsVerdict(version), JSON.stringify(version))
    }
  })
})

/** 'accepted', or the error the addon gives, for a @mastra/core of this version. */
function addonsVerdict(version) {
  const manifest = join(work, 'verdict', 'package.json')
  mkdirSync(dirname(manifest), { recursive: true })
  writeFileSync(manifest, JSON.stringify({ name: '@mastra/core', version }))
  try {
    serveHost(manifest)
    return 'accepted'
  } catch (error) {
    return error.message
  }
}
