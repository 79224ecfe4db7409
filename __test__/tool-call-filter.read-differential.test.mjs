// Property-read differential, ToolCallFilter on the prompt (1.60+; issue 19):
// seeded random prompts whose every object (messages, parts, outputs, the
// provider options) is a recording Proxy, filtered twice in one request by
// the release's own filter and by ours; ours reads no property the release
// does not read on that call. With `filterAfterToolSteps` of one step or more
// and an exclude list ours also reads the `toolName` of the kept steps'
// parts, which the release does not (docs/differences.md): those, and only
// those, are allowed. The `providerOptions` of a result that stays are never
// read (issue 29).
//
// The order is compared for the user-visible getters of the parts, `toolName`
// and `providerOptions`: the release walks the prompt once per question (the
// excluded ids, reading `toolName`; the replacement texts, reading
// `providerOptions` and `toolName` again), ours once. So what is compared is
// the order of FIRST reads, per getter: the parts whose `toolName` is read
// come in the same order, and so do those whose `providerOptions` is, over
// the reads both make (ours' allowed extras left out). The order between the
// two getters is not compared: the release reads every `toolName` before the
// first `providerOptions`, ours reads a part's together.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { loadRelease, releasesWithFilterStage } from './helpers/releases.mjs'
import { createRng, sfc32 } from './helpers/random.mjs'
import { recorder } from './helpers/recording-proxy.mjs'
import { genFilterOptions, TOOL_NAMES } from './helpers/tool-call-filter-harness.mjs'
import { cases } from './helpers/counts.mjs'

// The same count in npm test and npm run test:all (helpers/counts.mjs).
const CASES = cases('TCF_READS_CASES', { quick: 300, all: 300 })

function genTurns(rng, first) {
  const prompt = []
  for (let t = 0, n = rng.int(1, 4); t < n; t++) {
    prompt.push({ role: 'user', content: [{ type: 'text', text: `q${t}` }] })
    for (let s = 0, m = rng.int(0, 3); s < m; s++) {
      const calls = []
      for (let c = 0, k = rng.int(1, 2); c < k; c++) calls.push({ id: `c${first.id++}`, name: rng.pick(TOOL_NAMES) })
      const text = rng.bool(0.3) ? [{ type: 'text', text: 'thinking' }] : []
      prompt.push({ role: 'assistant', content: [...text, ...calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: {} }))] })
      prompt.push({
        role: 'tool',
        content: calls.map((c) => {
          const output = rng.weighted([
            [2, { type: 'text', value: `v${c.id}` }],
            [1, { type: 'json', value: { a: [1, 'x'], b: { value: 'y' } } }],
            [1, [{ type: 'text', text: 't' }, 'u', []]],
          ])
          const providerOptions = rng.bool(0.5) ? { providerOptions: { mastra: { modelOutput: rng.pick(['mo', null, 0]) } } } : {}
          return { type: 'tool-result', toolCallId: c.id, toolName: c.name, output, ...providerOptions }
        }),
      })
    }
  }
  return prompt
}

/** The options of a case (`filterAfterToolSteps` less often than on the message list). */
const genOptions = (rng) => genFilterOptions(rng, { steps: 0.4 })

/** A part's user-visible getter read: `prompt.<m>.content.<p>.toolName` or `.providerOptions`. */
const GETTER = /^prompt\.\d+\.content\.\d+\.(toolName|providerOptions)$/

const KEPT_STEPS = /\.content\.\d+\.toolName$/

for (const version of releasesWithFilterStage('prompt')) {
  describe(`${version}: ToolCallFilter reads no prompt property the release does not`, () => {
    test(`${CASES} seeded prompts, two calls of a request each`, async () => {
      const { reference, ours } = await loadRelease(version)
      const failures = []
      const orders = []
      let compared = 0
      for (let seed = 1; seed <= CASES && failures.length + orders.length < 5; seed++) {
        const rng = createRng(seed, sfc32)
        const options = genOptions(rng)
        const counter = { id: 0 }
        const first = [{ role: 'system', content: 'You are helpful.' }, ...genTurns(rng, counter)]
        const second = [...first, ...genTurns(rng, counter)]
        const run = async (Filter) => {
          const reads = [new Set(), new Set()]
          const firsts = [[], []]
          const filter = new Filter(structuredClone(options))
          const state = {}
          for (const [call, prompt] of [first, second].entries()) {
            const wrap = recorder((read) => {
              if (!reads[call].has(read) && GETTER.test(read)) firsts[call].push(read)
              reads[call].add(read)
            })
            try {
              await filter.processLLMRequest({ prompt: wrap(structuredClone(prompt), 'prompt'), state })
            } catch (error) {
              reads[call].add(`threw ${error?.name}`)
            }
          }
          return { reads, firsts }
        }
        const ref = await run(reference.ToolCallFilter)
        const got = await run(ours.ToolCallFilter)
        const allowed = (read) => options.filterAfterToolSteps >= 1 && KEPT_STEPS.test(read)
        for (const call of [0, 1]) {
          const extra = [...got.reads[call]].filter((read) => !ref.reads[call].has(read) && !allowed(read))
          if (extra.length) failures.push(`seed ${seed} ${JSON.stringify(options)} call ${call + 1}: ours read ${extra.slice(0, 6).join(', ')}`)
          for (const getter of ['toolName', 'providerOptions']) {
            const both = (read) => read.endsWith(`.${getter}`) && ref.reads[call].has(read) && got.reads[call].has(read)
            const [ours, release] = [got.firsts[call].filter(both), ref.firsts[call].filter(both)]
            if (ours.join() !== release.join())
              orders.push(`seed ${seed} ${JSON.stringify(options)} call ${call + 1} ${getter}: ours ${ours.join(' ')} | release ${release.join(' ')}`)
            compared += release.length
          }
        }
      }
      assert.deepEqual(failures, [])
      assert.deepEqual(orders, [])
      assert.ok(compared > CASES, `too few getter reads to compare their order (${compared})`)
    })
  })
}
