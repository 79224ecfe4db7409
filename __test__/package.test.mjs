// The packages as npm publishes them: the main package (the JavaScript and the
// loader napi-rs generates; no binary, no install script) and the platform package
// for this machine (npm/<platform>/ with the binary built here). Installed from
// their tarballs into a fresh Mastra project with `--ignore-scripts` and no Rust
// toolchain on PATH, an Agent runs through both processors natively; installed
// alone, the main package serves @mastra/core's own processors to the same Agent
// and says so in one line on stderr.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, relative } from 'node:path'

import { templateDir } from './fixtures/releases.mjs'
import { ROOT, pack, packageForThisMachine, stagePlatformPackage, withoutNpmRunEnv } from '../scripts/platform-packages.mjs'

const platform = packageForThisMachine()
const work = mkdtempSync(join(tmpdir(), 'mnp-package-'))
let main
let platformPackage

before(() => {
  assert.ok(platform, `npm/ has a platform package for ${process.platform}-${process.arch}`)
  main = pack(ROOT, work)
  platformPackage = pack(stagePlatformPackage(platform, join(work, 'staged')), work)
})
after(() => rmSync(work, { recursive: true, force: true }))

const filesUnder = (dir) =>
  readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath ?? entry.path, entry.name)).split('\\').join('/'))

describe('the tarballs', () => {
  test('the main package carries the JavaScript, the types and the generated loader: no binary, no install script, no Rust', () => {
    const expected = ['README.md', 'binding.js', 'index.d.ts', 'index.js', 'index.mjs', 'package.json', ...filesUnder('lib')].sort()
    assert.deepEqual(main.files, expected)
  })

  test(`the platform package carries its binary, ${platform?.manifest.main}, and its manifest`, () => {
    assert.deepEqual(platformPackage.files, ['README.md', platform.manifest.main, 'package.json'].sort())
  })
})

// ─── A fresh Mastra project ────────────────────────────────────────────────

/** PATH without any directory that holds cargo or rustc. */
function pathWithoutRust() {
  const names = process.platform === 'win32' ? ['cargo.exe', 'rustc.exe'] : ['cargo', 'rustc']
  return process.env.PATH.split(delimiter)
    .filter((dir) => !names.some((name) => existsSync(join(dir, name))))
    .join(delimiter)
}
const env = { ...withoutNpmRunEnv(process.env), PATH: pathWithoutRust() }

const run = (command, args, cwd) =>
  spawnSync(command, args, { cwd, env, encoding: 'utf8', shell: process.platform === 'win32' && command === 'npm' })

/**
 * A project as a user has it on @mastra/core 1.71.0 (the agent fixture's
 * package.json and lockfile), into which npm installs these tarballs with
 * `--ignore-scripts`.
 */
function freshProject(name, tarballs) {
  const dir = join(work, name)
  mkdirSync(dir)
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(templateDir('1.71.0'), file), join(dir, file))
  copyFileSync(join(ROOT, '__test__', 'packaging', 'agent-run.mjs'), join(dir, 'agent-run.mjs'))
  const installed = run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], dir)
  assert.equal(installed.status, 0, `npm install failed:\n${installed.stdout}${installed.stderr}`)
  return dir
}

/** What the model is sent on each call: the meta-tools, then the loaded getWeather; the earlier searchDatabase call is filtered out. */
const INSTRUCTIONS = [
  'Search for tools, load them, then use them.',
  'To discover available tools, call search_tools with a keyword query. To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. Tools must be loaded before they can be used.',
  'Find order 42.',
  'There is no order 42.',
  'What is the weather in Paris?',
]
const EXPECTED_RUN = {
  calls: [
    { tools: ['search_tools', 'load_tool'], toolCallIds: [], texts: INSTRUCTIONS },
    { tools: ['search_tools', 'load_tool'], toolCallIds: ['c1'], texts: INSTRUCTIONS },
    { tools: ['search_tools', 'load_tool', 'getWeather'], toolCallIds: ['c1', 'c2'], texts: INSTRUCTIONS },
    { tools: ['search_tools', 'load_tool', 'getWeather'], toolCallIds: ['c1', 'c2', 'c3'], texts: INSTRUCTIONS },
  ],
  text: 'It is 18C in Paris.',
  toolResults: [
    [
      'search_tools',
      {
        results: [{ name: 'getWeather', description: 'Get the current weather for a city', score: 3.82 }],
        message: 'Found 1 tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.',
      },
    ],
    ['load_tool', { success: true, message: 'Tool "getWeather" loaded successfully. It will be available on your next turn.', toolName: 'getWeather' }],
    ['getWeather', { city: 'Paris', tempC: 18 }],
  ],
}

describe('installed into a fresh Mastra project, with --ignore-scripts and no Rust toolchain on PATH', () => {
  test('there is no cargo to build with', () => {
    const cargo = spawnSync('cargo', ['--version'], { env, encoding: 'utf8' })
    assert.equal(cargo.error?.code, 'ENOENT')
  })

  test('the main and the platform package: an Agent runs through both processors, native', () => {
    const dir = freshProject('both', [main.tarball, platformPackage.tarball])
    assert.deepEqual(readdirSync(join(dir, 'node_modules')).filter((name) => name.startsWith('mastra-native-processors')), [
      'mastra-native-processors',
      platform.manifest.name,
    ])
    const result = run(process.execPath, ['agent-run.mjs'], dir)
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
    const dir = freshProject('alone', [main.tarball])
    assert.deepEqual(readdirSync(join(dir, 'node_modules')).filter((name) => name.startsWith('mastra-native-processors')), [
      'mastra-native-processors',
    ])
    const result = run(process.execPath, ['agent-run.mjs'], dir)
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
