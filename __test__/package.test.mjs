// The published tarball: it carries the built addon, installs without a Rust
// toolchain (its install script only checks the binary is there), and loads
// from both CommonJS and ESM.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, symlinkSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

test('npm pack gives a package that installs and loads without building', () => {
  const work = mkdtempSync(join(tmpdir(), 'mnp-pack-'))
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }),
    )
    const files = packed[0].files.map((file) => file.path).sort()
    for (const wanted of ['binding.js', 'index.d.ts', 'index.js', 'index.mjs', 'lib/host.js', 'lib/native.js', 'lib/processors.js', 'lib/tool-call-filter/common.js', 'lib/tool-call-filter/message-list.js', 'lib/tool-call-filter/prompt.js', 'lib/tool-search.js', 'scripts/install.mjs']) {
      assert.ok(files.includes(wanted), `${wanted} is in the tarball`)
    }
    assert.ok(files.some((file) => /^mastra-native-processors\..+\.node$/.test(file)), 'the addon is in the tarball')
    assert.ok(!files.some((file) => file.startsWith('src/') || file === 'Cargo.toml'), 'no Rust sources are shipped')

    execFileSync('tar', ['-xzf', join(work, packed[0].filename), '-C', work])
    const installed = join(work, 'package')
    // The peer dependencies (@mastra/core, zod) come from this checkout.
    symlinkSync(join(root, 'node_modules'), join(installed, 'node_modules'))
    assert.equal(existsSync(join(installed, 'Cargo.toml')), false)

    // What `npm install <tarball>` runs: with the binary present it builds nothing.
    const env = { ...process.env, PATH: process.env.PATH.split(':').filter((dir) => !dir.includes('cargo')).join(':') }
    execFileSync(process.execPath, ['scripts/install.mjs'], { cwd: installed, env, stdio: 'pipe' })
    assert.deepEqual(readdirSync(installed).filter((name) => name === 'target'), [])

    const check = `
      const { ToolCallFilter, ToolSearchProcessor } = MODULE
      const filter = new ToolCallFilter()
      const search = new ToolSearchProcessor({ tools: {} })
      console.log(JSON.stringify([filter.id, search.id, search.getStateStats()]))
    `
    const cjs = execFileSync(process.execPath, ['-e', check.replace('MODULE', `require(${JSON.stringify(installed)})`)], {
      encoding: 'utf8',
    })
    const esm = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', check.replace('MODULE', `await import(${JSON.stringify(join(installed, 'index.mjs'))})`)],
      { encoding: 'utf8' },
    )
    const expected = JSON.stringify(['tool-call-filter', 'tool-search', { threadCount: 0, oldestAccessTime: null }])
    assert.equal(cjs.trim(), expected)
    assert.equal(esm.trim(), expected)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
})
