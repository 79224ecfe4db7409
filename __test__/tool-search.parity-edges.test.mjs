// The last edges where ours read other things than the release's own
// processor, or read them at another time (issue 19): each script runs on
// the release's own ToolSearchProcessor and on ours, over identical records,
// and the logs (tools returned by identity, system messages, every hook call
// with the tool it got, every meta-tool result) must be equal.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { TESTED_RELEASES } from './helpers/releases.mjs'
import { allow, three, toolSearchEdges } from './helpers/tool-search-edges.mjs'

for (const version of TESTED_RELEASES) {
  const edges = await toolSearchEdges(version)
  const same = edges.same

  // A tools record edited after construction within the rule (keys read
  // live, ids through the tables: docs/differences.md): a tool swapped in
  // under a key with the same id, found at once, as the release finds it.
  // Edits outside it: tool-search.edited-record.test.mjs and the record fuzz.
  describe(`${version}: a tools record changed after construction, within the rule`, () => {
    for (const filter of [undefined, allow]) {
      const hook = filter ? 'a hook' : 'no hook'
      test(`${hook}: a tool swapped in under its key with its id is found, searched and loaded at once`, async () => {
        const log = await same(
          ({ tool }) => ({ tools: { thing: tool('thing', 'frobnicate the widget', 'T1'), a: tool('a', 'alpha', 'A') }, search: { autoLoad: true }, filter }),
          async (ctx) => {
            await ctx.step()
            ctx.log.push(await ctx.search('frobnicate widget'))
            ctx.record.thing = ctx.tool('thing', 'a new thing', 'T2')
            ctx.log.push(await ctx.search('frobnicate widget'))
            ctx.log.push(await ctx.load({ toolNames: ['thing', 'a'] }))
            await ctx.step()
          },
        )
        assert.deepEqual(log.at(-1)[1].at(-1), ['thing', 'T2'])
      })
    }
  })

  describe(`${version}: meta-tool calls started in the same tick`, () => {
    const shapes = {
      'no hook': {},
      'a synchronous hook': { filter: allow },
      'a hook that answers with a promise': { filter: async () => true },
      'a hook that denies one tool': { filter: ({ toolName }) => toolName !== 'b' },
    }
    for (const [label, extra] of Object.entries(shapes)) {
      test(`${label}: two load_tool calls of one tool both load it, as the release records a load after an await`, async () => {
        const log = await same(
          (ctx) => ({ tools: three(ctx), ...extra }),
          async (ctx) => {
            await ctx.step()
            ctx.log.push(await Promise.all([ctx.load({ toolName: 'a' }), ctx.load({ toolName: 'a' })]))
            ctx.log.push(await Promise.all([ctx.load({ toolNames: ['a', 'b', 'c'] }), ctx.load({ toolName: 'c' }), ctx.load({ toolNames: ['b', 'nope'] })]))
            ctx.log.push(await Promise.all([ctx.load({ toolNames: ['b', 'c'] }), ctx.load({ toolNames: ['c', 'b'] }), ctx.load({ toolName: 'zzz' })]))
            await ctx.step()
            ctx.log.push(await Promise.all([ctx.load({ toolName: 'a' }), ctx.load({ toolNames: ['a', 'c'] })]))
          },
        )
        if (!extra.filter) assert.equal(log[1][1].message, 'Tool "a" loaded successfully. It will be available on your next turn.')
      })

      test(`${label}: auto-loading searches and loads at once record as the release's do`, async () => {
        await same(
          (ctx) => ({ tools: three(ctx), ...extra, search: { autoLoad: true } }),
          async (ctx) => {
            await ctx.step()
            ctx.log.push(await Promise.all([ctx.search('alpha'), ctx.search('alpha beta'), ctx.search('gamma alpha')]))
            await ctx.step()
            ctx.log.push(await Promise.all([ctx.search('gamma'), ctx.search('beta gamma')]))
            await ctx.step()
          },
        )
        await same(
          (ctx) => ({ tools: three(ctx), ...extra }),
          async (ctx) => {
            await ctx.step()
            ctx.log.push(await Promise.all([ctx.search('alpha'), ctx.load({ toolName: 'a' }), ctx.load({ toolNames: ['a', 'b'] }), ctx.search('beta')]))
            await ctx.step()
          },
        )
      })
    }
  })

  describe(`${version}: properties the release does not read are not read`, () => {
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      return proxy
    }
    const memories = {
      'a thread getter that throws': () => ({
        get thread() {
          throw new Error('thread read')
        },
        resourceId: 'r',
      }),
      'a thread whose id getter throws': () => ({
        thread: {
          get id() {
            throw new Error('id read')
          },
        },
      }),
      'a resourceId getter that throws': () => ({
        thread: { id: 'm' },
        get resourceId() {
          throw new Error('resourceId read')
        },
      }),
      'a revoked proxy': revoked,
    }
    for (const [label, memory] of Object.entries(memories)) {
      test(`MastraMemory with ${label} is not read when mastra__threadId is set`, async () => {
        for (const storage of ['in-memory', 'context']) {
          await same(
            (ctx) => {
              ctx.rc = edges.makeRequestContext({ threadId: 'thread' })
              ctx.rc.set('MastraMemory', memory())
              return { tools: three(ctx), storage }
            },
            async (ctx) => {
              await ctx.step()
              ctx.log.push(await ctx.load({ toolName: 'a' }))
              await ctx.step()
              ctx.log.push(await ctx.processor.getLoadedToolsForRequestContext({ requestContext: ctx.rc }).then((tools) => Object.keys(tools)))
            },
          )
        }
      })
    }

    test("a hook: load_tool's suggestions read the id of no tool but while a key that matches is looked up", async () => {
      const log = await same(
        ({ tool }) => ({
          tools: { alpha: tool('alpha', 'alpha tool', 'A'), alphabet: tool('alphabet', 'letters tool', 'L'), zeta: tool('zeta', 'last tool', 'Z') },
          filter: ({ toolName }) => toolName !== 'alpha',
        }),
        async (ctx) => {
          await ctx.step()
          // The release never reaches this tool: no key of it matches, and each lookup finds its tool first.
          Object.defineProperty(ctx.record.zeta, 'id', {
            get() {
              throw new Error('zeta.id read')
            },
          })
          ctx.log.push(await ctx.load({ toolName: 'alpha' }))
        },
      )
      assert.deepEqual(
        log.filter((entry) => entry.message !== undefined).map((entry) => entry.message),
        ['Tool "alpha" not found. Did you mean: alphabet?'],
      )
    })

    test("ranking 'fielded': a tool whose inputSchema getter throws is a tool without parameters", async () => {
      const throwing = (id, description, label, labels) =>
        labels.set(
          {
            id,
            description,
            get inputSchema() {
              throw new Error('inputSchema read')
            },
            execute: async () => ({ label }),
          },
          label,
        )
      for (const includeResolvedTools of [false, true]) {
        const [, ours] = await edges.compare(
          (ctx) => ({
            tools: { x: throwing('x', 'frobnicate widgets', 'X', ctx.labels), a: ctx.tool('a', 'alpha tool', 'A') },
            includeResolvedTools,
            search: { ranking: 'fielded' },
          }),
          async (ctx) => {
            await ctx.step({ y: throwing('y', 'frobnicate gadgets', 'Y', ctx.labels) })
            ctx.log.push(await ctx.search('frobnicate'))
            ctx.log.push(await ctx.load({ toolName: 'x' }))
            await ctx.step({ y: throwing('y', 'frobnicate gadgets', 'Y', ctx.labels) })
          },
        )
        assert.equal(ours[0][0], 'step', JSON.stringify(ours[0]))
        assert.deepEqual(
          ours[1].results.map((r) => r.name),
          includeResolvedTools ? ['x', 'y'] : ['x'],
        )
        assert.equal(ours[2].success, true)
        assert.deepEqual(
          ours.at(-1)[1].map(([name]) => name),
          ['search_tools', 'load_tool', ...(includeResolvedTools ? [] : ['y']), 'x'],
        )
      }
    })
  })

  const injects = edges.referenceHas.injectCatalog
  describe(`${version}: the filter hook changes the record while the release lists it`, () => {
    const editing = (edit) => (ctx) => ({
      tools: three(ctx),
      filter: (args, c) => {
        edit(args, c)
        return true
      },
    })
    const cases = {
      'deletes a later tool': ({ phase, toolName }, c) => phase === 'search' && toolName === 'a' && delete c.record.c,
      'renames a later tool': ({ phase, toolName }, c) => {
        if (phase === 'search' && toolName === 'a') c.record.b.id = 'b2'
      },
      'renames the tool it is asked about': ({ phase, toolName }, c) => {
        if (phase === 'search' && toolName === 'b') c.record.b.id = 'b2'
      },
      'swaps a later tool': ({ phase, toolName }, c) => {
        if (phase === 'search' && toolName === 'a') c.record.c = c.tool('c', 'new gamma', 'C2')
      },
      'adds a tool': ({ phase, toolName }, c) => {
        if (phase === 'search' && toolName === 'a') c.record.d = c.tool('d', 'delta tool', 'D')
      },
      'gives a later tool an earlier key': ({ phase, toolName }, c) => {
        if (phase === 'search' && toolName === 'a') {
          c.record.b = c.record.c
        }
      },
    }
    // The injected catalog lists the keys its tables hold, each looked up as it
    // is listed: the edits within the rule (a key's tool deleted or swapped
    // for one with its id) list as the release lists them; the others list
    // the tables' names (tool-search.edited-record.test.mjs).
    const listedAsTheRelease = new Set(['deletes a later tool', 'swaps a later tool'])
    for (const [label, edit] of Object.entries(cases)) {
      if (injects && listedAsTheRelease.has(label)) {
        test(`injectCatalog: the hook ${label}`, async () => {
          await same(
            (ctx) => ({ ...editing(edit)(ctx), injectCatalog: true }),
            async (ctx) => {
              await ctx.step()
              await ctx.step()
            },
          )
        })
      }
      test(`load_tool's suggestions: the hook ${label}`, async () => {
        const loadEdit = (args, c) => edit({ ...args, phase: args.phase === 'load' ? 'search' : 'other' }, c)
        await same(editing(loadEdit), async (ctx) => {
          await ctx.step()
          ctx.log.push(await ctx.load({ toolName: 'abc' }))
          ctx.log.push(await ctx.load({ toolName: 'bc' }))
          await ctx.step()
        })
      })
    }
  })
}

// The 'context' store reads a meta-tool part as the release does (issue 19):
// its `result` only in state 'result', and the result's `success` only beside
// a string `toolName`. Each getter the release never calls throws here.
for (const version of TESTED_RELEASES) {
  const edges = await toolSearchEdges(version)
  describe(`${version}: the 'context' store reads no more of a meta-tool part than the release`, () => {
    test("a search result's success and a pending call's result are not read", async () => {
      const run = async (P) => {
        const reads = []
        const trap = (object, key) =>
          Object.defineProperty(object, key, {
            enumerable: true,
            get() {
              reads.push(key)
              throw new Error(`${key} read`)
            },
          })
        const tools = { a: edges.tagged('a', 'alpha tool', 'A'), b: edges.tagged('b', 'beta tool', 'B') }
        const found = { results: [{ name: 'a', description: 'alpha tool' }], message: 'found' }
        trap(found, 'success')
        const pending = edges.toolInvocationMessage([{ toolName: 'load_tool', toolCallId: 'p1', args: { toolName: 'b' }, state: 'call' }], { id: 'p' })
        trap(pending.content.parts[0].toolInvocation, 'result')
        const messages = [
          edges.userMessage('hi', { id: 'u' }),
          edges.toolInvocationMessage([{ toolName: 'search_tools', toolCallId: 's1', args: { query: 'alpha' }, result: found }], { id: 's' }),
          pending,
        ]
        const processor = new P({ tools, storage: 'context', ttl: 0 })
        const labels = new edges.Labels()
        labels.set(tools.a, 'A')
        labels.set(tools.b, 'B')
        try {
          const s = await edges.runStep(processor, { messages, labels, requestContext: edges.makeRequestContext({ threadId: 'ctx' }) })
          return { tools: s.tools.map(([name, t]) => [name, typeof t === 'string' ? t : 'meta']), reads }
        } catch (e) {
          return { threw: e?.message, reads }
        }
      }
      const ref = await run(edges.Ref)
      const ours = await run(edges.Ours)
      assert.ok(!ref.threw, `the release reads neither: ${ref.threw}`)
      assert.deepEqual(ours, ref)
      assert.ok(
        ref.tools.some(([name]) => name === 'a'),
        'the search result loads a',
      )
    })
  })
}
