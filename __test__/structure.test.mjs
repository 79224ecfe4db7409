// The house's rules, as ARCHITECTURE.md states them ("What may import
// what"), checked over the sources: the core's modules import only
// those below them, lib/ imports in no circle and each file imports only what
// its opening comment says it may, and no room outgrows what a reader can
// hold (a Rust file's code before its tests, a lib/ file, a function).

import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** What a reader can hold: ARCHITECTURE.md ("What may import what") quotes these. */
const SIZE_LIMITS = { rustFileLines: 600, libFileLines: 450, functionLines: 120, positionalParameters: 4 }

/**
 * The core's modules and those each may import, read from ARCHITECTURE.md's
 * table ("What may import what"): the backquoted names of its last column,
 * "everything above" for every module of the rows before, "nothing" for none.
 */
function coreImports() {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8')
  const imports = {}
  for (const [, module, allowed] of text.matchAll(/^\| `src\/(\w+)(?:\.rs|\/)` \|[^|]*\| ([^|]*) \|$/gm)) {
    imports[module] = allowed.includes('everything above') ? Object.keys(imports) : [...allowed.matchAll(/`(\w+)`/g)].map((m) => m[1])
  }
  return imports
}

function filesUnder(dir, suffix) {
  const found = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...filesUnder(path, suffix))
    else if (entry.name.endsWith(suffix)) found.push(path)
  }
  return found.sort()
}

/**
 * A Rust file's lines before its `#[cfg(test)] mod tests`: its code, with a
 * `macro_rules!` body (a declaration the macro expands, as the protocol's)
 * left blank.
 */
function rustCode(path) {
  const lines = readFileSync(join(root, path), 'utf8').split('\n')
  const tests = lines.findIndex((line, i) => line.startsWith('#[cfg(test)]') && lines[i + 1]?.startsWith('mod '))
  const code = tests === -1 ? lines : lines.slice(0, tests)
  let inMacro = false
  return code.map((line) => {
    if (line.startsWith('macro_rules!')) inMacro = true
    const blank = inMacro
    if (inMacro && line === '}') inMacro = false
    return blank ? '' : line
  })
}

/**
 * Each function's length in lines, found by its opening line and the first
 * line after it that closes at the same indentation (as rustfmt and Biome
 * lay code out).
 */
function functionLengths(lines, opening) {
  const lengths = []
  for (let i = 0; i < lines.length; i++) {
    const match = opening.exec(lines[i])
    if (match === null || lines[i].trimEnd().endsWith(';')) continue
    const close = `${match[1]}}`
    let end = i + 1
    while (end < lines.length && !lines[end].startsWith(close)) end++
    lengths.push({ name: match[2], line: i + 1, lines: end - i + 1 })
  }
  return lengths
}

const RUST_FN = /^(\s*)(?:pub(?:\([^)]*\))? )?(?:const )?(?:async )?(?:unsafe )?(?:extern "C" )?fn (\w+)/
const JS_FN = /^(\s*)(?:export )?(?:async )?(?:function\*? (\w+)|(?:static )?(?:async )?(?:get |set )?(#?\w+)\([^)]*\) \{$)/

// Test-only modules (`src/search/tests/`) are tests, which no limit counts.
const rustFiles = [...filesUnder('src', '.rs'), ...filesUnder('napi/src', '.rs')].filter((path) => !path.includes('/tests/'))
const libFiles = filesUnder('lib', '.js')

test('no Rust file of the core or the binding holds more code than a reader can hold', () => {
  const over = rustFiles.map((path) => ({ path, lines: rustCode(path).length })).filter(({ lines }) => lines > SIZE_LIMITS.rustFileLines)
  assert.deepEqual(over, [])
})

test('no lib/ file is longer than a reader can hold', () => {
  const over = libFiles
    .map((path) => ({ path, lines: readFileSync(join(root, path), 'utf8').split('\n').length }))
    .filter(({ lines }) => lines > SIZE_LIMITS.libFileLines)
  assert.deepEqual(over, [])
})

test('no function is longer than a screenful or two', () => {
  const over = []
  for (const path of rustFiles) {
    for (const fn of functionLengths(rustCode(path), RUST_FN)) {
      if (fn.lines > SIZE_LIMITS.functionLines) over.push(`${path}:${fn.line} ${fn.name} (${fn.lines} lines)`)
    }
  }
  for (const path of libFiles) {
    const lines = readFileSync(join(root, path), 'utf8').split('\n')
    for (const fn of functionLengths(lines, JS_FN)) {
      if (fn.lines > SIZE_LIMITS.functionLines) over.push(`${path}:${fn.line} ${fn.name} (${fn.lines} lines)`)
    }
  }
  assert.deepEqual(over, [])
})

/**
 * A function's parameters: the list from the first `(` after its name on
 * line `i` outside any bracket (so after Rust's generics), read over the
 * lines after where it is wrapped, split at the commas outside any bracket
 * (`<>` too in Rust, where `->` is none), a trailing comma ending nothing;
 * Rust's `self` not counted.
 */
function parameterCount(lines, i, name, { rust }) {
  const opens = rust ? '<([{' : '([{'
  const shuts = rust ? '>)]}' : ')]}'
  const text = lines.slice(i).join('\n')
  let depth = 0
  let list = -1
  let count = 0
  let current = ''
  for (let at = text.indexOf(name) + name.length; at < text.length; at++) {
    const c = text[at]
    if (opens.includes(c)) {
      depth++
      if (list < 0 && depth === 1 && c === '(') {
        list = at + 1
        continue
      }
    } else if (shuts.includes(c) && !(c === '>' && text[at - 1] === '-')) {
      depth--
      if (list >= 0 && depth === 0) break
    }
    if (list < 0) continue
    if (depth === 1 && c === ',') {
      if (current.trim() !== '') count++
      current = ''
    } else current += c
  }
  if (current.trim() !== '') count++
  if (rust && /^\s*&?('\w+ )?(mut )?self\b/.test(text.slice(list))) count--
  return count
}

/** The comment just above line `i` (doc lines, `//` lines or a JSDoc block; Rust's attributes between), joined. */
function commentAbove(lines, i) {
  let at = i - 1
  const comment = []
  while (at >= 0 && /^\s*(\/\/|\/\*\*|\*|#\[)/.test(lines[at])) comment.unshift(lines[at--])
  return comment.join('\n')
}

test('a function takes at most four parameters, or says why it is positional', () => {
  const over = []
  const excused = { rust: 0, js: 0 }
  const sources = [
    ...rustFiles.map((path) => ({ path, lines: rustCode(path), opening: RUST_FN, rust: true })),
    ...libFiles.map((path) => ({ path, lines: readFileSync(join(root, path), 'utf8').split('\n'), opening: JS_FN, rust: false })),
  ]
  for (const { path, lines, opening, rust } of sources) {
    for (let i = 0; i < lines.length; i++) {
      const match = opening.exec(lines[i])
      if (match === null) continue
      const name = match[2] ?? match[3]
      const count = parameterCount(lines, i, name, { rust })
      if (count <= SIZE_LIMITS.positionalParameters) continue
      if (/^\s*(\*|\/\/[/!]?)\s*Positional:/m.test(commentAbove(lines, i))) excused[rust ? 'rust' : 'js']++
      else over.push(`${path}:${i + 1} ${name} (${count})`)
    }
  }
  assert.ok(excused.rust > 0 && excused.js > 0, 'the parameter scan is broken')
  assert.deepEqual(over, [])
})

test("the core's modules import only those below them", () => {
  const CORE_IMPORTS = coreImports()
  const modules = Object.keys(CORE_IMPORTS)
  assert.deepEqual(modules, ['protocol', 'js', 'given', 'releases', 'search', 'stores', 'tool_call_filter', 'tool_search'])
  const wrong = []
  for (const path of filesUnder('src', '.rs')) {
    const top = relative('src', path).split(/[/.]/)[0]
    if (!(top in CORE_IMPORTS)) continue
    const code = rustCode(path).join('\n')
    for (const [, used] of code.matchAll(/\bcrate::(\w+)/g)) {
      if (used !== top && modules.includes(used) && !CORE_IMPORTS[top].includes(used)) wrong.push(`${path} uses crate::${used}`)
    }
  }
  assert.deepEqual(wrong, [])
})

/** The lib/ files a lib/ file requires, as paths from the root. */
function libImports(path) {
  const source = readFileSync(join(root, path), 'utf8')
  const imports = []
  for (const [, target] of source.matchAll(/require\('(\.{1,2}\/[^']+)'\)/g)) {
    const full = relative(root, resolve(root, dirname(path), target))
    if (full.startsWith('lib/')) imports.push(full.endsWith('.js') ? full : `${full}.js`)
  }
  return imports
}

/**
 * What a lib/ file's opening comment (after `'use strict'`) says it may
 * import: from its "May import:" on, or "" where it "Imports nothing".
 */
function mayImport(path) {
  const comment = []
  for (const line of readFileSync(join(root, path), 'utf8').split('\n')) {
    if (line === "'use strict'") continue
    if (!line.startsWith('//')) break
    comment.push(line.replace(/^\/\/ ?/, ''))
  }
  const text = comment.join(' ')
  const at = text.indexOf('May import:')
  if (at !== -1) return text.slice(at)
  return text.includes('Imports nothing') ? '' : null
}

test('every lib/ file says what it may import, and imports only that', () => {
  const wrong = []
  for (const path of libFiles) {
    const allowed = mayImport(path)
    if (allowed === null) {
      wrong.push(`${path} has no "May import:" in its opening comment`)
      continue
    }
    for (const target of libImports(path)) {
      const folder = `${dirname(target)}/`
      if (!allowed.includes(basename(target)) && !allowed.includes(folder)) wrong.push(`${path} imports ${target}`)
    }
  }
  assert.deepEqual(wrong, [])
})

test('no lib/ module imports one that imports it back', () => {
  const graph = new Map(libFiles.map((path) => [path, libImports(path)]))
  const state = new Map()
  const circles = []
  const visit = (path, trail) => {
    if (state.get(path) === 'done') return
    if (state.get(path) === 'open') {
      circles.push([...trail.slice(trail.indexOf(path)), path].join(' -> '))
      return
    }
    state.set(path, 'open')
    for (const next of graph.get(path) ?? []) visit(next, [...trail, path])
    state.set(path, 'done')
  }
  for (const path of libFiles) visit(path, [])
  assert.deepEqual(circles, [])
})
