// ToolSearchProcessor over a tools record edited after construction, outside
// the rule (docs/differences.md, issue 36): a key is read live, so a tool
// added, replaced or deleted under a key is found (or not) under that key at
// once, as the release finds it; an id is resolved through the tables made
// when the record's tools were read (at construction, and, with
// `includeResolvedTools`, at each step with tools of its own), so a tool
// whose `id` changed in place since, or one added under a key other than its
// id, is found by that id only once the tables are made again. Each case
// runs on the release's own processor and on ours over identical records:
// ours gives the documented answer, asserted exactly, where the release's
// scan of every tool's id at every lookup gives another (asserted too, so
// each case is one the rule decides). Edits within the rule are compared
// with the release in tool-search.live-tools.test.mjs and
// tool-search.parity-edges.test.mjs, and every kind at random by the record
// fuzz against a model of the rule.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { TESTED_RELEASES } from './helpers/releases.mjs'
import { allow, three, toolSearchEdges } from './helpers/tool-search-edges.mjs'

/** The loaded, not found and already loaded names of a `load_tool` result, or what it was. */
const outcome = (result) =>
  result?.loaded || result?.notFound || result?.alreadyLoaded
    ? { loaded: result.loaded ?? [], notFound: result.notFound ?? [] }
    : { success: result?.success, toolName: result?.toolName }

/** What a log's meta-tool calls gave, in order (its other entries are arrays: steps, hook calls). */
const results = (log) => log.filter((entry) => !Array.isArray(entry))

/** The tools a step offered beside the meta-tools, `[name, label]` each. */
const offered = (log) => log.filter((entry) => entry[0] === 'step').map(([, tools]) => tools.filter(([, label]) => label !== 'meta'))

for (const version of TESTED_RELEASES) {
  const edges = await toolSearchEdges(version)

  /** Runs `script` on both; gives ours' log and the release's. */
  const run = async (options, script) => {
    const [ref, ours] = await edges.compare(options, script)
    return { ref, ours }
  }

  describe(`${version}: a tools record edited outside the rule`, () => {
    for (const filter of [undefined, allow]) {
      const hook = filter ? 'a hook' : 'no hook'

      test(`${hook}: an id changed in place finds the tool by neither id until the tables are made again`, async () => {
        const script = async (ctx) => {
          await ctx.step()
          ctx.record.a.id = 'x'
          ctx.log.push(outcome(await ctx.load({ toolNames: ['x', 'a'] })))
          await ctx.step()
        }
        const { ref, ours } = await run((ctx) => ({ tools: three(ctx), filter }), script)
        // By its key, at once; by its new id, not yet; the release finds it by both.
        assert.deepEqual(results(ours)[0], { loaded: ['a'], notFound: ['x'] })
        assert.deepEqual(results(ref)[0], { loaded: ['x', 'a'], notFound: [] })
        // A processor made over the record as it is now reads its ids again.
        const edited = (ctx) => {
          const tools = three(ctx)
          tools.a.id = 'x'
          return { tools, filter }
        }
        const again = await edges.runOne(edges.Ours, edited, async (ctx) => {
          await ctx.step()
          ctx.log.push(outcome(await ctx.load({ toolNames: ['x', 'a'] })))
        })
        assert.deepEqual(results(again)[0], { loaded: ['x', 'a'], notFound: [] })
      })

      test(`${hook}: a tool added under a key other than its id is found by the key alone`, async () => {
        const { ref, ours } = await run(
          (ctx) => ({ tools: three(ctx), filter }),
          async (ctx) => {
            await ctx.step()
            ctx.record.d = ctx.tool('delta', 'delta tool', 'D')
            ctx.log.push(outcome(await ctx.load({ toolNames: ['delta', 'd'] })))
            await ctx.step()
          },
        )
        assert.deepEqual(results(ours)[0], { loaded: ['d'], notFound: ['delta'] })
        assert.deepEqual(results(ref)[0], { loaded: ['delta', 'd'], notFound: [] })
        assert.deepEqual(offered(ours).at(-1), [['d', 'D']])
      })

      test(`${hook}: two tools with one id, the first deleted: the id finds neither`, async () => {
        const { ref, ours } = await run(
          ({ tool }) => ({ tools: { a: tool('dup', 'first of two', 'A'), b: tool('dup', 'second of two', 'B') }, filter }),
          async (ctx) => {
            await ctx.step()
            delete ctx.record.a
            ctx.log.push(outcome(await ctx.load({ toolNames: ['dup', 'b'] })))
          },
        )
        // The tables hold the first tool with an id for it; the release finds the second.
        assert.deepEqual(results(ours)[0], { loaded: ['b'], notFound: ['dup'] })
        assert.deepEqual(results(ref)[0], { loaded: ['dup', 'b'], notFound: [] })
      })

      test(`${hook}: a search hit found by an id changed in place is passed over`, async () => {
        const { ref, ours } = await run(
          (ctx) => ({ tools: three(ctx), filter, search: { autoLoad: true } }),
          async (ctx) => {
            await ctx.step()
            ctx.record.b.id = 'x'
            ctx.record.e = ctx.tool('b', 'a second beta tool', 'E')
            ctx.log.push(await ctx.search('beta'))
          },
        )
        // The index was made at construction in both; the release finds `b` in the tool added under `e`.
        assert.deepEqual(results(ours)[0].results, [])
        assert.deepEqual(
          results(ref)[0].results.map((result) => result.name),
          ['b'],
        )
      })

      test(`${hook}: includeResolvedTools, a step's tables are made when the step reads its tools`, async () => {
        const { ref, ours } = await run(
          ({ tool }) => ({ tools: { a: tool('a', 'alpha tool', 'A') }, includeResolvedTools: true, filter }),
          async (ctx) => {
            const resolved = { r: ctx.tool('rtool', 'resolved thing', 'R') }
            await ctx.step(resolved)
            resolved.r.id = 'renamed'
            ctx.record.a.id = 'x'
            // Within the step: the ids it read at its start.
            ctx.log.push(outcome(await ctx.load({ toolNames: ['renamed', 'x', 'rtool', 'a'] })))
            // The next step reads them again.
            await ctx.step(resolved)
            ctx.log.push(outcome(await ctx.load({ toolNames: ['renamed', 'x'] })))
          },
        )
        assert.deepEqual(results(ours)[0], { loaded: ['rtool', 'a'], notFound: ['renamed', 'x'] })
        assert.deepEqual(results(ours)[1], { loaded: ['renamed', 'x'], notFound: [] })
        assert.deepEqual(results(ref)[0], { loaded: ['renamed', 'x', 'a'], notFound: ['rtool'] })
      })

      test(`${hook}: load_tool's suggestions list the keys the tables hold`, async () => {
        const { ref, ours } = await run(
          ({ tool }) => ({
            tools: { alpha: tool('alpha', 'alpha tool', 'A'), alphabet: tool('alphabet', 'letters', 'L'), b: tool('b', 'beta tool', 'B') },
            filter,
          }),
          async (ctx) => {
            await ctx.step()
            delete ctx.record.alphabet
            ctx.record.alphanumeric = ctx.tool('alphanumeric', 'letters and digits', 'N')
            ctx.log.push((await ctx.load({ toolName: 'alph' })).message)
            ctx.log.push((await ctx.load({ toolName: 'alphabet' })).message)
          },
        )
        // A key added since is not listed; one deleted since is, where nothing
        // looks it up (without a hook), but never as the name just not found.
        assert.deepEqual(results(ours), [
          filter ? 'Tool "alph" not found. Did you mean: alpha?' : 'Tool "alph" not found. Did you mean: alpha, alphabet?',
          'Tool "alphabet" not found. Did you mean: alpha, b?',
        ])
        assert.deepEqual(results(ref), ['Tool "alph" not found. Did you mean: alpha, alphanumeric?', 'Tool "alphabet" not found. Did you mean: alpha, b?'])
      })

      if (edges.referenceHas.injectCatalog) {
        test(`${hook}: the injected catalog lists the keys the tables hold`, async () => {
          const { ref, ours } = await run(
            (ctx) => ({ tools: three(ctx), filter, injectCatalog: true }),
            async (ctx) => {
              await ctx.step()
              ctx.record.d = ctx.tool('d', 'delta tool', 'D')
              delete ctx.record.c
              ctx.record.a.id = 'x'
              await ctx.step()
            },
          )
          /** The lines of each step's injected catalog (each `addSystem` call is its arguments). */
          const listing = (log) =>
            log
              .filter((entry) => entry[0] === 'step')
              .map(([, , system]) => system.map(([text]) => text).find((text) => text.includes('Available tools:\n')))
              .map((text) => text.slice(text.indexOf('Available tools:\n') + 'Available tools:\n'.length).split('\n'))
          const before = ['- `a`: alpha tool', '- `b`: beta tool', '- `c`: gamma tool']
          // Each key is named as the tables name its tool. With a hook each is
          // looked up as it is listed (the deleted one finds no tool); without
          // one the listing is the tables' alone.
          assert.deepEqual(listing(ours), [before, filter ? before.slice(0, 2) : before])
          assert.deepEqual(listing(ref)[1], ['- `x`', '- `b`: beta tool', '- `d`'])
        })
      }
    }
  })
}
