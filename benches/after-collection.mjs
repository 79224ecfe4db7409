// What the first call after a full garbage collection costs, against a call
// in steady state: the prompt ToolCallFilter (1.71.0's and ours) on a
// 100-message prompt, beside the least work any filter must do (one walk of
// the prompt that replaces its tool results with text). Each sample is one
// call right after `gc()`; the steady samples are calls with none between
// them. The sides alternate, each after a collection of its own.
//
//   node --expose-gc benches/after-collection.mjs [--messages N] [--samples N]
//
// It answers one question: how close to steady state can a first call after
// a collection be? The collection leaves the CPU's caches cold and V8's
// megamorphic lookup cache empty, and the minimal walk's ratio is the floor
// any implementation starts from (benches/README.md, "Where we fall short").

import { createRequire } from 'node:module'

import { providerPrompt } from '../__test__/helpers/histories.mjs'

const require = createRequire(import.meta.url)

const args = process.argv.slice(2)
const value = (name, fallback) => {
  const at = args.indexOf(name)
  return at === -1 ? fallback : Number(args[at + 1])
}
const MESSAGES = value('--messages', 100)
const SAMPLES = value('--samples', 80)
if (typeof globalThis.gc !== 'function' || !(MESSAGES >= 5) || !(SAMPLES >= 1)) {
  console.error('usage: node --expose-gc benches/after-collection.mjs [--messages N (at least 5)] [--samples N]')
  process.exit(2)
}

const { ToolCallFilter: Reference } = require('@mastra/core/processors')
const { ToolCallFilter: Ours } = require('../index.js')

/** The least a filter does: every part's type read, each result replaced by text, the messages copied. */
function minimalWalk(prompt) {
  const filtered = []
  for (const message of prompt) {
    if (typeof message.content === 'string') {
      filtered.push(message)
      continue
    }
    const content = []
    for (const part of message.content) {
      content.push(part.type === 'tool-result' ? { type: 'text', text: `${part.toolName} result:\n${JSON.stringify(part.output.value)}` } : part)
    }
    filtered.push({ ...message, content })
  }
  return filtered
}

const prompt = providerPrompt('call-', Math.round((MESSAGES - 1) / 4))
// Arguments as Mastra's runner makes them, with a spread of per-request context.
const observability = () => ({ tracingContext: {}, observabilityContext: {} })
const callOf = (filter) => () => filter.processLLMRequest({ prompt, state: {}, stepNumber: 0, ...observability() })
const sides = [
  { name: '@mastra/core ToolCallFilter', call: callOf(new Reference()) },
  { name: 'ours', call: callOf(new Ours()) },
  { name: 'minimal walk (the floor)', call: async () => minimalWalk(prompt) },
]

async function time(call) {
  const start = process.hrtime.bigint()
  await call()
  return Number(process.hrtime.bigint() - start) / 1000
}

for (let i = 0; i < 3000; i++) for (const side of sides) await side.call()
const steady = sides.map(() => [])
const first = sides.map(() => [])
for (let round = 0; round < SAMPLES; round++) {
  const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0]
  for (const k of order) for (let i = 0; i < 5; i++) steady[k].push(await time(sides[k].call))
  for (const k of order) {
    globalThis.gc()
    first[k].push(await time(sides[k].call))
  }
}

const median = (values) => values.sort((a, b) => a - b)[values.length >> 1]
console.log(`first call after a full gc() against steady state, a ${prompt.length}-message prompt, exclude all, medians of ${SAMPLES}\n`)
console.log(`${'side'.padEnd(30)}  ${'steady'.padStart(9)}  ${'after gc'.padStart(9)}  ratio`)
sides.forEach((side, k) => {
  const [s, f] = [median(steady[k]), median(first[k])]
  console.log(`${side.name.padEnd(30)}  ${`${s.toFixed(1)} µs`.padStart(9)}  ${`${f.toFixed(1)} µs`.padStart(9)}  ${(f / s).toFixed(1)}x`)
})
