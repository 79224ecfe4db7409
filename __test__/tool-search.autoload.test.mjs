// search.autoLoad, literally: no load_tool, the autoLoad instruction and
// description, and search results loaded for the next step.
// Release-independent: run on 1.71.0, also compared with its reference.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { INSTRUCTION_AUTOLOAD, SEARCH_DESCRIPTION_AUTOLOAD, SEARCH_INPUT_SCHEMA, NONE } from './helpers/tool-search-literals.mjs'

const { both, search, runStep, makeRequestContext, describeMetaTool, docsCatalog, snapshot } = await toolSearchKit('1.71.0')

describe('search.autoLoad', () => {
  test('no load_tool, autoLoad instruction and description, matches activate for the next step', async () => {
    const { tools, labels } = docsCatalog()
    const rc = makeRequestContext({ threadId: 'auto' })
    const run = async (P) => {
      const p = new P({ tools, ttl: 0, search: { topK: 3, autoLoad: true } })
      const s1 = await runStep(p, { labels, requestContext: rc, realMessageList: true })
      const r1 = await search(s1, 'github', rc)
      const r2 = await search(s1, 'github pull', rc)
      const r3 = await search(s1, 'zzz', rc)
      const s2 = await runStep(p, { labels, requestContext: rc, stepNumber: 1 })
      const r4 = await search(s2, 'weather', rc)
      const s3 = await runStep(p, { labels, requestContext: rc, stepNumber: 2 })
      return { s1, r1, r2, r3, s2, r4, s3 }
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours.s1.toolNames, ['search_tools'])
    assert.deepEqual(ours.s1.systemCalls, [[INSTRUCTION_AUTOLOAD]])
    const meta = describeMetaTool(ours.s1.result.tools.search_tools)
    assert.equal(meta.fields.description, SEARCH_DESCRIPTION_AUTOLOAD)
    assert.deepEqual(meta.fields.inputSchema, SEARCH_INPUT_SCHEMA)
    assert.deepEqual(ours.r1, {
      results: [
        { name: 'merge_pull_request', description: 'Merge a GitHub pull request', score: 1.31 },
        { name: 'create_issue', description: 'Create a new GitHub issue in a repository', score: 1.23 },
        { name: 'list_pull_requests', description: 'List open pull requests for a GitHub repository', score: 1.11 },
      ],
      message: 'Found and loaded 3 tool(s): merge_pull_request, create_issue, list_pull_requests. They are available on your next turn — call them directly.',
    })
    assert.deepEqual(
      ours.r2.message,
      'Found and loaded 3 tool(s): merge_pull_request, list_pull_requests, create_issue. They are available on your next turn — call them directly. Some were already loaded.',
    )
    assert.deepEqual(ours.r3, { results: [], message: NONE('zzz') })
    assert.deepEqual(
      ours.s2.tools.map(([n, d]) => [n, typeof d === 'string' ? d : 'meta']),
      [
        ['search_tools', 'meta'],
        ['merge_pull_request', 'mergePR'],
        ['create_issue', 'createIssue'],
        ['list_pull_requests', 'listPRs'],
      ],
    )
    assert.deepEqual(ours.s3.toolNames, ['search_tools', 'merge_pull_request', 'create_issue', 'list_pull_requests', 'get_weather'])
    assert.deepEqual(
      snapshot({ ...ours, s1: ours.s1.tools, s2: ours.s2.tools, s3: ours.s3.tools }),
      snapshot({ ...ref, s1: ref.s1.tools, s2: ref.s2.tools, s3: ref.s3.tools }),
    )
  })
})
