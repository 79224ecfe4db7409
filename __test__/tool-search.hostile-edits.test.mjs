// ToolSearchProcessor with a `filter` hook over a tools record edited to
// make a tool's id another key (issue 29, item 4): while a catalog is built
// (the hook gives the tool it is asked about a later tool's key as its id),
// between two steps, or between a step and its meta-tool call. The release
// looks a name up by id first where there is a hook, scanning the record as
// it is then: the tool it offers (and asks the hook about, and loads) is the
// first in key order with that id. Each script runs on the release's own
// processor and on ours over identical records, and the logs (every hook
// call with the tool it got, the tools a step returns by identity, its
// system messages, every meta-tool result) must be equal.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { TESTED_RELEASES } from './helpers/releases.mjs'
import { allow, three, toolSearchEdges } from './helpers/tool-search-edges.mjs'

for (const version of TESTED_RELEASES) {
  const edges = await toolSearchEdges(version)
  const same = edges.same

  describe(`${version}: a tool given another key as its id, looked up with a filter hook`, () => {
    test('before load_tool: the name loads the first tool with that id, which the next steps offer', async () => {
      const log = await same(
        (ctx) => ({ tools: three(ctx), filter: allow }),
        async (ctx) => {
          await ctx.step()
          ctx.record.a.id = 'b'
          ctx.log.push(await ctx.load({ toolName: 'b' }))
          ctx.log.push(await ctx.load({ toolNames: ['c', 'b', 'a'] }))
          await ctx.step()
          ctx.record.c.id = 'a'
          await ctx.step()
        },
      )
      // The release's answer, as its source says: tool A under the name `b`.
      assert.ok(log.some((entry) => entry[0] === 'step' && entry[1].some(([name, label]) => name === 'b' && label === 'A')))
    })

    test('between two steps: the loaded name is offered as the first tool with that id then', async () => {
      await same(
        (ctx) => ({ tools: three(ctx), filter: allow }),
        async (ctx) => {
          await ctx.step()
          ctx.log.push(await ctx.load({ toolNames: ['a', 'b', 'c'] }))
          await ctx.step()
          ctx.record.a.id = 'c'
          await ctx.step()
          ctx.log.push(await ctx.search('gamma'))
          ctx.record.a.id = 'a'
          await ctx.step()
        },
      )
    })

    test('a search finds the hit under the first tool with its id', async () => {
      await same(
        (ctx) => ({ tools: three(ctx), filter: allow, search: { autoLoad: true } }),
        async (ctx) => {
          await ctx.step()
          ctx.record.a.id = 'b'
          ctx.log.push(await ctx.search('beta'))
          await ctx.step()
        },
      )
    })

    if (edges.referenceHas.injectCatalog) {
      test('while the catalog is built: the hook gives the tool it is asked about a later key as its id', async () => {
        await same(
          (ctx) => ({
            tools: three(ctx),
            injectCatalog: true,
            filter: (args, c) => {
              if (args.phase === 'search' && args.toolName === 'a') c.record.a.id = 'b'
              return true
            },
          }),
          async (ctx) => {
            await ctx.step()
            ctx.log.push(await ctx.load({ toolName: 'b' }))
            await ctx.step()
          },
        )
      })

      test('between two steps: the catalog and the offered tools follow the edit', async () => {
        await same(
          (ctx) => ({ tools: three(ctx), injectCatalog: true, filter: allow }),
          async (ctx) => {
            await ctx.step()
            ctx.log.push(await ctx.load({ toolNames: ['a', 'b'] }))
            ctx.record.a.id = 'b'
            await ctx.step()
            ctx.log.push(await ctx.load({ toolName: 'b' }))
            ctx.log.push(await ctx.search('beta'))
            await ctx.step()
          },
        )
      })

      test('includeResolvedTools: a resolved tool given a later key as its id while the catalog is built', async () => {
        await same(
          ({ tool }) => ({
            tools: { a: tool('a', 'alpha tool', 'A') },
            includeResolvedTools: true,
            injectCatalog: true,
            filter: (args, c) => {
              if (args.toolName === 'x' && c.resolved) c.resolved.x.id = 'y'
              return true
            },
          }),
          async (ctx) => {
            ctx.resolved = { x: ctx.tool('x', 'ex tool', 'X'), y: ctx.tool('y', 'why tool', 'Y') }
            await ctx.step(ctx.resolved)
            ctx.log.push(await ctx.load({ toolName: 'y' }))
            await ctx.step(ctx.resolved)
          },
        )
      })
    }

    test('includeResolvedTools: a resolved tool given another key as its id between steps', async () => {
      await same(
        ({ tool }) => ({ tools: { a: tool('a', 'alpha tool', 'A') }, includeResolvedTools: true, filter: allow }),
        async (ctx) => {
          const resolved = { x: ctx.tool('x', 'ex tool', 'X'), y: ctx.tool('y', 'why tool', 'Y') }
          await ctx.step(resolved)
          ctx.log.push(await ctx.load({ toolNames: ['x', 'y'] }))
          resolved.x.id = 'y'
          await ctx.step(resolved)
          ctx.log.push(await ctx.load({ toolName: 'y' }))
          ctx.record.a.id = 'y'
          await ctx.step(resolved)
        },
      )
    })
  })
}
