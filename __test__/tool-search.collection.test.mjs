// ToolSearchProcessor in a server's rhythm (see
// tool-call-filter.collection.test.mjs): a full collection between requests
// deoptimizes none of its functions and drops none of its compiled code.
// What it took (issue 18), each a class or code that lived only as long as a
// request's objects, which V8 holds weakly from what was compiled for it:
// - the classes of a step's objects (LiveStep, SnapshotStep, and the
//   binding's step and operation, which the wrap that ties them to Rust
//   gives a class of their own): one of each kept for the process
//   (`keepStepShapes` in lib/tool-search.js);
// - Mastra's per-request `RequestContext`, its `get` read through one
//   megamorphic call (`contextValue` in lib/hook-arguments.js), and the
//   fields of the literals that hold it (the filter hook's argument,
//   `askingOf`) made to hold any class first (`generalizeFields`);
// - the binding's plain answers (the loaded tools' list), read through the
//   megamorphic load (`transientField`);
// - objects made only to be spread (the step's tools record, the meta-tools'
//   schemas, the thread entries);
// - the per-step closure that answered an operation's questions, whose
//   optimized code V8 keeps only while one of its closures lives: now one
//   function, `answer`, over a plain object.
// Run the rhythm with --trace-deopt --trace-opt to see what a change costs.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { collectionCost, functionNames } from './helpers/collection.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const lib = join(here, '..', 'lib')

test('a full collection between requests deoptimizes none of ToolSearchProcessor and drops none of its compiled code', () => {
  // The class's module and every room of lib/tool-search/.
  const files = ['tool-search.js', ...readdirSync(join(lib, 'tool-search')).map((name) => `tool-search/${name}`)]
  const names = functionNames([...files, 'context-history.js', 'tool-parameters.js', 'hook-arguments.js'].map((file) => join(lib, file)))
  assert.ok(names.has('processInputStep') && names.has('readThread') && names.has('answer'), 'the name scan is broken')
  assert.deepEqual(collectionCost(join(here, 'helpers', 'tool-search-rhythm.mjs'), names), [])
})
