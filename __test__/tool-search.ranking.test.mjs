// ToolSearchProcessor `search.ranking`: 'reference' (the default, exactly
// @mastra/core's ranking) and 'fielded' (BM25F over names, descriptions and
// the input schema's parameters, with identifier splitting, stems, prefixes
// and CJK n-grams; src/search/fielded.rs). End to end, through our processor
// for the oldest and the newest tested release, next to that release's own.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { z } from 'zod'
import { z as z3 } from 'zod/v3'

import { loadRelease } from './helpers/releases.mjs'

const FOUND = (n) => `Found ${n} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`
const execute = async () => ({})

for (const version of ['1.59.0', '1.71.0']) {
  const release = await loadRelease(version)
  const { ToolSearchProcessor: RefToolSearchProcessor } = release.reference
  const { ToolSearchProcessor } = release.ours
  const { createTool } = await release.importCore('tools')
  const { RequestContext } = await release.importCore('request-context')

  /** Tools of the kinds the reference ranking misses, with zod 4, zod 3 and JSON schema inputs. */
  function catalog() {
    return {
      get_current_weather: createTool({
        id: 'get_current_weather',
        description: 'Get the current weather in a given location.',
        inputSchema: z.object({
          location: z.string().describe('The city and state, e.g. San Francisco, CA'),
          unit: z.enum(['celsius', 'fahrenheit']).optional().describe('The unit of temperature: celsius or fahrenheit'),
        }),
        execute,
      }),
      fahrenheit_to_celsius: createTool({
        id: 'fahrenheit_to_celsius',
        description: 'Converts a temperature in fahrenheit to celsius.',
        inputSchema: z3.object({ value: z3.number().describe('Degrees fahrenheit') }),
        execute,
      }),
      ChaFod: createTool({
        id: 'ChaFod',
        description: "Changes the selection of food based on the customer's request.",
        inputSchema: z.object({ foodItem: z.string().describe('The name of the food item to order') }),
        execute,
      }),
      'requests.get': createTool({
        id: 'requests.get',
        description: 'Sends a GET request to the specified URL.',
        inputSchema: {
          type: 'object',
          properties: {
            url: { type: 'string', description: 'The URL to send the request to' },
            headers: { type: 'object', description: 'HTTP headers' },
          },
        },
        execute,
      }),
      sendEmail: createTool({
        id: 'sendEmail',
        description: 'Send an email message to a recipient.',
        inputSchema: z.object({ to: z.string().describe('Recipient address'), subject: z.string() }),
        execute,
      }),
      query_weather_cn: createTool({
        id: 'query_weather_cn',
        description: '查询指定城市的天气预报',
        inputSchema: z.object({ city: z.string().describe('城市名称') }),
        execute,
      }),
    }
  }

  const DESCRIPTIONS = Object.fromEntries(Object.values(catalog()).map((tool) => [tool.id, tool.description]))

  function stepArgs(tools, requestContext) {
    const messageList = { addSystem() {}, get: { all: { db: () => [] } } }
    return { messages: [], messageList, tools, requestContext, state: {}, stepNumber: 0, steps: [], abort() {} }
  }

  /** `search_tools` of a processor's first step. */
  async function searchTool(processor, stepTools = {}) {
    const requestContext = new RequestContext()
    const { tools } = await processor.processInputStep(stepArgs(stepTools, requestContext))
    return (query) => tools.search_tools.execute({ query }, { requestContext })
  }

  /** The expected output for `[name, score]` pairs. */
  function found(pairs) {
    if (pairs.length === 0) return undefined
    return {
      results: pairs.map(([name, score]) => ({ name, description: DESCRIPTIONS[name], score })),
      message: FOUND(pairs.length),
    }
  }

  describe(`${version}: search.ranking 'fielded'`, () => {
    test('ranks a small catalog exactly so', async () => {
      const search = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded' } }))
      const cases = [
        [
          "What's the weather like in Boston in fahrenheit?",
          [
            ['get_current_weather', 1.91],
            ['fahrenheit_to_celsius', 1.65],
            ['query_weather_cn', 1.43],
          ],
        ],
        // Stems ("change", "changes") and a zod 4 parameter ("food item", and joined,
        // the whole of `foodItem`); "my" is filler.
        ['change the food item on my order', [['ChaFod', 3.26]]],
        // The same identifier, spelled another way.
        [
          'getCurrentWeather for Paris',
          [
            ['get_current_weather', 5.22],
            ['query_weather_cn', 1.43],
            ['requests.get', 1.21],
          ],
        ],
        [
          'call requests.get on https://example.com',
          [
            ['requests.get', 3.7],
            ['get_current_weather', 1.16],
            ['ChaFod', 0.44],
          ],
        ],
        // Chinese, matched by character n-grams.
        ['查询北京的天气', [['query_weather_cn', 3.49]]],
        // Portuguese "temperatura" shares its first five letters with "temperature".
        [
          'Qual é a temperatura em São Paulo?',
          [
            ['fahrenheit_to_celsius', 0.25],
            ['get_current_weather', 0.09],
          ],
        ],
        // A JSON schema's parameters.
        ['the URL headers', [['requests.get', 2.32]]],
      ]
      for (const [query, pairs] of cases) {
        assert.deepEqual(await search(query), found(pairs), query)
      }
      assert.deepEqual(await search('zebra'), {
        results: [],
        message: 'No tools found matching "zebra". Try different keywords.',
      })
    })

    test('the reference finds none of the Chinese, Portuguese or respelled questions', async () => {
      const search = await searchTool(new RefToolSearchProcessor({ tools: catalog() }))
      for (const query of ['getCurrentWeather for Paris', '查询北京的天气', 'Qual é a temperatura em São Paulo?']) {
        assert.deepEqual((await search(query)).results, [], query)
      }
    })

    test('topK, minScore, autoLoad and the filter hook work as with the reference ranking', async () => {
      const query = "What's the weather like in Boston in fahrenheit?"
      const top1 = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded', topK: 1 } }))
      assert.deepEqual(await top1(query), found([['get_current_weather', 1.91]]))
      const above = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded', minScore: 1.5 } }))
      assert.deepEqual(
        await above(query),
        found([
          ['get_current_weather', 1.91],
          ['fahrenheit_to_celsius', 1.65],
        ]),
      )
      const asked = []
      const filtered = await searchTool(
        new ToolSearchProcessor({
          tools: catalog(),
          search: { ranking: 'fielded' },
          filter: ({ toolName, phase }) => {
            asked.push([toolName, phase])
            return toolName !== 'get_current_weather'
          },
        }),
      )
      assert.deepEqual(
        await filtered(query),
        found([
          ['fahrenheit_to_celsius', 1.65],
          ['query_weather_cn', 1.43],
        ]),
      )
      assert.deepEqual(asked, [
        ['get_current_weather', 'search'],
        ['fahrenheit_to_celsius', 'search'],
        ['query_weather_cn', 'search'],
      ])
      const autoLoad = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded', autoLoad: true, topK: 1 } }))
      const loaded = await autoLoad(query)
      assert.deepEqual(loaded.results, found([['get_current_weather', 1.91]]).results)
      assert.match(loaded.message, /^Found and loaded 1 tool\(s\): get_current_weather\./)
    })

    test("searches the agent's resolved tools with their own parameters (includeResolvedTools)", async () => {
      const { sendEmail, ...rest } = catalog()
      const processor = new ToolSearchProcessor({ tools: rest, includeResolvedTools: true, search: { ranking: 'fielded' } })
      const search = await searchTool(processor, { sendEmail })
      assert.deepEqual(await search('recipient address'), found([['sendEmail', 2.32]]))
      // Static tools keep their parameters in the merged catalog.
      assert.deepEqual(await search('the URL headers'), found([['requests.get', 2.32]]))
    })

    /** A tool whose one parameter is a postcode. */
    const postcodeLookup = () => createTool({ id: 'lookup', description: 'Looks something up.', inputSchema: z.object({ postcode: z.string() }), execute })

    /**
     * Finds `lookup` by its parameter in a step of `processor`, gives it an
     * `isbn` one instead, and finds it by that alone in the next step.
     */
    async function findsByNewSchema(processor, lookup, stepTools) {
      const first = await searchTool(processor, stepTools)
      assert.deepEqual(
        (await first('postcode')).results.map((r) => r.name),
        ['lookup'],
      )
      lookup.inputSchema = z.object({ isbn: z.string() })
      const second = await searchTool(processor, stepTools)
      assert.deepEqual((await second('postcode')).results, [])
      assert.deepEqual(
        (await second('isbn')).results.map((r) => r.name),
        ['lookup'],
      )
    }

    test("a step tool's new input schema is read on the next step", async () => {
      const processor = new ToolSearchProcessor({ tools: {}, includeResolvedTools: true, search: { ranking: 'fielded' } })
      const lookup = postcodeLookup()
      // The very same tool object, with another schema: not the cached catalog.
      await findsByNewSchema(processor, lookup, { lookup })
    })

    test("with includeResolvedTools the record's tools are read as they are now, parameters too", async () => {
      const { sendEmail, ...rest } = catalog()
      const record = { ...rest }
      const processor = new ToolSearchProcessor({ tools: record, includeResolvedTools: true, search: { ranking: 'fielded' } })
      // Put in the record after construction, as the reference reads it.
      record.lookup = postcodeLookup()
      await findsByNewSchema(processor, record.lookup, { sendEmail })
    })
  })

  describe(`${version}: input schemas are read only for a ranking that reads parameters`, () => {
    /** The catalog, each tool's `inputSchema` counting its reads. */
    function counted() {
      const reads = { count: 0 }
      const tools = catalog()
      for (const tool of Object.values(tools)) {
        const schema = tool.inputSchema
        Object.defineProperty(tool, 'inputSchema', {
          get: () => {
            reads.count++
            return schema
          },
        })
      }
      return { tools, reads }
    }

    for (const search of [{}, { ranking: 'reference' }]) {
      test(`${JSON.stringify(search)}: never read, at construction or for step tools`, async () => {
        const { tools, reads } = counted()
        const { sendEmail, ...rest } = tools
        const processor = new ToolSearchProcessor({ tools: rest, includeResolvedTools: true, search })
        const step = await searchTool(processor, { sendEmail })
        await step('recipient address')
        assert.equal(reads.count, 0)
      })
    }

    test("'fielded': read when the tools are indexed, and compared for the step-catalog cache", async () => {
      const { tools, reads } = counted()
      const { sendEmail, ...rest } = tools
      const processor = new ToolSearchProcessor({ tools: rest, includeResolvedTools: true, search: { ranking: 'fielded' } })
      assert.equal(reads.count, Object.keys(rest).length)
      const step = await searchTool(processor, { sendEmail })
      assert.deepEqual(
        (await step('recipient address')).results.map((r) => r.name),
        ['sendEmail'],
      )
      assert.ok(reads.count > Object.keys(rest).length)
    })
  })

  describe(`${version}: search.ranking validation`, () => {
    for (const [label, ranking, shown] of [
      ['an unknown name', 'bm25', 'the string "bm25"'],
      ['another case', 'Fielded', 'the string "Fielded"'],
      ['the empty string', '', 'the string ""'],
      ['a number', 1, 'the number 1'],
      ['a boolean', true, 'the boolean true'],
      ['an object', { name: 'fielded' }, 'an object'],
    ]) {
      test(`${label} is a TypeError naming the option`, () => {
        assert.throws(
          () => new ToolSearchProcessor({ tools: catalog(), search: { ranking } }),
          (error) =>
            error instanceof TypeError &&
            error.message === `ToolSearchProcessor: options.search.ranking must be 'reference' or 'fielded' or 'hybrid', got ${shown}`,
        )
      })
    }

    test('undefined and null mean the default', () => {
      for (const ranking of [undefined, null]) new ToolSearchProcessor({ tools: catalog(), search: { ranking } })
    })
  })

  describe(`${version}: the default ranking is the reference's`, () => {
    const QUERIES = [
      "What's the weather like in Boston in fahrenheit?",
      'change the food item on my order',
      'getCurrentWeather for Paris',
      'call requests.get on https://example.com',
      '查询北京的天气',
      'the URL headers',
      'weather',
      'send email message',
      'get',
      'zebra',
    ]

    for (const [label, search] of [
      ['no ranking', {}],
      ["ranking 'reference'", { ranking: 'reference' }],
      ["ranking 'reference', topK 2 and minScore 1", { ranking: 'reference', topK: 2, minScore: 1 }],
    ]) {
      test(`${label}: every answer equals @mastra/core's`, async () => {
        const { ranking, ...refSearch } = search
        const ours = await searchTool(new ToolSearchProcessor({ tools: catalog(), search }))
        const ref = await searchTool(new RefToolSearchProcessor({ tools: catalog(), search: refSearch }))
        for (const query of QUERIES) assert.deepEqual(await ours(query), await ref(query), query)
      })
    }
  })
}
