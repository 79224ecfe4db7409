// How much of the caller's tools record a ToolSearchProcessor reads once it
// is made (issue 36): a key is read live and an id is resolved through the
// tables made at construction (docs/differences.md), so a search, a
// `load_tool` of k names (and one of a name not found, with its "did you
// mean" suggestions) and a step read a constant number of properties a name,
// whatever the record's size. The record is a Proxy counting every
// trap a read makes (`get`, `has`, `getOwnPropertyDescriptor`, `ownKeys`),
// and each tool's `id` is a getter counting its reads; each operation's
// counts must be the same over 1,000 tools and over 100,000, with and
// without a `filter` hook, and with the in-memory and the 'context' store.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const { Ours, makeRequestContext, toolInvocationMessage } = await toolSearchKit('1.71.0')

/** The names every record holds, found the same way at any size. */
const WEATHER = ['weather_now', 'weather_week', 'weather_alerts', 'weather_radar', 'weather_map']

/**
 * A record of `size` tools behind a counting Proxy: the five weather tools
 * (the only ones a weather query finds), then filler, keyed apart from their
 * ids (`key_<id>`) but for the first two, so that names go both ways.
 */
function countedRecord(size) {
  const counts = { get: 0, has: 0, own: 0, ownKeys: 0, id: 0 }
  const target = {}
  let added = 0
  const add = (id, description) => {
    const tool = {
      get id() {
        counts.id++
        return id
      },
      description,
      execute: async () => ({ id }),
    }
    target[added++ < 2 ? id : `key_${id}`] = tool
  }
  WEATHER.forEach((id, i) => add(id, `Weather forecast tool number ${i}`))
  for (let i = WEATHER.length; i < size; i++) add(`filler_${i}`, `Unrelated helper ${i} for invoices and calendars`)
  const record = new Proxy(target, {
    get(object, key, receiver) {
      if (typeof key === 'string') counts.get++
      return Reflect.get(object, key, receiver)
    },
    has(object, key) {
      counts.has++
      return Reflect.has(object, key)
    },
    getOwnPropertyDescriptor(object, key) {
      counts.own++
      return Reflect.getOwnPropertyDescriptor(object, key)
    },
    ownKeys(object) {
      counts.ownKeys++
      return Reflect.ownKeys(object)
    },
  })
  const reset = () => {
    for (const key of Object.keys(counts)) counts[key] = 0
  }
  return { record, counts, reset }
}

const messageList = () => ({ addSystem() {}, get: { all: { db: () => [] } } })

/** A 'context' history whose `load_tool` calls loaded `names`. */
const loadHistory = (names) =>
  names.map((name, i) =>
    toolInvocationMessage(
      [{ toolName: 'load_tool', toolCallId: `c${i}`, args: { toolName: name }, result: { success: true, message: 'loaded', toolName: name } }],
      {
        id: `m${i}`,
      },
    ),
  )

/** The reads each operation makes over a record of `size` tools. */
async function readsAt(size, { filter, storage }) {
  const { record, counts, reset } = countedRecord(size)
  const processor = new Ours({ tools: record, ttl: 0, storage, filter })
  const requestContext = makeRequestContext({ threadId: 'reads' })
  const names = ['weather_now', 'key_weather_week', 'weather_alerts', 'missing_one', 'key_weather_map']
  const messages = storage === 'context' ? loadHistory(names) : []
  const step = () => processor.processInputStep({ requestContext, messages, messageList: messageList(), stepNumber: 0, tools: {}, steps: [], state: {} })
  const counted = async (operation) => {
    reset()
    await operation()
    return { ...counts }
  }
  const first = await step()
  const reads = {}
  reads.search = await counted(() => first.tools.search_tools.execute({ query: 'weather forecast' }, { requestContext }))
  reads.load = await counted(() => first.tools.load_tool.execute({ toolNames: names }, { requestContext }))
  reads.step = await counted(step)
  reads.suggestions = await counted(() => first.tools.load_tool.execute({ toolName: 'weather' }, { requestContext }))
  return reads
}

describe('ToolSearchProcessor reads a constant number of properties a name, whatever the record size', () => {
  for (const filter of [undefined, ({ toolName }) => toolName !== 'weather_radar']) {
    for (const storage of ['in-memory', 'context']) {
      const label = `${filter ? 'a hook' : 'no hook'}, storage '${storage}'`
      test(`${label}: a search, a load_tool of five names and a step over 1,000 tools and over 100,000`, async () => {
        const small = await readsAt(1_000, { filter, storage })
        const large = await readsAt(100_000, { filter, storage })
        assert.deepEqual(large, small)
        // Names are read by key: the record's keys are never listed (the
        // suggestions of a name not found list the tables' keys).
        for (const operation of Object.keys(small)) assert.equal(small[operation].ownKeys, 0, operation)
        // And the reads are few: a handful a name.
        for (const operation of Object.keys(small)) {
          const reads = small[operation].get + small[operation].own + small[operation].id
          assert.ok(reads <= 5 * 6, `${operation}: ${JSON.stringify(small[operation])}`)
        }
        // A load of names the tables hold reads each name's key (or its tool's key) and id.
        assert.ok(small.load.get > 0 && small.load.id > 0, JSON.stringify(small.load))
      })
    }
  }
})
