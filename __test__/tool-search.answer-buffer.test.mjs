// Without a hook, search_tools comes back through an Int32Array the wrapper
// reuses (the checks against the live record, then the answer laid out
// flat), not as objects made through Node-API, and the loaded tools' checks
// come after the tools. What does not fit the buffer takes the slower way,
// and a call made while it is in use gets one of its own: these check that
// every way answers as the reference.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const kit = await toolSearchKit('1.71.0')
const { both, stepOf, search, load, tagged, makeRequestContext, describeTools } = kit

/** `n` tools that all match the query "shared", with distinct scores. */
function broadCatalog(n) {
  const tools = {}
  for (let i = 0; i < n; i++) {
    const id = `tool_${i}`
    tools[id] = tagged(id, `shared ${'word '.repeat(i % 7)}number ${i}`, id)
  }
  return tools
}

describe('answers larger than the reused buffer, and many checks', () => {
  for (const [label, filter] of [
    ['no hook', undefined],
    ['a hook (the operation hands its answer over the same way)', ({ toolName }) => !toolName.endsWith('7')],
  ]) {
    test(`${label}: a search with a thousand results`, async () => {
      const tools = broadCatalog(1_200)
      const rc = makeRequestContext({ threadId: 'big' })
      const [ref, ours] = await both(async (P) => {
        const { s } = await stepOf(P, { tools, filter, search: { topK: 1_100 } }, { requestContext: rc })
        return search(s, 'shared number', rc)
      })
      assert.ok(ours.results.length > 1_000, `${ours.results.length} results`)
      assert.deepEqual(ours, ref)
    })
  }

  // As below, the reference would take seconds: what it answers is stated.
  test('more checks than the buffer holds: a search is then checked as it goes', async () => {
    const tools = broadCatalog(4_200)
    const rc = makeRequestContext({ threadId: 'checks' })
    const record = { ...tools }
    const { s } = await stepOf(kit.Ours, { tools: record, search: { topK: 5_000 } }, { requestContext: rc })
    const before = await search(s, 'shared number', rc)
    assert.equal(before.results.length, 4_200)
    const gone = before.results[10].name
    delete record[gone]
    const after = await search(s, 'shared number', rc)
    assert.deepEqual(
      after.results,
      before.results.filter((result) => result.name !== gone),
    )
  })

  // The loaded tools' checks come after the tools, in the array made for
  // them. The reference takes seconds over so many loaded tools (it scans the
  // record for each), so this one states what it answers: the live-tools
  // tests check the same changes against it on small records.
  test('thousands of loaded tools: a tool deleted or swapped since is still noticed', async () => {
    const tools = broadCatalog(4_500)
    const names = Object.keys(tools)
    const rc = makeRequestContext({ threadId: 'many' })
    const record = { ...tools }
    const { processor, s, labels } = await stepOf(kit.Ours, { tools: record }, { requestContext: rc })
    for (const [id, tool] of Object.entries(tools)) labels.set(tool, id)
    assert.equal((await load(s, { toolNames: names }, rc)).loadedCount, names.length)
    delete record.tool_4321
    record.tool_17 = tools.tool_18
    const expected = names.filter((name) => name !== 'tool_4321').map((name) => [name, name === 'tool_17' ? 'tool_18' : name])
    const next = await kit.runStep(processor, { labels, requestContext: rc, stepNumber: 1 })
    assert.deepEqual(
      next.tools.filter(([name]) => name.startsWith('tool_')),
      expected,
    )
    const resumed = await processor.getLoadedToolsForRequestContext({ requestContext: rc })
    assert.deepEqual(describeTools(resumed, labels), expected)
  })
})

describe('a call made while the buffer is in use', () => {
  test('a getter of the record that searches on the same step, as the first search is being checked', async () => {
    const tools = broadCatalog(30)
    const rc = makeRequestContext({ threadId: 'nested' })
    const [ref, ours] = await both(async (P) => {
      const record = { ...tools }
      const { s } = await stepOf(P, { tools: record }, { requestContext: rc })
      const plain = await search(s, 'shared number', rc)
      const other = await search(s, 'word number 3', rc)
      // The record is read again as the answer is checked: this getter then
      // runs another search, synchronously, before the first one returns.
      let nested
      let entered = false
      const top = plain.results[0].name
      const tool = tools[top]
      Object.defineProperty(record, top, {
        enumerable: true,
        configurable: true,
        get() {
          if (!entered) {
            entered = true
            nested = s.result.tools.search_tools.execute({ query: 'word number 3' }, { requestContext: rc })
          }
          return tool
        },
      })
      const outer = await search(s, 'shared number', rc)
      assert.ok(nested !== undefined, 'the getter ran')
      return { plain, other, outer, nested: await nested }
    })
    assert.deepEqual(ours, ref)
    assert.deepEqual(ours.outer, ours.plain)
    assert.deepEqual(ours.nested, ours.other)
  })
})
