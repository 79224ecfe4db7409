// storage: 'context' over long histories: a step reads only the messages that
// are new or changed since a list it continues was read (lib/context-history.js,
// the core's stores::history). Each test drives the reference and ours step by
// step over the same message objects, changed between steps the ways Mastra
// changes them (and more), and compares every step's tools exactly.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { createRequire } from 'node:module'

import { createRng, sfc32 } from './helpers/random.mjs'
import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const require = createRequire(import.meta.url)
const { RECHECKED_LAST_MESSAGES } = require('../lib/context-history.js')

const { Ref, Ours, load, runStep, makeRequestContext, docsCatalog, userMessage, createTool, z } = await toolSearchKit('1.71.0')

const IDS = [
  'create_issue',
  'list_pull_requests',
  'merge_pull_request',
  'send_slack_message',
  'create_slack_channel',
  'send_email',
  'get_weather',
  'db_query',
  'db_insert',
  'db_update',
  'premium_export',
  'no_such_tool',
]
const OTHER_TOOLS = ['weather', 'calendar', 'search_tools_x']

let counter = 0

/** A meta-tool result naming a few tools, in one of the shapes the store reads. */
function randomResult(rng, toolName) {
  const names = () => Array.from({ length: rng.int(0, 3) }, () => rng.pick(IDS))
  if (toolName === 'search_tools') return { results: names().map((name) => ({ name, description: 'd', score: 1 })), message: 'found' }
  if (rng.bool(0.5)) return { success: rng.bool(0.8), message: 'x', toolName: rng.pick(IDS) }
  const loaded = names()
  return { success: true, message: 'x', loadedCount: loaded.length, loaded }
}

/** A tool-invocation part: a meta-tool's (a call or a result) or another tool's. */
function randomInvocationPart(rng) {
  const toolName = rng.bool(0.6) ? rng.pick(['search_tools', 'load_tool']) : rng.pick(OTHER_TOOLS)
  const state = rng.bool(0.75) ? 'result' : 'call'
  const result = toolName === 'search_tools' || toolName === 'load_tool' ? randomResult(rng, toolName) : { loaded: [rng.pick(IDS)] }
  const toolInvocation = { state, toolCallId: `call-${++counter}`, toolName, args: {} }
  if (state === 'result') toolInvocation.result = result
  return { type: 'tool-invocation', toolInvocation }
}

function randomPart(rng) {
  return rng.bool(0.3) ? { type: 'text', text: `text ${++counter}` } : randomInvocationPart(rng)
}

function randomMessage(rng) {
  if (rng.bool(0.3)) return userMessage(`hello ${++counter}`)
  const parts = [{ type: 'step-start' }, ...Array.from({ length: rng.int(0, 3) }, () => randomPart(rng))]
  return { id: `m-${++counter}`, role: 'assistant', createdAt: new Date(0), content: { format: 2, parts } }
}

/** The meta-tool invocation parts of `messages`: [message, parts, index]. */
function metaParts(messages) {
  const found = []
  for (const message of messages) {
    const parts = message.content?.parts ?? []
    parts.forEach((part, index) => {
      if (part.type === 'tool-invocation' && ['search_tools', 'load_tool'].includes(part.toolInvocation?.toolName)) found.push([message, parts, index])
    })
  }
  return found
}

/**
 * A message whose parts a change may alter in place: one holding a meta-tool
 * part, or one of the list's last `RECHECKED_LAST_MESSAGES` (the others
 * are compared by identity only: see the documented test below). Mastra
 * alters the latest message of a run.
 */
function mutableMessage(rng, list) {
  const recent = list.slice(-RECHECKED_LAST_MESSAGES)
  const holding = metaParts(list).map(([message]) => message)
  return rng.pick(holding.length > 0 && rng.bool(0.5) ? holding : recent)
}

/**
 * The changes made between steps, each of which Mastra makes or which the
 * store must notice anyway; each takes the list and gives the next one (a
 * new array, as Mastra gives each step).
 */
const CHANGES = {
  grow: (rng, list) => [...list, ...Array.from({ length: rng.int(1, 3) }, () => randomMessage(rng))],
  partsPushed: (rng, list) => {
    const message = rng.bool(0.5) ? (list.findLast((m) => m.role === 'assistant') ?? rng.pick(list)) : mutableMessage(rng, list)
    message.content.parts.push(randomPart(rng))
    return [...list]
  },
  partsSpliced: (rng, list) => {
    const message = mutableMessage(rng, list)
    const parts = message.content.parts
    if (rng.bool(0.5)) parts.splice(rng.int(0, parts.length), 0, randomPart(rng))
    else parts.splice(rng.int(0, parts.length))
    return [...list]
  },
  invocationSwapped: (rng, list) => {
    // As Mastra merges a result into the call: a new toolInvocation, same toolName.
    const meta = metaParts(list)
    if (meta.length === 0) return [...list]
    const [, parts, index] = rng.pick(meta)
    const invocation = parts[index].toolInvocation
    parts[index].toolInvocation = { ...invocation, state: 'result', result: randomResult(rng, invocation.toolName) }
    return [...list]
  },
  partReplaced: (rng, list) => {
    // As Mastra's mergeToolResultIntoPart: a new part at the same index, in
    // place of a meta-tool invocation (or of a part that is none, by one that
    // is none either: see the documented test below).
    const meta = metaParts(list)
    if (meta.length === 0 || rng.bool(0.3)) {
      const message = mutableMessage(rng, list)
      const parts = message.content.parts
      if (parts.length > 0) {
        const index = rng.int(0, parts.length - 1)
        if (!metaParts([{ content: { parts: [parts[index]] } }]).length) parts[index] = { type: 'text', text: `text ${++counter}` }
      }
      return [...list]
    }
    const [, parts, index] = rng.pick(meta)
    const part = parts[index]
    const toolName = part.toolInvocation.toolName
    parts[index] = rng.pick([
      () => ({ ...part, toolInvocation: { ...part.toolInvocation, state: 'result', result: randomResult(rng, toolName) } }),
      () => ({ type: 'text', text: 'no longer a tool' }),
      () => randomInvocationPart(rng),
    ])()
    return [...list]
  },
  stateChangedInPlace: (rng, list) => {
    const meta = metaParts(list)
    if (meta.length === 0) return [...list]
    const [, parts, index] = rng.pick(meta)
    const invocation = parts[index].toolInvocation
    invocation.state = invocation.state === 'result' ? 'call' : 'result'
    invocation.result ??= randomResult(rng, invocation.toolName)
    return [...list]
  },
  resultReplaced: (rng, list) => {
    const meta = metaParts(list)
    if (meta.length === 0) return [...list]
    const [, parts, index] = rng.pick(meta)
    const invocation = parts[index].toolInvocation
    invocation.result = randomResult(rng, invocation.toolName)
    return [...list]
  },
  messageReplaced: (rng, list) => {
    const next = [...list]
    next[rng.int(0, next.length - 1)] = randomMessage(rng)
    return next
  },
  contentReplaced: (rng, list) => {
    const message = mutableMessage(rng, list)
    // A new content, with the same parts or a copy of them.
    message.content = { ...message.content, parts: rng.bool(0.5) ? message.content.parts : [...message.content.parts] }
    return [...list]
  },
  removedFromMiddle: (rng, list) => {
    const next = [...list]
    next.splice(rng.int(0, next.length - 1), rng.int(1, 3))
    return next
  },
  removedFromFront: (rng, list) => list.slice(rng.int(1, 3)),
  removedFromEnd: (rng, list) => list.slice(0, Math.max(0, list.length - rng.int(1, 3))),
  reordered: (rng, list) => {
    const next = [...list]
    const [i, j] = [rng.int(0, next.length - 1), rng.int(0, next.length - 1)]
    ;[next[i], next[j]] = [next[j], next[i]]
    return next
  },
  unchanged: (rng, list) => [...list],
}

function processors(tools) {
  return [new Ref({ tools, storage: 'context', ttl: 0 }), new Ours({ tools, storage: 'context', ttl: 0 })]
}

/** One step of both processors on `messages`: their tools, which must be equal. */
async function stepBoth([ref, ours], messages, labels, requestContext, label) {
  const [r, o] = [
    await runStep(ref, { labels, messages, requestContext, schemas: false }),
    await runStep(ours, { labels, messages, requestContext, schemas: false }),
  ]
  assert.deepEqual(o.tools, r.tools, label)
  return { ref: r, ours: o }
}

/** Steps on one list changed by `kinds` in random turn, compared every step; gives how many loaded tools each step showed. */
async function randomRun(seed, kinds, { steps = 60, start = 20 } = {}) {
  const rng = createRng(seed, sfc32)
  const { tools, labels } = docsCatalog()
  const both = processors(tools)
  const requestContext = makeRequestContext({ threadId: `thread-${seed}` })
  let list = Array.from({ length: start }, () => randomMessage(rng))
  const loaded = []
  for (let step = 0; step < steps; step++) {
    const kind = rng.pick(kinds)
    if (list.length > 0) list = CHANGES[kind](rng, list)
    else list = CHANGES.grow(rng, list)
    const { ours } = await stepBoth(both, list, labels, requestContext, `seed ${seed} step ${step} after ${kind}`)
    loaded.push(ours.toolNames.length - 2)
  }
  return loaded
}

describe("storage: 'context' over a history read step by step", () => {
  test('a growing list: each step the previous messages plus new ones', async () => {
    for (const seed of [1, 2, 3]) {
      const loaded = await randomRun(seed, ['grow', 'grow', 'unchanged'], { start: 200 })
      assert.ok(
        loaded.some((n) => n > 0),
        'tools were loaded',
      )
    }
  })

  for (const kind of Object.keys(CHANGES).filter((k) => k !== 'grow' && k !== 'unchanged')) {
    test(`changes between steps: ${kind}`, async () => {
      for (const seed of [11, 12, 13, 14]) await randomRun(seed, ['grow', kind, kind])
    })
  }

  test('every kind of change, mixed', async () => {
    for (let seed = 100; seed < 110; seed++) await randomRun(seed, Object.keys(CHANGES), { steps: 120 })
  })

  test('interleaved threads, more than are remembered at once, with loads whose results arrive later', async () => {
    const rng = createRng(7, sfc32)
    const { tools, labels } = docsCatalog()
    const both = processors(tools)
    const threads = Array.from({ length: 12 }, (_, i) => ({
      requestContext: makeRequestContext({ threadId: `t${i}` }),
      list: Array.from({ length: 30 }, () => randomMessage(rng)),
      pending: [],
    }))
    for (let step = 0; step < 400; step++) {
      // A few hot threads most of the time, any thread sometimes.
      const thread = threads[rng.bool(0.7) ? rng.int(0, 2) : rng.int(0, threads.length - 1)]
      const kind = rng.pick(Object.keys(CHANGES))
      thread.list = CHANGES[thread.list.length > 0 ? kind : 'grow'](rng, thread.list)
      // A load made in an earlier step reaches the messages.
      if (thread.pending.length > 0 && rng.bool(0.5)) thread.list = [...thread.list, thread.pending.shift()]
      const { ref, ours } = await stepBoth(both, thread.list, labels, thread.requestContext, `step ${step} after ${kind}`)
      if (rng.bool(0.2)) {
        // Both load the same tool; its result reaches the messages in a later step (the supplemental names bridge it).
        const input = { toolNames: [rng.pick(IDS)] }
        const [r, o] = [await load(ref, input, thread.requestContext), await load(ours, input, thread.requestContext)]
        assert.deepEqual(o, r)
        thread.pending.push({
          id: `m-${++counter}`,
          role: 'assistant',
          createdAt: new Date(0),
          content: {
            format: 2,
            parts: [
              { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: `c-${counter}`, toolName: 'load_tool', args: input, result: o } },
            ],
          },
        })
      }
    }
  })

  test('the same messages in several lists, and lists that share a beginning', async () => {
    const rng = createRng(21, sfc32)
    const { tools, labels } = docsCatalog()
    const both = processors(tools)
    const requestContext = makeRequestContext({ threadId: 'shared' })
    const base = Array.from({ length: 40 }, () => randomMessage(rng))
    const runs = [base, base, base].map((list) => [...list])
    for (let step = 0; step < 150; step++) {
      const i = rng.int(0, runs.length - 1)
      const kind = runs[i].length > 0 ? rng.pick(['grow', 'grow', 'removedFromEnd', 'invocationSwapped', 'unchanged']) : 'grow'
      runs[i] = CHANGES[kind](rng, runs[i])
      await stepBoth(both, runs[i], labels, requestContext, `step ${step} run ${i}`)
    }
  })

  test('the resume path and clearAllState in between', async () => {
    const rng = createRng(31, sfc32)
    const { tools, labels } = docsCatalog()
    const [ref, ours] = processors(tools)
    const requestContext = makeRequestContext({ threadId: 'resume' })
    let list = Array.from({ length: 50 }, () => randomMessage(rng))
    for (let step = 0; step < 40; step++) {
      list = CHANGES[rng.pick(['grow', 'invocationSwapped', 'removedFromMiddle'])](rng, list)
      const s = await stepBoth([ref, ours], list, labels, requestContext, `step ${step}`)
      const resumed = await Promise.all([ref, ours].map((p, k) => p.getLoadedToolsForRequestContext({ stepArgs: [s.ref, s.ours][k].args })))
      assert.deepEqual(Object.keys(resumed[1]), Object.keys(resumed[0]))
      if (step % 7 === 3) {
        ref.clearAllState()
        ours.clearAllState()
      }
    }
  })

  test('messages whose parts are not an array, and a step that throws, leave later steps right', async () => {
    const rng = createRng(41, sfc32)
    const { tools, labels } = docsCatalog()
    const both = processors(tools)
    const requestContext = makeRequestContext({ threadId: 'odd' })
    let list = Array.from({ length: 20 }, () => randomMessage(rng))
    const odd = { id: 'odd', role: 'assistant', content: { format: 2, parts: 'not parts' } }
    list = [...list, odd]
    await stepBoth(both, list, labels, requestContext, 'string parts')
    list = CHANGES.grow(rng, list)
    await stepBoth(both, list, labels, requestContext, 'string parts, grown')
    const broken = [...list, null, randomMessage(rng)]
    for (const p of both) {
      await assert.rejects(runStep(p, { labels, messages: broken, requestContext }), TypeError)
    }
    list = CHANGES.grow(rng, list)
    await stepBoth(both, list, labels, requestContext, 'after a step that threw')
    // A part made null in place is a change the store notices only with its array's length.
    const message = list.findLast((m) => m.content?.parts?.length > 0 && Array.isArray(m.content.parts))
    message.content.parts.push(null)
    for (const p of both) {
      await assert.rejects(runStep(p, { labels, messages: [...list], requestContext }), TypeError)
    }
  })

  test('a list cut short: messages now among its last ones, read before as older ones, are checked within', async () => {
    const { tools, labels } = docsCatalog()
    const both = processors(tools)
    const requestContext = makeRequestContext({ threadId: 'cut' })
    const list = Array.from({ length: 3 * RECHECKED_LAST_MESSAGES }, (_, i) => userMessage(`m ${i}`))
    const names = async (messages) => (await stepBoth(both, messages, labels, requestContext, `${messages.length} messages`)).ours.toolNames
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool'])
    const cut = list.slice(0, RECHECKED_LAST_MESSAGES + 10)
    assert.deepEqual(await names([...cut]), ['search_tools', 'load_tool'])
    // Before the longer list's last messages, within the shorter one's.
    cut[12].content.parts.push({
      type: 'tool-invocation',
      toolInvocation: { state: 'result', toolCallId: 'c', toolName: 'load_tool', args: {}, result: { success: true, message: 'x', toolName: 'get_weather' } },
    })
    assert.deepEqual(await names([...cut]), ['search_tools', 'load_tool', 'get_weather'])
  })

  test("loaded names that run together the same way as the last step's are told apart", async () => {
    const labels = new Map()
    const tool = (id) => createTool({ id, description: `The ${id} tool`, inputSchema: z.object({}), execute: async () => ({ id }) })
    const tools = Object.fromEntries(['ab', 'c', 'a', 'bc'].map((id) => [id, tool(id)]))
    const both = processors(tools)
    const requestContext = makeRequestContext({ threadId: 'split' })
    const loading = (...loaded) => ({
      id: `m-${++counter}`,
      role: 'assistant',
      createdAt: new Date(0),
      content: {
        format: 2,
        parts: [
          {
            type: 'tool-invocation',
            toolInvocation: {
              state: 'result',
              toolCallId: `c-${counter}`,
              toolName: 'load_tool',
              args: {},
              result: { success: true, message: 'x', loadedCount: loaded.length, loaded },
            },
          },
        ],
      },
    })
    const names = async (messages) =>
      (await stepBoth(both, messages, labels, requestContext, JSON.stringify(messages.map((m) => m.content.parts[0]?.toolInvocation?.result?.loaded)))).ours
        .toolNames
    assert.deepEqual(await names([loading('ab', 'c')]), ['search_tools', 'load_tool', 'ab', 'c'])
    assert.deepEqual(await names([loading('a', 'bc')]), ['search_tools', 'load_tool', 'a', 'bc'])
    assert.deepEqual(await names([loading('a', 'bc')]), ['search_tools', 'load_tool', 'a', 'bc'])
    assert.deepEqual(await names([loading('ab', 'c')]), ['search_tools', 'load_tool', 'ab', 'c'])
  })

  test('documented: an older message without meta-tool parts changed in place is not noticed until it is read again', async () => {
    const { tools, labels } = docsCatalog()
    const ours = new Ours({ tools, storage: 'context', ttl: 0 })
    const old = userMessage('early')
    const list = [old, ...Array.from({ length: RECHECKED_LAST_MESSAGES }, (_, i) => userMessage(`later ${i}`))]
    const names = async (messages) => (await runStep(ours, { labels, messages, schemas: false })).toolNames
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool'])
    old.content.parts.push({
      type: 'tool-invocation',
      toolInvocation: { state: 'result', toolCallId: 'c', toolName: 'load_tool', args: {}, result: { success: true, message: 'x', toolName: 'get_weather' } },
    })
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool'])
    // A list with other messages before it (here: the same message, put in
    // again as another object) is read again from there.
    const again = [{ ...old }, ...list.slice(1)]
    assert.deepEqual(await names([...again]), ['search_tools', 'load_tool', 'get_weather'])
    // Within the last messages it is noticed.
    again.at(-1).content.parts.push({
      type: 'tool-invocation',
      toolInvocation: { state: 'result', toolCallId: 'd', toolName: 'load_tool', args: {}, result: { success: true, message: 'x', toolName: 'send_email' } },
    })
    assert.deepEqual(await names([...again]), ['search_tools', 'load_tool', 'get_weather', 'send_email'])
  })

  test('documented: a part that becomes a meta-tool invocation in place is not noticed until its message changes', async () => {
    const { tools, labels } = docsCatalog()
    const ours = new Ours({ tools, storage: 'context', ttl: 0 })
    const parts = [{ type: 'text', text: 'thinking' }]
    const list = [{ id: 'a', role: 'assistant', createdAt: new Date(0), content: { format: 2, parts } }]
    const names = async (messages) => (await runStep(ours, { labels, messages, schemas: false })).toolNames
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool'])
    parts[0] = {
      type: 'tool-invocation',
      toolInvocation: { state: 'result', toolCallId: 'c', toolName: 'load_tool', args: {}, result: { success: true, message: 'x', toolName: 'get_weather' } },
    }
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool'])
    parts.push({ type: 'text', text: 'done' })
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool', 'get_weather'])
  })

  test('documented: a result object changed inside is not noticed until its message changes', async () => {
    const { tools, labels } = docsCatalog()
    const ours = new Ours({ tools, storage: 'context', ttl: 0 })
    const result = { success: true, message: 'x', loadedCount: 1, loaded: ['get_weather'] }
    const message = {
      id: 'r',
      role: 'assistant',
      createdAt: new Date(0),
      content: {
        format: 2,
        parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c', toolName: 'load_tool', args: {}, result } }],
      },
    }
    const list = [userMessage('hi'), message]
    const names = async (messages) => (await runStep(ours, { labels, messages, schemas: false })).toolNames
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool', 'get_weather'])
    result.loaded.push('send_email')
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool', 'get_weather'])
    // Any change of the message's parts array (here a part appended) reads it again.
    message.content.parts.push({ type: 'text', text: 'done' })
    assert.deepEqual(await names([...list]), ['search_tools', 'load_tool', 'get_weather', 'send_email'])
  })
})
