// A server collects garbage between requests. A full collection frees what
// only weak references hold: the hidden class of an object no live object
// has (a class's instances, each made by a call and dropped by its end) and
// the compiled code of a closure no live closure has (one made by each call).
// V8 then deoptimizes the functions compiled against that class, or runs new
// closures unoptimized, until it compiles them again: for dozens of calls
// the filter ran at a fraction of its speed after each collection. Neither
// stage may leave its compiled code to anything a collection frees.
//
// V8's --trace-deopt and --trace-opt name the functions they deoptimize or
// mark for compiling: none of ours may be among them once a collection has
// run in the middle of requests. (Anonymous functions cannot be told apart
// from Node's own there, so the filters make no closure per call.)

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const lib = join(here, '..', 'lib')

/** The names of the functions, methods and classes defined in the filter's JavaScript. */
function filterFunctionNames() {
  const files = [
    ...readdirSync(join(lib, 'tool-call-filter')).map((name) => join(lib, 'tool-call-filter', name)),
    join(lib, 'tape-writer.js'),
  ]
  const names = new Set()
  for (const file of files) {
    const source = readFileSync(file, 'utf8')
    for (const [, name] of source.matchAll(/\bfunction\s+(\w+)/g)) names.add(name)
    for (const [, name] of source.matchAll(/\bclass\s+(\w+)/g)) names.add(name)
    // Methods, and functions assigned to a name.
    for (const [, name] of source.matchAll(/^\s+(?:async\s+|static\s+)*#?(\w+)\s*\([^)]*\)\s*\{/gm)) names.add(name)
    for (const [, name] of source.matchAll(/\b(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?\(/g)) names.add(name)
  }
  for (const keyword of ['if', 'for', 'while', 'switch', 'catch', 'constructor']) names.delete(keyword)
  return names
}

test('a full collection between requests deoptimizes none of the filter and drops none of its compiled code', () => {
  const names = filterFunctionNames()
  assert.ok(names.has('writePrompt') && names.has('writeHistory') && names.has('intern'), 'the name scan is broken')
  const output = execFileSync(
    process.execPath,
    ['--expose-gc', '--trace-deopt', '--trace-opt', join(here, 'helpers', 'collection-rhythm.mjs')],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  )
  const lines = output.split('\n')
  const from = lines.indexOf('COLLECTING')
  assert.ok(from >= 0 && lines.includes('DONE'), 'the rhythm did not run to its end')
  // "marking <JSFunction name ...> for optimization to TARGET": the tiers each function was compiled to before.
  const marking = (line) => /^\[marking <JSFunction (\w+) .* for optimization to (\w+)/.exec(line.replace(/^\[marking 0x\w+ /, '[marking '))
  const compiledBefore = new Set()
  for (const line of lines.slice(0, from)) {
    const mark = marking(line)
    if (mark) compiledBefore.add(`${mark[1]} ${mark[2]}`)
  }
  const affected = []
  for (const line of lines.slice(from + 1, lines.indexOf('DONE'))) {
    // "marking dependent code ... (<SharedFunctionInfo name>) ... for deoptimization",
    // "bailout (...) deoptimizing ... <JSFunction name ...>".
    const deoptimized = /for deoptimization|bailout|deoptimizing/.test(line)
    // Compiled again to a tier it had: the collection dropped its code. (A
    // first climb to a higher tier is V8 tiering up, which a collection does not cause.)
    const mark = marking(line)
    const recompiled = mark !== null && compiledBefore.has(`${mark[1]} ${mark[2]}`)
    if (!deoptimized && !recompiled) continue
    const name = /<(?:SharedFunctionInfo|JSFunction) (\w+)/.exec(line)?.[1]
    if (name && names.has(name)) affected.push(line.slice(0, 200))
  }
  assert.deepEqual(affected, [])
})
