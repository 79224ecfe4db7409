// A server collects garbage between requests. A full collection frees what
// only weak references hold: the hidden class of an object no live object
// has (a class's instances, each made by a call and dropped by its end; the
// arguments Mastra's runners build with spreads) and the compiled code of a
// closure no live closure has (one made by each call). V8 then deoptimizes
// the functions compiled against that class, or runs new closures
// unoptimized, until it compiles them again: for dozens of calls the filter
// ran at a fraction of its speed after each collection. Neither stage may
// leave its compiled code to anything a collection frees.
//
// V8's --trace-deopt and --trace-opt name the functions they deoptimize or
// mark for compiling: none of ours may be among them once a collection has
// run in the middle of requests (helpers/collection.mjs). Anonymous
// functions cannot be told apart from Node's own there, so the filters make
// no closure per call.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { collectionCost, functionNames } from './helpers/collection.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const lib = join(here, '..', 'lib')

test('a full collection between requests deoptimizes none of the filter and drops none of its compiled code', () => {
  const names = functionNames([
    ...readdirSync(join(lib, 'tool-call-filter')).map((name) => join(lib, 'tool-call-filter', name)),
    join(lib, 'tape-writer.js'),
    join(lib, 'hook-arguments.js'),
  ])
  assert.ok(names.has('writePrompt') && names.has('writeHistory') && names.has('intern'), 'the name scan is broken')
  assert.deepEqual(collectionCost(join(here, 'helpers', 'collection-rhythm.mjs'), names), [])
})
