// The platform packages and the loader that picks one. Every target in
// package.json's napi.targets has a package in npm/ whose os/cpu/libc npm uses
// to install it only where it runs, the main package as published depends on
// each (optional, the same version), and the loader napi-rs generated (binding.js) asks for
// exactly that package on each of those platforms, even with every one of them
// installed at once.
//
// The template's wasm32-wasip1-threads target is left out on purpose: the
// WebAssembly build compiles and loads, but under emnapi what Rust writes into
// a JavaScript Int32Array never reaches JavaScript, so its ToolCallFilter would
// filter nothing (lib/native.js refuses such a build; fallback.test.mjs).

import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'

import { ROOT, platformPackages, stageMainPackage } from '../scripts/platform-packages.mjs'

const require = createRequire(import.meta.url)
const root = require('../package.json')
const PACKAGE = 'mastra-native-processors'
const work = mkdtempSync(join(tmpdir(), 'mnp-platforms-'))
after(() => rmSync(work, { recursive: true, force: true }))

/** The targets the napi-rs package template ships, and what npm must see for each. */
const TARGETS = {
  'x86_64-apple-darwin': { dir: 'darwin-x64', os: ['darwin'], cpu: ['x64'] },
  'aarch64-apple-darwin': { dir: 'darwin-arm64', os: ['darwin'], cpu: ['arm64'] },
  'x86_64-pc-windows-msvc': { dir: 'win32-x64-msvc', os: ['win32'], cpu: ['x64'] },
  'aarch64-pc-windows-msvc': { dir: 'win32-arm64-msvc', os: ['win32'], cpu: ['arm64'] },
  'x86_64-unknown-linux-gnu': { dir: 'linux-x64-gnu', os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'aarch64-unknown-linux-gnu': { dir: 'linux-arm64-gnu', os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
  'x86_64-unknown-linux-musl': { dir: 'linux-x64-musl', os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'aarch64-unknown-linux-musl': { dir: 'linux-arm64-musl', os: ['linux'], cpu: ['arm64'], libc: ['musl'] },
}
const NATIVE = Object.entries(TARGETS)

describe('the platform packages', () => {
  const packages = Object.fromEntries(platformPackages().map((entry) => [entry.dir, entry.manifest]))

  test("napi.targets is the template's list, and npm/ holds one package for each target and no other", () => {
    assert.deepEqual(root.napi.targets, Object.keys(TARGETS))
    assert.deepEqual(
      Object.keys(packages).sort(),
      Object.values(TARGETS)
        .map(({ dir }) => dir)
        .sort(),
    )
  })

  for (const [target, { dir, os, cpu, libc }] of NATIVE) {
    test(`${target}: ${PACKAGE}-${dir} installs only on ${[os, cpu, libc].filter(Boolean).join('/')} and holds its .node`, () => {
      const binary = `${PACKAGE}.${dir}.node`
      assert.deepEqual(packages[dir], {
        name: `${PACKAGE}-${dir}`,
        version: root.version,
        cpu,
        main: binary,
        files: [binary],
        description: root.description,
        license: root.license,
        engines: root.engines,
        os,
        ...(libc ? { libc } : {}),
      })
    })
  }

  test('no platform package has a script', () => {
    assert.deepEqual(
      Object.values(packages).filter((manifest) => manifest.scripts),
      [],
    )
  })
})

describe('the main package', () => {
  test('as published, depends on every platform package, optionally, at its own version', () => {
    const published = JSON.parse(readFileSync(join(stageMainPackage(join(work, 'main')), 'package.json'), 'utf8'))
    assert.deepEqual(published.optionalDependencies, Object.fromEntries(Object.values(TARGETS).map(({ dir }) => [`${PACKAGE}-${dir}`, root.version])))
  })

  test('in the repository, lists none, so npm ci works while this version is unpublished (the release adds them)', () => {
    assert.equal(root.optionalDependencies, undefined)
  })

  test('has no install script nor prepare and ships no binary; a source checkout builds with npm run build, which npm test runs first', () => {
    // prepare would run when npm packs the package, and npm 11 warns of it in a tarball installed.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack']) assert.equal(root.scripts[hook], undefined, hook)
    assert.equal(root.engines.node, '^20.19.0 || >=22.13.0', 'open upward: Node-API is stable across majors')
    assert.equal(root.scripts.pretest, 'npm run build')
    assert.deepEqual(root.files, ['index.js', 'index.mjs', 'index.d.ts', 'binding.js', 'worker.mjs', 'lib/', 'cli/'])
    assert.deepEqual(root.bin, { 'mastra-native-processors': 'cli/main.mjs' })
  })
})

// ─── The generated loader ──────────────────────────────────────────────────

const LOADER = readFileSync(join(ROOT, 'binding.js'), 'utf8')

/**
 * Runs binding.js as if on this platform, with these packages installed
 * (name -> exports), and returns what it exported and every module it asked for.
 */
function load({ platform, arch, libc }, installed) {
  const asked = []
  const notFound = (id) => Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' })
  const fakeRequire = (id) => {
    // The loader's own libc probes: /usr/bin/ldd, then the process report, then `ldd --version`.
    if (id === 'fs') {
      return {
        readFileSync: (path) => {
          if (platform === 'linux' && path === '/usr/bin/ldd') return libc === 'musl' ? '#!/bin/sh\n# musl libc' : '#!/bin/bash\n# GNU C Library'
          throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' })
        },
      }
    }
    if (id === 'child_process') return { execSync: () => (libc === 'musl' ? 'musl libc' : 'ldd (GNU libc)') }
    asked.push(id)
    if (id in installed) return installed[id]
    throw notFound(id)
  }
  fakeRequire.resolve = (id) => {
    if (id in installed) return id
    throw notFound(id)
  }
  const report = { header: libc === 'glibc' ? { glibcVersionRuntime: '2.36' } : {}, sharedObjects: [] }
  const fakeProcess = { platform, arch, env: {}, config: { variables: {} }, report: { getReport: () => report } }
  const module = { exports: {} }
  runInNewContext(LOADER, { require: fakeRequire, module, exports: module.exports, process: fakeProcess, __dirname: '/pkg', __filename: '/pkg/binding.js' })
  return { exports: module.exports, asked }
}

/** Every platform package, as npm would lay them out if it installed them all. */
function everyPackage() {
  const installed = {}
  for (const { dir } of Object.values(TARGETS)) {
    installed[`${PACKAGE}-${dir}`] = { build: dir }
    installed[`${PACKAGE}-${dir}/package.json`] = { version: root.version }
  }
  return installed
}

describe('the loader napi-rs generated (binding.js)', () => {
  for (const [target, { dir, os, cpu, libc }] of NATIVE) {
    const machine = { platform: os[0], arch: cpu[0], libc: libc?.[0] ?? null }
    test(`${target}: on ${machine.platform}/${machine.arch}${machine.libc ? `/${machine.libc}` : ''} it loads ${PACKAGE}-${dir}, after the file a build leaves beside it`, () => {
      const { exports, asked } = load(machine, everyPackage())
      assert.equal(exports.build, dir)
      assert.equal(exports.__napiBindingTarget, 'native')
      // On macOS a universal binary would come first; we ship none.
      const universal = machine.platform === 'darwin' ? [`./${PACKAGE}.darwin-universal.node`, `${PACKAGE}-darwin-universal`] : []
      assert.deepEqual(asked, [...universal, `./${PACKAGE}.${dir}.node`, `${PACKAGE}-${dir}`, `${PACKAGE}-${dir}/package.json`])
    })
  }

  test('with nothing installed it throws, and every attempt is in the cause chain', () => {
    assert.throws(
      () => load({ platform: 'darwin', arch: 'arm64', libc: null }, {}),
      (error) => {
        const causes = []
        for (let cause = error.cause; cause; cause = cause.cause) causes.unshift(cause.message)
        assert.deepEqual(causes, [
          `Cannot find module './${PACKAGE}.darwin-universal.node'`,
          `Cannot find module '${PACKAGE}-darwin-universal'`,
          `Cannot find module './${PACKAGE}.darwin-arm64.node'`,
          `Cannot find module '${PACKAGE}-darwin-arm64'`,
          `Cannot find module './${PACKAGE}.wasi.cjs'`,
          `Cannot find module '${PACKAGE}-wasm32-wasi'`,
        ])
        return error.message.startsWith('Cannot find native binding.')
      },
    )
  })
})
