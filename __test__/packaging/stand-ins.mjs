// Stand-ins for @mastra/core releases that come after ours, made from the
// installed 1.71.0 itself: its package copied, its version changed, an edit
// applied, and packed with npm, so a test can install "the next release"
// without the registry having one.
//
//   standIn(work, version, edit?) -> the tarball's path
//   changePreservedText(dir)      -> ToolCallFilter writes "<tool> output:" for a preserved model output
//                                    (in dist/*.js, dist/*.cjs and the source maps' copy of its source)
//   dropSourceMaps(dir)           -> no dist/**/*.map

import assert from 'node:assert/strict'
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

import { run } from './project.mjs'

const require = createRequire(import.meta.url)
const INSTALLED = dirname(require.resolve('@mastra/core/package.json'))

export function standIn(work, version, edit = () => {}) {
  const dir = join(work, `mastra-core-${version}`)
  rmSync(dir, { recursive: true, force: true })
  cpSync(INSTALLED, dir, { recursive: true })
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  assert.equal(manifest.version, '1.71.0', 'stand-ins are made from @mastra/core 1.71.0')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, version }, null, 2))
  edit(dir)
  const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], dir)
  assert.equal(packed.status, 0, packed.stderr)
  return join(work, JSON.parse(packed.stdout)[0].filename)
}

const distFiles = (dir) =>
  readdirSync(join(dir, 'dist'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))

const TOOL_CALL_FILTER_SOURCE = 'src/processors/processors/tool-call-filter.ts'
const PRESERVED = '${part.toolName} result:\\n${text}'
const CHANGED = '${part.toolName} output:\\n${text}'

export function changePreservedText(dir) {
  let code = 0
  let sources = 0
  for (const file of distFiles(dir)) {
    if (/\.c?js$/.test(file)) {
      const text = readFileSync(file, 'utf8')
      if (text.includes(PRESERVED)) {
        writeFileSync(file, text.replaceAll(PRESERVED, CHANGED))
        code++
      }
    } else if (file.endsWith('.map')) {
      const text = readFileSync(file, 'utf8')
      if (!text.includes(TOOL_CALL_FILTER_SOURCE)) continue
      const map = JSON.parse(text)
      const at = (map.sources ?? []).findIndex((source) => source.endsWith(TOOL_CALL_FILTER_SOURCE))
      if (typeof map.sourcesContent?.[at] !== 'string') continue
      map.sourcesContent[at] = map.sourcesContent[at].replaceAll(PRESERVED, CHANGED)
      writeFileSync(file, JSON.stringify(map))
      sources++
    }
  }
  assert.ok(code >= 2 && sources >= 2, `the preserved text was changed in the ES and CommonJS builds and their maps (${code} files, ${sources} maps)`)
}

export function dropSourceMaps(dir) {
  for (const file of distFiles(dir)) if (file.endsWith('.map')) rmSync(file)
}
