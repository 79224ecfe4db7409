// ToolSearchProcessor inside each supported release's own Agent, driven by a
// scripted AI SDK mock model that searches, loads and uses tools (no network):
// the release's own processor and ours must hand the model identical prompts
// and tool sets on every call, in `generate` and `stream`, and the caller must
// see the same results. The scenarios are in __test__/fixtures/runner/tool-search.mjs;
// each runs inside a fixture project of its release (scripts/agent-fixtures.mjs).
//
// Three scenarios show the two upstream fixes we adopt on every release
// (docs/differences.md): on 1.59.0 the release's own processor behaves as
// written below and ours differs on purpose; from 1.60.0 the release has the
// fixes and the two are identical.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { AGENT_RELEASES, MODES, assertSameRun, names, releaseTraits, scenarioRun, suiteRuns, systemTexts, toolResultsIn } from './helpers/agent-fixtures.mjs'
import { INSTRUCTION, INSTRUCTION_AUTOLOAD, META, SYSTEM } from './helpers/tool-search-texts.mjs'

const runs = suiteRuns('tool-search')

const deleted = [['delete_file', { path: '/tmp/x' }]]
/** Suspended on delete_file, approved, executed once; the loaded tool was offered throughout. */
function approved(run) {
  const [calls] = run.calls
  assert.equal(calls.length, 3)
  assert.deepEqual(names(calls[1]), [...META, 'delete_file'])
  assert.deepEqual(names(calls[2]), [...META, 'delete_file'])
  assert.deepEqual(toolResultsIn(calls[2]).at(-1), ['delete_file', { ok: true, tool: 'delete_file', input: { path: '/tmp/x' } }])
  assert.equal(run.outputs[0].suspended.toolCallId, 'c2')
  assert.equal(run.outputs[1].text, 'deleted')
  assert.deepEqual(run.executed, deleted)
}

/** Literal expectations per scenario, holding for the release's processor and ours. */
const EXPECT = {
  'search → load → use'(run) {
    const [calls] = run.calls
    assert.equal(calls.length, 4)
    assert.deepEqual(calls.map(names), [META, META, [...META, 'get_weather'], [...META, 'get_weather']])
    assert.deepEqual(calls[2].tools[2].inputSchema.properties, { city: { type: 'string' } })
    for (const c of calls) assert.deepEqual(systemTexts(c), [SYSTEM, INSTRUCTION])
    assert.deepEqual(toolResultsIn(calls[1]), [
      [
        'search_tools',
        {
          results: [{ name: 'get_weather', description: 'Get the current weather forecast for a city', score: 6.23 }],
          message: 'Found 1 tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.',
        },
      ],
    ])
    assert.deepEqual(run.executed, [['get_weather', { city: 'Paris' }]])
    assert.equal(run.outputs[0].text, 'It is sunny in Paris.')
  },
  'multi-load with not-found names and suggestions'(run) {
    const [calls] = run.calls
    assert.deepEqual(toolResultsIn(calls[1]).at(-1), [
      'load_tool',
      {
        success: false,
        message: 'Loaded: get_weather, sendEmail — available on your next turn | Not found: send_emial',
        loadedCount: 2,
        loaded: ['get_weather', 'sendEmail'],
        notFound: ['send_emial'],
        alreadyLoaded: undefined,
      },
    ])
    assert.deepEqual(toolResultsIn(calls[2]).slice(-2), [
      ['load_tool', { success: false, message: 'Tool "weather" not found. Did you mean: getWeather?', toolName: 'weather' }],
      ['load_tool', { success: false, message: 'Tool "merge" not found. Did you mean: mergePR?', toolName: 'merge' }],
    ])
    assert.deepEqual(names(calls[2]), [...META, 'get_weather', 'sendEmail'])
    assert.deepEqual(run.executed.map((e) => e[0]).sort(), ['get_weather', 'send_email'])
  },
  autoLoad(run) {
    const [calls] = run.calls
    assert.deepEqual(names(calls[0]), ['search_tools'])
    assert.deepEqual(names(calls[1]), ['search_tools', 'merge_pull_request', 'list_pull_requests'])
    assert.deepEqual(systemTexts(calls[0]), [SYSTEM, INSTRUCTION_AUTOLOAD])
    assert.deepEqual(run.executed, [['merge_pull_request', { number: 7 }]])
  },
  "storage: 'context' (and a restart on the same memory thread)"(run) {
    const [first, second] = run.calls
    assert.deepEqual(names(first[0]), META)
    assert.deepEqual(names(first[1]), [...META, 'get_weather'], 'a search result loads with the context store')
    assert.deepEqual(names(first[2]), [...META, 'get_weather', 'send_email'])
    assert.deepEqual(names(second[0]), [...META, 'get_weather', 'send_email'], 'restored from the stored messages')
    assert.deepEqual(run.executed.map((e) => e[0]).sort(), ['get_weather', 'get_weather', 'send_email'])
  },
  'filter across phases driven by requestContext'(run) {
    const [m1, m2, m3] = run.calls
    assert.deepEqual(
      toolResultsIn(m1[1])[0][1].results.map((x) => x.name),
      ['premium_export'],
    )
    assert.deepEqual(toolResultsIn(m1[2]).at(-1), [
      'load_tool',
      {
        success: false,
        message: 'Tool "premium_export" not found. Use search_tools to find available tools.',
        toolName: 'premium_export',
      },
    ])
    assert.deepEqual(names(m2[1]), [...META, 'premium_export', 'get_weather'])
    assert.deepEqual(names(m3[0]), [...META, 'get_weather'], 'premium_export hidden for the free plan')
    assert.deepEqual(
      run.executed.map((e) => e[0]),
      ['premium_export', 'get_weather'],
    )
  },
  'includeResolvedTools with a dynamic tools function'(run) {
    const [m1, m2] = run.calls
    assert.deepEqual(names(m1[0]), META, 'resolved tools are withheld')
    assert.deepEqual(
      toolResultsIn(m1[1])[0][1].results.map((x) => x.name),
      ['mcp_jira_issue', 'create_issue'],
    )
    assert.deepEqual(names(m1[2]), [...META, 'mcp_jira_issue'])
    assert.deepEqual(names(m2[0]), [...META, 'mcp_jira_issue'])
    assert.deepEqual(run.executed, [
      ['mcp_jira_issue', 'user-1', { summary: 'bug' }],
      ['mcp_jira_issue', 'user-2', { summary: 'other bug' }],
    ])
  },
  'requireApproval: approve on the same agent'(run) {
    approved(run)
    assert.deepEqual(run.underDefault, ['delete_file'])
  },
  'requireApproval: approve on a fresh agent (getLoadedToolsForRequestContext)'(run) {
    approved(run)
    assert.deepEqual(run.underDefault, ['delete_file'])
  },
}

/** The adopted fixes: `ours` holds for ours everywhere (and for the release from 1.60.0), `reference159` for 1.59.0's own. */
const FIXES = {
  'requireApproval on a memory thread: approve on a fresh agent': {
    ours(run) {
      approved(run)
      assert.deepEqual(run.underDefault, [], "the state lives under the memory thread, not 'default'")
    },
    reference159(run) {
      approved(run)
      assert.deepEqual(run.underDefault, ['delete_file'])
    },
  },
  'in-memory loaded tools per memory thread': {
    ours(run) {
      const [a, b, a2] = run.calls
      assert.deepEqual(names(a[1]), [...META, 'get_weather'])
      assert.deepEqual(names(b[0]), META, 'thread B does not see what thread A loaded')
      assert.deepEqual(names(a2[0]), [...META, 'get_weather'])
      assert.equal(run.threadCount, 2)
    },
    reference159(run) {
      assert.deepEqual(names(run.calls[1][0]), [...META, 'get_weather'], "every thread is 'default'")
      assert.equal(run.threadCount, 1)
    },
  },
  "storage: 'context' counts a single-toolName load_tool result": {
    ours(run) {
      assert.deepEqual(names(run.calls[0][1]), [...META, 'get_weather'])
      assert.deepEqual(run.executed, [['get_weather', { city: 'Kyoto' }]])
    },
    reference159(run) {
      assert.deepEqual(names(run.calls[0][1]), META)
      assert.deepEqual(run.executed, [])
    },
  },
}

for (const version of AGENT_RELEASES) {
  const { threadFixes } = releaseTraits(version)
  describe(`ToolSearchProcessor in @mastra/core ${version}'s own Agent`, () => {
    test('the runner ran every scenario with its expectations', async () => {
      const { host, results } = await runs[version]
      assert.equal(host.oursHostVersion, version)
      assert.deepEqual(Object.keys(results), [...Object.keys(EXPECT), ...Object.keys(FIXES)])
    })
    for (const [name, expect] of Object.entries(EXPECT)) {
      for (const mode of MODES) {
        test(`${name} [${mode}]`, async () => {
          const { ref, ours } = await scenarioRun(runs, version, name, mode)
          expect(ref)
          assertSameRun(ours, ref)
          expect(ours)
        })
      }
    }
    for (const [name, { ours: expectOurs, reference159 }] of Object.entries(FIXES)) {
      for (const mode of MODES) {
        test(`${name} [${mode}]`, async () => {
          const { ref, ours } = await scenarioRun(runs, version, name, mode)
          expectOurs(ours)
          if (!threadFixes) return reference159(ref)
          expectOurs(ref)
          assertSameRun(ours, ref)
        })
      }
    }
  })
}
