// Everything `npm test` leaves out, after `npm test` itself (npm run test:all;
// .ci/run runs it after `npm ci`). Stages, in order:
//
//   test        npm test with MNP_TESTS=all: every seeded test at its long count
//               (__test__/helpers/counts.mjs; 5,000 cases a release for the
//               differentials instead of npm test's hundreds)
//   postgres    npm run test:postgres: three servers on a real PostgreSQL, one
//               killed mid-run (__test__/multi-instance.postgres.test.mjs, about
//               two minutes; npm test leaves it out), alone, as it prints
//               requests per second
//   deploy      npm run test:deploy: the package as published, in a Mastra app
//               that `mastra build` ships, served from a copy of its output
//               with no parent node_modules (__test__/deploy/; a few minutes)
//   rust-release  the Rust tests again in the release profile (fat LTO), as the
//               addon is built; npm test runs them in the test profile, with
//               overflow checks and debug assertions
//   lint-fuzz   clippy on the fuzz crate (its own workspace and target dir:
//               builds libFuzzer's C++ and every dependency again)
//   node-22, node-24, node-26
//               npm run test:binary (types, agent fixtures, JavaScript tests, long
//               counts) on that Node, installed from the registry as the `node`
//               package; the addon is Node-API, so the same build serves them
//   fuzz        npm run fuzz: every fuzz target for a bounded time
//
//   node scripts/test-all.mjs                   every stage (about 30 minutes on 2 cores)
//   node scripts/test-all.mjs --only fuzz,node-24   the stages named
//   node scripts/test-all.mjs --dry-run         print the commands, run nothing
//
// Stops at the first stage that fails; prints each stage's time.

import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

import { ROOT } from './platform-packages.mjs'

const ALL = { ...process.env, MNP_TESTS: 'all' }
const onNode = (version) => ({
  name: `node-${version}`,
  command: ['npx', '--yes', '--package', `node@${version}`, '--', 'bash', '-c', 'node --version && npm run test:binary'],
  env: ALL,
})
export const STAGES = [
  { name: 'test', command: ['npm', 'test'], env: ALL },
  { name: 'postgres', command: ['npm', 'run', 'test:postgres'], env: process.env },
  { name: 'deploy', command: ['npm', 'run', 'test:deploy'], env: process.env },
  { name: 'rust-release', command: ['npm', 'run', 'test:rust-release'], env: process.env },
  { name: 'lint-fuzz', command: ['npm', 'run', 'test:lint-fuzz'], env: process.env },
  onNode(22),
  onNode(24),
  onNode(26),
  { name: 'fuzz', command: ['npm', 'run', 'fuzz'], env: process.env },
]

if (import.meta.url === pathToFileURL(process.argv[1]).href) main()

function main() {
  const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean' }, only: { type: 'string' } } })
  const only = values.only?.split(',')
  const unknown = only?.filter((name) => !STAGES.some((stage) => stage.name === name)) ?? []
  if (unknown.length) {
    console.error(`test-all: no stage ${unknown.join(', ')}; the stages are ${STAGES.map((stage) => stage.name).join(', ')}`)
    process.exit(2)
  }

  const started = performance.now()
  const times = []
  for (const stage of STAGES) {
    if (only && !only.includes(stage.name)) continue
    const quoted = stage.command.map((arg) => (/\s/.test(arg) ? `'${arg}'` : arg)).join(' ')
    const line = `${stage.env.MNP_TESTS ? `MNP_TESTS=${stage.env.MNP_TESTS} ` : ''}${quoted}`
    console.log(`\n--- test:all ${stage.name}: ${line}`)
    if (values['dry-run']) continue
    const at = performance.now()
    const [command, ...args] = stage.command
    const result = spawnSync(command, args, { cwd: ROOT, env: stage.env, stdio: 'inherit', shell: process.platform === 'win32' })
    const took = Math.round((performance.now() - at) / 1000)
    times.push(`${stage.name} ${took} s`)
    if (result.status !== 0) {
      console.error(`\ntest:all: stage ${stage.name} failed (${result.error ?? `exit ${result.status}`}) after ${took} s`)
      process.exit(1)
    }
  }
  if (!values['dry-run']) console.log(`\ntest:all passed in ${Math.round((performance.now() - started) / 1000)} s (${times.join(', ')})`)
}
