// The install script of an installed tarball accepts only a binary built for
// the platform it runs on.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** An installed package (no Cargo.toml) carrying binaries with these names. */
function installedWith(binaries) {
  const dir = mkdtempSync(join(tmpdir(), 'mnp-install-'))
  mkdirSync(join(dir, 'scripts'))
  cpSync(join(root, 'scripts', 'install.mjs'), join(dir, 'scripts', 'install.mjs'))
  for (const name of binaries) writeFileSync(join(dir, name), '')
  return dir
}

const run = (dir) => spawnSync(process.execPath, ['scripts/install.mjs'], { cwd: dir, encoding: 'utf8' })

test("a binary for another platform is refused, naming this platform's", { skip: process.platform !== 'linux' }, () => {
  const dir = installedWith(['mastra-native-processors.darwin-arm64.node', 'mastra-native-processors.linux-x64-musl.node'])
  try {
    const result = run(dir)
    assert.equal(result.status, 1)
    assert.match(result.stderr, /no prebuilt binary for linux-/)
    assert.match(result.stderr, /it carries mastra-native-processors\.darwin-arm64\.node, mastra-native-processors\.linux-x64-musl\.node/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("this platform's binary passes", () => {
  const glibc = process.report.getReport().header.glibcVersionRuntime
  const abi = process.platform === 'linux' ? (glibc ? '-gnu' : '-musl') : process.platform === 'win32' ? '-msvc' : ''
  const dir = installedWith([`mastra-native-processors.${process.platform}-${process.arch}${abi}.node`])
  try {
    const result = run(dir)
    assert.equal(result.stderr, '')
    assert.equal(result.status, 0)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
