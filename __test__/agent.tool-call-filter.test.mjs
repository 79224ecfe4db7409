// ToolCallFilter inside each supported release's own Agent, driven by a scripted
// AI SDK mock model (no network): the release's own ToolCallFilter and ours must
// hand the model identical prompts and tool sets on every call, in `generate`
// and `stream`. The scenarios are in __test__/fixtures/runner/tool-call-filter.mjs;
// each runs inside a fixture project of its release (scripts/agent-fixtures.mjs).
//
// The literal checks below hold for both sides and prove the comparison is not
// vacuous; where the release's own filter changed (1.60.0 moved it to the
// provider prompt, 1.68.0 narrowed preserveModelOutput) they follow the release.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import {
  AGENT_RELEASES,
  MODES,
  assertSameRun,
  names,
  releaseTraits,
  scenarioRun,
  suiteRuns,
  textsOf,
  toolCallIds,
  toolResultIds,
} from './helpers/agent-fixtures.mjs'

const runs = suiteRuns('tool-call-filter')

const HISTORY_CALLS = ['hist-search', 'hist-weather']
const prompts = (run) => run.calls.map((c) => c.prompt)
/** The three model calls of the MULTI_STEP script, and its final answer. */
function multiStep(run) {
  assert.equal(run.calls.length, 3)
  assert.equal(run.outputs.at(-1).text, 'Paris is 18C, Lyon is 16C, no orders.')
  return prompts(run)
}
const has = (texts, text, expected) => assert.equal(texts.includes(text), expected, `${JSON.stringify(text)} ${expected ? 'is' : 'is not'} in the prompt`)

/** Literal expectations per scenario: (run, traits of the release) -> asserts. */
const EXPECT = {
  'no filter (the harness sees history tool calls)'(run) {
    assert.deepEqual(toolCallIds(run.calls[0].prompt), HISTORY_CALLS)
    assert.deepEqual(toolResultIds(run.calls[0].prompt), HISTORY_CALLS)
  },
  'new ToolCallFilter() (exclude all)'(run) {
    const [p0, p1, p2] = multiStep(run)
    assert.deepEqual(toolCallIds(p0), [], 'no history tool call reaches the model')
    assert.deepEqual(toolResultIds(p0), [])
    has(textsOf(p0), 'Let me look.', true) // the text of the message that made the calls stays
    has(textsOf(p0), 'Order 42 exists; Tokyo is 21C.', true)
    assert.deepEqual(toolCallIds(p1), ['call-s1'], "without filterAfterToolSteps the run's own calls stay")
    assert.deepEqual(toolCallIds(p2), ['call-s1', 'call-s2a', 'call-s2b'])
  },
  "exclude: ['searchDatabase']"(run) {
    const [p0, , p2] = multiStep(run)
    assert.deepEqual(toolCallIds(p0), ['hist-weather'])
    assert.deepEqual(toolResultIds(p0), ['hist-weather'])
    assert.deepEqual(toolCallIds(p2), ['hist-weather', 'call-s1', 'call-s2a', 'call-s2b'])
  },
  'exclude: [] (keep everything)'(run) {
    assert.deepEqual(toolCallIds(run.calls[0].prompt), HISTORY_CALLS)
  },
  'filterAfterToolSteps: 1 (multi-step run)'(run, { promptFilter }) {
    const [p0, p1, p2] = multiStep(run)
    // the message-list filter's processInput removes all history calls; the prompt
    // filter keeps the last tool step, which at first is the history's
    assert.deepEqual(toolCallIds(p0), promptFilter ? HISTORY_CALLS : [])
    assert.deepEqual(toolCallIds(p1), ['call-s1'], "the model sees the previous step's tool call")
    assert.deepEqual(toolResultIds(p1), ['call-s1'])
    assert.deepEqual(toolCallIds(p2), ['call-s2a', 'call-s2b'], 'the older tool step is gone')
    assert.deepEqual(toolResultIds(p2), ['call-s2a', 'call-s2b'])
  },
  'filterAfterToolSteps: 1 with reused tool call ids'(run, { promptFilter }) {
    assert.equal(run.calls.length, 3)
    assert.equal(run.outputs[0].text, 'Paris is 18C, Lyon is 16C.')
    const [, p1, p2] = prompts(run)
    assert.deepEqual(toolCallIds(p1), ['call_0'])
    // (the Agent's message list merges the second call_0 into the first.) The
    // message-list filter records step 2 (no new id) as an empty step and so drops
    // everything; the prompt filter keeps the last tool step's id
    assert.deepEqual(toolCallIds(p2), promptFilter ? ['call_0'] : [])
  },
  'preserveModelOutput: true'(run, { promptFilter, ownModelOutputOnly }) {
    const [p0, p1, p2] = multiStep(run)
    assert.deepEqual(toolCallIds(p0), [])
    has(textsOf(p0), 'searchDatabase result:\n1 row: order 42', true)
    // a result without a stored model output: dropped, or its JSON from 1.60 to 1.67
    has(textsOf(p0), 'sendEmail result:\n{"sent":true}', promptFilter && !ownModelOutputOnly)
    assert.deepEqual(toolCallIds(p1), ['call-s1'])
    assert.deepEqual(toolCallIds(p2), ['call-s1', 'call-s2a', 'call-s2b'])
  },
  'preserveModelOutput: true + filterAfterToolSteps: 0'(run, { promptFilter, ownModelOutputOnly }) {
    const [p0, p1, p2] = multiStep(run)
    for (const p of [p0, p1, p2]) assert.deepEqual(toolCallIds(p), [])
    has(textsOf(p0), 'searchDatabase result:\n1 row: order 42', true)
    has(textsOf(p0), 'sendEmail result:\n{"sent":true}', promptFilter && !ownModelOutputOnly)
    has(textsOf(p1), 'getWeather result:\nParis: 18C', true) // this run's toModelOutput
    has(textsOf(p2), 'getWeather result:\nLyon: 16C', true)
    has(textsOf(p2), 'searchDatabase result:\n{"rows":[],"query":"paris orders"}', promptFilter && !ownModelOutputOnly)
  },
  "exclude: ['searchDatabase'] + preserveModelOutput + filterAfterToolSteps: 1"(run, { promptFilter }) {
    const [p0, p1, p2] = multiStep(run)
    assert.deepEqual(toolCallIds(p0), promptFilter ? ['hist-search', 'hist-email'] : ['hist-email'])
    has(textsOf(p0), 'searchDatabase result:\n1 row: order 42', !promptFilter)
    assert.deepEqual(toolCallIds(p1), ['hist-email', 'call-s1'])
    assert.deepEqual(toolCallIds(p2), ['hist-email', 'call-s1', 'call-s2a', 'call-s2b'])
    has(textsOf(p2), 'searchDatabase result:\n1 row: order 42', true)
  },
  'requireApproval suspend + approve, exclude all'(run, { promptFilter }) {
    approved(run)
    const [p0, p1, p2] = prompts(run)
    assert.deepEqual(toolCallIds(p0), [])
    assert.deepEqual(toolCallIds(p1), ['call-w'])
    // the prompt filter starts a resumed run with fresh state: the calls made
    // before the suspension count as history then, and are removed
    assert.deepEqual(toolCallIds(p2), promptFilter ? [] : ['call-w', 'call-d'])
  },
  'requireApproval suspend + approve, filterAfterToolSteps: 1'(run, { promptFilter }) {
    approved(run)
    const [p0, p1, p2] = prompts(run)
    assert.deepEqual(toolCallIds(p0), promptFilter ? HISTORY_CALLS : [])
    assert.deepEqual(toolCallIds(p1), ['call-w'])
    // after the resume the message-list filter keeps both of the run's calls, the prompt filter the last tool step's
    assert.deepEqual(toolCallIds(p2), promptFilter ? ['call-d'] : ['call-w', 'call-d'])
    assert.deepEqual(toolResultIds(p2), promptFilter ? ['call-d'] : ['call-w', 'call-d'])
  },
  "with ToolSearchProcessor({ storage: 'context' }), filterAfterToolSteps: 1"(run, { promptFilter }) {
    assert.equal(run.calls.length, 5)
    const offered = run.calls.map(names)
    const meta = ['search_tools', 'load_tool']
    assert.deepEqual(offered[0], meta)
    assert.deepEqual(offered[1], [...meta, 'get_weather'], 'a search result loads with the context store')
    // the loaded tool is offered on the next step; the message-list filter then
    // removes the search result (and a step later the load_tool result) from the
    // messages the context store reads, the prompt filter leaves them
    assert.deepEqual(offered[2], promptFilter ? [...meta, 'get_weather', 'send_email'] : [...meta, 'send_email'])
    for (const o of offered.slice(3)) assert.deepEqual(o, promptFilter ? [...meta, 'get_weather', 'send_email'] : meta)
    const sent = [
      ['send_email', { to: 'a@b.c' }],
      ['send_email', { to: 'd@e.f' }],
    ]
    assert.deepEqual(run.executed, promptFilter ? sent : sent.slice(0, 1))
  },
}

function approved(run) {
  assert.equal(run.calls.length, 3)
  const [first, resumed] = run.outputs
  assert.deepEqual(first.suspended, { toolCallId: 'call-d', toolName: 'deleteFile', args: { path: '/tmp/report' } })
  assert.equal(resumed.text, 'Deleted.')
  assert.deepEqual(resumed.toolResults.at(-1), { toolCallId: 'call-d', toolName: 'deleteFile', result: { deleted: '/tmp/report' } })
}

for (const version of AGENT_RELEASES) {
  const traits = releaseTraits(version)
  describe(`ToolCallFilter in @mastra/core ${version}'s own Agent`, () => {
    test('the fixture loads our package as installed, with this release as its host', async () => {
      const { host, results } = await runs[version]
      assert.deepEqual(host, {
        version,
        ours: 'node_modules/mastra-native-processors/index.js',
        oursHost: 'node_modules/@mastra/core/package.json',
        oursHostVersion: version,
      })
      assert.deepEqual(Object.keys(results), Object.keys(EXPECT), 'every scenario has its expectations')
    })
    for (const [name, expect] of Object.entries(EXPECT)) {
      for (const mode of MODES) {
        test(`${name} [${mode}]`, async () => {
          const { ref, ours } = await scenarioRun(runs, version, name, mode)
          assert.ok(
            ref.calls.flat().every((c) => c.kind === mode),
            `the model was called through ${mode}`,
          )
          expect(ref, traits)
          assertSameRun(ours, ref)
          expect(ours, traits)
        })
      }
    }
  })
}
