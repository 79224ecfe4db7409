// What importing the package costs beside a tested @mastra/core and beside a
// release it does not know, whose processors it then recognises by reading
// their sources from the host's source maps (src/releases/fingerprint.rs).
// Each sample is a fresh Node process (the files in the OS cache, as on a
// server's restart); medians of:
//   decide     the call that decides what to serve (serveHost), alone
//   import     require('mastra-native-processors') as a whole
//   mastra     require('@mastra/core/processors') alone, for scale
//
//   npm run bench:import [-- --samples 21]

import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'

const require = createRequire(import.meta.url)
const ROOT = join(import.meta.dirname, '..')
const REAL_HOST = dirname(require.resolve('@mastra/core/package.json'))
const at = process.argv.indexOf('--samples')
const SAMPLES = at > 0 ? Number(process.argv[at + 1]) : 15
// Outside this checkout: inside it, `mastra-native-processors` would name the checkout itself.
const WORK = mkdtempSync(join(tmpdir(), 'mnp-import-bench-'))

/** A project with our package and 1.71.0's @mastra/core under `version`, its files linked. */
function project(version) {
  const dir = join(WORK, version)
  const ours = join(dir, 'node_modules', 'mastra-native-processors')
  mkdirSync(ours, { recursive: true })
  for (const entry of ['package.json', 'index.js', 'index.mjs', 'binding.js', 'lib']) cpSync(join(ROOT, entry), join(ours, entry), { recursive: true })
  for (const binary of readdirSync(ROOT).filter((name) => name.endsWith('.node'))) cpSync(join(ROOT, binary), join(ours, binary))
  const core = join(dir, 'node_modules', '@mastra', 'core')
  mkdirSync(core, { recursive: true })
  for (const entry of readdirSync(REAL_HOST, { recursive: true, withFileTypes: true })) {
    const from = join(entry.parentPath ?? entry.path, entry.name)
    const to = join(core, relative(REAL_HOST, from))
    if (entry.isDirectory()) mkdirSync(to, { recursive: true })
    else if (entry.name !== 'package.json') symlinkSync(from, to)
  }
  const manifest = JSON.parse(readFileSync(join(REAL_HOST, 'package.json'), 'utf8'))
  writeFileSync(join(core, 'package.json'), JSON.stringify({ ...manifest, version }))
  return dir
}

const PROBES = {
  decide: `const native = require('./node_modules/mastra-native-processors/lib/native.js'); const manifest = require.resolve('@mastra/core/package.json');
    const t = process.hrtime.bigint(); const served = native.serveHost(manifest); const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (served.implementation !== 'native') throw new Error(served.reason); console.log(ms)`,
  import: `const t = process.hrtime.bigint(); const ours = require('mastra-native-processors'); const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (ours.implementation !== 'native') throw new Error(ours.fallbackReason); console.log(ms)`,
  mastra: `const t = process.hrtime.bigint(); require('@mastra/core/processors'); console.log(Number(process.hrtime.bigint() - t) / 1e6)`,
}

const median = (values) => values.sort((a, b) => a - b)[values.length >> 1]

const rows = []
for (const [version, label] of [
  ['1.71.0', 'beside 1.71.0 (tested: known by its version)'],
  ['1.72.0', "beside 1.72.0 (not known: 1.71.0's sources recognised)"],
]) {
  const dir = project(version)
  const times = Object.fromEntries(Object.keys(PROBES).map((probe) => [probe, []]))
  for (let sample = 0; sample < SAMPLES; sample++) {
    for (const [probe, code] of Object.entries(PROBES)) {
      const run = spawnSync(process.execPath, ['-e', code], { cwd: dir, encoding: 'utf8' })
      if (run.status !== 0) throw new Error(`${probe} ${version}: ${run.stderr}`)
      times[probe].push(Number(run.stdout))
    }
    process.stderr.write(`\r${label}: ${sample + 1}/${SAMPLES}`)
  }
  process.stderr.write('\n')
  rows.push([label, ...Object.keys(PROBES).map((probe) => `${median(times[probe]).toFixed(2)} ms`)])
}

const header = ['import', 'decide', 'import of ours', '@mastra/core/processors']
const widths = header.map((_, i) => Math.max(header[i].length, ...rows.map((row) => row[i].length)))
const line = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')
console.log(`node ${process.version}, medians of ${SAMPLES} fresh processes each`)
console.log(line(header))
console.log(widths.map((width) => '-'.repeat(width)).join('  '))
for (const row of rows) console.log(line(row))
rmSync(WORK, { recursive: true, force: true })
