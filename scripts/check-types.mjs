// index.d.ts type-checks as users compile it: with `skipLibCheck: false`, under
// each `moduleResolution` a project may use (node16, nodenext, bundler), from an
// ES module that uses the documented API (__test__/types/documented-api.ts, as
// .mts where the resolution tells modules by extension) and from a CommonJS
// one (.cts; @mastra/core's declarations are ES modules, so index.d.ts must
// import them with a resolution-mode). Only diagnostics in our files count:
// with skipLibCheck off, tsc also reports errors inside @mastra/core's own
// declarations, which every project that turns it off sees with or without
// this package.
//
//   node scripts/check-types.mjs     (npm run test:types-strict; npm test runs it)

import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative, resolve } from 'node:path'

const require = createRequire(import.meta.url)
const ROOT = resolve(import.meta.dirname, '..')
const tsc = require.resolve('typescript/bin/tsc')
const MODES = { node16: 'Node16', nodenext: 'NodeNext', bundler: 'ESNext' }
const work = mkdtempSync(join(ROOT, '.types-'))
const COMMONJS_USER = `
import { ToolCallFilter, ToolSearchProcessor, implementation, fallbackReason } from 'mastra-native-processors'
import type { ToolSearchProcessorOptions } from 'mastra-native-processors'
const options: ToolSearchProcessorOptions = { tools: {}, search: { topK: 3, ranking: 'fielded', syntax: 'regex' }, filterConcurrency: 8 }
export const processors = [new ToolCallFilter({ exclude: ['searchDatabase'] }), new ToolSearchProcessor(options)]
export const served: ['native' | 'fallback', string | null] = [implementation, fallbackReason]
`

/** The ES module and the CommonJS module that use the package, for one resolution. */
function consumers(resolution) {
  const esm = join(work, `documented-api.${resolution === 'bundler' ? 'ts' : 'mts'}`)
  copyFileSync(join(ROOT, '__test__', 'types', 'documented-api.ts'), esm)
  const commonjs = join(work, 'commonjs-user.cts')
  writeFileSync(commonjs, COMMONJS_USER)
  return resolution === 'bundler' ? [esm, join(ROOT, 'index.d.ts')] : [esm, commonjs, join(ROOT, 'index.d.ts')]
}

let failed = false
try {
  for (const [resolution, module] of Object.entries(MODES)) {
    const config = join(work, `tsconfig.${resolution}.json`)
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module, moduleResolution: resolution, strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: consumers(resolution),
      }),
    )
    const run = spawnSync(process.execPath, [tsc, '-p', config, '--pretty', 'false'], { cwd: ROOT, encoding: 'utf8' })
    const errors = run.stdout.split('\n').filter((line) => /^\S.*\(\d+,\d+\): error TS\d+/.test(line))
    const ours = errors.filter((line) => !relative(ROOT, resolve(ROOT, line.slice(0, line.indexOf('(')))).startsWith('node_modules'))
    const theirs = errors.length - ours.length
    if (run.status !== 0 && errors.length === 0) {
      console.error(`${resolution}: tsc failed without diagnostics:\n${run.stdout}${run.stderr}`)
      failed = true
    } else if (ours.length > 0) {
      console.error(`${resolution}: ${ours.length} error(s) in our files:\n  ${ours.join('\n  ')}`)
      failed = true
    } else {
      console.log(`${resolution}: our files type-check with skipLibCheck off (${theirs} error(s) inside node_modules' own declarations, not ours)`)
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
