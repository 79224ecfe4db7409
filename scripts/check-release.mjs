// Follows a @mastra/core release: installs it beside the tested ones, says
// whether its processors are a tested release's (the fingerprint the package
// reads at import: SHA-256 of each processor source in its source maps), and
// runs the differential and real-agent suites against it.
//
//   npm run check-release -- <version | latest | path/to/core.tgz> [--fingerprint-only]
//
// Exits 0 when the release is tested, or its processors are a tested release's
// and the suites pass; 1 when they are not (the package then serves the
// release its own processors) or a suite fails. What to add to the release
// table (src/releases/known.rs) is printed. Needs the addon built.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, join, relative, resolve } from 'node:path'

import { ROOT, withoutNpmRunEnv } from './platform-packages.mjs'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')

const USAGE = 'usage: npm run check-release -- <version | latest | path/to/core.tgz> [--fingerprint-only]'
const args = process.argv.slice(2)
const fingerprintOnly = args.includes('--fingerprint-only')
const [wanted, ...extra] = args.filter((arg) => arg !== '--fingerprint-only')
if (!wanted || extra.length > 0 || wanted === '--help' || wanted === '-h') {
  console.log(USAGE)
  process.exit(wanted === '--help' || wanted === '-h' ? 0 : 2)
}

const env = withoutNpmRunEnv(process.env)
function npm(args, cwd) {
  const result = spawnSync('npm', args, { cwd, env, encoding: 'utf8', shell: process.platform === 'win32' })
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${result.stdout}${result.stderr}`)
  return result.stdout
}

// ─── Install ────────────────────────────────────────────────────────────────

const tarball = wanted.endsWith('.tgz') ? resolve(wanted) : null
const version = tarball ? null : wanted === 'latest' ? JSON.parse(npm(['view', '@mastra/core@latest', 'version', '--json'], ROOT)) : wanted
const label = tarball ? relative(ROOT, tarball) : version
const dir = join(ROOT, '.scratch', 'releases', tarball ? `tarball-${basename(tarball, '.tgz')}` : version)
console.error(`check-release: installing @mastra/core ${label} into ${relative(ROOT, dir)}`)

// A user's project on that release, as the agent fixtures have one: the
// dependencies of the newest tested release's fixture, with this @mastra/core.
const template = JSON.parse(readFileSync(join(ROOT, '__test__', 'fixtures', 'mastra-1.71.0', 'package.json'), 'utf8'))
const manifest = { ...template, description: `@mastra/core ${label}, installed by npm run check-release.` }
manifest.dependencies = { ...template.dependencies, '@mastra/core': tarball ? `file:${tarball}` : version }
if (tarball || !existsSync(join(dir, 'node_modules', '@mastra', 'core', 'package.json'))) {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2))
  npm(['install', '--ignore-scripts', '--no-audit', '--no-fund'], dir)
}
// The suites import the release's modules through this file, so they resolve as the project does.
writeFileSync(join(dir, 'import-core.mjs'), 'export const importCore = (subpath) => import(`@mastra/core/${subpath}`)\n')
const installedManifest = join(dir, 'node_modules', '@mastra', 'core', 'package.json')
const installedVersion = JSON.parse(readFileSync(installedManifest, 'utf8')).version

// ─── Fingerprint ───────────────────────────────────────────────────────────

const sources = native.processorSources()
const known = native.knownMastraReleases()
const tested = known.filter((release) => release.tested)
const listed = known.find((release) => release.version === installedVersion)
const fingerprint = native.processorsFingerprint(installedManifest)
const same = fingerprint.unreadable ? undefined : tested.find((release) => release.digests.every((digest, i) => digest === fingerprint.digests[i]))
const newest = tested.at(-1)

console.log(`@mastra/core ${installedVersion}`)
if (fingerprint.unreadable) {
  console.log(`  its processors could not be fingerprinted: ${fingerprint.unreadable}`)
} else {
  const width = Math.max(...sources.map((source) => source.length))
  sources.forEach((source, i) => {
    const digest = fingerprint.digests[i]
    const alike = tested.filter((release) => release.digests[i] === digest).map((release) => release.version)
    console.log(`  ${source.padEnd(width)}  ${digest.slice(0, 12)}  ${alike.length ? `as ${alike.join(', ')}` : 'unlike every tested release'}`)
  })
}

let verdict
let rulesOf
if (listed?.tested) {
  verdict = `its processors are ${installedVersion}'s: a tested release, whose suites run in npm test.`
  rulesOf = installedVersion
} else if (same) {
  rulesOf = same.version
  const [major, minor, patch] = installedVersion.split('.').map(Number)
  verdict =
    `its processors are ${same.version}'s: the package runs natively beside it with ${same.version}'s rules.` +
    (listed
      ? ` The release table lists it (carrying ${listed.rulesOf}).`
      : ` To run it without reading its sources at import, add to KNOWN_RELEASES in src/releases/known.rs:\n    carries(${major}, ${minor}, ${patch}, SOURCES_${same.version.split('.').slice(0, 2).join('_')}),`)
} else {
  rulesOf = newest.version
  verdict = fingerprint.unreadable
    ? `its processors cannot be compared, so the package serves it its own processors.`
    : `its processors differ from every tested release's, so the package serves it its own processors. ` +
      `Port what changed, then add it to the tests (package.json devDependencies, __test__/helpers/releases.mjs, ` +
      `__test__/fixtures/) and to KNOWN_RELEASES as tested(...) with its digests:\n    ${fingerprint.digests.map((d) => `"${d}"`).join(',\n    ')}`
}
console.log(`verdict: ${verdict}`)
const recognised = Boolean(listed?.tested || same)
if (fingerprintOnly) process.exit(recognised ? 0 : 1)

// ─── Suites ────────────────────────────────────────────────────────────────

const underTest = JSON.stringify({ version: installedVersion, dir, rulesOf })
// The differentials at their long counts, as CI runs them (MNP_TESTS=quick in the environment for npm test's).
const suiteEnv = { MNP_TESTS: 'all', ...env, MNP_RELEASE_UNDER_TEST: underTest }
const stage = native.releaseBehaviours(rulesOf).toolCallFilterStage
const files = [
  '__test__/tool-search.differential.test.mjs',
  stage === 'prompt' ? '__test__/tool-call-filter.prompt-differential.test.mjs' : '__test__/tool-call-filter.message-list-differential.test.mjs',
]
if (recognised) {
  files.push('__test__/agent.tool-search.test.mjs', '__test__/agent.tool-call-filter.test.mjs', '__test__/agent.inject-catalog.test.mjs')
} else {
  console.log(
    `The agent suites are not run: beside this release the package serves its own processors, so they would compare them with themselves. ` +
      `The differential suites below compare ours, with ${rulesOf}'s rules, with its own, to show what differs.`,
  )
}

function step(title, command, args) {
  console.error(`check-release: ${title}`)
  const result = spawnSync(command, args, { cwd: ROOT, env: suiteEnv, stdio: 'inherit' })
  return result.status === 0
}

let passed = true
if (recognised) passed = step(`agent fixture for ${installedVersion}`, process.execPath, ['scripts/agent-fixtures.mjs']) && passed
passed = step(`suites against ${installedVersion} (${files.length} files)`, process.execPath, ['--test', '--test-concurrency=1', ...files]) && passed
console.log(`check-release: @mastra/core ${installedVersion}: ${recognised ? 'recognised' : 'NOT recognised'}, suites ${passed ? 'passed' : 'FAILED'}`)
process.exit(recognised && passed ? 0 : 1)
