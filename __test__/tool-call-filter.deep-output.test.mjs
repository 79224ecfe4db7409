// ToolCallFilter({ preserveModelOutput: true }) with model outputs nested far
// deeper than any real tool makes (issue 19, item 1): every depth the
// release's own processor turns into text, ours turns into the same text; past
// the depth where the release's recursion overflows the stack, ours still
// gives the text (docs/differences.md); an output that contains itself is a
// TypeError; one nested past MAX_NODE_DEPTH (a million levels) is a TypeError
// that says so. Each release stage reads its outputs where it keeps them: the
// 1.59 message list in `providerMetadata.mastra.modelOutput`, 1.60+ prompts in
// the result's `output`.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { settle, inputArgs, isStackOverflow } from './helpers/tool-call-filter-harness.mjs'
import { loadRelease, releasesWithFilterStage, TESTED_RELEASES } from './helpers/releases.mjs'

const nestArrays = (depth, leaf = 'deep') => {
  let o = leaf
  for (let i = 0; i < depth; i++) o = [o]
  return o
}
const nestValues = (depth, leaf = 'deep') => {
  let o = leaf
  for (let i = 0; i < depth; i++) o = { type: 'json', value: o }
  return o
}
/** Arrays and `{ value }` objects alternating, with an empty array beside each (its JSON is no text). */
const nestMixed = (depth) => {
  let o = 'deep'
  for (let i = 0; i < depth; i++) o = i % 2 ? [[], o, ''] : { value: o }
  return o
}

/** The text each release's filter leaves for one excluded result with this model output, or its error. */
function runnerFor(version) {
  const stage = releasesWithFilterStage('prompt').includes(version) ? 'prompt' : 'messageList'
  return async (Filter, output) => {
    const filter = new Filter({ preserveModelOutput: true })
    if (stage === 'prompt') {
      const prompt = [
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'deep', input: {} }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'deep', output, providerOptions: { mastra: { modelOutput: true } } }] },
      ]
      const outcome = await settle(() => filter.processLLMRequest({ prompt, state: {} }))
      return outcome.threw ? outcome : { text: outcome.value?.prompt.map((m) => m.content.map((p) => p.text).join('|')).join('/') }
    }
    const messages = [
      {
        id: 'm1',
        role: 'assistant',
        content: {
          format: 2,
          parts: [
            {
              type: 'tool-invocation',
              toolInvocation: { state: 'result', toolCallId: 'c1', toolName: 'deep', args: {}, result: {} },
              providerMetadata: { mastra: { modelOutput: output } },
            },
          ],
        },
      },
    ]
    const outcome = await settle(() => filter.processInput(inputArgs(messages)))
    return outcome.threw ? outcome : { text: outcome.value.map((m) => m.content.parts.map((p) => p.text).join('|')).join('/') }
  }
}

/**
 * Whether the release's own recursion ran out of stack at a depth where
 * that depends on the machine: how deep a stack frame is depends on which
 * tier of V8 runs the release's function and on the stack Node was given, so
 * from 1,000 levels on the release may overflow on one machine and not on
 * another (docs/differences.md: ours gives the text there). Below that, an
 * overflow is a failure like any other.
 */
const overflowedBeyondReach = (ref, depth) => depth >= 1_000 && ref.threw && isStackOverflow(ref.error)

for (const version of TESTED_RELEASES) {
  describe(`${version}: ToolCallFilter, model outputs nested deep`, () => {
    const run = runnerFor(version)
    const filters = async () => {
      const { reference, ours } = await loadRelease(version)
      return { Ref: reference.ToolCallFilter, Ours: ours.ToolCallFilter }
    }

    test('every depth the release turns into text, ours turns into the same text', async () => {
      const { Ref, Ours } = await filters()
      for (const [label, make] of [
        ['arrays', nestArrays],
        ['values', nestValues],
        ['arrays and values', nestMixed],
      ]) {
        for (const depth of [511, 512, 513, 600, 1_000, 1_500]) {
          const ref = await run(Ref, make(depth))
          const ours = await run(Ours, make(depth))
          assert.ok(!ours.threw, `${label} ${depth}: ours threw ${ours.error}`)
          if (make !== nestMixed) assert.equal(ours.text, 'deep result:\ndeep', `${label} ${depth}`)
          if (overflowedBeyondReach(ref, depth)) continue
          assert.ok(!ref.threw, `${label} ${depth}: the release's own filter handles it (${ref.error})`)
          assert.equal(ours.text, ref.text, `${label} ${depth}`)
        }
      }
      // `{ value }` chains go deeper in the release before it overflows.
      for (const depth of [2_000, 3_000]) {
        const ref = await run(Ref, nestValues(depth))
        const ours = await run(Ours, nestValues(depth))
        assert.deepEqual(ours, { text: 'deep result:\ndeep' }, `values ${depth}`)
        if (overflowedBeyondReach(ref, depth)) continue
        assert.deepEqual(ours, ref, `values ${depth}`)
      }
      // Nested empty arrays: the innermost one's JSON is the text.
      const empties = nestArrays(1_000, [])
      assert.deepEqual(await run(Ours, empties), await run(Ref, empties))
    })

    test('past the depth where the release overflows its stack, ours still gives the text', async () => {
      const { Ref, Ours } = await filters()
      for (const make of [nestArrays, nestValues]) {
        const ref = await run(Ref, make(100_000))
        assert.ok(ref.threw && isStackOverflow(ref.error), `the release overflows: ${ref.error}`)
        assert.deepEqual(await run(Ours, make(100_000)), { text: 'deep result:\ndeep' })
      }
    })

    test('20,000 levels of nested arrays around an empty one give its JSON, in one stringify (issue 29)', async () => {
      const { Ref, Ours } = await filters()
      // The release makes the innermost array's JSON and nothing else; ours
      // asked for every level's once, which cost the cube of the depth.
      const spy = (depth) => {
        const counted = { calls: 0 }
        const inner = []
        inner.toJSON = function () {
          counted.calls++
          return []
        }
        return { counted, output: nestArrays(depth, inner) }
      }
      for (const depth of [3, 1_000]) {
        const ref = spy(depth)
        const ours = spy(depth)
        const expected = await run(Ref, ref.output)
        if (overflowedBeyondReach(expected, depth)) continue
        assert.deepEqual(await run(Ours, ours.output), expected)
        assert.deepEqual([ours.counted.calls, ref.counted.calls], [1, 1], `depth ${depth}`)
      }
      assert.deepEqual(await run(Ours, nestArrays(20_000, [])), { text: 'deep result:\n[]' })
    })

    test('where the JSON of arrays in arrays throws, each is dropped as the release drops it, stringified once', async () => {
      const { Ref, Ours } = await filters()
      // An item whose JSON throws and that has no text: the release then
      // stringifies every array around it, and each throws; ours takes an
      // array around one that threw to throw (docs/differences.md).
      const throwing = (depth) => {
        const counted = { calls: 0 }
        const item = {
          toJSON() {
            counted.calls++
            throw new Error('no JSON')
          },
        }
        return { counted, output: nestArrays(depth, [item]) }
      }
      for (const depth of [0, 1, 5, 200]) {
        const ref = throwing(depth)
        const ours = throwing(depth)
        assert.deepEqual(await run(Ours, ours.output), await run(Ref, ref.output), `depth ${depth}`)
        // The item itself, then the array holding it: the release goes on through every level.
        assert.deepEqual([ours.counted.calls, ref.counted.calls], [2, depth + 2], `depth ${depth}`)
      }
    })

    test('an output that contains itself, at any depth, is a TypeError', async () => {
      const { Ours } = await filters()
      for (const depth of [0, 1, 700, 5_000]) {
        const arrays = []
        arrays.push(arrays)
        const values = { type: 'json' }
        values.value = values
        for (const cycle of [arrays, values]) {
          const ours = await run(Ours, nestArrays(depth, cycle))
          assert.ok(ours.threw && ours.error instanceof TypeError, `depth ${depth}: ${ours.error}`)
          assert.match(ours.error.message, /contains itself or nests too deep/)
        }
      }
    })

    // A million levels take seconds to build and walk: the oldest and newest releases cover both stages.
    const far = version === TESTED_RELEASES[0] || version === TESTED_RELEASES.at(-1)
    test('an output nested past a million levels is a TypeError that says so', { skip: !far }, async () => {
      const { Ours } = await filters()
      const ours = await run(Ours, nestArrays(1_000_001))
      assert.ok(ours.threw && ours.error instanceof TypeError, String(ours.error))
      assert.match(ours.error.message, /contains itself or nests too deep/)
      assert.deepEqual(await run(Ours, nestArrays(999_999)), { text: 'deep result:\ndeep' })
    })
  })
}
