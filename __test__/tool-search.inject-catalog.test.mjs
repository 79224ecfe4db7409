// ToolSearchProcessor `injectCatalog` (from @mastra/core 1.67.0): each step
// adds a second system message listing the catalog, so a model can load a
// tool without searching first. Literal expectations on 1.71.0, each also
// compared with the reference; on releases before 1.67.0 the option is
// ignored, as those releases ignore it.

import { test } from 'node:test'
import assert from 'node:assert/strict'

import { toolSearchHarness } from './helpers/releases.mjs'

const h = await toolSearchHarness('1.71.0')
const { makeRequestContext, runStep, execTool, docsCatalog, Labels, createTool, INSTRUCTION, INSTRUCTION_AUTOLOAD } = h
const { CATALOG_HEADER, CATALOG_HEADER_AUTOLOAD } = h
const Ref = h.release.reference.ToolSearchProcessor
const Ours = h.release.ours.ToolSearchProcessor

const catalogMessage = (header, lines) => `${header}\n\nAvailable tools:\n${lines.join('\n')}`

/** One step of each implementation: the system messages, and the rest to compare. */
async function bothSteps(options, stepOptions = {}) {
  const out = []
  for (const P of [Ref, Ours]) {
    const labels = stepOptions.labels ?? new Labels()
    const processor = new P({ ttl: 0, ...options })
    const step = await runStep(processor, { ...stepOptions, labels, schemas: false })
    out.push({ processor, step })
  }
  const [ref, ours] = out
  assert.deepEqual(ours.step.systemCalls, ref.step.systemCalls, 'system messages equal the reference')
  assert.deepEqual(ours.step.tools, ref.step.tools, 'tools equal the reference')
  return { ref, ours }
}

const plainTool = (fields) => ({ ...fields, execute: async () => ({}) })

test('the docs catalog: every tool as `- `id`: description`, in key order, after the instruction', async () => {
  const { tools, labels } = docsCatalog()
  const { ours } = await bothSteps({ tools, injectCatalog: true }, { labels, realMessageList: true })
  assert.deepEqual(ours.step.systemCalls, [
    [INSTRUCTION],
    [
      catalogMessage(CATALOG_HEADER, [
        '- `create_issue`: Create a new GitHub issue in a repository',
        '- `list_pull_requests`: List open pull requests for a GitHub repository',
        '- `merge_pull_request`: Merge a GitHub pull request',
        '- `send_slack_message`: Send a message to a Slack channel',
        '- `create_slack_channel`: Create a new Slack channel',
        '- `send_email`: Send an email to a recipient',
        '- `get_weather`: Get the current weather forecast for a city',
        '- `db_query`: Run a read-only SQL query against the database',
        '- `db_insert`: Insert a row into a database table',
        '- `db_update`: Update rows in a database table',
        '- `premium_export`: Export a premium analytics report as PDF',
      ]),
    ],
  ])
  assert.deepEqual(ours.step.toolNames, ['search_tools', 'load_tool'])
})

test('names are `id || key`, a missing description drops the colon, a repeated id shows the last description', async () => {
  const tools = {
    keyed: plainTool({ description: 'no id, listed under its key' }),
    emptyId: plainTool({ id: '', description: 'an empty id falls back to the key' }),
    quiet: createTool({ id: 'quiet_tool', execute: async () => ({}) }),
    first: plainTool({ id: 'twin', description: 'first twin' }),
    second: plainTool({ id: 'twin', description: 'second twin' }),
    42: plainTool({ id: 'numbered', description: 'integer-like keys come first' }),
  }
  const { ours } = await bothSteps({ tools, injectCatalog: true })
  assert.deepEqual(ours.step.systemCalls[1], [
    catalogMessage(CATALOG_HEADER, [
      '- `numbered`: integer-like keys come first',
      '- `keyed`: no id, listed under its key',
      '- `emptyId`: an empty id falls back to the key',
      '- `quiet_tool`',
      '- `twin`: second twin',
      '- `twin`: second twin',
    ]),
  ])
})

test('descriptions over 150 UTF-16 units are cut to 147 + "..." (a surrogate pair may be split); 150 is kept', async () => {
  const d150 = 'x'.repeat(150)
  const d151 = 'y'.repeat(151)
  const emoji = 'z'.repeat(146) + '🔥🔥' // 150 units: kept whole
  const emoji151 = 'w'.repeat(146) + '🔥🔥' + '!' // 151 units: cut after the first high surrogate
  const tools = {
    a: plainTool({ id: 'a', description: d150 }),
    b: plainTool({ id: 'b', description: d151 }),
    c: plainTool({ id: 'c', description: emoji }),
    d: plainTool({ id: 'd', description: emoji151 }),
  }
  const { ours } = await bothSteps({ tools, injectCatalog: true })
  assert.deepEqual(ours.step.systemCalls[1], [
    catalogMessage(CATALOG_HEADER, [`- \`a\`: ${d150}`, `- \`b\`: ${'y'.repeat(147)}...`, `- \`c\`: ${emoji}`, `- \`d\`: ${'w'.repeat(146)}\uD83D...`]),
  ])
})

test('autoLoad: the header points to search_tools', async () => {
  const { tools, labels } = docsCatalog()
  const small = { sendEmail: tools.sendEmail, getWeather: tools.getWeather }
  const { ours } = await bothSteps({ tools: small, injectCatalog: true, search: { autoLoad: true } }, { labels })
  assert.deepEqual(ours.step.systemCalls, [
    [INSTRUCTION_AUTOLOAD],
    [catalogMessage(CATALOG_HEADER_AUTOLOAD, ['- `send_email`: Send an email to a recipient', '- `get_weather`: Get the current weather forecast for a city'])],
  ])
  assert.deepEqual(ours.step.toolNames, ['search_tools'])
})

test('a filter hides tools from the catalog (phase search, each key in order, before the active phase)', async () => {
  const { tools, labels } = docsCatalog()
  const small = { createIssue: tools.createIssue, premiumExport: tools.premiumExport, getWeather: tools.getWeather }
  const rc = labels.set(makeRequestContext({ threadId: 'catalog', values: { plan: 'free' } }), 'rc')
  const logs = []
  for (const P of [Ref, Ours]) {
    const log = []
    const filter = ({ toolName, tool, requestContext, phase }) => {
      log.push(`${phase}:${toolName}:${labels.get(tool)}:${labels.get(requestContext)}`)
      return requestContext.get('plan') === 'pro' || !toolName.startsWith('premium_')
    }
    const processor = new P({ tools: small, ttl: 0, injectCatalog: true, filter })
    const first = await runStep(processor, { labels, requestContext: rc, schemas: false })
    await execTool(first.result.tools.load_tool, { toolName: 'get_weather' }, { requestContext: rc })
    log.push('-- next step')
    const second = await runStep(processor, { labels, requestContext: rc, schemas: false })
    logs.push({ log, first: first.systemCalls, second: second.systemCalls, tools: second.tools })
  }
  const [ref, ours] = logs
  const expectedCatalog = catalogMessage(CATALOG_HEADER, [
    '- `create_issue`: Create a new GitHub issue in a repository',
    '- `get_weather`: Get the current weather forecast for a city',
  ])
  assert.deepEqual(ours.first, [[INSTRUCTION], [expectedCatalog]])
  assert.deepEqual(ours.second, [[INSTRUCTION], [expectedCatalog]])
  assert.deepEqual(ours.log, [
    'search:create_issue:createIssue:rc',
    'search:premium_export:premiumExport:rc',
    'search:get_weather:getWeather:rc',
    'load:get_weather:getWeather:rc',
    '-- next step',
    'search:create_issue:createIssue:rc',
    'search:premium_export:premiumExport:rc',
    'search:get_weather:getWeather:rc',
    'active:get_weather:getWeather:rc',
  ])
  assert.deepEqual(ours, ref)
})

test('an asynchronous filter is awaited tool by tool; a throwing or rejecting one hides the tool', async () => {
  const { tools, labels } = docsCatalog()
  const small = { sendEmail: tools.sendEmail, getWeather: tools.getWeather, query: tools.query, insert: tools.insert }
  const filter = ({ toolName }) => {
    if (toolName === 'send_email') return new Promise((resolve) => setTimeout(() => resolve(true), 1))
    if (toolName === 'get_weather') throw new Error('no')
    if (toolName === 'db_query') return Promise.reject(new Error('no'))
    return Promise.resolve(1)
  }
  const { ours } = await bothSteps({ tools: small, injectCatalog: true, filter }, { labels })
  assert.deepEqual(ours.step.systemCalls[1], [
    catalogMessage(CATALOG_HEADER, ['- `send_email`: Send an email to a recipient', '- `db_insert`: Insert a row into a database table']),
  ])
})

test('includeResolvedTools lists the static and the resolved tools merged, without the meta-tools', async () => {
  const labels = new Labels()
  const staticTools = {
    getWeather: labels.set(plainTool({ id: 'get_weather', description: 'static weather' }), 'staticWeather'),
    sendEmail: labels.set(plainTool({ id: 'send_email', description: 'static email' }), 'staticEmail'),
  }
  const resolved = {
    search_tools: labels.set(plainTool({ id: 'search_tools', description: 'a stale meta-tool' }), 'staleSearch'),
    sendEmail: labels.set(plainTool({ id: 'mcp_send_email', description: 'resolved email replaces the static one' }), 'mcpEmail'),
    mcpFiles: labels.set(plainTool({ description: 'resolved tool without an id' }), 'mcpFiles'),
  }
  const { ours } = await bothSteps({ tools: staticTools, injectCatalog: true, includeResolvedTools: true }, { labels, tools: resolved })
  assert.deepEqual(ours.step.systemCalls[1], [
    catalogMessage(CATALOG_HEADER, [
      '- `get_weather`: static weather',
      '- `mcp_send_email`: resolved email replaces the static one',
      '- `mcpFiles`: resolved tool without an id',
    ]),
  ])
  // Without resolved tools the static catalog is listed.
  const { ours: plain } = await bothSteps({ tools: staticTools, injectCatalog: true, includeResolvedTools: true }, { labels })
  assert.deepEqual(plain.step.systemCalls[1], [catalogMessage(CATALOG_HEADER, ['- `get_weather`: static weather', '- `send_email`: static email'])])
})

test('nothing is added for an empty catalog or when the filter hides every tool', async () => {
  const { tools, labels } = docsCatalog()
  const { ours: empty } = await bothSteps({ tools: {}, injectCatalog: true }, { labels })
  assert.deepEqual(empty.step.systemCalls, [[INSTRUCTION]])
  const { ours: hidden } = await bothSteps({ tools, injectCatalog: true, filter: () => false }, { labels })
  assert.deepEqual(hidden.step.systemCalls, [[INSTRUCTION]])
  const { ours: off } = await bothSteps({ tools, injectCatalog: false }, { labels })
  assert.deepEqual(off.step.systemCalls, [[INSTRUCTION]])
})

test('the message is the same on every step, and a step catalog that changes is listed afresh', async () => {
  const labels = new Labels()
  const a = labels.set(plainTool({ id: 'mcp_a', description: 'first instance' }), 'a')
  const b = labels.set(plainTool({ id: 'mcp_a', description: 'second instance' }), 'b')
  const runs = []
  for (const P of [Ref, Ours]) {
    const processor = new P({ tools: {}, ttl: 0, injectCatalog: true, includeResolvedTools: true })
    const calls = []
    for (const tools of [{ a }, { a }, { a: b }, {}]) calls.push((await runStep(processor, { labels, tools, schemas: false })).systemCalls)
    runs.push(calls)
  }
  const [ref, ours] = runs
  assert.deepEqual(ours, [
    [[INSTRUCTION], [catalogMessage(CATALOG_HEADER, ['- `mcp_a`: first instance'])]],
    [[INSTRUCTION], [catalogMessage(CATALOG_HEADER, ['- `mcp_a`: first instance'])]],
    [[INSTRUCTION], [catalogMessage(CATALOG_HEADER, ['- `mcp_a`: second instance'])]],
    [[INSTRUCTION]],
  ])
  assert.deepEqual(ours, ref)
})

for (const version of ['1.59.0', '1.60.0']) {
  test(`ignored on ${version}, which has no injectCatalog (as its own processor ignores it)`, async () => {
    const old = await toolSearchHarness(version)
    const { tools, labels } = old.docsCatalog()
    const steps = []
    for (const P of [old.release.reference.ToolSearchProcessor, old.release.ours.ToolSearchProcessor]) {
      const log = []
      const filter = ({ phase, toolName }) => (log.push(`${phase}:${toolName}`), true)
      const processor = new P({ tools, ttl: 0, injectCatalog: true, filter })
      const step = await old.runStep(processor, { labels, schemas: false })
      steps.push({ system: step.systemCalls, log })
    }
    const [ref, ours] = steps
    assert.deepEqual(ours, { system: [[old.INSTRUCTION]], log: [] })
    assert.deepEqual(ours, ref)
  })
}
