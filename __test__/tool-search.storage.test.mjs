// storage: 'context', literally: loaded names come from the search_tools /
// load_tool results in the messages (single-toolName load results too, as
// from 1.60.0), a same-process supplemental set bridges a step, and tools
// de-load with their results. Run on 1.71.0, also compared with its reference.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'
import { FOUND } from './helpers/tool-search-literals.mjs'

const { both, load, runStep, makeRequestContext, describeTools, toolInvocationMessage, userMessage, docsCatalog } = await toolSearchKit('1.71.0')

describe("storage: 'context'", () => {
  const weatherResult = { results: [{ name: 'get_weather', description: 'Get the current weather forecast for a city', score: 4.86 }], message: FOUND(1) }

  test('loaded names come from completed search_tools/load_tool results in the messages; trimming unloads', async () => {
    const { tools, labels } = docsCatalog()
    const run = async (P) => {
      const p = new P({ tools, storage: 'context' })
      const m1 = toolInvocationMessage([{ toolName: 'search_tools', result: weatherResult }], { id: 'm1' })
      const m2 = toolInvocationMessage(
        [{ toolName: 'load_tool', result: { success: true, message: 'x', loadedCount: 2, loaded: ['send_email', 'mergePR'] } }],
        { id: 'm2' },
      )
      const m3 = toolInvocationMessage([{ toolName: 'load_tool', state: 'call', args: { toolNames: ['db_query'] } }], { id: 'm3' })
      const m4 = toolInvocationMessage([{ toolName: 'other_tool', result: { loaded: ['db_insert'] } }], { id: 'm4' })
      const out = {}
      out.all = await runStep(p, { labels, messages: [userMessage('hi'), m1, m2, m3, m4] })
      out.trimmed = await runStep(p, { labels, messages: [m2] })
      out.none = await runStep(p, { labels, messages: [] })
      out.undef = await runStep(p, { labels, messages: undefined })
      out.stats = p.getStateStats()
      out.cleanup = p.cleanupNow()
      p.clearState('x')
      p.clearAllState()
      return out
    }
    const [ref, ours] = await both(run)
    assert.deepEqual(ours.all.toolNames, ['search_tools', 'load_tool', 'get_weather', 'send_email', 'mergePR'])
    assert.deepEqual(ours.trimmed.toolNames, ['search_tools', 'load_tool', 'send_email', 'mergePR'])
    assert.deepEqual(ours.none.toolNames, ['search_tools', 'load_tool'])
    assert.deepEqual(ours.undef.toolNames, ['search_tools', 'load_tool'])
    assert.deepEqual(ours.stats, { threadCount: 0, oldestAccessTime: null })
    assert.equal(ours.cleanup, 0)
    for (const k of ['all', 'trimmed', 'none', 'undef']) assert.deepEqual(ours[k].tools, ref[k].tools, k)
  })

  test('a tool loaded during a step stays loaded for that thread until the messages show it, then de-loads with them', async () => {
    const { tools, labels } = docsCatalog()
    const run = async (P, threadId) => {
      const p = new P({ tools, storage: 'context' })
      const rc = makeRequestContext({ threadId })
      const s1 = await runStep(p, { labels, messages: [], requestContext: rc })
      const res = await load(s1, { toolNames: ['get_weather'] }, rc)
      // next step before the result is visible in the messages
      const s2 = await runStep(p, { labels, messages: [], requestContext: rc, stepNumber: 1 })
      const msg = toolInvocationMessage([{ toolName: 'load_tool', result: res }], { id: 'r' })
      const s3 = await runStep(p, { labels, messages: [msg], requestContext: rc, stepNumber: 2 })
      // the result leaves the messages: the tool de-loads (message-owned now)
      const s4 = await runStep(p, { labels, messages: [], requestContext: rc, stepNumber: 3 })
      const resume = describeTools(await p.getLoadedToolsForRequestContext({ requestContext: rc }), labels)
      return [s2.toolNames, s3.toolNames, s4.toolNames, resume]
    }
    const [refT, oursT] = await both((P) => run(P, 'thread-ctx'))
    assert.deepEqual(oursT, [['search_tools', 'load_tool', 'get_weather'], ['search_tools', 'load_tool', 'get_weather'], ['search_tools', 'load_tool'], []])
    assert.deepEqual(oursT, refT)
    // Without any thread there is no supplemental state: only the messages count.
    const [refA, oursA] = await both((P) => run(P, undefined))
    assert.deepEqual(oursA, [['search_tools', 'load_tool'], ['search_tools', 'load_tool', 'get_weather'], ['search_tools', 'load_tool'], []])
    assert.deepEqual(oursA, refA)
  })

  test('resume path (no stepArgs) sees the same-process supplemental set of a thread', async () => {
    const { tools, labels } = docsCatalog()
    const [ref, ours] = await both(async (P) => {
      const p = new P({ tools, storage: 'context' })
      const rc = makeRequestContext({ threadId: 'resume-ctx' })
      const s1 = await runStep(p, { labels, messages: [], requestContext: rc })
      await load(s1, { toolNames: ['get_weather', 'sendEmail'] }, rc)
      return describeTools(await p.getLoadedToolsForRequestContext({ requestContext: rc }), labels)
    })
    assert.deepEqual(ours, [
      ['get_weather', 'getWeather'],
      ['sendEmail', 'sendEmail'],
    ])
    assert.deepEqual(ours, ref)
  })

  test('a single-toolName load result counts only with success === true and a string toolName', async () => {
    const { tools, labels } = docsCatalog()
    const result = (r) => toolInvocationMessage([{ toolName: 'load_tool', result: r }])
    const messages = [
      result({ success: true, message: 'x', toolName: 'get_weather' }),
      result({ success: false, message: 'x', toolName: 'send_email' }),
      result({ success: 'true', message: 'x', toolName: 'db_query' }),
      result({ success: true, message: 'x', toolName: 5 }),
      result({ success: 1, message: 'x', toolName: 'db_insert' }),
      toolInvocationMessage([{ toolName: 'search_tools', result: { success: true, toolName: 'mergePR', results: [] } }]),
      toolInvocationMessage([{ toolName: 'load_tool', state: 'call', result: { success: true, toolName: 'listPRs' } }]),
    ]
    const [ref, ours] = await both(async (P) => {
      const p = new P({ tools, storage: 'context' })
      return (await runStep(p, { labels, messages })).tools.slice(2)
    })
    // Like upstream, the rule does not look at which meta-tool produced the result.
    assert.deepEqual(ours, [
      ['get_weather', 'getWeather'],
      ['mergePR', 'mergePR'],
    ])
    assert.deepEqual(ours, ref)
  })
})
