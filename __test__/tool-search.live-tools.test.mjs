// The tools record is the caller's object, read live, as the reference reads
// it: it keeps `options.tools` and looks names up in it at every use
// (`tools[name]`, `Object.values(tools).find(t => t.id === name)`), lists its
// keys for the injected catalog and the "did you mean" suggestions, and
// spreads it afresh with `includeResolvedTools`; only its BM25 index and
// descriptions were made at construction (and stay stale there too). Ours
// reads the keys live and resolves ids through the tables made when the
// record's tools were read (docs/differences.md): every edit here is one
// within that rule, where the two agree (tool-search.edited-record.test.mjs
// has the answers to edits outside it).
//
// Each test mutates two copies of one record the same way, one for the
// reference and one for ours, and compares everything: tool lists (by
// identity), search and load results, system messages, and every hook call
// with the tool object it received.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchKit } from './helpers/tool-search-kit.mjs'

for (const version of ['1.59.0', '1.71.0']) {
  const kit = await toolSearchKit(version)
  const { both, runStep, execTool, makeRequestContext, docsCatalog, tagged, snapshot, referenceHas } = kit

  /**
   * Runs `script` on both implementations over a fresh copy of the docs'
   * catalog plus `extra` tools (labelled, shared by both runs).
   */
  async function compare(options, script) {
    const { tools, labels } = docsCatalog()
    const extra = {
      weatherV2: labels.set(tagged('get_weather', 'Get the weather forecast, version two', 'weatherV2'), 'weatherV2'),
      renamed: labels.set(tagged('weather_now', 'Current weather right now', 'renamed'), 'renamed'),
      renamedToo: labels.set(tagged('weather_now', 'Current weather, a second tool with that id', 'renamedToo'), 'renamedToo'),
      added: labels.set(tagged('translate_text', 'Translate text between languages', 'added'), 'added'),
      idless: labels.set({ description: 'A tool without an id', execute: async () => ({}) }, 'idless'),
    }
    return both(async (P) => {
      const record = { ...tools }
      const hookCalls = []
      const filter = options.filter
        ? ({ toolName, tool, phase }) => {
            hookCalls.push([phase, toolName, labels.get(tool)])
            return options.filter({ toolName, phase })
          }
        : undefined
      const p = new P({ ttl: 0, ...options, tools: record, filter })
      const rc = makeRequestContext({ threadId: 'live' })
      const log = []
      let stepNumber = 0
      const ctx = {
        record,
        extra,
        async step(tools) {
          const s = await runStep(p, { labels, requestContext: rc, tools, stepNumber: stepNumber++ })
          ctx.current = s
          log.push({ tools: s.tools.map(([name, t]) => [name, typeof t === 'string' ? t : 'meta']), system: s.systemCalls })
          return s
        },
        async search(query, s = ctx.current) {
          log.push({ search: query, out: await execTool(s.result.tools.search_tools, { query }, { requestContext: rc }) })
        },
        async load(input, s = ctx.current) {
          log.push({ load: input, out: await execTool(s.result.tools.load_tool, input, { requestContext: rc }) })
        },
        async resume(tools) {
          const out = await p.getLoadedToolsForRequestContext({ requestContext: rc, tools })
          log.push({ resume: Object.entries(out).map(([name, t]) => [name, labels.get(t)]) })
        },
      }
      await script(ctx)
      return snapshot({ log, hookCalls })
    })
  }

  const filters = {
    'no hook': {},
    'a hook': { filter: ({ toolName }) => toolName !== 'db_insert' },
  }

  describe(`${version}: a live tools record`, () => {
    for (const [label, options] of Object.entries(filters)) {
      test(`${label}: a tool added under a new key that is its id loads by it`, async () => {
        const [ref, ours] = await compare(options, async ({ record, extra, step, load, search, resume }) => {
          await step()
          record.translate_text = extra.added
          await load({ toolName: 'translate_text' })
          await load({ toolNames: ['translate_text', 'nope'] })
          await search('translate languages') // the index is stale: not found
          await step()
          await resume()
        })
        assert.deepEqual(ours, ref)
        const last = ours.log.find((e) => e.resume).resume
        assert.deepEqual(last, [['translate_text', 'added']])
      })

      test(`${label}: one load_tool of names the catalog lacks, added since under keys that are their ids`, async () => {
        const [ref, ours] = await compare(options, async ({ record, extra, step, load, resume }) => {
          await step()
          record.weather_now = extra.renamed
          record.translate_text = extra.added
          await load({ toolNames: ['nope_1', 'weather_now', 'nope_2', 'translate_text', 'nope_3', 'get_weather'] })
          await step()
          delete record.weather_now
          await load({ toolNames: ['nope_4', 'weather_now', 'translate_text'] })
          await step()
          await resume()
        })
        assert.deepEqual(ours, ref)
        const loaded = ours.log.filter((e) => e.load).map((e) => e.out.value?.loaded ?? [])
        assert.deepEqual(loaded, [['weather_now', 'translate_text', 'get_weather'], []])
        const offered = (entry) => entry.tools.filter(([name]) => ['weather_now', 'translate_text'].includes(name))
        const steps = ours.log.filter((e) => e.tools)
        assert.deepEqual(offered(steps[1]), [
          ['weather_now', 'renamed'],
          ['translate_text', 'added'],
        ])
        assert.deepEqual(offered(steps[2]), [['translate_text', 'added']])
      })

      test(`${label}: a tool swapped in under an existing key is the one returned and asked about`, async () => {
        const [ref, ours] = await compare(options, async ({ record, extra, step, load, search }) => {
          await step()
          await load({ toolName: 'get_weather' })
          await load({ toolName: 'sendEmail' })
          record.getWeather = extra.weatherV2 // same id
          record.sendEmail = extra.renamed // another id: its old one no longer finds it
          await search('weather forecast')
          await search('email recipient')
          await step()
          await load({ toolNames: ['getWeather', 'get_weather', 'send_email', 'sendEmail'] })
          await step()
        })
        assert.deepEqual(ours, ref)
      })

      test(`${label}: a deleted tool is not found, not listed, not loaded`, async () => {
        const [ref, ours] = await compare(options, async ({ record, step, load, search, resume }) => {
          await step()
          await load({ toolNames: ['get_weather', 'db_query'] })
          delete record.getWeather
          delete record.query
          await search('weather forecast city')
          await load({ toolName: 'getWeather' })
          await load({ toolName: 'get_weathe' }) // suggestions list live keys
          await step()
          await resume()
        })
        assert.deepEqual(ours, ref)
      })

      test(`${label}: the record may change between a step and its meta-tool calls, and before the first step`, async () => {
        const [ref, ours] = await compare(options, async ({ record, extra, step, load }) => {
          record.early = extra.added
          delete record.mergePR
          const s = await step()
          record.late = extra.renamed
          await load({ toolNames: ['early', 'late', 'merge_pull_request', 'mergePR'] }, s)
          await load({ toolName: 'sendEmai' }, s) // suggestions list the tables' keys
          await step()
        })
        assert.deepEqual(ours, ref)
      })

      test(`${label}: includeResolvedTools spreads the live record with the step's tools`, async () => {
        const [ref, ours] = await compare({ ...options, includeResolvedTools: true }, async ({ record, extra, step, load, search }) => {
          const resolved = { mcpTool: kit.tagged('mcp_tool', 'A tool from an MCP server', 'mcp') }
          await step(resolved)
          record.translator = extra.added
          record.getWeather = extra.renamed
          delete record.sendEmail
          await step(resolved)
          await search('translate languages') // indexed afresh with the step's tools
          await search('weather now')
          await search('send email')
          await load({ toolNames: ['translator', 'translate_text', 'weather_now', 'get_weather', 'send_email', 'mcp_tool'] })
          await step(resolved)
          record.idless = extra.idless
          await step(resolved)
          await search('tool without id')
        })
        assert.deepEqual(ours, ref)
      })

      if (referenceHas.injectCatalog) {
        test(`${label}: the injected catalog lists a tool swapped in under its key with its id`, async () => {
          const [ref, ours] = await compare({ ...options, injectCatalog: true }, async ({ record, extra, step }) => {
            await step()
            record.getWeather = extra.weatherV2 // listed as get_weather, its indexed description
            await step()
          })
          assert.deepEqual(ours, ref)
        })
      }
    }

    test('a record left alone asks nothing more than before', async () => {
      const [ref, ours] = await compare(filters['a hook'], async ({ step, load, search }) => {
        await step()
        await search('weather')
        await load({ toolNames: ['get_weather', 'db_insert', 'nope'] })
        await step()
      })
      assert.deepEqual(ours, ref)
    })
  })
}

const kit171 = await toolSearchKit('1.71.0')

describe('a record value put in after construction that is no tool', () => {
  const { Ref, Ours, runStep, execTool, makeRequestContext, docsCatalog } = kit171

  // Read under its key, a value that is no tool is refused with a TypeError
  // naming the key. The reference reads `.id` of every value when it looks
  // any name up by id, so `null` or `undefined` makes it throw a TypeError
  // too; a number it takes for a tool.
  for (const [label, value] of [
    ['null', null],
    ['undefined', undefined],
    ['a number', 5],
  ]) {
    test(`${label}: a TypeError naming the key, where its key is read`, async () => {
      const { tools, labels } = docsCatalog()
      const record = { ...tools }
      const p = new Ours({ tools: record, ttl: 0 })
      const rc = makeRequestContext({ threadId: 'broken' })
      const s = await runStep(p, { labels, requestContext: rc })
      record.broken = value
      const out = await execTool(s.result.tools.load_tool, { toolName: 'broken' }, { requestContext: rc })
      assert.equal(out.threw?.name, 'TypeError')
      assert.match(out.threw.message, /^ToolSearchProcessor: options\.tools\.broken must be a tool, got /)
      // Names whose keys hold tools are found as before.
      const found = await execTool(s.result.tools.load_tool, { toolName: 'get_weather' }, { requestContext: rc })
      assert.equal(found.value?.success, true)
      if (value !== 5) {
        const refRecord = { ...tools }
        const ref = new Ref({ tools: refRecord, ttl: 0 })
        const refStep = await runStep(ref, { labels, requestContext: rc })
        refRecord.broken = value
        const refOut = await execTool(refStep.result.tools.load_tool, { toolName: 'broken' }, { requestContext: rc })
        assert.equal(refOut.threw?.name, 'TypeError')
      }
    })
  }
})

// storage 'context' (1.60+; on 1.59 ours reads loaded names the release drops, docs/differences.md): each step
// looks up the names its history loaded, in the record as it is then: names the catalog lacks are found under
// the keys they name, as the release finds them.
describe("storage 'context': a history that loaded names the catalog lacks", () => {
  const { both, runStep, makeRequestContext, docsCatalog, tagged, toolInvocationMessage } = kit171
  const history = (names) =>
    names.map((name, i) =>
      toolInvocationMessage(
        [{ toolName: 'load_tool', toolCallId: `c${i}`, args: { toolName: name }, result: { success: true, message: 'loaded', toolName: name } }],
        { id: `m${i}` },
      ),
    )
  for (const [label, filter] of [
    ['no hook', undefined],
    ['a hook', ({ toolName }) => toolName !== 'db_insert'],
  ]) {
    test(`${label}: each step offers each name the record then holds under it`, async () => {
      const { tools, labels } = docsCatalog()
      const renamed = labels.set(tagged('weather_now', 'Current weather right now', 'renamed'), 'renamed')
      const added = labels.set(tagged('translate_text', 'Translate text between languages', 'added'), 'added')
      const messages = history(['nope_1', 'weather_now', 'nope_2', 'translate_text', 'get_weather', 'nope_3'])
      const [ref, ours] = await both(async (P) => {
        const record = { ...tools }
        const p = new P({ tools: record, storage: 'context', ttl: 0, filter })
        const offered = []
        const step = async () => {
          const s = await runStep(p, { labels, messages, requestContext: makeRequestContext({ threadId: 'context' }) })
          offered.push(s.tools.filter(([name]) => !name.endsWith('_tools') && name !== 'load_tool').map(([name, tool]) => [name, tool]))
        }
        await step()
        record.weather_now = renamed
        record.translate_text = added
        await step()
        delete record.weather_now
        await step()
        return offered
      })
      assert.deepEqual(ours, ref)
      assert.deepEqual(ours, [
        [['get_weather', 'getWeather']],
        [
          ['weather_now', 'renamed'],
          ['translate_text', 'added'],
          ['get_weather', 'getWeather'],
        ],
        [
          ['translate_text', 'added'],
          ['get_weather', 'getWeather'],
        ],
      ])
    })
  }
})
