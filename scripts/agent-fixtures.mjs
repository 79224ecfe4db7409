// Sets up one project per tested @mastra/core release (the list is in
// __test__/fixtures/releases.mjs) for the real-agent tests, as a user would
// have it: `npm ci` from the committed template (package.json + package-lock.json
// pinning the release, ai and zod; under `npm run check-release`, only the
// release it checks, from the project it installed), then this package and the platform package
// for this machine (npm/<platform>/ with the binary built here), each from
// `npm pack` unpacked into its node_modules (real copies, not symlinks: our
// require('@mastra/core/...') must find the fixture's release), and the scenario
// runner copied beside.
//
//   node scripts/agent-fixtures.mjs      (npm run test:fixtures; npm test runs it)
//
// `npm ci` is skipped while node_modules holds the stamp of the same template;
// the packages and the runner are refreshed on every run. Needs the addon built.

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

import { AGENT_RELEASES, FIXTURES_DIR, RELEASE_UNDER_TEST, ROOT, RUNNER_DIR, TEMPLATES_DIR, fixtureDir, templateDir } from '../__test__/fixtures/releases.mjs'
import { pack, packageForThisMachine, stagePlatformPackage, withoutNpmRunEnv } from './platform-packages.mjs'

const TEMPLATE_FILES = ['package.json', 'package-lock.json']
const CI_ARGS = ['ci', '--ignore-scripts', '--no-audit', '--no-fund']
const STAMP = '.agent-fixture-stamp'
const PACKAGE = 'mastra-native-processors'

// The child npm must find the fixture as its project, not the package whose
// script started us (npm run exports its own prefix to the environment).
const env = withoutNpmRunEnv(process.env)

function run(command, args, cwd) {
  // npm is npm.cmd on Windows, which only a shell starts.
  const shell = process.platform === 'win32' && command === 'npm'
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell })
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (${result.error ?? `exit ${result.status}`}):\n${result.stdout}${result.stderr}`)
  }
  return result.stdout
}

const listed = AGENT_RELEASES.map((version) => `mastra-${version}`).sort()
mkdirSync(FIXTURES_DIR, { recursive: true })
if (!RELEASE_UNDER_TEST) {
  // Every release listed has a template, and every template is listed.
  const templates = readdirSync(TEMPLATES_DIR)
    .filter((name) => name.startsWith('mastra-'))
    .sort()
  if (templates.join() !== listed.join()) {
    throw new Error(`fixture templates in ${relative(ROOT, TEMPLATES_DIR)} (${templates}) differ from AGENT_RELEASES (${listed})`)
  }
  // Fixtures of releases no longer listed go.
  for (const name of readdirSync(FIXTURES_DIR)) {
    if (name.startsWith('mastra-') && !listed.includes(name)) rmSync(join(FIXTURES_DIR, name), { recursive: true, force: true })
  }
}

// This package and the platform package for this machine, exactly as they would be published.
const platform = packageForThisMachine()
if (!platform) throw new Error(`no platform package in npm/ is for ${process.platform}-${process.arch}`)
const staging = join(FIXTURES_DIR, '.platform-package')
rmSync(staging, { recursive: true, force: true })
const { tarball } = pack(ROOT, FIXTURES_DIR)
const { tarball: platformTarball } = pack(stagePlatformPackage(platform, staging), FIXTURES_DIR)
const packages = [
  [PACKAGE, tarball],
  [platform.manifest.name, platformTarball],
]

try {
  for (const version of AGENT_RELEASES) {
    const started = Date.now()
    const dir = fixtureDir(version)
    mkdirSync(dir, { recursive: true })
    const hash = createHash('sha256').update(CI_ARGS.join(' '))
    for (const file of TEMPLATE_FILES) {
      const content = readFileSync(join(templateDir(version), file))
      hash.update(content)
      writeFileSync(join(dir, file), content)
    }
    const stamp = join(dir, 'node_modules', STAMP)
    const digest = hash.digest('hex')
    const upToDate = existsSync(stamp) && readFileSync(stamp, 'utf8') === digest
    if (!upToDate) {
      run('npm', CI_ARGS, dir)
      writeFileSync(stamp, digest)
    }

    // Nothing to run after unpacking: neither package has an install script.
    for (const [name, file] of packages) {
      const installed = join(dir, 'node_modules', name)
      rmSync(installed, { recursive: true, force: true })
      mkdirSync(installed, { recursive: true })
      run('tar', ['-xzf', file, '-C', installed, '--strip-components=1'], dir)
    }

    rmSync(join(dir, 'runner'), { recursive: true, force: true })
    cpSync(RUNNER_DIR, join(dir, 'runner'), { recursive: true })

    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    console.log(`agent fixture @mastra/core ${version}: ${upToDate ? 'up to date' : 'installed'} (${seconds} s) ${relative(ROOT, dir)}`)
  }
} finally {
  for (const [, file] of packages) rmSync(file, { force: true })
  rmSync(staging, { recursive: true, force: true })
}
