// Runs the agent scenarios (__test__/fixtures/runner/) inside each release's
// fixture project and hands the tests what the model saw, plus helpers to read
// prompts. The fixtures are set up by `npm run test:fixtures` (npm test runs it
// first); a missing or stale fixture fails with that hint.
//
//   suiteRuns(suite)         -> { [version]: Promise<{ host, results }> }, two runners at a time
//   assertSameRun(ours, ref) -> exact comparison, failing at the first difference
//   names(call), systemTexts(call), toolCallIds(prompt), toolResultIds(prompt), textsOf(prompt), toolResultsIn(call)

import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { deserialize } from 'node:v8'

import { AGENT_RELEASES, ROOT, RUNNER_DIR, fixtureDir } from '../fixtures/releases.mjs'
import { binaryOf, packageForThisMachine } from '../../scripts/platform-packages.mjs'

export { AGENT_RELEASES, releaseTraits } from '../fixtures/releases.mjs'
export const MODES = ['generate', 'stream']

const files = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)))
    .sort()
const same = (a, b) => existsSync(b) && readFileSync(a).equals(readFileSync(b))

/** Fails unless the fixture holds this worktree's package, its platform package's binary and the runner, byte for byte. */
function checkFixture(version) {
  const dir = fixtureDir(version)
  const hint = `agent fixture ${relative(ROOT, dir)} is missing or stale: run npm run test:fixtures`
  const installed = join(dir, 'node_modules', 'mastra-native-processors')
  if (!existsSync(join(installed, 'package.json')) || !existsSync(join(dir, 'runner'))) throw new Error(hint)
  const runner = files(RUNNER_DIR)
  assert.deepEqual(files(join(dir, 'runner')), runner, hint)
  for (const file of runner) assert.ok(same(join(RUNNER_DIR, file), join(dir, 'runner', file)), `${hint} (runner/${file})`)
  for (const file of files(installed)) assert.ok(same(join(installed, file), join(ROOT, file)), `${hint} (${file} changed)`)
  const platform = packageForThisMachine()
  const binary = binaryOf(platform, join(dir, 'node_modules', platform.manifest.name))
  assert.ok(same(binaryOf(platform), binary), `${hint} (${platform.manifest.main} changed)`)
}

const RUNNERS_AT_ONCE = 2
let running = 0
const waiting = []

function runSuite(version, suite) {
  checkFixture(version)
  const dir = fixtureDir(version)
  const out = join(dir, `.results-${suite}-${process.pid}.bin`)
  return new Promise((resolve, reject) => {
    // No test asserts a duration; the timeout only stops a hung runner from eating the CI budget.
    execFile(process.execPath, ['runner/main.mjs', suite, out], { cwd: dir, timeout: 600_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`runner ${suite} on @mastra/core ${version} failed: ${error.message}\n${stdout}${stderr}`))
      try {
        resolve(deserialize(readFileSync(out)))
      } catch (e) {
        reject(e)
      } finally {
        rmSync(out, { force: true })
      }
    })
  })
}

async function queued(task) {
  if (running >= RUNNERS_AT_ONCE) await new Promise((go) => waiting.push(go))
  running++
  try {
    return await task()
  } finally {
    running--
    waiting.shift()?.()
  }
}

/** Starts the suite's runner on every release; each promise is awaited by that release's tests. */
export function suiteRuns(suite) {
  const runs = {}
  for (const version of AGENT_RELEASES) {
    runs[version] = queued(() => runSuite(version, suite))
    runs[version].catch(() => {}) // reported by each test that awaits it
  }
  return runs
}

/** The run of one scenario and mode, on both sides; a side that threw fails here with its stack. */
export async function scenarioRun(runs, version, name, mode) {
  const { results } = await runs[version]
  assert.ok(results[name], `the runner has no scenario ${JSON.stringify(name)}`)
  const { ref, ours } = results[name][mode]
  assert.equal(ref.error, undefined, `the release's own processors threw:\n${ref.error}`)
  assert.equal(ours.error, undefined, `ours threw:\n${ours.error}`)
  return { ref, ours }
}

function firstDiff(a, b, path = '$') {
  if (Object.is(a, b)) return null
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object' || Array.isArray(a) !== Array.isArray(b)) return { path, ours: a, ref: b }
  if (Array.isArray(a)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = i < a.length && i < b.length ? firstDiff(a[i], b[i], `${path}[${i}]`) : { path: `${path}[${i}]`, ours: a[i] ?? '<none>', ref: b[i] ?? '<none>' }
      if (d) return d
    }
    return null
  }
  const [ka, kb] = [Object.keys(a), Object.keys(b)]
  if (ka.join('\0') !== kb.join('\0')) return { path: `${path} (keys)`, ours: ka, ref: kb }
  for (const k of ka) {
    const d = firstDiff(a[k], b[k], `${path}.${k}`)
    if (d) return d
  }
  return null
}

/** Everything the model received (prompts, tool sets) and the caller saw is identical. */
export function assertSameRun(ours, ref) {
  const d = firstDiff(ours, ref)
  if (d)
    assert.fail(
      `ours differs from the release's own at ${d.path}\n  ours: ${JSON.stringify(d.ours)?.slice(0, 1500)}\n  ref:  ${JSON.stringify(d.ref)?.slice(0, 1500)}`,
    )
  assert.deepStrictEqual(ours, ref)
}

/** Every message part of a prompt, with its role: [{ role, type, ... }] (string content as type 'string'). */
const partsOf = (prompt) =>
  prompt.flatMap((m) => (Array.isArray(m.content) ? m.content.map((p) => ({ role: m.role, ...p })) : [{ role: m.role, type: 'string', text: m.content }]))
export const toolCallIds = (prompt) =>
  partsOf(prompt)
    .filter((p) => p.type === 'tool-call')
    .map((p) => p.toolCallId)
export const toolResultIds = (prompt) =>
  partsOf(prompt)
    .filter((p) => p.type === 'tool-result')
    .map((p) => p.toolCallId)
export const textsOf = (prompt) =>
  partsOf(prompt)
    .filter((p) => p.type === 'text' || p.type === 'string')
    .map((p) => p.text)

/** The tool names offered on a model call, in order. */
export const names = (call) => (call.tools ?? []).map((t) => t.name)
export const systemTexts = (call) => call.prompt.filter((m) => m.role === 'system').map((m) => m.content)
/** [toolName, output value] of every tool result in a model call's prompt. */
export const toolResultsIn = (call) =>
  partsOf(call.prompt)
    .filter((p) => p.type === 'tool-result')
    .map((p) => [p.toolName, p.output?.value])
