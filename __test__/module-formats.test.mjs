// The package in the module format the app imports it in: from ESM
// (index.mjs) the meta-tools are made with the ESM builds of @mastra/core's
// `createTool` and zod, from CommonJS (index.js) with the CommonJS ones, so
// Mastra's code meets the classes of the format it runs in. (Of the other
// format, they worked, but Mastra's schema conversion ran slower on every
// step: a 100-tool agent request took as long as with Mastra's processors.)

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as esmTools from '@mastra/core/tools'
import * as esmZod from 'zod/v4'

import { ToolSearchProcessor as EsmToolSearchProcessor } from '../index.mjs'
import { toolSearchHarness } from './helpers/releases.mjs'

const require = createRequire(import.meta.url)
const cjsTools = require('@mastra/core/tools')
const cjsZod = require('zod/v4')
const { ToolSearchProcessor: CjsToolSearchProcessor } = require('../index.js')
const h = await toolSearchHarness('1.71.0')

/** The meta-tools of a first step of a processor of class P. */
async function metaTools(P) {
  const step = await h.runStep(new P({ tools: {}, ttl: 0 }), { labels: new h.Labels() })
  const { search_tools: search, load_tool: load } = step.result.tools
  return { search, load }
}

test('the two module formats are different classes here, so the checks below can fail', () => {
  assert.notEqual(esmTools.Tool, cjsTools.Tool)
  assert.notEqual(esmZod.ZodObject, cjsZod.ZodObject)
})

for (const [format, P, own, other] of [
  ['ESM', EsmToolSearchProcessor, { tools: esmTools, zod: esmZod }, { tools: cjsTools, zod: cjsZod }],
  ['CommonJS', CjsToolSearchProcessor, { tools: cjsTools, zod: cjsZod }, { tools: esmTools, zod: esmZod }],
]) {
  test(`imported from ${format}: search_tools and load_tool are ${format} Tools with ${format} zod schemas`, async () => {
    const { search, load } = await metaTools(P)
    for (const tool of [search, load]) {
      assert.ok(tool instanceof own.tools.Tool && !(tool instanceof other.tools.Tool), `${tool.id} is a ${format} Tool`)
      // zod 4's instanceof accepts either build's objects (it checks traits), so the constructor it is.
      for (const schema of [tool.inputSchema, tool.outputSchema]) assert.equal(schema.constructor, own.zod.ZodObject, `${tool.id}'s schemas are ${format} zod`)
    }
  })
}
