// `npm run bench:ab -- <ref> [benches/ab.mjs options]`: this build against
// another commit's (the last release, main, the commit a branch started from),
// in one process, alternating sample by sample (benches/ab.mjs).
//
// The other commit is checked out once, as a git worktree under
// .scratch/ab/<commit> (gitignored), with this checkout's node_modules linked
// in, and its addon built there (release) if it has none yet: later runs
// against the same commit reuse both. The builds share one cargo target
// directory (CARGO_TARGET_DIR, else .scratch/ab/target), so only what changed
// between the commits is compiled again.
//
//   npm run bench:ab -- main
//   npm run bench:ab -- v0.1.0 --only 'filter hook' --samples 800

import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const USAGE = 'usage: npm run bench:ab -- <git ref> [--samples N] [--only <text>]'

const [ref, ...rest] = process.argv.slice(2)
if (ref === undefined || ref === '-h' || ref === '--help') {
  console.log(USAGE)
  process.exit(ref === undefined ? 2 : 0)
}

/** Runs `command`; its output, or exits with its error. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: here, encoding: 'utf8', ...options })
  if (result.status !== 0) {
    if (result.stderr) process.stderr.write(result.stderr)
    console.error(`bench:ab: ${command} ${args.join(' ')} failed (${result.error ?? `exit ${result.status}`})`)
    process.exit(1)
  }
  return result.stdout ?? ''
}

const commit = run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim()
const cache = join(here, '.scratch', 'ab')
const other = join(cache, commit)
mkdirSync(cache, { recursive: true })

if (!existsSync(join(other, 'package.json'))) {
  console.error(`bench:ab: checking out ${ref} (${commit.slice(0, 12)}) into ${other}`)
  run('git', ['worktree', 'prune'])
  run('git', ['worktree', 'add', '--detach', other, commit], { stdio: ['ignore', 'ignore', 'pipe'] })
}
if (!existsSync(join(other, 'node_modules'))) symlinkSync(realpathSync(join(here, 'node_modules')), join(other, 'node_modules'))

const hasAddon = () => existsSync(join(other, 'binding.js')) && readdirSync(other).some((name) => name.endsWith('.node'))
if (!hasAddon()) {
  const target = process.env.CARGO_TARGET_DIR ?? join(cache, 'target')
  console.error(`bench:ab: building ${commit.slice(0, 12)}'s addon (release; cargo target ${target}): minutes the first time`)
  run('npm', ['run', 'build'], { cwd: other, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CARGO_TARGET_DIR: target } })
  if (!hasAddon()) {
    console.error(`bench:ab: the build left no addon in ${other}`)
    process.exit(1)
  }
}

const ab = spawnSync(process.execPath, ['--expose-gc', join(here, 'benches', 'ab.mjs'), other, ...rest], { cwd: here, stdio: 'inherit' })
process.exit(ab.status ?? 1)
