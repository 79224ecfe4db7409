// ToolSearchProcessor `search.syntax: 'regex'` (this package's own):
// search_tools' query is a regular expression (Rust's regex crate, linear
// time), matched case-insensitively against each tool's name, description,
// parameter names and parameter descriptions (src/search/pattern.rs). A
// result's score is the sum of the weights of the fields that match (name
// 3, description 1, a parameter's name 1, a parameter's description 0.5),
// best first, ties in the catalog's order. End to end, through our processor
// for the oldest and the newest tested release, next to that release's own.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { z } from 'zod'
import { z as z3 } from 'zod/v3'

import { createRequire } from 'node:module'

import { loadRelease } from './helpers/releases.mjs'

const { toolSearchProtocol } = createRequire(import.meta.url)('../lib/native.js')
const FOUND = (n) => `Found ${n} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`
const EXAMPLES = 'search_tools takes a regular expression, e.g. "weather", "^github_" or "send.*(email|mail)".'
const execute = async () => ({})
const { pattern: LIMITS, echo: ECHO } = toolSearchProtocol()
/** A value as our answers echo it: whole up to ECHO.maxLength UTF-16 units, else cut there (not inside a surrogate pair) and marked. */
const cut = (head, length) => `${head}…(cut from ${length} characters)`

for (const version of ['1.59.0', '1.71.0']) {
  const release = await loadRelease(version)
  const { ToolSearchProcessor: RefToolSearchProcessor } = release.reference
  const { ToolSearchProcessor } = release.ours
  const { createTool } = await release.importCore('tools')
  const { RequestContext } = await release.importCore('request-context')

  /** Tools with zod 4, zod 3 and JSON schema inputs (their parameters are matched too). */
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

  function stepArgs(tools, requestContext, system = []) {
    const messageList = { addSystem: (message) => system.push(message), get: { all: { db: () => [] } } }
    return { messages: [], messageList, tools, requestContext, state: {}, stepNumber: 0, steps: [], abort() {} }
  }

  /** A processor's first step: its `search_tools` (as a function of the query), tools and system messages. */
  async function firstStep(processor, stepTools = {}, requestContext = new RequestContext()) {
    const system = []
    const { tools } = await processor.processInputStep(stepArgs(stepTools, requestContext, system))
    const search = (query) => tools.search_tools.execute({ query }, { requestContext })
    return { search, tools, system, requestContext }
  }

  async function searchTool(processor, stepTools) {
    return (await firstStep(processor, stepTools)).search
  }

  /** The expected output for `[name, score]` pairs. */
  function found(pairs) {
    return {
      results: pairs.map(([name, score]) => ({ name, description: DESCRIPTIONS[name], score })),
      message: FOUND(pairs.length),
    }
  }

  const regex = (options = {}) => new ToolSearchProcessor({ tools: catalog(), ...options, search: { syntax: 'regex', ...options.search } })

  describe(`${version}: search.syntax 'regex'`, () => {
    test('matches names, descriptions and parameters, scored by the fields that match', async () => {
      const search = await searchTool(regex({ search: { topK: 10 } }))
      const cases = [
        // Name and description; name alone.
        [
          'weather',
          [
            ['get_current_weather', 4],
            ['query_weather_cn', 3],
          ],
        ],
        // Name, description and a parameter's description; a parameter's description alone.
        [
          'fahrenheit',
          [
            ['fahrenheit_to_celsius', 4.5],
            ['get_current_weather', 0.5],
          ],
        ],
        // Anchors hold within each text: a parameter's name, a name's start.
        ['^url$', [['requests.get', 1]]],
        [
          '^send',
          [
            ['sendEmail', 4],
            ['requests.get', 1],
          ],
        ],
        ['_cn$', [['query_weather_cn', 3]]],
        // Case-insensitive unless the pattern says otherwise.
        ['SENDEMAIL', [['sendEmail', 3]]],
        ['(?-i)GET', [['requests.get', 1]]],
        // Alternation, classes and Unicode.
        [
          'celsius|recipient',
          [
            ['fahrenheit_to_celsius', 4],
            ['sendEmail', 1.5],
            ['get_current_weather', 0.5],
          ],
        ],
        ['城市', [['query_weather_cn', 1.5]]],
        ['^\\p{Han}+$', [['query_weather_cn', 1.5]]],
        ['request.*url', [['requests.get', 1]]],
      ]
      for (const [pattern, pairs] of cases) assert.deepEqual(await search(pattern), found(pairs), pattern)
      assert.deepEqual(await search('zebra'), {
        results: [],
        message: 'No tools found matching the pattern "zebra". Try a broader pattern.',
      })
      // A pattern that matches every text lists the tools in the catalog's order, topK of them.
      const top3 = await searchTool(regex({ search: { topK: 3 } }))
      assert.deepEqual(
        (await top3('')).results.map((r) => [r.name, r.score]),
        [
          ['get_current_weather', 5.5],
          ['fahrenheit_to_celsius', 5.5],
          ['requests.get', 5.5],
        ],
      )
    })

    test('a malformed pattern is answered with what is wrong with it, never thrown', async () => {
      const search = await searchTool(regex())
      const cases = [
        ['(weather', 'unclosed group (at character 1)'],
        ['get_[a-', 'unclosed character class (at character 5)'],
        ['*weather', 'repetition operator missing expression (at character 1)'],
        ['a{3,1}', 'invalid repetition count range, the start must be <= the end (at character 2)'],
        ['\\q', 'unrecognized escape sequence (at character 1)'],
        ['(?<n>a)(?<n>b)', 'duplicate capture group name (at character 11)'],
        ['x'.repeat(LIMITS.maxLength + 1), `it is longer than ${LIMITS.maxLength} characters`],
        ['\\w{1000}{1000}', 'it is too large once compiled; use a shorter or simpler pattern'],
        [
          '((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))',
          'exceed the maximum number of nested parentheses/brackets (64) (at character 65)',
        ],
      ]
      for (const [pattern, what] of cases) {
        // (ASCII patterns: no surrogate pair to keep whole.)
        const shown = pattern.length > ECHO.maxLength ? cut(pattern.slice(0, ECHO.maxLength), pattern.length) : pattern
        assert.deepEqual(await search(pattern), { results: [], message: `Invalid pattern "${shown}": ${what}. ${EXAMPLES}` }, pattern)
      }
    })

    test('a pattern is echoed whole up to a few hundred characters, then cut and marked', async () => {
      assert.equal(ECHO.maxLength, 300)
      const search = await searchTool(regex())
      const invalid = (echoed, what) => ({ results: [], message: `Invalid pattern "${echoed}": ${what}. ${EXAMPLES}` })
      const tooLong = `it is longer than ${LIMITS.maxLength} characters`
      // 1 MiB that does not compile, and a valid pattern over the length limit.
      assert.deepEqual(await search('('.repeat(1 << 20)), invalid(cut('('.repeat(300), 1 << 20), tooLong))
      assert.deepEqual(await search('x'.repeat(LIMITS.maxLength + 1)), invalid(cut('x'.repeat(300), 1001), tooLong))
      // 300,000 emoji: 600,000 UTF-16 units, cut between two of them.
      assert.deepEqual(await search('😀'.repeat(300_000)), invalid(cut('😀'.repeat(150), 600_000), tooLong))
      assert.deepEqual(await search(`a${'😀'.repeat(300_000)}`), invalid(cut(`a${'😀'.repeat(149)}`, 600_001), tooLong))
      // Within the length limit: what is wrong is said, the pattern cut all the same.
      const unclosed = `${'a'.repeat(400)}(`
      assert.deepEqual(await search(unclosed), invalid(cut('a'.repeat(300), 401), 'unclosed group (at character 401)'))
      // A valid pattern that finds nothing, whole up to the limit, then cut.
      const nothing = (echoed) => ({ results: [], message: `No tools found matching the pattern "${echoed}". Try a broader pattern.` })
      assert.deepEqual(await search('z'.repeat(300)), nothing('z'.repeat(300)))
      assert.deepEqual(await search('z'.repeat(LIMITS.maxLength)), nothing(cut('z'.repeat(300), LIMITS.maxLength)))
    })

    test('patterns that make backtracking engines take exponential time answer like any other', async () => {
      const tools = {}
      for (let i = 0; i < 50; i++) {
        const id = `run_${i}`
        tools[id] = createTool({ id, description: `${'a'.repeat(40 + i)}b`, execute })
      }
      tools.plain = createTool({ id: 'plain', description: 'a'.repeat(60), execute })
      const search = await searchTool(new ToolSearchProcessor({ tools, search: { syntax: 'regex', topK: 3 } }))
      assert.deepEqual(
        (await search('(a+)+$')).results.map((r) => [r.name, r.score]),
        [['plain', 1]],
      )
      assert.deepEqual((await search('^(a|aa)+c$')).results, [])
      assert.deepEqual((await search('(x+x+)+y')).results, [])
      assert.deepEqual(
        (await search('(.*a){25}b')).results.map((r) => [r.name, r.score]),
        [
          ['run_0', 1],
          ['run_1', 1],
          ['run_2', 1],
        ],
      )
      assert.deepEqual((await search('(a*)*$')).results.length, 3)
    })

    test("in this mode only, the instruction, the meta-tool's description and its query say it takes a pattern", async () => {
      const ours = await firstStep(regex())
      const schema = ours.tools.search_tools.inputSchema
      assert.equal(
        ours.tools.search_tools.description,
        "Search for available tools with a regular expression, matched case-insensitively against each tool's name, description and parameters. Use this when you need a capability you don't currently have. Returns a list of matching tools with their names and descriptions, those whose name matches first. After finding a useful tool, use load_tool to make it available.",
      )
      assert.equal(
        schema.shape.query.description,
        'A regular expression (Rust regex syntax, case-insensitive) matched against each tool\'s name, description and parameters (e.g., "weather", "^github_", "send.*(email|mail)")',
      )
      assert.deepEqual(ours.system, [
        'To discover available tools, call search_tools with a regular expression matched against tool names, descriptions and parameters. To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. Tools must be loaded before they can be used.',
      ])
      const autoLoad = await firstStep(regex({ search: { autoLoad: true } }))
      assert.equal(
        autoLoad.tools.search_tools.description,
        "Search for available tools with a regular expression, matched case-insensitively against each tool's name, description and parameters. Use this when you need a capability you don't currently have. Returns a list of matching tools, those whose name matches first, which are loaded automatically and become available on your next turn — no separate load step is required.",
      )
      assert.deepEqual(autoLoad.system, [
        'To discover available tools, call search_tools with a regular expression matched against tool names, descriptions and parameters. Matching tools are loaded automatically and become available on your next turn — there is no separate load step. After searching, use the tool directly.',
      ])
      // 'words', given or not, is the reference's, byte for byte.
      const reference = await firstStep(new RefToolSearchProcessor({ tools: catalog() }))
      for (const options of [{}, { search: { syntax: 'words' } }]) {
        const words = await firstStep(new ToolSearchProcessor({ tools: catalog(), ...options }))
        assert.equal(words.tools.search_tools.description, reference.tools.search_tools.description)
        assert.equal(words.tools.search_tools.inputSchema.shape.query.description, reference.tools.search_tools.inputSchema.shape.query.description)
        assert.deepEqual(words.system, reference.system)
      }
    })

    test('topK, minScore, autoLoad and the filter hook work as with words', async () => {
      const top1 = await searchTool(regex({ search: { topK: 1 } }))
      // A tie (4.5 each) goes to the catalog's order.
      assert.deepEqual(await top1('fahrenheit|weather'), found([['get_current_weather', 4.5]]))
      // score <= minScore is left out.
      const above = await searchTool(regex({ search: { minScore: 3 } }))
      assert.deepEqual(
        await above('weather|fahrenheit'),
        found([
          ['get_current_weather', 4.5],
          ['fahrenheit_to_celsius', 4.5],
        ]),
      )
      const asked = []
      const filtered = await searchTool(
        regex({
          filter: ({ toolName, phase }) => {
            asked.push([toolName, phase])
            if (toolName === 'query_weather_cn') throw new Error('fails closed')
            return toolName !== 'get_current_weather'
          },
        }),
      )
      assert.deepEqual(await filtered('weather|fahrenheit'), found([['fahrenheit_to_celsius', 4.5]]))
      assert.deepEqual(asked, [
        ['get_current_weather', 'search'],
        ['fahrenheit_to_celsius', 'search'],
        ['query_weather_cn', 'search'],
      ])
      const autoLoad = await firstStep(regex({ search: { autoLoad: true, topK: 2 } }))
      const loaded = await autoLoad.search('^(send|requests)')
      assert.deepEqual(loaded, {
        results: found([
          ['requests.get', 4],
          ['sendEmail', 4],
        ]).results,
        message: 'Found and loaded 2 tool(s): requests.get, sendEmail. They are available on your next turn — call them directly.',
      })
    })

    test('asking the hook several at once answers the same', async () => {
      const slow = async ({ toolName }) => {
        await new Promise((resolve) => setTimeout(resolve, toolName.length % 3))
        return !toolName.startsWith('get')
      }
      const one = await searchTool(regex({ filter: slow }))
      const many = await searchTool(regex({ filter: slow, filterConcurrency: 4 }))
      for (const pattern of ['e', 'weather|fahrenheit', '^s', '(']) assert.deepEqual(await many(pattern), await one(pattern), pattern)
    })

    test("a 'fielded' ranking changes nothing: the pattern decides", async () => {
      const plain = await searchTool(regex())
      const fielded = await searchTool(regex({ search: { ranking: 'fielded' } }))
      for (const pattern of ['e', 'weather|fahrenheit', '^url$', '城市']) assert.deepEqual(await fielded(pattern), await plain(pattern), pattern)
    })

    test("'hybrid' changes nothing either, and its embedder is never called", async () => {
      const plain = await searchTool(regex())
      const calls = []
      const embedder = {
        maxEmbeddingsPerCall: 8,
        async doEmbed({ values }) {
          calls.push(values)
          return { embeddings: values.map(() => [1, 0, 0]) }
        },
      }
      const hybrid = await searchTool(regex({ search: { ranking: 'hybrid', embedder } }))
      for (const pattern of ['e', 'weather|fahrenheit', '^url$']) assert.deepEqual(await hybrid(pattern), await plain(pattern), pattern)
      assert.deepEqual(calls, [])
      // The ranking is still checked.
      assert.throws(() => new ToolSearchProcessor({ tools: catalog(), search: { syntax: 'regex', ranking: 'bm25' } }), TypeError)
    })

    test("the step's own tools and their parameters are matched with includeResolvedTools", async () => {
      const stepTools = {
        translate_text: createTool({
          id: 'translate_text',
          description: 'Translate text between languages.',
          inputSchema: z.object({ targetLanguage: z.string().describe('ISO 639-1 code') }),
          execute,
        }),
      }
      const search = await searchTool(regex({ includeResolvedTools: true }), stepTools)
      assert.deepEqual((await search('^targetlanguage$|639')).results, [
        { name: 'translate_text', description: 'Translate text between languages.', score: 1.5 },
      ])
    })

    if (version !== '1.59.0') {
      test("the injected catalog's header says search_tools takes a pattern", async () => {
        const { system } = await firstStep(regex({ injectCatalog: true }))
        assert.match(
          system[1],
          /^The following tools are available to load\. Call load_tool with a toolName or toolNames array to add one or more before using them — no search step is required\. search_tools is also available if you need to rediscover tools with a regular expression\.\n\nAvailable tools:\n- `get_current_weather`: /,
        )
        const auto = await firstStep(regex({ injectCatalog: true, search: { autoLoad: true } }))
        assert.match(
          auto.system[1],
          /^The following tools are available\. Call search_tools with a regular expression matching a tool's name to load it — matching tools are loaded automatically and become available on your next turn\.\n\nAvailable tools:\n/,
        )
      })
    }

    test('a syntax other than words or regex is refused', () => {
      for (const [syntax, described] of [
        ['glob', 'the string "glob"'],
        [true, 'the boolean true'],
        ['Regex', 'the string "Regex"'],
      ]) {
        assert.throws(() => new ToolSearchProcessor({ tools: catalog(), search: { syntax } }), {
          name: 'TypeError',
          message: `ToolSearchProcessor: options.search.syntax must be 'words' or 'regex', got ${described}`,
        })
      }
    })
  })
}
