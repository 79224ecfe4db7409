// Exotic answers from the filter hook. The reference awaits the hook inside
// try/catch (`try { return await filter(...) } catch { return false }`), so
// whatever `await` makes of the answer decides: a `then` getter that throws,
// or a promise whose `constructor` getter throws, is a failure ("not
// allowed"); a `then` that is not a function leaves a truthy object; a
// thenable settles once, however often it calls back; truthy non-booleans
// allow. Each answer is given for get_weather in every phase and compared
// with the reference: the search, the load, the next step's tools, and how
// often the answer's `then` was read.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

const { both, search, load, runStep, makeRequestContext, docsCatalog, snapshot } = await toolSearchKit('1.71.0')

/** Answers, each made fresh for every call, counting reads of `then` in `reads`. */
const ANSWERS = {
  'then getter throws': (reads) => ({
    get then() {
      reads.n++
      throw new Error('no then for you')
    },
  }),
  'then getter throws after the first read': (reads) => ({
    get then() {
      if (reads.n++ > 0) throw new Error('second read')
      return (resolve) => resolve(true)
    },
  }),
  'then is not a function': (reads) => ({
    get then() {
      reads.n++
      return 5
    },
  }),
  'then calls back twice: true, then false': () => ({ then: (resolve) => (resolve(true), resolve(false)) }),
  'then calls back twice: false, then true': () => ({ then: (resolve) => (resolve(false), resolve(true)) }),
  'then rejects, then resolves': () => ({ then: (resolve, reject) => (reject(new Error('x')), resolve(true)) }),
  'then resolves, then throws': () => ({
    then: (resolve) => {
      resolve(true)
      throw new Error('after')
    },
  }),
  'then throws': () => ({
    then: () => {
      throw new Error('in then')
    },
  }),
  'thenable of a thenable': () => ({ then: (resolve) => resolve({ then: (inner) => inner('yes') }) }),
  'promise whose constructor getter throws': () => {
    const p = Promise.resolve(true)
    Object.defineProperty(p, 'constructor', {
      get() {
        throw new Error('no constructor')
      },
    })
    return p
  },
  'promise of a non-boolean truthy value': () => Promise.resolve('yes'),
  'a string': () => 'yes',
  'a number': () => 1,
  'an empty object': () => ({}),
  'an empty array': () => [],
  'a function': () => () => false,
  zero: () => 0,
  'an empty string': () => '',
  NaN: () => NaN,
  null: () => null,
  undefined: () => undefined,
}

describe('exotic filter answers are what `await` makes of them', () => {
  for (const [name, make] of Object.entries(ANSWERS)) {
    test(name, async () => {
      const run = async (P) => {
        const { tools, labels } = docsCatalog()
        const reads = { n: 0 }
        const filter = ({ toolName }) => (toolName === 'get_weather' ? make(reads) : true)
        const p = new P({ tools, ttl: 0, filter })
        const rc = makeRequestContext({ threadId: 'exotic' })
        const s1 = await runStep(p, { labels, requestContext: rc })
        const out = {}
        out.search = await search(s1, 'weather forecast', rc)
        out.load = await load(s1, { toolNames: ['get_weather', 'send_email'] }, rc)
        out.active = (await runStep(p, { labels, requestContext: rc, stepNumber: 1 })).tools
        out.thenReads = reads.n
        return snapshot(out)
      }
      const [ref, ours] = await both(run)
      assert.deepEqual(ours, ref)
    })
  }
})

test('a thenable that never settles holds up only its own request', async () => {
  const { tools, labels } = docsCatalog()
  const [ref, ours] = await both(async (P) => {
    const p = new P({
      tools,
      ttl: 0,
      filter: ({ requestContext }) => (requestContext.get('user') === 'stuck' ? { then() {} } : true),
    })
    const stuckRc = makeRequestContext({ threadId: 'stuck', values: { user: 'stuck' } })
    const freeRc = makeRequestContext({ threadId: 'free', values: { user: 'free' } })
    const stuck = await runStep(p, { labels, requestContext: stuckRc })
    let settled = false
    stuck.result.tools.search_tools.execute({ query: 'weather' }, { requestContext: stuckRc }).finally(() => (settled = true))
    const free = await runStep(p, { labels, requestContext: freeRc })
    const out = { search: await search(free, 'weather', freeRc), load: await load(free, { toolName: 'get_weather' }, freeRc) }
    out.active = (await runStep(p, { labels, requestContext: freeRc, stepNumber: 1 })).toolNames
    await new Promise((resolve) => setTimeout(resolve, 20))
    out.settled = settled
    return snapshot(out)
  })
  assert.equal(ours.settled, false)
  assert.deepEqual(ours.active, ['search_tools', 'load_tool', 'get_weather'])
  assert.deepEqual(ours, ref)
})

test('an answer whose `then` getter throws only on the reread fails the call, as the reference rereads it outside its catch', async () => {
  const { execTool } = await toolSearchKit('1.71.0')
  const { tools, labels } = docsCatalog()
  const [ref, ours] = await both(async (P) => {
    const reads = { n: 0 }
    const answer = () => ({
      get then() {
        if (reads.n++ % 2 === 1) throw new Error('reread')
        return undefined
      },
    })
    const p = new P({ tools, ttl: 0, filter: ({ toolName }) => (toolName === 'get_weather' ? answer() : true) })
    const rc = makeRequestContext({ threadId: 'reread' })
    const s1 = await runStep(p, { labels, requestContext: rc })
    const out = { search: await execTool(s1.result.tools.search_tools, { query: 'weather' }, { requestContext: rc }) }
    out.thenReads = reads.n
    return snapshot(out)
  })
  assert.equal(ours.search.threw?.message, 'reread')
  assert.deepEqual(ours, ref)
})
