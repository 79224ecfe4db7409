// Which @mastra/core releases the package stands in for. Every 1.x from 1.59.0
// is accepted (the peer range is stated once, in src/releases/, and package.json
// says the same); the release table knows the tested releases and those that
// carry their processors, by the digests of the processors' sources. At import:
// a known release runs natively without reading anything; another release runs
// natively when its sources are a tested release's, and is otherwise served its
// own processors with one notice; only a release older than 1.59.0 is an error.

import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

import { PACKAGES_OF, TESTED_RELEASES } from './helpers/releases.mjs'
import { AGENT_RELEASES } from './fixtures/releases.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { knownMastraReleases, mastraPeerRange, processorsFingerprint, releaseBehaviours } = require('../lib/native.js')

describe('the accepted releases', () => {
  test("package.json's peer range is the one the package states: every 1.x from 1.59.0", () => {
    const { peerDependencies } = require('../package.json')
    assert.equal(mastraPeerRange(), '^1.59.0')
    assert.equal(peerDependencies['@mastra/core'], mastraPeerRange())
  })

  test("the release table's tested releases are the ones the tests install, oldest 1.59.0, newest 1.71.0", () => {
    const tested = knownMastraReleases()
      .filter((release) => release.tested)
      .map((release) => release.version)
    assert.deepEqual(tested, TESTED_RELEASES)
    assert.deepEqual(tested, AGENT_RELEASES)
    assert.equal(tested[0], '1.59.0')
    assert.equal(tested.at(-1), '1.71.0')
  })

  test('each release in between carries a tested release, as its source maps show', () => {
    const carried = Object.fromEntries(
      knownMastraReleases()
        .filter((release) => !release.tested)
        .map((release) => [release.version, release.rulesOf]),
    )
    assert.deepEqual(carried, {
      '1.61.0': '1.60.0',
      '1.63.1': '1.60.0',
      '1.63.2': '1.60.0',
      '1.64.0': '1.60.0',
      '1.65.0': '1.60.0',
      '1.66.0': '1.60.0',
      '1.68.0': '1.71.0',
      '1.69.0': '1.71.0',
      '1.70.0': '1.71.0',
    })
  })

  test("each tested release's digests are those of its installed sources", () => {
    const known = new Map(knownMastraReleases().map((release) => [release.version, release.digests]))
    for (const version of TESTED_RELEASES) {
      const fingerprint = processorsFingerprint(require.resolve(`${PACKAGES_OF[version]}/package.json`))
      assert.equal(fingerprint.version, version)
      assert.equal(fingerprint.unreadable, undefined)
      assert.deepEqual(fingerprint.digests, known.get(version), version)
    }
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

  test("a release whose processors are not known has no rules of its own (it is served by its sources' match)", () => {
    for (const version of ['1.58.0', '1.62.0', '1.72.0', '2.0.0', '1.67.0-alpha.4', 'latest', '']) {
      assert.throws(
        () => releaseBehaviours(version),
        { message: `mastra-native-processors does not know the processors of @mastra/core ${JSON.stringify(version)}` },
        version,
      )
    }
  })
})

// ─── Importing the package next to a host ───────────────────────────────────

const REAL_HOST = dirname(require.resolve('@mastra/core/package.json'))
const USING = "; using @mastra/core's own ToolSearchProcessor and ToolCallFilter instead."
const REMEDY = ' A newer mastra-native-processors may run them natively: npm install mastra-native-processors@latest'
const work = mkdtempSync(join(tmpdir(), 'mnp-host-'))
after(() => rmSync(work, { recursive: true, force: true }))

/**
 * A project with our package (copied as npm would install it) and a host
 * @mastra/core: `{ version }` alone writes a package.json and nothing else;
 * `{ version, dist: true }` is 1.71.0's package under another version, its
 * files linked one by one, except the source maps `maps` rewrites (a function
 * of a map's path and text, returning the new text or null to leave it out).
 */
function project(name, host) {
  const dir = join(work, name)
  const ours = join(dir, 'node_modules', 'mastra-native-processors')
  mkdirSync(ours, { recursive: true })
  for (const entry of ['package.json', 'index.js', 'index.mjs', 'binding.js', 'lib']) {
    cpSync(join(root, entry), join(ours, entry), { recursive: true })
  }
  for (const binary of readdirSync(root).filter((name) => name.endsWith('.node'))) cpSync(join(root, binary), join(ours, binary))
  if (host === undefined) return dir
  const core = join(dir, 'node_modules', '@mastra', 'core')
  mkdirSync(core, { recursive: true })
  if (!host.dist) {
    writeFileSync(join(core, 'package.json'), JSON.stringify({ name: '@mastra/core', version: host.version }))
    return dir
  }
  const manifest = JSON.parse(readFileSync(join(REAL_HOST, 'package.json'), 'utf8'))
  writeFileSync(join(core, 'package.json'), JSON.stringify({ ...manifest, version: host.version }))
  for (const entry of readdirSync(REAL_HOST, { recursive: true, withFileTypes: true })) {
    const from = join(entry.parentPath ?? entry.path, entry.name)
    const to = join(core, relative(REAL_HOST, from))
    if (entry.isDirectory()) {
      mkdirSync(to, { recursive: true })
    } else if (entry.name !== 'package.json') {
      const text = host.maps && entry.name.endsWith('.map') ? host.maps(relative(REAL_HOST, from), readFileSync(from, 'utf8')) : undefined
      if (text === undefined) symlinkSync(from, to)
      else if (text !== null) writeFileSync(to, text)
    }
  }
  return dir
}

/** What importing the package in `dir` serves, and what it writes on stderr. */
function served(dir, { how = 'cjs', env = {} } = {}) {
  const report =
    'console.log(JSON.stringify({ implementation: ours.implementation, fallbackReason: ours.fallbackReason, ' +
    "own: ours.implementation === 'fallback' && ours.ToolCallFilter === require('@mastra/core/processors').ToolCallFilter && ours.ToolSearchProcessor === require('@mastra/core/processors').ToolSearchProcessor, " +
    // The hooks an instance answers to, its class's and those it inherits (a
    // release's class extends the one class of its stage).
    'hooks: ["processAPIError", "processInput", "processInputStep", "processLLMRequest", "processLLMResponse", "processOutputResult", "processOutputStep", "processOutputStream", "processToolResult"].filter((name) => typeof ours.ToolCallFilter.prototype[name] === "function") }))'
  const code =
    how === 'esm'
      ? `import { createRequire } from 'node:module'; const require = createRequire(process.cwd() + '/'); const ours = await import('mastra-native-processors'); ${report}`
      : `const ours = require('mastra-native-processors'); ${report}`
  const result = spawnSync(process.execPath, how === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, MASTRA_NATIVE_PROCESSORS: '', ...env },
  })
  assert.equal(result.status, 0, result.stderr)
  return { ...JSON.parse(result.stdout), stderr: result.stderr }
}

const NATIVE_PROMPT_STAGE = { implementation: 'native', fallbackReason: null, own: false, hooks: ['processLLMRequest'], stderr: '' }

describe('importing the package next to a host that is too old, or none', () => {
  const load = (dir, how) =>
    spawnSync(
      process.execPath,
      how === 'esm' ? ['--input-type=module', '-e', "await import('mastra-native-processors')"] : ['-e', "require('mastra-native-processors')"],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    )

  for (const how of ['cjs', 'esm']) {
    test(`@mastra/core 1.58.0, 0.24.9 and a version that is none get one clear error (${how})`, () => {
      for (const version of ['1.58.0', '0.24.9', 'latest']) {
        const result = load(project(`old-${version}-${how}`, { version }), how)
        assert.notEqual(result.status, 0)
        assert.ok(
          result.stderr.includes(`mastra-native-processors supports @mastra/core ^1.59.0, but this project has @mastra/core "${version}".`),
          result.stderr,
        )
      }
    })
  }

  test('no @mastra/core at all: the error says it is needed', () => {
    const result = load(project('no-host'), 'cjs')
    assert.notEqual(result.status, 0)
    assert.match(result.stderr, /mastra-native-processors needs @mastra\/core \^1\.59\.0 installed beside it/)
  })
})

describe('importing the package next to a release it knows', () => {
  test('a release the table lists runs natively without reading its sources (1.65.0: a package.json alone)', () => {
    assert.deepEqual(served(project('known-1.65.0', { version: '1.65.0' })), NATIVE_PROMPT_STAGE)
  })

  test('MASTRA_NATIVE_PROCESSORS=fallback serves the host its own processors, and says so once', () => {
    const dir = project('forced', { version: '1.71.0', dist: true })
    for (const how of ['cjs', 'esm']) {
      assert.deepEqual(served(dir, { how, env: { MASTRA_NATIVE_PROCESSORS: 'fallback' } }), {
        implementation: 'fallback',
        fallbackReason: 'MASTRA_NATIVE_PROCESSORS=fallback is set',
        own: true,
        hooks: ['processLLMRequest'],
        stderr: `mastra-native-processors: MASTRA_NATIVE_PROCESSORS=fallback is set${USING}\n`,
      })
    }
    assert.deepEqual(served(dir, { env: { MASTRA_NATIVE_PROCESSORS: 'native' } }), NATIVE_PROMPT_STAGE, 'another value changes nothing')
  })
})

describe('importing the package next to a release it does not know', () => {
  const changedFilter = (path, text) => {
    const map = JSON.parse(text)
    const at = (map.sources ?? []).findIndex((source) => source.endsWith('src/processors/processors/tool-call-filter.ts'))
    if (typeof map.sourcesContent?.[at] !== 'string') return undefined
    map.sourcesContent[at] = map.sourcesContent[at].replace('result:', 'output:')
    return JSON.stringify(map)
  }

  for (const how of ['cjs', 'esm']) {
    test(`1.72.0 with 1.71.0's processors runs natively with 1.71.0's rules, and says nothing (${how})`, () => {
      assert.deepEqual(served(project(`same-${how}`, { version: '1.72.0', dist: true }), { how }), NATIVE_PROMPT_STAGE)
    })
  }

  test('1.72.0 whose ToolCallFilter changed is served its own processors, with a notice naming the release and what changed', () => {
    const reason =
      '@mastra/core 1.72.0 was not tested with this version of mastra-native-processors, and its processors differ from ' +
      "every tested release's (src/processors/processors/tool-call-filter.ts changed since 1.71.0)"
    assert.deepEqual(served(project('changed', { version: '1.72.0', dist: true, maps: changedFilter })), {
      implementation: 'fallback',
      fallbackReason: reason,
      own: true,
      hooks: ['processLLMRequest'],
      stderr: `mastra-native-processors: ${reason}${USING}${REMEDY}\n`,
    })
  })

  test("a pre-release is served its own processors, even with a tested release's sources", () => {
    const reason = '@mastra/core 1.72.0-alpha.1 is a pre-release, which was not tested with this version of mastra-native-processors'
    assert.deepEqual(served(project('pre-release', { version: '1.72.0-alpha.1', dist: true })), {
      implementation: 'fallback',
      fallbackReason: reason,
      own: true,
      hooks: ['processLLMRequest'],
      stderr: `mastra-native-processors: ${reason}${USING}${REMEDY}\n`,
    })
  })

  test('a release without source maps is served its own processors, saying which map is missing', () => {
    const result = served(project('no-maps', { version: '1.72.0', dist: true, maps: () => null }))
    const chunk = readFileSync(join(REAL_HOST, 'dist', 'processors', 'index.js'), 'utf8').match(/as ToolCallFilter[^;]*from "\.\.\/([^"]+)"/)[1]
    const reason = `@mastra/core 1.72.0 was not tested with this version of mastra-native-processors, and its processors could not be compared: it has no source map dist/${chunk}.map`
    assert.deepEqual(result, {
      implementation: 'fallback',
      fallbackReason: reason,
      own: true,
      hooks: ['processLLMRequest'],
      stderr: `mastra-native-processors: ${reason}${USING}${REMEDY}\n`,
    })
  })
})
