// includeResolvedTools and getLoadedToolsForRequestContext, literally: the
// step's own tools are withheld (meta-tools among them kept), searchable and
// loadable; each request indexes its own instances; the resume path rebuilds
// loaded tools. Release-independent: run on 1.71.0, also compared with its
// reference.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const { both, search, load, tagged, Labels, runStep, makeRequestContext, describeTools, toolInvocationMessage, docsCatalog } = await toolSearchKit('1.71.0')

describe('includeResolvedTools', () => {
  test('step tools are withheld (meta-tools among them kept) and become searchable and loadable', async () => {
    const { tools, labels } = docsCatalog()
    const mcpIssue = labels.set(tagged('mcp_jira_issue', 'Create a Jira issue for the current user', 'u1'), 'mcpIssue')
    const mcpCal = labels.set(tagged('mcp_calendar', 'Read the calendar of the current user', 'u1'), 'mcpCal')
    const staleSearch = labels.set(tagged('search_tools', 'stale search from a previous step', 'stale'), 'staleSearch')
    const stepTools = { search_tools: staleSearch, mcpIssue, mcpCal }
    const run = async (P) => {
      const p = new P({ tools, ttl: 0, includeResolvedTools: true })
      const rc = makeRequestContext({ threadId: 'resolved' })
      const s1 = await runStep(p, { labels, tools: { mcpIssue, mcpCal }, requestContext: rc })
      const r = await search(s1, 'jira issue', rc)
      const l = await load(s1, { toolNames: ['mcp_jira_issue', 'mcpCal', 'create_issue'] }, rc)
      const s2 = await runStep(p, { labels, tools: stepTools, requestContext: rc, stepNumber: 1 })
      const s3 = await runStep(p, { labels, tools: undefined, requestContext: rc, stepNumber: 2 })
      return { s1: s1.tools, r, l, s2: s2.tools, s3: s3.tools }
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(
      ours.s1.map(([n]) => n),
      ['search_tools', 'load_tool'],
    )
    assert.deepEqual(
      ours.r.results.map((x) => x.name),
      ['mcp_jira_issue', 'create_issue'],
    )
    assert.deepEqual(ours.l.loaded, ['mcp_jira_issue', 'mcpCal', 'create_issue'])
    // A meta-tool key among the step tools replaces the fresh one in place.
    assert.deepEqual(
      ours.s2.map(([n, d]) => [n, typeof d === 'string' ? d : 'meta']),
      [
        ['search_tools', 'staleSearch'],
        ['load_tool', 'meta'],
        ['mcp_jira_issue', 'mcpIssue'],
        ['mcpCal', 'mcpCal'],
        ['create_issue', 'createIssue'],
      ],
    )
    // Without the resolved tools, only the static loaded tool resolves.
    assert.deepEqual(
      ours.s3.map(([n]) => n),
      ['search_tools', 'load_tool', 'create_issue'],
    )
    assert.deepEqual(ours, ref)
  })

  test('each request indexes its own instances; without the option step tools pass straight through', async () => {
    const labels = new Labels()
    const u1 = labels.set(tagged('mcp_send', 'send mail as user', 'user1'), 'u1')
    const u2 = labels.set(tagged('mcp_send', 'send mail as user', 'user2'), 'u2')
    const extra = labels.set(tagged('extra', 'always there', 'x'), 'extra')
    const run = async (P) => {
      const p = new P({ tools: {}, ttl: 0, includeResolvedTools: true })
      const s1 = await runStep(p, { labels, tools: { mcp_send: u1 } })
      await load(s1, { toolName: 'mcp_send' })
      const a = (await runStep(p, { labels, tools: { mcp_send: u1 } })).tools.slice(2)
      const b = (await runStep(p, { labels, tools: { mcp_send: u2 } })).tools.slice(2)
      const resume = describeTools(await p.getLoadedToolsForRequestContext({ requestContext: makeRequestContext(), tools: { mcp_send: u2 } }), labels)
      const plain = new P({ tools: {}, ttl: 0 })
      const c = (await runStep(plain, { labels, tools: { extra, search_tools: extra } })).tools
      return { a, b, resume, c: c.map(([n, d]) => [n, typeof d === 'string' ? d : 'meta']) }
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours.a, [['mcp_send', 'u1']])
    assert.deepEqual(ours.b, [['mcp_send', 'u2']])
    assert.deepEqual(ours.resume, [['mcp_send', 'u2']])
    assert.deepEqual(ours.c, [
      ['search_tools', 'extra'],
      ['load_tool', 'meta'],
      ['extra', 'extra'],
    ])
    assert.deepEqual(ours, ref)
  })
})

// ---------------------------------------------------------------------------
// getLoadedToolsForRequestContext
// ---------------------------------------------------------------------------

describe('getLoadedToolsForRequestContext', () => {
  test('with { requestContext, stepArgs, tools } and without stepArgs', async () => {
    const { tools, labels } = docsCatalog()
    const resolved = labels.set(tagged('mcp_files', 'list files', 'r'), 'mcpFiles')
    const run = async (P) => {
      const out = {}
      for (const storage of ['in-memory', 'context']) {
        const p = new P({ tools, ttl: 0, storage, includeResolvedTools: true })
        const rc = makeRequestContext({ threadId: 'glt' })
        const s1 = await runStep(p, { labels, requestContext: rc, tools: { mcpFiles: resolved } })
        const res = await load(s1, { toolNames: ['get_weather', 'mcpFiles'] }, rc)
        const msgs = [toolInvocationMessage([{ toolName: 'load_tool', result: res }])]
        const s2 = await runStep(p, { labels, requestContext: rc, messages: msgs, tools: { mcpFiles: resolved } })
        const g = async (a) => describeTools(await p.getLoadedToolsForRequestContext(a), labels)
        out[storage] = {
          full: await g({ requestContext: rc, stepArgs: s2.args, tools: { mcpFiles: resolved } }),
          stepArgsOnly: await g({ stepArgs: s2.args }),
          noStepArgs: await g({ requestContext: rc, tools: { mcpFiles: resolved } }),
          noTools: await g({ requestContext: rc }),
          otherThread: await g({ requestContext: makeRequestContext({ threadId: 'other' }) }),
          none: await g(undefined),
          empty: await g({}),
        }
      }
      return out
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours['in-memory'], {
      full: [
        ['get_weather', 'getWeather'],
        ['mcpFiles', 'mcpFiles'],
      ],
      stepArgsOnly: [
        ['get_weather', 'getWeather'],
        ['mcpFiles', 'mcpFiles'],
      ],
      noStepArgs: [
        ['get_weather', 'getWeather'],
        ['mcpFiles', 'mcpFiles'],
      ],
      noTools: [['get_weather', 'getWeather']],
      otherThread: [],
      none: [],
      empty: [],
    })
    assert.deepEqual(ours.context, {
      full: [
        ['get_weather', 'getWeather'],
        ['mcpFiles', 'mcpFiles'],
      ],
      stepArgsOnly: [
        ['get_weather', 'getWeather'],
        ['mcpFiles', 'mcpFiles'],
      ],
      // the messages took the names over from the supplemental set, so the resume path has nothing
      noStepArgs: [],
      noTools: [],
      otherThread: [],
      none: [],
      empty: [],
    })
    assert.deepEqual(ours, ref)
  })
})
