// A constructor's record of 4,096 tools or more is indexed on a thread in two
// parts at once, the lookups made beside the first (the core's
// `IndexSource::split_point_beside_lookups`, 5/12 of the tools): these check
// that such a record answers as the reference, with what the parts split
// (repeated names across the split, ids other than keys, no id, text outside
// Latin-1), and that a bad tool late in it is refused as in a small one.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

/** Where the index of a record of `n` tools is split (see above). */
const splitPoint = (n) => Math.floor((n * 5) / 12)
const LARGE = 4_096

const kit = await toolSearchKit('1.71.0')
const { both, stepOf, search, load, tagged, makeRequestContext } = kit

const WORDS = ['weather', 'forecast', 'email', 'invoice', 'größe', '検索', 'data🙂base', 'query', 'records', 'payment']

/** `n` tools, every kind the tool table carries, some names repeated across the split. */
function largeRecord(n) {
  const split = splitPoint(n)
  const tools = {}
  for (let i = 0; i < n; i++) {
    const words = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} number${i % 97}`
    let key = `tool_${i}`
    let id = key
    if (i % 11 === 3) id = `other_${i}`
    // The same name at both sides of the split, and far apart.
    if (i === split - 1 || i === split) id = 'boundary_twin'
    if (i === 5 || i === n - 7) id = 'far_twin'
    if (i % 13 === 4) key = `keyed_${i}`
    const tool = tagged(id, i % 17 === 6 ? undefined : `${words} ${i % 5 === 0 ? 'Größe 検索' : ''}`, `t${i}`)
    if (i % 19 === 8) delete tool.id
    if (i % 23 === 9) tool.id = ''
    tools[key] = tool
  }
  return tools
}

describe('a large record, indexed in two parts', () => {
  for (const size of [LARGE, LARGE + 301]) {
    test(`${size} tools answer as the reference`, async () => {
      const tools = largeRecord(size)
      const rc = makeRequestContext({ threadId: 'large' })
      const queries = ['weather forecast', 'größe', '検索 payment', 'boundary_twin', 'far_twin records', 'tool_3000', 'number5', 'data🙂base query']
      const [ref, ours] = await both(async (P) => {
        const { s } = await stepOf(P, { tools, search: { topK: 20 } }, { requestContext: rc })
        const answers = []
        for (const query of queries) answers.push(await search(s, query, rc))
        answers.push(await load(s, { toolNames: ['boundary_twin', 'far_twin', `tool_${size - 1}`, 'other_14', 'nope'] }, rc))
        return answers
      })
      assert.ok(
        ours.slice(0, -1).every((answer) => answer.results.length > 0),
        'every query finds tools',
      )
      assert.deepEqual(ours, ref)
    })
  }

  test('a bad tool late in the record is refused as in a small one, and the next record is built', () => {
    const tools = largeRecord(LARGE + 10)
    const key = Object.keys(tools).at(-3)
    const bad = { ...tools, [key]: { ...tools[key], description: 42 } }
    assert.throws(() => new kit.Ours({ tools: bad }), {
      name: 'TypeError',
      message: `ToolSearchProcessor: options.tools.${key}.description must be a string, got a number`,
    })
    const small = { [key]: { ...tools[key], description: 42 } }
    assert.throws(() => new kit.Ours({ tools: small }), {
      name: 'TypeError',
      message: `ToolSearchProcessor: options.tools.${key}.description must be a string, got a number`,
    })
    assert.throws(() => new kit.Ours({ tools: { ...tools, [key]: null } }), TypeError)
    // Refused options after a large record read whole.
    assert.throws(() => new kit.Ours({ tools, search: { topK: 'many' } }), TypeError)
    assert.doesNotThrow(() => new kit.Ours({ tools }))
  })

  test("ranking 'fielded' over a large record finds a tool by its name", async () => {
    const tools = largeRecord(LARGE + 1)
    const rc = makeRequestContext({ threadId: 'fielded' })
    const { s } = await stepOf(kit.Ours, { tools, search: { ranking: 'fielded' } }, { requestContext: rc })
    const answer = await search(s, 'boundary_twin', rc)
    assert.equal(answer.results[0].name, 'boundary_twin')
  })
})
