// ToolSearchProcessor `search.model`: 'hybrid''s built-in model handed over by
// the app (`import model from 'mastra-native-processors-potion-base-8m'`), so
// that `mastra build` and bundlers see the model package imported and ship it
// (__test__/deploy/ builds and deploys such an app). Here: it serves as the
// model the package finds itself; the values refused, by name; and where
// there is no model file (none handed over and the package not installed, or
// a file missing, as when a bundler took the package in), one process warning
// naming the fix, and 'fielded' ranking: never an error at construction, so a
// deployed server still starts. Each case that needs a fresh process (the model
// is located once a process) runs in a child.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'

import { ROOT } from '../scripts/platform-packages.mjs'

const require = createRequire(import.meta.url)
const MODEL = 'mastra-native-processors-potion-base-8m'

/**
 * Runs in a child process: makes a processor of three tools with `search`
 * (a JavaScript expression, `model` bound to the model package's export), asks
 * search_tools `questions`, and prints the tools found for each, then what the
 * process warned. `hideModel` makes the model package impossible to require.
 */
function searchInChild(search, questions, { hideModel = false } = {}) {
  const script = `
    const Module = require('node:module')
    ${
      hideModel
        ? `const load = Module._load
    Module._load = function (request, ...rest) {
      if (request === '${MODEL}') throw Object.assign(new Error("Cannot find module '${MODEL}'"), { code: 'MODULE_NOT_FOUND' })
      return load.call(this, request, ...rest)
    }`
        : ''
    }
    const warnings = []
    process.on('warning', (warning) => warnings.push(warning.name + ': ' + warning.message))
    const { ToolSearchProcessor } = require(${JSON.stringify(join(ROOT, 'index.js'))})
    const { createTool } = require('@mastra/core/tools')
    const { RequestContext } = require('@mastra/core/request-context')
    const { z } = require('zod')
    const model = ${hideModel ? 'undefined' : `require('${MODEL}')`}
    const tool = (id, description) => createTool({ id, description, inputSchema: z.object({ city: z.string() }), execute: async () => ({}) })
    const tools = {
      getWeather: tool('getWeather', 'Get the current weather for a city'),
      searchDatabase: tool('searchDatabase', 'Search the order database'),
      sendEmail: tool('sendEmail', 'Send an email to a customer'),
    }
    ;(async () => {
      const found = []
      for (let made = 0; made < 2; made++) {
        const processor = new ToolSearchProcessor({ tools, search: ${search} })
        const requestContext = new RequestContext()
        const args = { messages: [], messageList: { addSystem() {}, get: { all: { db: () => [] } } }, tools: {}, requestContext, state: {}, stepNumber: 0, steps: [], abort() {} }
        const step = await processor.processInputStep(args)
        for (const query of ${JSON.stringify(questions)}) {
          const { results } = await step.tools.search_tools.execute({ query }, { requestContext })
          found.push(results.map((result) => result.name))
        }
      }
      await new Promise((resolve) => setImmediate(resolve))
      console.log(JSON.stringify({ found, warnings }))
    })()`
  const result = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(result.status, 0, result.stderr)
  return JSON.parse(result.stdout)
}

const NO_MODEL = `${MODEL} is not installed where mastra-native-processors can find it (npm install ${MODEL}; in an app that mastra build or a bundler ships, also hand it over: import model from '${MODEL}', then search: { ranking: 'hybrid', model }; or give search.embedder)`
const said = (why) => [
  `ToolSearchProcessorWarning: ToolSearchProcessor: search.ranking 'hybrid' has no built-in model: ${why}. Until then search_tools ranks as 'fielded'. Said once.`,
]

describe("search.model: 'hybrid''s built-in model handed over", () => {
  test('serves as the model the package finds itself: the same tools by meaning, no warning', () => {
    const questions = ['will it rain', 'temperature outside', 'email a customer']
    const handedOver = searchInChild("{ ranking: 'hybrid', model }", questions)
    const found = searchInChild("{ ranking: 'hybrid' }", questions)
    assert.deepEqual(handedOver, found)
    assert.deepEqual(handedOver.found.slice(0, 2), [['getWeather'], ['getWeather']])
    assert.deepEqual(handedOver.warnings, [])
  })

  test("its path names the file: a file missing (the package bundled without it) is said once, with the fix, and 'fielded' ranks", () => {
    const missing = join(ROOT, 'dist', 'potion-base-8m.m2v')
    const { found, warnings } = searchInChild(`{ ranking: 'hybrid', model: { path: ${JSON.stringify(missing)} } }`, ['will it rain', 'weather'])
    assert.deepEqual(found, [[], ['getWeather'], [], ['getWeather']])
    assert.deepEqual(
      warnings,
      said(
        `its file ${missing} is missing (a bundler took ${MODEL} into the bundle without the file: keep the package external, so that it is installed beside the app)`,
      ),
    )
  })

  test("none handed over and the model package not found (a deployed app that never imported it): said once, with the fix, and 'fielded' ranks", () => {
    const { found, warnings } = searchInChild("{ ranking: 'hybrid' }", ['will it rain', 'weather'], { hideModel: true })
    assert.deepEqual(found, [[], ['getWeather'], [], ['getWeather']])
    assert.deepEqual(warnings, said(NO_MODEL))
  })

  test('refused by name: not the package, a path that is not a string, another ranking, beside an embedder', () => {
    const { ToolSearchProcessor } = require('../index.js')
    const model = require(MODEL)
    const refusal = (search) => {
      try {
        new ToolSearchProcessor({ tools: {}, search })
      } catch (error) {
        assert.ok(error instanceof TypeError, error)
        return error.message
      }
      assert.fail('not refused')
    }
    assert.equal(
      refusal({ ranking: 'hybrid', model: MODEL }),
      `ToolSearchProcessor: options.search.model must be the built-in model package's export (import model from '${MODEL}'), got the string "${MODEL}"`,
    )
    assert.equal(
      refusal({ ranking: 'hybrid', model: { path: 3 } }),
      "ToolSearchProcessor: options.search.model.path must be a string, the model file's path, got the number 3",
    )
    assert.equal(
      refusal({ ranking: 'fielded', model }),
      `ToolSearchProcessor: options.search.ranking must be 'hybrid' with options.search.model, got the string "fielded"`,
    )
    assert.equal(
      refusal({ ranking: 'hybrid', model, embedder: { doEmbed: async () => ({ embeddings: [] }) } }),
      'ToolSearchProcessor: options.search.model must be left out with options.search.embedder, got an object',
    )
  })
})
