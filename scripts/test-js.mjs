// The JavaScript tests (npm run test:js; npm test and npm run test:binary run
// it): every __test__/*.test.mjs but those with a stage of their own in
// npm run test:all (OWN_STAGE), as many files at a time as there are cores,
// then the files that time themselves (the scaling suites: 16 times the input
// must not take over 40 times the time) one at a time, on an otherwise idle
// runner. The slowest files start first, so none is left running alone at the
// end.
//
//   node scripts/test-js.mjs                 every file
//   node scripts/test-js.mjs --dry-run       print the two node --test commands
//   TEST_JS_CONCURRENCY=1 node scripts/test-js.mjs   one file at a time throughout

import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

import { ROOT } from './platform-packages.mjs'

/** Files whose assertions are about their own timings: run alone. */
export const ALONE = /\.scaling\.test\.mjs$/
/** Files of a stage of their own in npm run test:all (scripts/test-all.mjs), which npm test leaves out. */
export const OWN_STAGE = /\.postgres\.test\.mjs$/
/** The longest files (tens of seconds each, mostly npm installs and child processes), started first. */
const SLOW_FIRST = ['release-stand-ins', 'package', 'cli', 'releases', 'cli.eval', 'tool-search.differential', 'bench', 'fallback']

const files = readdirSync(join(ROOT, '__test__'))
  .filter((name) => name.endsWith('.test.mjs') && !OWN_STAGE.test(name))
  .sort()
const rank = (name) => {
  const at = SLOW_FIRST.indexOf(name.replace(/\.test\.mjs$/, ''))
  return at === -1 ? SLOW_FIRST.length : at
}
const together = files.filter((name) => !ALONE.test(name)).sort((a, b) => rank(a) - rank(b))
const alone = files.filter((name) => ALONE.test(name))

const concurrency = Number(process.env.TEST_JS_CONCURRENCY || availableParallelism())
const runs = [
  [`--test-concurrency=${concurrency}`, together],
  ['--test-concurrency=1', alone],
]
let failed = false
for (const [flag, names] of runs) {
  const args = ['--test', flag, ...names.map((name) => join('__test__', name))]
  if (process.argv.includes('--dry-run')) {
    console.log(`node ${args.join(' ')}`)
    continue
  }
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' })
  if (result.status !== 0) failed = true
}
process.exit(failed ? 1 : 0)
