// ToolSearchProcessor `injectCatalog` inside each supported release's own Agent
// (scripted mock model, no network). From 1.67.0 the release lists the catalog,
// filtered by the hook's 'search' phase, in the system prompt, and the model
// loads a tool without searching; earlier releases ignore the option. Ours must
// hand the model exactly what the release's own processor does, in `generate`
// and `stream`. Scenarios: __test__/fixtures/runner/inject-catalog.mjs.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { AGENT_RELEASES, MODES, assertSameRun, names, releaseTraits, scenarioRun, suiteRuns, systemTexts, toolResultsIn } from './helpers/agent-fixtures.mjs'
import { INSTRUCTION, INSTRUCTION_AUTOLOAD, META, SYSTEM, catalogText } from './helpers/tool-search-texts.mjs'

const runs = suiteRuns('inject-catalog')

const CATALOG = [
  '- `get_weather`: Get the current weather forecast for a city',
  '- `send_email`: Send an email to a recipient',
  '- `create_issue`: Create a new GitHub issue in a repository',
  '- `list_pull_requests`: List open pull requests for a GitHub repository',
  '- `merge_pull_request`: Merge a GitHub pull request',
  '- `db_query`: Run a read-only SQL query against the database',
  '- `premium_export`: Export a premium analytics report as PDF',
  '- `delete_file`: Delete a file from disk (requires approval)',
]
const WITHOUT_PREMIUM = CATALOG.filter((line) => !line.startsWith('- `premium_export`'))

/** Every model call of a request had exactly these system messages. */
function systemPrompt(calls, { injectCatalog }, { autoLoad, lines }) {
  const expected = [SYSTEM, autoLoad ? INSTRUCTION_AUTOLOAD : INSTRUCTION]
  if (injectCatalog) expected.push(catalogText(lines, { autoLoad }))
  for (const c of calls) assert.deepEqual(systemTexts(c), expected)
}

const EXPECT = {
  'injectCatalog: load → use without a search'(run, traits) {
    const [calls] = run.calls
    systemPrompt(calls, traits, { autoLoad: false, lines: CATALOG })
    assert.deepEqual(calls.map(names), [META, [...META, 'get_weather'], [...META, 'get_weather']])
    assert.deepEqual(run.executed, [['get_weather', { city: 'Paris' }]])
  },
  'injectCatalog + autoLoad: search → use'(run, traits) {
    const [calls] = run.calls
    systemPrompt(calls, traits, { autoLoad: true, lines: CATALOG })
    assert.deepEqual(names(calls[1]), ['search_tools', 'merge_pull_request', 'list_pull_requests'])
    assert.deepEqual(run.executed, [['merge_pull_request', { number: 7 }]])
  },
  'injectCatalog + a filter that hides a tool'(run, traits) {
    const [free, pro] = run.calls
    systemPrompt(free, traits, { autoLoad: false, lines: WITHOUT_PREMIUM })
    systemPrompt(pro, traits, { autoLoad: false, lines: CATALOG })
    assert.deepEqual(toolResultsIn(free[1]), [
      [
        'load_tool',
        {
          success: false,
          message: 'Tool "premium_export" not found. Use search_tools to find available tools.',
          toolName: 'premium_export',
        },
      ],
    ])
    assert.deepEqual(names(free[2]), META)
    assert.deepEqual(names(pro[1]), [...META, 'premium_export'])
    assert.deepEqual(run.executed, [['premium_export', { report: 'q3' }]], 'only the pro plan could use it')
  },
  'injectCatalog + autoLoad + a filter that hides a tool'(run, traits) {
    const [free, pro] = run.calls
    systemPrompt(free, traits, { autoLoad: true, lines: WITHOUT_PREMIUM })
    systemPrompt(pro, traits, { autoLoad: true, lines: CATALOG })
    assert.deepEqual(toolResultsIn(free[1])[0][1].results, [])
    assert.deepEqual(names(free[2]), ['search_tools'])
    assert.deepEqual(names(pro[1]), ['search_tools', 'premium_export'])
    assert.deepEqual(run.executed, [['premium_export', { report: 'q3' }]], 'only the pro plan could use it')
  },
}

for (const version of AGENT_RELEASES) {
  const traits = releaseTraits(version)
  describe(`ToolSearchProcessor injectCatalog in @mastra/core ${version}'s own Agent`, () => {
    test('the runner ran every scenario with its expectations', async () => {
      const { host, results } = await runs[version]
      assert.equal(host.oursHostVersion, version)
      assert.deepEqual(Object.keys(results), Object.keys(EXPECT))
    })
    for (const [name, expect] of Object.entries(EXPECT)) {
      for (const mode of MODES) {
        test(`${name} [${mode}]`, async () => {
          const { ref, ours } = await scenarioRun(runs, version, name, mode)
          expect(ref, traits)
          assertSameRun(ours, ref)
          expect(ours, traits)
        })
      }
    }
  })
}
