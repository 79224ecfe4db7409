// Which @mastra/core releases the package stands in for: the range is stated once
// (src/releases.rs) and package.json's peer range says the same; every tested
// release is inside it; a host outside it gets one clear error at import.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { TESTED_RELEASES } from './helpers/releases.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { releaseBehaviours, supportedMastraRange } = require('../lib/native.js')

describe('the supported range', () => {
  test("package.json's peer range is the one the package enforces", () => {
    const { peerDependencies } = require('../package.json')
    assert.equal(supportedMastraRange(), '>=1.59.0 <1.72.0')
    assert.equal(peerDependencies['@mastra/core'], supportedMastraRange())
  })

  test('every tested release is supported, the oldest is the bottom of the range, the newest is 1.71.0', () => {
    for (const version of TESTED_RELEASES) releaseBehaviours(version)
    assert.equal(TESTED_RELEASES[0], '1.59.0')
    assert.equal(TESTED_RELEASES.at(-1), '1.71.0')
  })

  test('each behaviour change has a tested release on both sides', () => {
    const rules = Object.fromEntries(TESTED_RELEASES.map((version) => [version, releaseBehaviours(version)]))
    assert.deepEqual(rules, {
      '1.59.0': { toolCallFilterStage: 'messageList', preservedResults: 'every', injectCatalog: false },
      '1.60.0': { toolCallFilterStage: 'prompt', preservedResults: 'every', injectCatalog: false },
      '1.67.0': { toolCallFilterStage: 'prompt', preservedResults: 'every', injectCatalog: true },
      '1.71.0': { toolCallFilterStage: 'prompt', preservedResults: 'withOwnModelOutput', injectCatalog: true },
    })
  })

  test('an unsupported or malformed version is refused, naming the range and the version', () => {
    for (const version of ['1.58.0', '1.72.0', '2.0.0', '1.67.0-alpha.4', 'latest', '']) {
      assert.throws(
        () => releaseBehaviours(version),
        (error) => error.message.includes('>=1.59.0 <1.72.0') && error.message.includes(JSON.stringify(version)),
        version,
      )
    }
  })
})

describe('importing the package next to an unsupported @mastra/core', () => {
  /** A project with our package (copied as npm would install it) and a fake @mastra/core. */
  function project(coreVersion) {
    const dir = mkdtempSync(join(tmpdir(), 'mnp-host-'))
    const ours = join(dir, 'node_modules', 'mastra-native-processors')
    mkdirSync(ours, { recursive: true })
    for (const entry of ['package.json', 'index.js', 'index.mjs', 'binding.js', 'lib']) {
      cpSync(join(root, entry), join(ours, entry), { recursive: true })
    }
    for (const binary of readdirSync(root).filter((name) => name.endsWith('.node'))) cpSync(join(root, binary), join(ours, binary))
    if (coreVersion !== undefined) {
      const core = join(dir, 'node_modules', '@mastra', 'core')
      mkdirSync(core, { recursive: true })
      writeFileSync(join(core, 'package.json'), JSON.stringify({ name: '@mastra/core', version: coreVersion }))
    }
    return dir
  }

  const load = (dir, how) =>
    spawnSync(
      process.execPath,
      how === 'esm'
        ? ['--input-type=module', '-e', "await import('mastra-native-processors')"]
        : ['-e', "require('mastra-native-processors')"],
      { cwd: dir, encoding: 'utf8' },
    )

  for (const how of ['cjs', 'esm']) {
    test(`@mastra/core 1.58.0 and 1.72.0 get one clear error (${how})`, () => {
      for (const version of ['1.58.0', '1.72.0']) {
        const dir = project(version)
        try {
          const result = load(dir, how)
          assert.notEqual(result.status, 0)
          assert.match(result.stderr, /mastra-native-processors supports @mastra\/core >=1\.59\.0 <1\.72\.0/)
          assert.ok(result.stderr.includes(`"${version}"`), result.stderr)
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }
    })
  }

  test('no @mastra/core at all: the error says it is needed', () => {
    const dir = project(undefined)
    try {
      const result = load(dir, 'cjs')
      assert.notEqual(result.status, 0)
      assert.match(result.stderr, /mastra-native-processors needs @mastra\/core >=1\.59\.0 <1\.72\.0 installed beside it/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a supported fake host loads (the check is not simply failing)', () => {
    const dir = project('1.65.0')
    try {
      const result = spawnSync(
        process.execPath,
        ['-e', "const { ToolCallFilter } = require('mastra-native-processors'); console.log(typeof new ToolCallFilter().processLLMRequest)"],
        { cwd: dir, encoding: 'utf8' },
      )
      assert.equal(result.stderr, '')
      assert.equal(result.stdout.trim(), 'function')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
