// What a full garbage collection between requests costs a processor's
// compiled code, read from V8's own traces. A rhythm script (a helper beside
// this one) makes requests through `runRhythm`, which prints `COLLECTING`
// once V8 has compiled what runs hot and `DONE` after full collections
// between more requests; `collectionCost` runs it with --trace-deopt and
// --trace-opt, which name the functions V8 deoptimizes or marks for
// compiling. See tool-call-filter.collection.test.mjs.

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/**
 * A rhythm script's run: `round(count)` makes `count` rounds of requests. It
 * runs `warm` rounds until V8 has compiled what runs hot, lets a compilation
 * still under way on a background thread finish, runs `settled` more, then
 * prints `COLLECTING` and runs five full collections, each followed by
 * `between` rounds (a class or code freed by one collection may be one whose
 * last holder a request dropped since the last), and prints `DONE`.
 */
export async function runRhythm(round, { warm, settled, between }) {
  await round(warm)
  await new Promise((resolve) => setTimeout(resolve, 100))
  await round(settled)
  console.log('COLLECTING')
  for (let i = 0; i < 5; i++) {
    globalThis.gc()
    await round(between)
  }
  console.log('DONE')
}

/** The names of the functions, methods and classes defined in these files. */
export function functionNames(files) {
  const names = new Set()
  for (const file of files) {
    const source = readFileSync(file, 'utf8')
    for (const [, name] of source.matchAll(/\bfunction\s+(\w+)/g)) names.add(name)
    for (const [, name] of source.matchAll(/\bclass\s+(\w+)/g)) names.add(name)
    // Methods, and functions assigned to a name.
    for (const [, name] of source.matchAll(/^\s+(?:async\s+|static\s+|get\s+)*#?(\w+)\s*\([^)]*\)\s*\{/gm)) names.add(name)
    for (const [, name] of source.matchAll(/\b(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?\(/g)) names.add(name)
  }
  for (const keyword of ['if', 'for', 'while', 'switch', 'catch', 'constructor']) names.delete(keyword)
  return names
}

/**
 * Runs a rhythm script and returns the trace lines, after `COLLECTING`, that
 * deoptimize one of `names` or compile one again to a tier it had before
 * (the collection dropped its code). A first climb to a higher tier is V8
 * tiering up, which a collection does not cause. A function is known by its
 * name (the addresses in the traces move when a collection compacts), so two
 * functions of one name in the files scanned read as one compiled again:
 * name them apart.
 */
export function collectionCost(rhythmScript, names) {
  const output = execFileSync(process.execPath, ['--expose-gc', '--trace-deopt', '--trace-opt', rhythmScript], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  })
  const lines = output.split('\n')
  const from = lines.indexOf('COLLECTING')
  if (from < 0 || !lines.includes('DONE')) throw new Error(`${rhythmScript} did not run to its end`)
  // "[marking 0x... <JSFunction name (sfi = ...)> for optimization to TARGET, ..."
  const marking = (line) => /^\[marking (?:0x\w+ )?<JSFunction (\w+) .* for optimization to (\w+)/.exec(line)
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
    const mark = marking(line)
    const recompiled = mark !== null && compiledBefore.has(`${mark[1]} ${mark[2]}`)
    if (!deoptimized && !recompiled) continue
    const name = /<(?:SharedFunctionInfo|JSFunction) (\w+)/.exec(line)?.[1]
    if (name && names.has(name)) affected.push(line.slice(0, 200))
  }
  return affected
}
