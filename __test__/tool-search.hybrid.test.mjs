// ToolSearchProcessor `search.ranking: 'hybrid'`: the 'fielded' score plus the
// semantic similarity of question and tool (src/search/hybrid.rs), with the
// built-in model (the model package, models/potion-base-8m/) or with
// `search.embedder`, an AI SDK embedding model of the user's. Tests use a
// local embedder: the built-in model behind the AI SDK's interface
// (scripts/retrieval.mjs), or fakes; never the network.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

import { z } from 'zod'

import { loadRelease } from './helpers/releases.mjs'
import { builtinEmbeddingModel } from '../scripts/retrieval.mjs'

const require = createRequire(import.meta.url)
const { toolVectorsReady } = require('../lib/tool-search.js')
const { WARNING_TYPE } = require('../lib/embedder.js')
const { echo: ECHO } = require('../lib/native.js').toolSearchProtocol()
/** A value as our warnings quote it past ECHO.maxLength UTF-16 units: cut (not inside a surrogate pair) and marked. */
const cut = (head, length) => `${head}…(cut from ${length} characters)`

const FOUND = (n) => `Found ${n} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`
const execute = async () => ({})

/** Warnings of ours raised while `run` runs (and a turn after). */
async function warningsDuring(run) {
  const warnings = []
  const listener = (warning) => warning.name === WARNING_TYPE && warnings.push(warning.message)
  process.on('warning', listener)
  try {
    await run()
    await new Promise((resolve) => setImmediate(resolve))
  } finally {
    process.off('warning', listener)
  }
  return warnings
}

for (const version of ['1.59.0', '1.71.0']) {
  const release = await loadRelease(version)
  const { ToolSearchProcessor } = release.ours
  const { createTool } = await release.importCore('tools')
  const { RequestContext } = await release.importCore('request-context')

  /** Tools a question can mean without naming: a therapist for a psychologist, a sort for "smallest to largest". */
  function catalog() {
    const tool = (id, description, inputSchema) => createTool({ id, description, inputSchema, execute })
    return {
      find_therapist: tool(
        'find_therapist',
        'Finds a licensed therapist for counselling sessions near a location.',
        z.object({ location: z.string().describe('City and state') }),
      ),
      sort_numbers: tool(
        'sort_numbers',
        'Sorts a list of numbers in ascending or descending order.',
        z.object({ numbers: z.array(z.number()).describe('The numbers to sort') }),
      ),
      get_current_weather: tool(
        'get_current_weather',
        'Get the current weather in a given location.',
        z.object({ location: z.string().describe('The city and state') }),
      ),
      send_email: tool('send_email', 'Send an email message to a recipient.', z.object({ to: z.string().describe('Recipient address') })),
      translate_text: tool('translate_text', 'Translate text from a source language to a target language.', z.object({ text: z.string() })),
    }
  }
  const DESCRIPTIONS = Object.fromEntries(Object.values(catalog()).map((tool) => [tool.id, tool.description]))

  function stepArgs(tools, requestContext, messageList = { addSystem() {}, get: { all: { db: () => [] } } }) {
    return { messages: [], messageList, tools, requestContext, state: {}, stepNumber: 0, steps: [], abort() {} }
  }

  /** `search_tools` of a processor's first step. */
  async function searchTool(processor) {
    const requestContext = new RequestContext()
    const { tools } = await processor.processInputStep(stepArgs({}, requestContext))
    return (query) => tools.search_tools.execute({ query }, { requestContext })
  }

  function found(pairs) {
    return { results: pairs.map(([name, score]) => ({ name, description: DESCRIPTIONS[name], score })), message: FOUND(pairs.length) }
  }

  /** Questions that share no word, or hardly one, with the tool they mean. */
  const QUESTIONS = [
    'mental health counsellor in Boston',
    'arrange these values from smallest to largest',
    'Can you help me convert this sentence from English to French?',
    'is it raining in Paris right now',
  ]

  describe(`${version}: search.ranking 'hybrid' with the built-in model`, () => {
    test('finds by meaning what no word finds, exactly so', async () => {
      const fielded = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded' } }))
      const hybrid = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid' } }))
      const expected = [
        [['find_therapist', 8.35]],
        [
          ['sort_numbers', 9.03],
          ['translate_text', 0.64],
        ],
        [['translate_text', 10.72]],
        [['get_current_weather', 10.48]],
      ]
      for (const [i, query] of QUESTIONS.entries()) assert.deepEqual(await hybrid(query), found(expected[i]), query)
      // 'fielded' finds two of them by a word that is not the point ("from"),
      // and the therapist by a stem of "counselling", far down.
      assert.deepEqual(await Promise.all(QUESTIONS.map(async (q) => (await fielded(q)).results.map((r) => [r.name, r.score]))), [
        [['find_therapist', 0.21]],
        [['translate_text', 0.64]],
        [['translate_text', 0.64]],
        [],
      ])
      // A word match still counts; a question about nothing here finds nothing.
      assert.deepEqual(await hybrid('weather'), found([['get_current_weather', 15.45]]))
      assert.deepEqual(await hybrid('zebra'), { results: [], message: 'No tools found matching "zebra". Try different keywords.' })
    })

    test('topK, minScore, autoLoad and the filter hook work as with the other rankings', async () => {
      const query = QUESTIONS[1]
      const withOptions = (search, more = {}) => searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', ...search }, ...more }))
      assert.deepEqual(await (await withOptions({ topK: 1 }))(query), found([['sort_numbers', 9.03]]))
      assert.deepEqual(await (await withOptions({ minScore: 1 }))(query), found([['sort_numbers', 9.03]]))
      const asked = []
      const filter = ({ toolName, phase }) => {
        asked.push([toolName, phase])
        return toolName !== 'sort_numbers'
      }
      assert.deepEqual(await (await withOptions({}, { filter }))(query), found([['translate_text', 0.64]]))
      assert.deepEqual(asked, [
        ['sort_numbers', 'search'],
        ['translate_text', 'search'],
      ])
      const loaded = await (await withOptions({ autoLoad: true, topK: 1 }))(query)
      assert.deepEqual(loaded.results, found([['sort_numbers', 9.03]]).results)
      assert.match(loaded.message, /^Found and loaded 1 tool\(s\): sort_numbers\./)
    })

    if (version === '1.71.0') {
      test('injectCatalog lists the catalog as with the other rankings', async () => {
        const systemMessages = async (ranking) => {
          const added = []
          const messageList = { addSystem: (m) => added.push(m), get: { all: { db: () => [] } } }
          const processor = new ToolSearchProcessor({ tools: catalog(), injectCatalog: true, search: { ranking } })
          await processor.processInputStep(stepArgs({}, new RequestContext(), messageList))
          return added
        }
        const hybrid = await systemMessages('hybrid')
        assert.equal(hybrid.length, 2)
        assert.match(hybrid[1], /find_therapist/)
        assert.deepEqual(hybrid, await systemMessages('fielded'))
      })
    }

    test('tools resolved per step (includeResolvedTools) are embedded too', async () => {
      const { find_therapist, ...rest } = catalog()
      const processor = new ToolSearchProcessor({ tools: rest, includeResolvedTools: true, search: { ranking: 'hybrid' } })
      const requestContext = new RequestContext()
      const { tools } = await processor.processInputStep(stepArgs({ find_therapist }, requestContext))
      const { results } = await tools.search_tools.execute({ query: QUESTIONS[0] }, { requestContext })
      assert.deepEqual(results, found([['find_therapist', 8.35]]).results)
    })
  })

  describe(`${version}: search.ranking 'hybrid' with search.embedder`, () => {
    test("the tools' texts are embedded in batches, once per text, and each question; it finds what the built-in model finds", async () => {
      const embedder = builtinEmbeddingModel({ maxEmbeddingsPerCall: 2 })
      const processor = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder } })
      await toolVectorsReady(processor)
      // Five texts, two a call.
      assert.deepEqual(
        embedder.calls.map((values) => values.length),
        [2, 2, 1],
      )
      assert.equal(embedder.calls[0][0], 'find therapist. Finds a licensed therapist for counselling sessions near a location.. location City and state')
      const search = await searchTool(processor)
      const builtIn = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid' } }))
      // The same tools in the same order; not the same scores, as the built-in
      // model embeds a tool's parameters apart where an embedder gets one text.
      const names = async (search, query) => (await search(query)).results.map((r) => r.name)
      for (const query of QUESTIONS) assert.deepEqual(await names(search, query), await names(builtIn, query), query)
      assert.deepEqual(
        embedder.calls.slice(3),
        QUESTIONS.map((q) => [q]),
      )
      // Another processor over the same tools and model embeds only its questions.
      const again = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder } })
      await toolVectorsReady(again)
      assert.equal(embedder.calls.length, 3 + QUESTIONS.length)
    })

    test('until the vectors are in, the lexical ranking answers', async () => {
      const inner = builtinEmbeddingModel()
      let release
      const gate = new Promise((resolve) => (release = resolve))
      const embedder = { ...inner, doEmbed: async (options) => (await gate, inner.doEmbed(options)) }
      const processor = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder } })
      const search = await searchTool(processor)
      const fielded = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded' } }))
      for (const query of [...QUESTIONS, 'weather']) assert.deepEqual(await search(query), await fielded(query), query)
      release()
      await toolVectorsReady(processor)
      assert.deepEqual(await search(QUESTIONS[0]), found([['find_therapist', 8.82]]))
    })

    test('a failing model: lexical answers and one warning, never a failed search', async () => {
      const fielded = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded' } }))
      const failing = { doEmbed: async () => Promise.reject(new Error('quota exceeded')) }
      const warnings = await warningsDuring(async () => {
        const processor = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder: failing } })
        await toolVectorsReady(processor)
        const search = await searchTool(processor)
        for (const query of [...QUESTIONS, 'weather']) assert.deepEqual(await search(query), await fielded(query), query)
      })
      assert.equal(warnings.length, 1)
      assert.match(warnings[0], /^ToolSearchProcessor: search\.embedder failed \(quota exceeded\)/)

      // Tools embedded, then the questions fail: the same, one warning.
      const inner = builtinEmbeddingModel()
      const flaky = { doEmbed: async (options) => (options.values.length > 1 ? inner.doEmbed(options) : Promise.reject(new Error('timeout'))) }
      const later = await warningsDuring(async () => {
        const processor = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder: flaky } })
        await toolVectorsReady(processor)
        const search = await searchTool(processor)
        for (const query of QUESTIONS) assert.deepEqual(await search(query), await fielded(query), query)
      })
      assert.deepEqual(later.length, 1)
      assert.match(later[0], /\(timeout\)/)

      // Answers of the wrong shape count as failures.
      const wrong = await warningsDuring(async () => {
        const processor = new ToolSearchProcessor({
          tools: catalog(),
          search: { ranking: 'hybrid', embedder: { doEmbed: async () => ({ embeddings: [[1, 2]] }) } },
        })
        await toolVectorsReady(processor)
      })
      assert.deepEqual(wrong, [
        "ToolSearchProcessor: search.embedder failed (doEmbed gave 1 embeddings for 5 values); search_tools ranks without it, as 'fielded', while it fails. Said once.",
      ])
    })

    test('an answer it cannot use for a question: one warning a kind, naming the model and what was wrong; lexical answers', async () => {
      const fielded = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded' } }))
      const inner = builtinEmbeddingModel()
      const dimensions = (await inner.doEmbed({ values: ['x'] })).embeddings[0].length
      /** The built-in model as `test/<modelId>`, each question's answer changed by `bend` (given the question's number). */
      const bent = (modelId, bend) => {
        let questions = 0
        return {
          ...inner,
          provider: 'test',
          modelId,
          doEmbed: async (options) => {
            const answer = await inner.doEmbed(options)
            return options.values.length > 1 ? answer : { ...answer, embeddings: bend(answer.embeddings, questions++) }
          },
        }
      }
      const FOR_SUCH = "search_tools ranks without it, as 'fielded', for such questions. Said once."
      const cases = [
        ['nan', ([vector]) => [vector.with(0, Number.NaN)], ["gave NaN at index 0 of a question's vector"]],
        ['infinite', ([vector]) => [vector.with(3, -Infinity)], ["gave -Infinity at index 3 of a question's vector"]],
        // Past a 32-bit float's range: infinite as the addon would take it.
        ['huge', ([vector]) => [vector.with(1, 1e39)], ["gave Infinity at index 1 of a question's vector"]],
        ['short', ([vector]) => [vector.slice(0, 3)], [`gave a question a vector of 3 values, where the tools' have ${dimensions}`]],
        ['long', ([vector]) => [[...vector, 0]], [`gave a question a vector of ${dimensions + 1} values, where the tools' have ${dimensions}`]],
        ['none', () => [], ['gave no vector for a question']],
        ['empty', () => [[]], ['gave no vector for a question']],
        ['absent', () => undefined, ['gave no vector for a question']],
        // Each kind is said once; another kind is said too.
        [
          'mixed',
          ([vector], n) => (n % 2 === 0 ? [vector.with(2, Number.NaN)] : []),
          ["gave NaN at index 2 of a question's vector", 'gave no vector for a question'],
        ],
      ]
      for (const [modelId, bend, whats] of cases) {
        const warnings = await warningsDuring(async () => {
          const processor = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder: bent(modelId, bend) } })
          await toolVectorsReady(processor)
          const search = await searchTool(processor)
          for (const query of [...QUESTIONS, 'weather']) assert.deepEqual(await search(query), await fielded(query), `${modelId}: ${query}`)
        })
        assert.deepEqual(
          warnings,
          whats.map((what) => `ToolSearchProcessor: search.embedder 'test/${modelId}' ${what}; ${FOR_SUCH}`),
          modelId,
        )
      }
    })

    test("a question's vector counts by its direction, whatever its length", async () => {
      const inner = builtinEmbeddingModel()
      const scaled = (k) => ({
        ...inner,
        doEmbed: async (options) => {
          const answer = await inner.doEmbed(options)
          return options.values.length > 1 ? answer : { ...answer, embeddings: answer.embeddings.map((vector) => vector.map((x) => x * k)) }
        },
      })
      const unitProcessor = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder: inner } })
      await toolVectorsReady(unitProcessor)
      const unit = await searchTool(unitProcessor)
      // (Its vectors are unit vectors: the built-in model's.)
      assert.deepEqual(await unit(QUESTIONS[0]), found([['find_therapist', 8.82]]))
      for (const k of [10, 0.1, 1e-30]) {
        const processor = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder: scaled(k) } })
        await toolVectorsReady(processor)
        const search = await searchTool(processor)
        for (const query of QUESTIONS) assert.deepEqual(await search(query), await unit(query), `${k}: ${query}`)
      }
    })

    test("NaN or infinite values in the tools' vectors: one warning, and lexical answers for good", async () => {
      const fielded = await searchTool(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'fielded' } }))
      const inner = builtinEmbeddingModel()
      for (const [modelId, value] of [
        ['nan', Number.NaN],
        ['infinite', Infinity],
        ['huge', -1e39],
      ]) {
        const questions = []
        const embedder = {
          ...inner,
          provider: 'test',
          modelId,
          doEmbed: async (options) => {
            const answer = await inner.doEmbed(options)
            if (options.values.length === 1) questions.push(options.values[0])
            return { ...answer, embeddings: answer.embeddings.map((vector, i) => (i === 2 || i === 4 ? vector.with(7, value) : vector)) }
          },
        }
        const warnings = await warningsDuring(async () => {
          const processor = new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder } })
          await toolVectorsReady(processor)
          const search = await searchTool(processor)
          for (const query of [...QUESTIONS, 'weather']) assert.deepEqual(await search(query), await fielded(query), `${modelId}: ${query}`)
        })
        assert.deepEqual(warnings, [
          `ToolSearchProcessor: search.embedder 'test/${modelId}' gave NaN or infinite values in 2 of the 5 tools' vectors; search_tools ranks without it, as 'fielded'. Said once.`,
        ])
        // Its questions are never embedded.
        assert.deepEqual(questions, [])
      }
    })

    test("a model's name and error are quoted whole up to a few hundred characters, then cut and marked", async () => {
      assert.equal(ECHO.maxLength, 300)
      const TAIL = "search_tools ranks without it, as 'fielded', while it fails. Said once."
      const failing = (reason, named = {}) => ({ ...named, doEmbed: async () => Promise.reject(reason) })
      const cases = [
        [failing(new Error('e'.repeat(1 << 20))), `search.embedder failed (${cut('e'.repeat(300), 1 << 20)})`],
        [failing(new Error('e'.repeat(300))), `search.embedder failed (${'e'.repeat(300)})`],
        // 300,000 emoji: 600,000 UTF-16 units, cut between two of them.
        [failing(new Error('😀'.repeat(300_000))), `search.embedder failed (${cut('😀'.repeat(150), 600_000)})`],
        [failing(new Error(`a${'😀'.repeat(300_000)}`)), `search.embedder failed (${cut(`a${'😀'.repeat(149)}`, 600_001)})`],
        // A rejection that is no Error.
        [failing('s'.repeat(301)), `search.embedder failed (${cut('s'.repeat(300), 301)})`],
        [
          failing(new Error('quota exceeded'), { provider: 'p'.repeat(1 << 20), modelId: 'm' }),
          `search.embedder '${cut('p'.repeat(300), (1 << 20) + 2)}' failed (quota exceeded)`,
        ],
        [
          failing(new Error('quota exceeded'), { provider: 'openai.embedding', modelId: 'text-embedding-3-small' }),
          "search.embedder 'openai.embedding/text-embedding-3-small' failed (quota exceeded)",
        ],
        [failing(new Error('quota exceeded'), { modelId: 'only-an-id', provider: 5 }), "search.embedder 'only-an-id' failed (quota exceeded)"],
      ]
      for (const [embedder, said] of cases) {
        const warnings = await warningsDuring(async () => {
          await toolVectorsReady(new ToolSearchProcessor({ tools: catalog(), search: { ranking: 'hybrid', embedder } }))
        })
        assert.deepEqual(warnings, [`ToolSearchProcessor: ${said}; ${TAIL}`])
      }
    })

    describe('bad input is a TypeError naming the option', () => {
      const model = builtinEmbeddingModel()
      for (const [label, search, message] of [
        [
          'an embedder that is a string',
          { ranking: 'hybrid', embedder: 'openai/text-embedding-3-small' },
          'options.search.embedder must be an AI SDK embedding model (an object with a doEmbed function), got the string "openai/text-embedding-3-small"',
        ],
        [
          'an embedder without doEmbed',
          { ranking: 'hybrid', embedder: { modelId: 'x' } },
          'options.search.embedder must be an AI SDK embedding model (an object with a doEmbed function), got an object',
        ],
        [
          'an embedder with another ranking',
          { ranking: 'fielded', embedder: model },
          'options.search.ranking must be \'hybrid\' with options.search.embedder, got the string "fielded"',
        ],
        ['an embedder with the default ranking', { embedder: model }, "options.search.ranking must be 'hybrid' with options.search.embedder, got undefined"],
      ]) {
        test(label, () => {
          assert.throws(
            () => new ToolSearchProcessor({ tools: catalog(), search }),
            (error) => error instanceof TypeError && error.message === `ToolSearchProcessor: ${message}`,
          )
        })
      }
    })
  })
}
