// ToolSearchProcessor: documented behaviour (literal expectations), our
// deliberate differences from @mastra/core@1.59.0, a seeded differential run
// against the reference, and bad-input robustness.
//
// Reference: import { ToolSearchProcessor } from '@mastra/core/processors'
// Ours:      ../index.mjs (TOOL_SEARCH_OURS=fixed-ref runs the suite against an
//            executable model of ours built on the reference; see the harness).
//
// Env knobs: TS_DIFF_CASES (default 5000), TS_DIFF_SEED (first seed, default 1).

import { describe, test, before, after, mock } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createRequire } from 'node:module';

import {
  RefToolSearchProcessor as Ref,
  loadOurs,
  Labels,
  RequestContext,
  MASTRA_THREAD_ID_KEY,
  createTool,
  z,
  makeRequestContext,
  runStep,
  execTool,
  describeMetaTool,
  describeTools,
  snapshot,
  toolInvocationMessage,
  userMessage,
  installClock,
  captureIntervals,
  makeFilter,
  genScenario,
  runScenario,
  firstDiff,
  sameOrTypeError,
  probeProcessor,
  docsCatalog,
  INSTRUCTION,
  INSTRUCTION_AUTOLOAD,
} from './helpers/tool-search-harness.mjs';

const Ours = await loadOurs();
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

// ---------------------------------------------------------------------------
// Literal strings (byte-identical behaviour; verified against 1.59.0).
// ---------------------------------------------------------------------------

const SEARCH_DESCRIPTION =
  'Search for available tools by keyword. ' +
  "Use this when you need a capability you don't currently have. " +
  'Returns a list of matching tools with their names and descriptions. ' +
  'After finding a useful tool, use load_tool to make it available.';
const SEARCH_DESCRIPTION_AUTOLOAD =
  'Search for available tools by keyword. ' +
  "Use this when you need a capability you don't currently have. " +
  'Returns a list of matching tools, which are loaded automatically and ' +
  'become available on your next turn — no separate load step is required.';
const LOAD_DESCRIPTION =
  'Load one or more tools into your context. ' +
  'Call this after finding tools with search_tools. ' +
  'Once loaded, tools will be available for use. ' +
  'Pass a single toolName or an array of toolNames to load multiple tools at once.';
const FOUND = n => `Found ${n} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`;
const NONE = q => `No tools found matching "${q}". Try different keywords.`;

const SEARCH_INPUT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Search keywords (e.g., "weather", "github issue", "database query")' },
  },
  required: ['query'],
  additionalProperties: false,
};
const LOAD_INPUT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    toolName: { description: 'The exact name of a tool to load (from search results)', type: 'string' },
    toolNames: {
      description: 'Array of exact tool names to load in one call (from search results)',
      type: 'array',
      items: { type: 'string' },
    },
  },
  additionalProperties: false,
};
const SEARCH_OUTPUT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, description: { type: 'string' }, score: { type: 'number' } },
        required: ['name', 'description', 'score'],
        additionalProperties: false,
      },
    },
    message: { type: 'string' },
  },
  required: ['results', 'message'],
  additionalProperties: false,
};
const LOAD_OUTPUT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    message: { type: 'string' },
    loadedCount: { type: 'number' },
    toolName: { type: 'string' },
    loaded: { type: 'array', items: { type: 'string' } },
    notFound: { type: 'array', items: { type: 'string' } },
    alreadyLoaded: { type: 'array', items: { type: 'string' } },
  },
  required: ['success', 'message'],
  additionalProperties: false,
};

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

const both = fn => Promise.all([fn(Ref, 'ref'), fn(Ours, 'ours')]);

async function stepOf(P, options, stepOpts = {}) {
  const labels = stepOpts.labels ?? new Labels();
  const processor = new P({ ttl: 0, ...options });
  const s = await runStep(processor, { labels, ...stepOpts });
  return { processor, s, labels };
}

async function search(s, query, rc) {
  const r = await execTool(s.result.tools.search_tools, { query }, { requestContext: rc });
  assert.ok(!r.threw, `search_tools threw: ${r.threw?.message}`);
  return r.value;
}

async function load(s, input, rc) {
  const r = await execTool(s.result.tools.load_tool, input, { requestContext: rc });
  assert.ok(!r.threw, `load_tool threw: ${r.threw?.message}`);
  return r.value;
}

function lowIdfCatalog() {
  const tools = {};
  ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'].forEach((w, i) => {
    tools[w] = createTool({ id: w, description: `${w} helper tool number ${i}`, execute: async () => ({}) });
  });
  return tools;
}

/** Tool with a tag so we can tell which instance ran. */
function tagged(id, description, tag, extra = {}) {
  return createTool({ id, description, inputSchema: z.object({ v: z.string().optional() }), execute: async () => ({ tag }), ...extra });
}

// ---------------------------------------------------------------------------
// Identity and surface
// ---------------------------------------------------------------------------

describe('identity and surface', () => {
  test("id === 'tool-search', name === 'Tool Search Processor', description equals the reference's", () => {
    const ours = new Ours({ tools: {}, ttl: 0 });
    const ref = new Ref({ tools: {}, ttl: 0 });
    assert.equal(ours.id, 'tool-search');
    assert.equal(ours.name, 'Tool Search Processor');
    assert.equal(ours.description, 'Enables dynamic tool discovery and loading via search');
    assert.equal(ours.description, ref.description);
    assert.equal(ours.id, ref.id);
    assert.equal(ours.name, ref.name);
  });

  test('exposes exactly the processor hooks the reference exposes (the Agent probes them)', () => {
    const ours = new Ours({ tools: {}, ttl: 0 });
    const ref = new Ref({ tools: {}, ttl: 0 });
    const hooks = [
      'processInput', 'processInputStep', 'processOutputStream', 'processOutputResult', 'processOutputStep',
      'processAPIError', 'computeStateSignal', 'getLoadedToolsForRequestContext', 'clearState', 'clearAllState',
      'getStateStats', 'cleanupNow', '__registerMastra', 'processInputStepFinal',
    ];
    for (const h of hooks) assert.equal(typeof ours[h], typeof ref[h], `typeof processor.${h}`);
    assert.equal(typeof ours.processInputStep, 'function');
    assert.equal(typeof ours.getLoadedToolsForRequestContext, 'function');
  });

  test('works through the CommonJS entry point too', () => {
    const require = createRequire(import.meta.url);
    const cjs = require(path.join(root, 'index.js'));
    assert.equal(typeof cjs.ToolSearchProcessor, 'function');
    const p = new cjs.ToolSearchProcessor({ tools: {}, ttl: 0 });
    assert.equal(p.id, 'tool-search');
  });
});

// ---------------------------------------------------------------------------
// Documented defaults
// ---------------------------------------------------------------------------

describe('documented defaults (topK 5, minScore 0)', () => {
  test('step returns search_tools then load_tool, adds the instruction with addSystem, meta-tools are byte-identical', async () => {
    const { tools, labels } = docsCatalog();
    const rc = makeRequestContext({ threadId: 'th' });
    const [ref, ours] = await both(P => stepOf(P, { tools }, { requestContext: rc, labels, realMessageList: true }));
    assert.deepEqual(ours.s.toolNames, ['search_tools', 'load_tool']);
    assert.deepEqual(ours.s.resultKeys, ['tools']);
    assert.deepEqual(ours.s.systemCalls, [[INSTRUCTION]]);
    const st = describeMetaTool(ours.s.result.tools.search_tools);
    const lt = describeMetaTool(ours.s.result.tools.load_tool);
    assert.equal(st.isMastraTool, true);
    assert.equal(st.fields.id, 'search_tools');
    assert.equal(st.fields.description, SEARCH_DESCRIPTION);
    assert.deepEqual(st.fields.inputSchema, SEARCH_INPUT_SCHEMA);
    assert.deepEqual(st.fields.outputSchema, SEARCH_OUTPUT_SCHEMA);
    assert.equal(lt.fields.id, 'load_tool');
    assert.equal(lt.fields.description, LOAD_DESCRIPTION);
    assert.deepEqual(lt.fields.inputSchema, LOAD_INPUT_SCHEMA);
    assert.deepEqual(lt.fields.outputSchema, LOAD_OUTPUT_SCHEMA);
    // Everything observable about the step equals the reference.
    assert.deepEqual(ours.s.tools, ref.s.tools);
    assert.deepEqual(ours.s.systemCalls, ref.s.systemCalls);
  });

  test('the instruction is added on every step, once, with a single argument', async () => {
    const { tools, labels } = docsCatalog();
    for (const P of [Ref, Ours]) {
      const p = new P({ tools, ttl: 0 });
      for (let i = 0; i < 3; i++) {
        const s = await runStep(p, { labels, stepNumber: i, requestContext: makeRequestContext() });
        assert.deepEqual(s.systemCalls, [[INSTRUCTION]]);
      }
    }
  });

  test('search_tools: literal ranking with name boosts, ties keep first-scored order, topK defaults to 5', async () => {
    const { tools } = docsCatalog();
    const expected = {
      'github issue': [
        ['create_issue', 'Create a new GitHub issue in a repository', 6.2],
        ['merge_pull_request', 'Merge a GitHub pull request', 1.31],
        ['list_pull_requests', 'List open pull requests for a GitHub repository', 1.11],
      ],
      weather: [['get_weather', 'Get the current weather forecast for a city', 4.86]],
      send: [
        ['send_email', 'Send an email to a recipient', 4.33],
        ['send_slack_message', 'Send a message to a Slack channel', 4.24],
      ],
      'slack channel': [
        ['create_slack_channel', 'Create a new Slack channel', 8.67],
        ['send_slack_message', 'Send a message to a Slack channel', 5.81],
      ],
      'pull request': [
        ['merge_pull_request', 'Merge a GitHub pull request', 9.43],
        ['list_pull_requests', 'List open pull requests for a GitHub repository', 6.07],
      ],
      database: [
        ['db_insert', 'Insert a row into a database table', 1.31],
        ['db_update', 'Update rows in a database table', 1.31],
        ['db_query', 'Run a read-only SQL query against the database', 1.11],
      ],
      // 8 matches, cut to the default topK of 5; three-way tie at 5.09 in index order.
      'create send get merge list run insert update': [
        ['merge_pull_request', 'Merge a GitHub pull request', 5.09],
        ['db_insert', 'Insert a row into a database table', 5.09],
        ['db_update', 'Update rows in a database table', 5.09],
        ['get_weather', 'Get the current weather forecast for a city', 4.86],
        ['list_pull_requests', 'List open pull requests for a GitHub repository', 4.75],
      ],
    };
    const [ref, ours] = await both(P => stepOf(P, { tools }));
    for (const [q, rows] of Object.entries(expected)) {
      const got = await search(ours.s, q);
      assert.deepEqual(
        got,
        { results: rows.map(([name, description, score]) => ({ name, description, score })), message: FOUND(rows.length) },
        `query ${JSON.stringify(q)}`,
      );
      assert.deepEqual(got, await search(ref.s, q));
    }
    assert.deepEqual(await search(ours.s, 'xyz'), { results: [], message: NONE('xyz') });
    assert.deepEqual(await search(ours.s, ''), { results: [], message: NONE('') });
    assert.deepEqual(await search(ours.s, 'a'), { results: [], message: NONE('a') }, 'one-letter tokens are dropped');
  });

  test('the weather score is BM25 (k1 1.5, b 0.75, IDF ln((N-df+.5)/(df+.5)+1)) plus the +2 id-contains boost', async () => {
    const { tools } = docsCatalog();
    // independent computation over the same documents "<id> <description>"
    const tok = s => s.toLowerCase().split(/[\s\-_.,;:!?()[\]{}'"]+/).filter(t => t.length >= 2);
    const docs = Object.values(tools).map(t => tok(`${t.id} ${t.description}`));
    const avg = docs.reduce((a, d) => a + d.length, 0) / docs.length;
    const doc = tok(`get_weather ${tools.getWeather.description}`);
    const tf = doc.filter(t => t === 'weather').length;
    const df = docs.filter(d => d.includes('weather')).length;
    const idf = Math.log((docs.length - df + 0.5) / (df + 0.5) + 1);
    const bm25 = idf * ((tf * 2.5) / (tf + 1.5 * (1 - 0.75 + 0.75 * (doc.length / avg))));
    const expected = Math.round((bm25 + 2) * 100) / 100;
    assert.equal(expected, 4.86);
    const { s } = await stepOf(Ours, { tools });
    assert.equal((await search(s, 'weather')).results[0].score, expected);
  });

  test('minScore 0 (default) keeps low-IDF matches; `search: { topK: 5, minScore: 0.1 }` drops them', async () => {
    const tools = lowIdfCatalog();
    const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    const { s: def } = await stepOf(Ours, { tools });
    assert.deepEqual(await search(def, 'tool'), {
      results: names.map((n, i) => ({ name: n, description: `${n} helper tool number ${i}`, score: 0.06 })),
      message: FOUND(5),
    });
    const { s: strict } = await stepOf(Ours, { tools, search: { topK: 5, minScore: 0.1 } });
    assert.deepEqual(await search(strict, 'tool'), { results: [], message: NONE('tool') });
    // The docs example: same catalog shape as in the docs with topK 5 / minScore 0.1.
    const { tools: docsTools } = docsCatalog();
    const [ref, ours] = await both(P => stepOf(P, { tools: docsTools, search: { topK: 5, minScore: 0.1 } }));
    for (const q of ['github issue', 'send', 'a', 'database query', 'create']) {
      assert.deepEqual(await search(ours.s, q), await search(ref.s, q), q);
    }
    assert.deepEqual((await search(ours.s, 'github issue')).results.map(r => r.name), ['create_issue', 'merge_pull_request', 'list_pull_requests']);
  });

  test('topK bounds the results; topK 0 finds nothing', async () => {
    const tools = lowIdfCatalog();
    const { s: k3 } = await stepOf(Ours, { tools, search: { topK: 3 } });
    assert.deepEqual((await search(k3, 'tool')).results.map(r => r.name), ['alpha', 'beta', 'gamma']);
    const { s: k0 } = await stepOf(Ours, { tools, search: { topK: 0 } });
    assert.deepEqual(await search(k0, 'tool'), { results: [], message: NONE('tool') });
  });

  test('a score exactly equal to minScore is dropped (score <= minScore), found by bisection on the reference', async () => {
    const { tools } = docsCatalog();
    const included = async (P, minScore) => {
      const { s } = await stepOf(P, { tools, search: { minScore } });
      return (await search(s, 'weather')).results.length === 1;
    };
    // bisect the reference's unrounded score of get_weather for "weather"
    let lo = 4.8;
    let hi = 4.9;
    assert.equal(await included(Ref, lo), true);
    assert.equal(await included(Ref, hi), false);
    for (let i = 0; i < 200; i++) {
      const mid = lo + (hi - lo) / 2;
      if (mid === lo || mid === hi) break;
      if (await included(Ref, mid)) lo = mid;
      else hi = mid;
    }
    // hi is the exact score (the smallest minScore that drops it), lo the double below it
    assert.equal(await included(Ours, lo), true, 'minScore just below the score keeps the tool');
    assert.equal(await included(Ours, hi), false, 'minScore equal to the score drops the tool');
  });

  test('descriptions over 150 UTF-16 units become the first 147 + "..."; exactly 150 is kept', async () => {
    const d150 = 'weather ' + 'x'.repeat(142);
    const d151 = 'weather ' + 'y'.repeat(143);
    const emoji = 'weather ' + '🔥'.repeat(80); // 168 units; cut inside a surrogate pair at 147
    const tools = {
      a: createTool({ id: 'a150', description: d150, execute: async () => ({}) }),
      b: createTool({ id: 'b151', description: d151, execute: async () => ({}) }),
      c: createTool({ id: 'c_emoji', description: emoji, execute: async () => ({}) }),
    };
    const [ref, ours] = await both(P => stepOf(P, { tools }));
    const got = await search(ours.s, 'weather');
    const byName = Object.fromEntries(got.results.map(r => [r.name, r.description]));
    assert.equal(byName.a150, d150);
    assert.equal(byName.b151, d151.slice(0, 147) + '...');
    assert.equal(byName.c_emoji, emoji.slice(0, 147) + '...');
    assert.equal(byName.c_emoji.length, 150);
    assert.deepEqual(got, await search(ref.s, 'weather'));
  });

  test('load_tool: single and multi shapes, suggestions from record keys, duplicates, already loaded, empty input', async () => {
    const { tools, labels } = docsCatalog();
    const rc = makeRequestContext({ threadId: 'th-load' });
    const run = async P => {
      const p = new P({ tools, ttl: 0 });
      const s = await runStep(p, { labels, requestContext: rc });
      const outs = [];
      for (const input of [
        { toolName: 'get_weather' },
        { toolName: 'getWeather' },
        { toolName: 'weather' },
        { toolName: 'send' },
        { toolNames: ['send_email', 'db_query', 'nope', 'send_email'] },
        { toolName: 'get_weather' },
        { toolNames: ['get_weather'], toolName: 'mergePR' },
        {},
        { toolNames: [] },
        { toolNames: [], toolName: 'listPRs' },
        { toolName: '' },
      ]) outs.push(await load(s, input, rc));
      const s2 = await runStep(p, { labels, requestContext: rc, stepNumber: 1 });
      return { outs, s2 };
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours.outs, [
      { success: true, message: 'Tool "get_weather" loaded successfully. It will be available on your next turn.', toolName: 'get_weather' },
      { success: true, message: 'Tool "getWeather" loaded successfully. It will be available on your next turn.', toolName: 'getWeather' },
      { success: false, message: 'Tool "weather" not found. Did you mean: getWeather?', toolName: 'weather' },
      { success: false, message: 'Tool "send" not found. Did you mean: sendMessage, sendEmail?', toolName: 'send' },
      {
        success: false,
        message: 'Loaded: send_email, db_query — available on your next turn | Not found: nope',
        loadedCount: 2,
        loaded: ['send_email', 'db_query'],
        notFound: ['nope'],
        alreadyLoaded: undefined,
      },
      { success: true, message: 'Tool "get_weather" is already loaded and available.', toolName: 'get_weather' },
      {
        success: true,
        message: 'Loaded: mergePR — available on your next turn | Already loaded: get_weather',
        loadedCount: 1,
        loaded: ['mergePR'],
        notFound: undefined,
        alreadyLoaded: ['get_weather'],
      },
      { success: false, message: 'You must provide either toolName (string) or toolNames (array) to load.' },
      { success: false, message: 'toolNames array must not be empty.' },
      {
        success: true,
        message: 'Loaded: listPRs — available on your next turn',
        loadedCount: 1,
        loaded: ['listPRs'],
        notFound: undefined,
        alreadyLoaded: undefined,
      },
      { success: false, message: 'You must provide either toolName (string) or toolNames (array) to load.' },
    ]);
    // Loaded by id and by key are separate entries, in load order, after the meta-tools.
    assert.deepEqual(ours.s2.tools, [
      ['search_tools', ours.s2.tools[0][1]],
      ['load_tool', ours.s2.tools[1][1]],
      ['get_weather', 'getWeather'],
      ['getWeather', 'getWeather'],
      ['send_email', 'sendEmail'],
      ['db_query', 'query'],
      ['mergePR', 'mergePR'],
      ['listPRs', 'listPRs'],
    ]);
    assert.deepEqual(ours.outs, ref.outs);
    assert.deepEqual(ours.s2.tools, ref.s2.tools);
  });

  test('more than three suggestions are cut to three', async () => {
    const tools = {};
    for (const k of ['sendA', 'sendB', 'sendC', 'sendD', 'sendE']) tools[k] = tagged(`id_${k}`, 'sender', k);
    const [ref, ours] = await both(async P => {
      const { s } = await stepOf(P, { tools });
      return load(s, { toolName: 'send' });
    });
    assert.deepEqual(ours, { success: false, message: 'Tool "send" not found. Did you mean: sendA, sendB, sendC?', toolName: 'send' });
    assert.deepEqual(ours, ref);
  });

  test('meta-tools validate input like createTool tools (same error objects as the reference)', async () => {
    const { tools } = docsCatalog();
    const [ref, ours] = await both(async P => {
      const { s } = await stepOf(P, { tools });
      const out = [];
      for (const q of [{}, { query: 5 }, { query: null }, { query: ['x'] }, { query: 'weather', extra: true }]) {
        out.push(await execTool(s.result.tools.search_tools, q));
      }
      for (const l of [{ toolNames: 'x' }, { toolName: 5 }, { toolNames: [1] }, { toolName: null }, { toolName: 'get_weather', extra: 1 }]) {
        out.push(await execTool(s.result.tools.load_tool, l));
      }
      return out;
    });
    assert.deepEqual(ours, ref);
    assert.equal(ours[1].value.error, true);
    assert.match(ours[1].value.message, /^Tool input validation failed for search_tools\./);
  });
});

// ---------------------------------------------------------------------------
// autoLoad
// ---------------------------------------------------------------------------

describe('search.autoLoad', () => {
  test('no load_tool, autoLoad instruction and description, matches activate for the next step', async () => {
    const { tools, labels } = docsCatalog();
    const rc = makeRequestContext({ threadId: 'auto' });
    const run = async P => {
      const p = new P({ tools, ttl: 0, search: { topK: 3, autoLoad: true } });
      const s1 = await runStep(p, { labels, requestContext: rc, realMessageList: true });
      const r1 = await search(s1, 'github', rc);
      const r2 = await search(s1, 'github pull', rc);
      const r3 = await search(s1, 'zzz', rc);
      const s2 = await runStep(p, { labels, requestContext: rc, stepNumber: 1 });
      const r4 = await search(s2, 'weather', rc);
      const s3 = await runStep(p, { labels, requestContext: rc, stepNumber: 2 });
      return { s1, r1, r2, r3, s2, r4, s3 };
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours.s1.toolNames, ['search_tools']);
    assert.deepEqual(ours.s1.systemCalls, [[INSTRUCTION_AUTOLOAD]]);
    const meta = describeMetaTool(ours.s1.result.tools.search_tools);
    assert.equal(meta.fields.description, SEARCH_DESCRIPTION_AUTOLOAD);
    assert.deepEqual(meta.fields.inputSchema, SEARCH_INPUT_SCHEMA);
    assert.deepEqual(ours.r1, {
      results: [
        { name: 'merge_pull_request', description: 'Merge a GitHub pull request', score: 1.31 },
        { name: 'create_issue', description: 'Create a new GitHub issue in a repository', score: 1.23 },
        { name: 'list_pull_requests', description: 'List open pull requests for a GitHub repository', score: 1.11 },
      ],
      message:
        'Found and loaded 3 tool(s): merge_pull_request, create_issue, list_pull_requests. They are available on your next turn — call them directly.',
    });
    assert.deepEqual(ours.r2.message,
      'Found and loaded 3 tool(s): merge_pull_request, list_pull_requests, create_issue. They are available on your next turn — call them directly. Some were already loaded.');
    assert.deepEqual(ours.r3, { results: [], message: NONE('zzz') });
    assert.deepEqual(ours.s2.tools.map(([n, d]) => [n, typeof d === 'string' ? d : 'meta']), [
      ['search_tools', 'meta'],
      ['merge_pull_request', 'mergePR'],
      ['create_issue', 'createIssue'],
      ['list_pull_requests', 'listPRs'],
    ]);
    assert.deepEqual(ours.s3.toolNames, ['search_tools', 'merge_pull_request', 'create_issue', 'list_pull_requests', 'get_weather']);
    assert.deepEqual(snapshot({ ...ours, s1: ours.s1.tools, s2: ours.s2.tools, s3: ours.s3.tools }), snapshot({ ...ref, s1: ref.s1.tools, s2: ref.s2.tools, s3: ref.s3.tools }));
  });
});

// ---------------------------------------------------------------------------
// storage: 'context'
// ---------------------------------------------------------------------------

describe("storage: 'context'", () => {
  const weatherResult = { results: [{ name: 'get_weather', description: 'Get the current weather forecast for a city', score: 4.86 }], message: FOUND(1) };

  test('loaded names come from completed search_tools/load_tool results in the messages; trimming unloads', async () => {
    const { tools, labels } = docsCatalog();
    const run = async P => {
      const p = new P({ tools, storage: 'context' });
      const m1 = toolInvocationMessage([{ toolName: 'search_tools', result: weatherResult }], { id: 'm1' });
      const m2 = toolInvocationMessage([{ toolName: 'load_tool', result: { success: true, message: 'x', loadedCount: 2, loaded: ['send_email', 'mergePR'] } }], { id: 'm2' });
      const m3 = toolInvocationMessage([{ toolName: 'load_tool', state: 'call', args: { toolNames: ['db_query'] } }], { id: 'm3' });
      const m4 = toolInvocationMessage([{ toolName: 'other_tool', result: { loaded: ['db_insert'] } }], { id: 'm4' });
      const out = {};
      out.all = await runStep(p, { labels, messages: [userMessage('hi'), m1, m2, m3, m4] });
      out.trimmed = await runStep(p, { labels, messages: [m2] });
      out.none = await runStep(p, { labels, messages: [] });
      out.undef = await runStep(p, { labels, messages: undefined });
      out.stats = p.getStateStats();
      out.cleanup = p.cleanupNow();
      p.clearState('x');
      p.clearAllState();
      return out;
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours.all.toolNames, ['search_tools', 'load_tool', 'get_weather', 'send_email', 'mergePR']);
    assert.deepEqual(ours.trimmed.toolNames, ['search_tools', 'load_tool', 'send_email', 'mergePR']);
    assert.deepEqual(ours.none.toolNames, ['search_tools', 'load_tool']);
    assert.deepEqual(ours.undef.toolNames, ['search_tools', 'load_tool']);
    assert.deepEqual(ours.stats, { threadCount: 0, oldestAccessTime: null });
    assert.equal(ours.cleanup, 0);
    for (const k of ['all', 'trimmed', 'none', 'undef']) assert.deepEqual(ours[k].tools, ref[k].tools, k);
  });

  test('a tool loaded during a step stays loaded for that thread until the messages show it, then de-loads with them', async () => {
    const { tools, labels } = docsCatalog();
    const run = async (P, threadId) => {
      const p = new P({ tools, storage: 'context' });
      const rc = makeRequestContext({ threadId });
      const s1 = await runStep(p, { labels, messages: [], requestContext: rc });
      const res = await load(s1, { toolNames: ['get_weather'] }, rc);
      // next step before the result is visible in the messages
      const s2 = await runStep(p, { labels, messages: [], requestContext: rc, stepNumber: 1 });
      const msg = toolInvocationMessage([{ toolName: 'load_tool', result: res }], { id: 'r' });
      const s3 = await runStep(p, { labels, messages: [msg], requestContext: rc, stepNumber: 2 });
      // the result leaves the messages: the tool de-loads (message-owned now)
      const s4 = await runStep(p, { labels, messages: [], requestContext: rc, stepNumber: 3 });
      const resume = describeTools(await p.getLoadedToolsForRequestContext({ requestContext: rc }), labels);
      return [s2.toolNames, s3.toolNames, s4.toolNames, resume];
    };
    const [refT, oursT] = await both(P => run(P, 'thread-ctx'));
    assert.deepEqual(oursT, [
      ['search_tools', 'load_tool', 'get_weather'],
      ['search_tools', 'load_tool', 'get_weather'],
      ['search_tools', 'load_tool'],
      [],
    ]);
    assert.deepEqual(oursT, refT);
    // Without any thread there is no supplemental state: only the messages count.
    const [refA, oursA] = await both(P => run(P, undefined));
    assert.deepEqual(oursA, [['search_tools', 'load_tool'], ['search_tools', 'load_tool', 'get_weather'], ['search_tools', 'load_tool'], []]);
    assert.deepEqual(oursA, refA);
  });

  test('resume path (no stepArgs) sees the same-process supplemental set of a thread', async () => {
    const { tools, labels } = docsCatalog();
    const [ref, ours] = await both(async P => {
      const p = new P({ tools, storage: 'context' });
      const rc = makeRequestContext({ threadId: 'resume-ctx' });
      const s1 = await runStep(p, { labels, messages: [], requestContext: rc });
      await load(s1, { toolNames: ['get_weather', 'sendEmail'] }, rc);
      return describeTools(await p.getLoadedToolsForRequestContext({ requestContext: rc }), labels);
    });
    assert.deepEqual(ours, [['get_weather', 'getWeather'], ['sendEmail', 'sendEmail']]);
    assert.deepEqual(ours, ref);
  });
});

// ---------------------------------------------------------------------------
// ttl and the in-memory store
// ---------------------------------------------------------------------------

describe('ttl and in-memory state (mocked Date.now)', () => {
  let clock;
  before(() => {
    clock = installClock(1_000_000);
  });
  after(() => clock.restore());

  async function touch(p, threadId, labels) {
    return runStep(p, { labels, requestContext: makeRequestContext({ threadId }) });
  }

  test('getStateStats / cleanupNow / clearState / clearAllState with ttl 1000', async () => {
    const { tools, labels } = docsCatalog();
    const run = async P => {
      clock.set(1_000_000);
      const p = new P({ tools, ttl: 1000 });
      const log = [];
      log.push(p.getStateStats());
      await touch(p, 't1', labels);
      log.push(p.getStateStats());
      clock.set(1_000_500);
      const s = await touch(p, 't2', labels);
      log.push(p.getStateStats());
      clock.set(1_000_700);
      await load(s, { toolName: 'get_weather' }, s.args.requestContext); // touches t2 again
      log.push(p.getStateStats());
      clock.set(1_001_000);
      log.push(p.cleanupNow()); // 1000 > 1000 is false
      clock.set(1_001_001);
      log.push(p.cleanupNow()); // t1 expires
      log.push(p.getStateStats());
      await touch(p, undefined, labels); // 'default'
      log.push(p.getStateStats());
      p.clearState('t2');
      log.push(p.getStateStats());
      p.clearState(); // 'default'
      log.push(p.getStateStats());
      await touch(p, 'a', labels);
      await touch(p, 'b', labels);
      log.push(p.getStateStats());
      p.clearAllState();
      log.push(p.getStateStats());
      return log;
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours, [
      { threadCount: 0, oldestAccessTime: null },
      { threadCount: 1, oldestAccessTime: 1_000_000 },
      { threadCount: 2, oldestAccessTime: 1_000_000 },
      { threadCount: 2, oldestAccessTime: 1_000_000 },
      0,
      1,
      { threadCount: 1, oldestAccessTime: 1_000_700 },
      { threadCount: 2, oldestAccessTime: 1_000_700 },
      { threadCount: 1, oldestAccessTime: 1_001_001 },
      { threadCount: 0, oldestAccessTime: null },
      { threadCount: 2, oldestAccessTime: 1_001_001 },
      { threadCount: 0, oldestAccessTime: null },
    ]);
    assert.deepEqual(ours, ref);
  });

  test('a loaded tool disappears when its thread expires', async () => {
    const { tools, labels } = docsCatalog();
    const [ref, ours] = await both(async P => {
      clock.set(5_000_000);
      const p = new P({ tools, ttl: 60_000 });
      const rc = makeRequestContext({ threadId: 'exp' });
      const s1 = await runStep(p, { labels, requestContext: rc });
      await load(s1, { toolName: 'get_weather' }, rc);
      clock.advance(60_001);
      const cleaned = p.cleanupNow();
      const s2 = await runStep(p, { labels, requestContext: rc, stepNumber: 1 });
      return [cleaned, s2.toolNames];
    });
    assert.deepEqual(ours, [1, ['search_tools', 'load_tool']]);
    assert.deepEqual(ours, ref);
  });

  test('default ttl is one hour; ttl 0 and negative ttl disable cleanup', async () => {
    const { tools, labels } = docsCatalog();
    const [ref, ours] = await both(async P => {
      const out = [];
      for (const ttl of [undefined, 0, -1]) {
        clock.set(10_000_000);
        const p = new P(ttl === undefined ? { tools } : { tools, ttl });
        await touch(p, 'x', labels);
        clock.set(10_000_000 + 3_600_000);
        out.push(p.cleanupNow());
        clock.set(10_000_000 + 3_600_001);
        out.push(p.cleanupNow());
        clock.set(10_000_000 + 10 * 3_600_000);
        out.push(p.cleanupNow(), p.getStateStats());
      }
      return out;
    });
    assert.deepEqual(ours, [
      0, 1, 0, { threadCount: 0, oldestAccessTime: null },
      0, 0, 0, { threadCount: 1, oldestAccessTime: 10_000_000 },
      0, 0, 0, { threadCount: 1, oldestAccessTime: 10_000_000 },
    ]);
    assert.deepEqual(ours, ref);
  });

  test('oldestAccessTime is capped at the current time when the clock went backwards', async () => {
    const { tools, labels } = docsCatalog();
    const [ref, ours] = await both(async P => {
      clock.set(2_000_000);
      const p = new P({ tools, ttl: 0 });
      await touch(p, 'x', labels);
      clock.set(1_000_000);
      return p.getStateStats();
    });
    assert.deepEqual(ours, { threadCount: 1, oldestAccessTime: 1_000_000 });
    assert.deepEqual(ours, ref);
  });

  test('in-memory threads are isolated and anonymous requests share "default"', async () => {
    const { tools, labels } = docsCatalog();
    const [ref, ours] = await both(async P => {
      const p = new P({ tools, ttl: 0 });
      const a = makeRequestContext({ threadId: 'A' });
      const sA = await runStep(p, { labels, requestContext: a });
      await load(sA, { toolName: 'get_weather' }, a);
      const sAnon = await runStep(p, { labels, requestContext: makeRequestContext() });
      await load(sAnon, { toolName: 'send_email' }, undefined);
      const empty = makeRequestContext({ threadId: '' }); // '' is no thread
      return [
        (await runStep(p, { labels, requestContext: a })).toolNames,
        (await runStep(p, { labels, requestContext: makeRequestContext({ threadId: 'B' }) })).toolNames,
        (await runStep(p, { labels, requestContext: empty })).toolNames,
        (await runStep(p, { labels, requestContext: undefined })).toolNames,
        p.getStateStats().threadCount,
      ];
    });
    assert.deepEqual(ours, [
      ['search_tools', 'load_tool', 'get_weather'],
      ['search_tools', 'load_tool'],
      ['search_tools', 'load_tool', 'send_email'],
      ['search_tools', 'load_tool', 'send_email'],
      3,
    ]);
    assert.deepEqual(ours, ref);
  });
});

describe('ttl sweep timer', () => {
  test('sweeps automatically every max(ttl/2, 60 s) (node:test mock timers)', async t => {
    const { tools, labels } = docsCatalog();
    const run = async P => {
      t.mock.timers.enable({ apis: ['setInterval', 'Date'], now: 0 });
      try {
        const out = [];
        for (const ttl of [1000, 300_000]) {
          t.mock.timers.setTime(0);
          const p = new P({ tools, ttl });
          await runStep(p, { labels, requestContext: makeRequestContext({ threadId: 'sweep' }) });
          const period = Math.max(ttl / 2, 60_000);
          const seen = [];
          for (let i = 1; i <= 4; i++) {
            t.mock.timers.tick(period - 1);
            seen.push(p.getStateStats().threadCount);
            t.mock.timers.tick(1);
            seen.push(p.getStateStats().threadCount);
          }
          out.push(seen);
          p.clearAllState();
        }
        const p0 = new P({ tools, ttl: 0 });
        await runStep(p0, { labels, requestContext: makeRequestContext({ threadId: 'never' }) });
        t.mock.timers.tick(100 * 3_600_000);
        out.push(p0.getStateStats().threadCount);
        return out;
      } finally {
        t.mock.timers.reset();
      }
    };
    const ref = await run(Ref);
    const ours = await run(Ours);
    assert.deepEqual(ours, [
      [1, 0, 0, 0, 0, 0, 0, 0], // ttl 1000: period 60 s, swept at 60 s
      [1, 1, 1, 1, 1, 0, 0, 0], // ttl 300 s: period 150 s, 300 > 300 is false, swept at 450 s
      1, // ttl 0: never
    ]);
    assert.deepEqual(ours, ref);
  });

  test('the sweep timer does not keep the process alive (unref) and ttl 0 creates none', () => {
    const script = `
      const { ToolSearchProcessor } = require(${JSON.stringify(path.join(root, 'index.js'))});
      const p = new ToolSearchProcessor({ tools: {} });
      const q = new ToolSearchProcessor({ tools: {}, ttl: 1000 });
      globalThis.keep = [p, q];
    `;
    const started = Date.now();
    const r = spawnSync(process.execPath, ['-e', script], { cwd: root, timeout: 30_000, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(Date.now() - started < 30_000, 'process exited on its own');
  });
});

// ---------------------------------------------------------------------------
// filter
// ---------------------------------------------------------------------------

describe('filter', () => {
  const docsFilter = ({ toolName, requestContext, phase }) => {
    const plan = requestContext?.get('plan');
    if (phase === 'search') return true;
    return plan === 'pro' || !toolName.startsWith('premium_');
  };

  test("the docs' plan example: search shows premium tools, load and active depend on the plan", async () => {
    const { tools, labels } = docsCatalog();
    const run = async P => {
      const p = new P({ tools, ttl: 0, filter: docsFilter });
      const free = makeRequestContext({ values: { plan: 'free' } });
      const pro = makeRequestContext({ values: { plan: 'pro' } });
      const out = {};
      const s1 = await runStep(p, { labels, requestContext: free });
      out.search = await search(s1, 'premium export report', free);
      out.loadFree = await load(s1, { toolName: 'premium_export' }, free);
      out.loadFreeMulti = await load(s1, { toolNames: ['premium_export', 'get_weather'] }, free);
      const s2 = await runStep(p, { labels, requestContext: pro });
      out.loadPro = await load(s2, { toolName: 'premium_export' }, pro);
      out.activePro = (await runStep(p, { labels, requestContext: pro })).toolNames;
      out.activeFree = (await runStep(p, { labels, requestContext: free })).toolNames;
      out.resumeFree = describeTools(await p.getLoadedToolsForRequestContext({ requestContext: free }), labels);
      out.resumePro = describeTools(await p.getLoadedToolsForRequestContext({ requestContext: pro }), labels);
      return out;
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours.search.results.map(r => r.name), ['premium_export']);
    assert.deepEqual(ours.loadFree, {
      success: false,
      message: 'Tool "premium_export" not found. Use search_tools to find available tools.',
      toolName: 'premium_export',
    });
    assert.deepEqual(ours.loadFreeMulti, {
      success: false,
      message: 'Loaded: get_weather — available on your next turn | Not found: premium_export',
      loadedCount: 1,
      loaded: ['get_weather'],
      notFound: ['premium_export'],
      alreadyLoaded: undefined,
    });
    assert.deepEqual(ours.loadPro, {
      success: true,
      message: 'Tool "premium_export" loaded successfully. It will be available on your next turn.',
      toolName: 'premium_export',
    });
    assert.deepEqual(ours.activePro, ['search_tools', 'load_tool', 'get_weather', 'premium_export']);
    assert.deepEqual(ours.activeFree, ['search_tools', 'load_tool', 'get_weather']);
    assert.deepEqual(ours.resumeFree, [['get_weather', 'getWeather']]);
    assert.deepEqual(ours.resumePro, [['get_weather', 'getWeather'], ['premium_export', 'premiumExport']]);
    assert.deepEqual(snapshot(ours), snapshot(ref));
  });

  test('a synchronous hook sees exactly the same calls, in the same order, as with the reference', async () => {
    const { tools, labels } = docsCatalog();
    const run = async P => {
      const log = [];
      const filter = arg => {
        log.push({
          keys: Object.keys(arg),
          toolName: arg.toolName,
          phase: arg.phase,
          tool: labels.get(arg.tool),
          requestContext: labels.get(arg.requestContext),
        });
        return !(arg.phase === 'load' && arg.toolName === 'send_email') && !(arg.phase === 'search' && arg.toolName === 'create_issue');
      };
      const p = new P({ tools, ttl: 0, filter });
      const rc = labels.set(makeRequestContext({ threadId: 'f' }), 'rc-f');
      const s1 = await runStep(p, { labels, requestContext: rc });
      await search(s1, 'github issue create', rc);
      await search(s1, 'send', rc);
      await load(s1, { toolName: 'send' }, rc); // suggestions with filter: phase 'load', capped at 3 allowed
      await load(s1, { toolName: 'sendEmail' }, rc);
      await load(s1, { toolNames: ['get_weather', 'getWeather', 'send_email', 'nope'] }, rc);
      await runStep(p, { labels, requestContext: rc, stepNumber: 1 });
      const rc2 = labels.set(makeRequestContext({ threadId: 'f' }), 'rc-resume');
      await p.getLoadedToolsForRequestContext({ requestContext: rc2 });
      await p.getLoadedToolsForRequestContext({ stepArgs: s1.args });
      return log;
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours, ref);
    const K = ['toolName', 'tool', 'requestContext', 'phase'];
    assert.deepEqual(ours.slice(0, 4), [
      { keys: K, toolName: 'create_issue', phase: 'search', tool: 'createIssue', requestContext: 'rc-f' },
      { keys: K, toolName: 'create_slack_channel', phase: 'search', tool: 'createChannel', requestContext: 'rc-f' },
      { keys: K, toolName: 'merge_pull_request', phase: 'search', tool: 'mergePR', requestContext: 'rc-f' },
      { keys: K, toolName: 'list_pull_requests', phase: 'search', tool: 'listPRs', requestContext: 'rc-f' },
    ]);
    assert.ok(ours.some(c => c.phase === 'active' && c.requestContext === 'rc-resume'));
  });

  test('promise-returning, throwing and rejecting hooks (throw/reject = not allowed)', async () => {
    const { tools, labels } = docsCatalog();
    const filter = ({ toolName }) => {
      if (toolName === 'get_weather') return Promise.resolve(true);
      if (toolName === 'send_email') throw new Error('boom');
      if (toolName === 'send_slack_message') return Promise.reject(new Error('nope'));
      if (toolName === 'db_query') return Promise.resolve(false);
      if (toolName === 'db_insert') return 1; // truthy
      if (toolName === 'db_update') return ''; // falsy
      return new Promise(r => setTimeout(() => r(true), 1));
    };
    const run = async P => {
      const p = new P({ tools, ttl: 0, filter });
      const rc = makeRequestContext({ threadId: 'async' });
      const s = await runStep(p, { labels, requestContext: rc });
      const r = {};
      r.search = await search(s, 'send weather database email message slack', rc);
      r.load = await load(s, { toolNames: ['get_weather', 'send_email', 'send_slack_message', 'db_query', 'db_insert', 'db_update', 'create_issue'] }, rc);
      r.next = (await runStep(p, { labels, requestContext: rc })).toolNames;
      return r;
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours.load.loaded, ['get_weather', 'db_insert', 'create_issue']);
    assert.deepEqual(ours.load.notFound, ['send_email', 'send_slack_message', 'db_query', 'db_update']);
    assert.deepEqual(ours.next, ['search_tools', 'load_tool', 'get_weather', 'db_insert', 'create_issue']);
    assert.ok(!ours.search.results.some(x => ['send_email', 'send_slack_message', 'db_query', 'db_update'].includes(x.name)));
    assert.deepEqual(ours, ref);
  });

  test('with a filter, denied high-ranking matches do not starve the result set; lookup prefers id over key', async () => {
    const a = tagged('weather_one', 'weather weather weather', 'a');
    const b = tagged('weather_two', 'weather', 'b');
    const c = tagged('weather_three', 'weather report', 'c');
    const keyClash = tagged('weather_two_clone', 'clone', 'clash');
    const labels = new Labels();
    labels.set(a, 'a');
    labels.set(b, 'b');
    labels.set(c, 'c');
    labels.set(keyClash, 'clash');
    // key 'weather_two' maps to a different tool than id 'weather_two'
    const tools = { one: a, weather_two: keyClash, two: b, three: c };
    const run = async filter => {
      const out = [];
      for (const P of [Ref, Ours]) {
        const p = new P({ tools, ttl: 0, search: { topK: 1 }, filter });
        const s = await runStep(p, { labels });
        const r = await search(s, 'weather');
        await load(s, { toolName: 'weather_two' });
        const s2 = await runStep(p, { labels, stepNumber: 1 });
        out.push({ r, tools: s2.tools.slice(2) });
      }
      return out;
    };
    const [refF, oursF] = await run(({ toolName }) => toolName !== 'weather_one');
    assert.equal(oursF.r.results.length, 1);
    assert.notEqual(oursF.r.results[0].name, 'weather_one');
    assert.deepEqual(oursF.tools, [['weather_two', 'b']], 'with a filter the id wins');
    assert.deepEqual(oursF, refF);
    const [refN, oursN] = await run(undefined);
    assert.deepEqual(oursN.tools, [['weather_two', 'clash']], 'without a filter the key wins');
    assert.deepEqual(oursN, refN);
  });

  test('filter is called with toolName === tool.id (undefined for id-less resolved tools)', async () => {
    const labels = new Labels();
    const idless = labels.set({ description: 'an mcp weather tool', execute: async () => ({ mcp: true }) }, 'idless');
    const run = async P => {
      const log = [];
      const p = new P({ tools: {}, ttl: 0, includeResolvedTools: true, filter: makeFilter({ mode: 'sync', denyPct: 0 }, log, labels) });
      const stepTools = { mcp_weather: idless };
      const s = await runStep(p, { labels, tools: stepTools });
      const r = await search(s, 'weather');
      const l = await load(s, { toolName: 'mcp_weather' });
      const s2 = await runStep(p, { labels, tools: stepTools, stepNumber: 1 });
      return { r, l, tools: s2.tools.slice(2), log };
    };
    const [ref, ours] = await both(run);
    // id-less tools are indexed under their key but never returned by search (lookup by id fails)
    assert.deepEqual(ours.r, { results: [], message: NONE('weather') });
    assert.equal(ours.l.success, true);
    assert.deepEqual(ours.tools, [['mcp_weather', 'idless']]);
    assert.equal(ours.log[0].toolName, undefined);
    assert.deepEqual(ours, ref);
  });
});

// ---------------------------------------------------------------------------
// includeResolvedTools
// ---------------------------------------------------------------------------

describe('includeResolvedTools', () => {
  test('step tools are withheld (meta-tools among them kept) and become searchable and loadable', async () => {
    const { tools, labels } = docsCatalog();
    const mcpIssue = labels.set(tagged('mcp_jira_issue', 'Create a Jira issue for the current user', 'u1'), 'mcpIssue');
    const mcpCal = labels.set(tagged('mcp_calendar', 'Read the calendar of the current user', 'u1'), 'mcpCal');
    const staleSearch = labels.set(tagged('search_tools', 'stale search from a previous step', 'stale'), 'staleSearch');
    const stepTools = { search_tools: staleSearch, mcpIssue, mcpCal };
    const run = async P => {
      const p = new P({ tools, ttl: 0, includeResolvedTools: true });
      const rc = makeRequestContext({ threadId: 'resolved' });
      const s1 = await runStep(p, { labels, tools: { mcpIssue, mcpCal }, requestContext: rc });
      const r = await search(s1, 'jira issue', rc);
      const l = await load(s1, { toolNames: ['mcp_jira_issue', 'mcpCal', 'create_issue'] }, rc);
      const s2 = await runStep(p, { labels, tools: stepTools, requestContext: rc, stepNumber: 1 });
      const s3 = await runStep(p, { labels, tools: undefined, requestContext: rc, stepNumber: 2 });
      return { s1: s1.tools, r, l, s2: s2.tools, s3: s3.tools };
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours.s1.map(([n]) => n), ['search_tools', 'load_tool']);
    assert.deepEqual(ours.r.results.map(x => x.name), ['mcp_jira_issue', 'create_issue']);
    assert.deepEqual(ours.l.loaded, ['mcp_jira_issue', 'mcpCal', 'create_issue']);
    // A meta-tool key among the step tools replaces the fresh one in place.
    assert.deepEqual(ours.s2.map(([n, d]) => [n, typeof d === 'string' ? d : 'meta']), [
      ['search_tools', 'staleSearch'],
      ['load_tool', 'meta'],
      ['mcp_jira_issue', 'mcpIssue'],
      ['mcpCal', 'mcpCal'],
      ['create_issue', 'createIssue'],
    ]);
    // Without the resolved tools, only the static loaded tool resolves.
    assert.deepEqual(ours.s3.map(([n]) => n), ['search_tools', 'load_tool', 'create_issue']);
    assert.deepEqual(ours, ref);
  });

  test('each request indexes its own instances; without the option step tools pass straight through', async () => {
    const labels = new Labels();
    const u1 = labels.set(tagged('mcp_send', 'send mail as user', 'user1'), 'u1');
    const u2 = labels.set(tagged('mcp_send', 'send mail as user', 'user2'), 'u2');
    const extra = labels.set(tagged('extra', 'always there', 'x'), 'extra');
    const run = async P => {
      const p = new P({ tools: {}, ttl: 0, includeResolvedTools: true });
      const s1 = await runStep(p, { labels, tools: { mcp_send: u1 } });
      await load(s1, { toolName: 'mcp_send' });
      const a = (await runStep(p, { labels, tools: { mcp_send: u1 } })).tools.slice(2);
      const b = (await runStep(p, { labels, tools: { mcp_send: u2 } })).tools.slice(2);
      const resume = describeTools(await p.getLoadedToolsForRequestContext({ requestContext: makeRequestContext(), tools: { mcp_send: u2 } }), labels);
      const plain = new P({ tools: {}, ttl: 0 });
      const c = (await runStep(plain, { labels, tools: { extra, search_tools: extra } })).tools;
      return { a, b, resume, c: c.map(([n, d]) => [n, typeof d === 'string' ? d : 'meta']) };
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours.a, [['mcp_send', 'u1']]);
    assert.deepEqual(ours.b, [['mcp_send', 'u2']]);
    assert.deepEqual(ours.resume, [['mcp_send', 'u2']]);
    assert.deepEqual(ours.c, [['search_tools', 'extra'], ['load_tool', 'meta'], ['extra', 'extra']]);
    assert.deepEqual(ours, ref);
  });
});

// ---------------------------------------------------------------------------
// getLoadedToolsForRequestContext
// ---------------------------------------------------------------------------

describe('getLoadedToolsForRequestContext', () => {
  test('with { requestContext, stepArgs, tools } and without stepArgs', async () => {
    const { tools, labels } = docsCatalog();
    const resolved = labels.set(tagged('mcp_files', 'list files', 'r'), 'mcpFiles');
    const run = async P => {
      const out = {};
      for (const storage of ['in-memory', 'context']) {
        const p = new P({ tools, ttl: 0, storage, includeResolvedTools: true });
        const rc = makeRequestContext({ threadId: 'glt' });
        const s1 = await runStep(p, { labels, requestContext: rc, tools: { mcpFiles: resolved } });
        const res = await load(s1, { toolNames: ['get_weather', 'mcpFiles'] }, rc);
        const msgs = [toolInvocationMessage([{ toolName: 'load_tool', result: res }])];
        const s2 = await runStep(p, { labels, requestContext: rc, messages: msgs, tools: { mcpFiles: resolved } });
        const g = async a => describeTools(await p.getLoadedToolsForRequestContext(a), labels);
        out[storage] = {
          full: await g({ requestContext: rc, stepArgs: s2.args, tools: { mcpFiles: resolved } }),
          stepArgsOnly: await g({ stepArgs: s2.args }),
          noStepArgs: await g({ requestContext: rc, tools: { mcpFiles: resolved } }),
          noTools: await g({ requestContext: rc }),
          otherThread: await g({ requestContext: makeRequestContext({ threadId: 'other' }) }),
          none: await g(undefined),
          empty: await g({}),
        };
      }
      return out;
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours['in-memory'], {
      full: [['get_weather', 'getWeather'], ['mcpFiles', 'mcpFiles']],
      stepArgsOnly: [['get_weather', 'getWeather'], ['mcpFiles', 'mcpFiles']],
      noStepArgs: [['get_weather', 'getWeather'], ['mcpFiles', 'mcpFiles']],
      noTools: [['get_weather', 'getWeather']],
      otherThread: [],
      none: [],
      empty: [],
    });
    assert.deepEqual(ours.context, {
      full: [['get_weather', 'getWeather'], ['mcpFiles', 'mcpFiles']],
      stepArgsOnly: [['get_weather', 'getWeather'], ['mcpFiles', 'mcpFiles']],
      // the messages took the names over from the supplemental set, so the resume path has nothing
      noStepArgs: [],
      noTools: [],
      otherThread: [],
      none: [],
      empty: [],
    });
    assert.deepEqual(ours, ref);
  });
});

// ---------------------------------------------------------------------------
// Deliberate differences from 1.59.0 (asserting OUR behaviour literally)
// ---------------------------------------------------------------------------

describe('deliberate differences from 1.59.0', () => {
  test("(a) 'context' store counts a successful single-toolName load_tool result", async () => {
    const { tools, labels } = docsCatalog();
    const p = new Ours({ tools, storage: 'context' });
    const s1 = await runStep(p, { labels, messages: [] });
    const res = await load(s1, { toolName: 'get_weather' });
    assert.deepEqual(res, { success: true, message: 'Tool "get_weather" loaded successfully. It will be available on your next turn.', toolName: 'get_weather' });
    const ok = toolInvocationMessage([{ toolName: 'load_tool', result: res }]);
    const already = toolInvocationMessage([{ toolName: 'load_tool', result: { success: true, message: 'Tool "send_email" is already loaded and available.', toolName: 'send_email' } }]);
    const failed = toolInvocationMessage([{ toolName: 'load_tool', result: { success: false, message: 'Tool "db_query" not found.', toolName: 'db_query' } }]);
    const s2 = await runStep(p, { labels, messages: [userMessage('x'), ok, already, failed], stepNumber: 1 });
    assert.deepEqual(s2.tools.slice(2), [['get_weather', 'getWeather'], ['send_email', 'sendEmail']]);
    // ... and it is "already loaded" for load_tool in that step
    assert.deepEqual(await load(s2, { toolName: 'get_weather' }), {
      success: true,
      message: 'Tool "get_weather" is already loaded and available.',
      toolName: 'get_weather',
    });
    // the reference (1.59.0) ignores the single-toolName shape
    const r = new Ref({ tools, storage: 'context' });
    const rs = await runStep(r, { labels, messages: [userMessage('x'), ok, already, failed], stepNumber: 1 });
    assert.deepEqual(rs.toolNames, ['search_tools', 'load_tool']);
    // and it de-loads when the result leaves the messages
    const s3 = await runStep(p, { labels, messages: [userMessage('x')], stepNumber: 2 });
    assert.deepEqual(s3.toolNames, ['search_tools', 'load_tool']);
  });

  test("(b) the thread id falls back to requestContext.get('MastraMemory')?.thread?.id (in-memory store)", async () => {
    const { tools, labels } = docsCatalog();
    const p = new Ours({ tools, ttl: 0 });
    const memA = makeRequestContext({ memoryThreadId: 'mem-A' });
    const memB = makeRequestContext({ memoryThreadId: 'mem-B' });
    const sA = await runStep(p, { labels, requestContext: memA });
    await load(sA, { toolName: 'get_weather' }, memA);
    assert.deepEqual((await runStep(p, { labels, requestContext: memA })).toolNames, ['search_tools', 'load_tool', 'get_weather']);
    assert.deepEqual((await runStep(p, { labels, requestContext: memB })).toolNames, ['search_tools', 'load_tool'], 'different memory threads do not share');
    assert.deepEqual((await runStep(p, { labels, requestContext: makeRequestContext() })).toolNames, ['search_tools', 'load_tool'], "nothing leaked into 'default'");
    assert.deepEqual(p.getStateStats().threadCount, 3);
    // explicit mastra__threadId wins over the memory thread
    const both_ = makeRequestContext({ threadId: 'explicit', memoryThreadId: 'mem-A' });
    assert.deepEqual((await runStep(p, { labels, requestContext: both_ })).toolNames, ['search_tools', 'load_tool']);
    // '' as mastra__threadId is no thread: falls back to the memory thread
    const emptyExplicit = makeRequestContext({ threadId: '', memoryThreadId: 'mem-A' });
    assert.deepEqual((await runStep(p, { labels, requestContext: emptyExplicit })).toolNames, ['search_tools', 'load_tool', 'get_weather']);
    // resume path resolves the same thread
    assert.deepEqual(describeTools(await p.getLoadedToolsForRequestContext({ requestContext: memA }), labels), [['get_weather', 'getWeather']]);
    assert.deepEqual(describeTools(await p.getLoadedToolsForRequestContext({ requestContext: memB }), labels), []);
    p.clearState('mem-A');
    assert.deepEqual((await runStep(p, { labels, requestContext: memA })).toolNames, ['search_tools', 'load_tool']);
    // the reference shares 'default' between memory threads
    const r = new Ref({ tools, ttl: 0 });
    const rA = await runStep(r, { labels, requestContext: memA });
    await load(rA, { toolName: 'get_weather' }, memA);
    assert.deepEqual((await runStep(r, { labels, requestContext: memB })).toolNames, ['search_tools', 'load_tool', 'get_weather']);
  });

  test("(b) the 'context' store keeps a supplemental set for the memory thread", async () => {
    const { tools, labels } = docsCatalog();
    const p = new Ours({ tools, storage: 'context' });
    const mem = makeRequestContext({ memoryThreadId: 'mem-ctx' });
    const s1 = await runStep(p, { labels, requestContext: mem, messages: [] });
    await load(s1, { toolNames: ['get_weather'] }, mem);
    assert.deepEqual((await runStep(p, { labels, requestContext: mem, messages: [] })).toolNames, ['search_tools', 'load_tool', 'get_weather']);
    assert.deepEqual(describeTools(await p.getLoadedToolsForRequestContext({ requestContext: mem }), labels), [['get_weather', 'getWeather']]);
    const other = makeRequestContext({ memoryThreadId: 'mem-other' });
    assert.deepEqual((await runStep(p, { labels, requestContext: other, messages: [] })).toolNames, ['search_tools', 'load_tool']);
  });

  test('(c) hostile names: only own keys are tools', async () => {
    const { tools, labels } = docsCatalog();
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const p = new Ours({ tools, ttl: 0 });
    const rc = makeRequestContext({ threadId: 'hostile' });
    const s1 = await runStep(p, { labels, requestContext: rc });
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const r = await load(s1, { toolName: name }, rc);
      assert.equal(r.success, false, name);
      assert.equal(r.toolName, name);
      assert.match(r.message, new RegExp(`^Tool "${name.replace(/[$]/g, '\\$')}" not found\\.`));
    }
    assert.deepEqual(await load(s1, { toolNames: ['toString', 'get_weather', '__proto__'] }, rc), {
      success: false,
      message: 'Loaded: get_weather — available on your next turn | Not found: toString, __proto__',
      loadedCount: 1,
      loaded: ['get_weather'],
      notFound: ['toString', '__proto__'],
      alreadyLoaded: undefined,
    });
    assert.deepEqual(await search(s1, 'constructor __proto__ toString', rc), { results: [], message: NONE('constructor __proto__ toString') });
    const s2 = await runStep(p, { labels, requestContext: rc });
    assert.deepEqual(s2.toolNames, ['search_tools', 'load_tool', 'get_weather']);
    assert.equal(Object.getPrototypeOf(s2.result.tools), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore);
    // The reference (1.59.0) "finds" Object.prototype members:
    const r = new Ref({ tools, ttl: 0 });
    const rs = await runStep(r, { labels });
    assert.equal((await load(rs, { toolName: 'constructor' })).success, true);
  });

  test('(c) hostile names as OWN keys/ids behave like any other name (same as the reference)', async () => {
    const labels = new Labels();
    const mk = (id, tag) => labels.set(tagged(id, `hostile ${tag} tool`, tag), tag);
    const tools = {};
    Object.defineProperty(tools, '__proto__', { value: mk('__proto__', 'proto'), enumerable: true, configurable: true, writable: true });
    tools.constructor = mk('constructor', 'ctor');
    tools.toString = mk('to_string', 'tostr');
    tools[''] = mk('empty_key', 'emptykey');
    tools.long = mk('L'.repeat(5000), 'long');
    tools.valueOf = mk('', 'emptyid');
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const run = async P => {
      const p = new P({ tools, ttl: 0 });
      const s = await runStep(p, { labels });
      const out = [];
      out.push(await search(s, 'hostile constructor'));
      out.push(await search(s, 'hostile ' + 'l'.repeat(5000)));
      out.push(await load(s, { toolNames: ['constructor', 'toString', 'to_string', '', 'L'.repeat(5000), 'valueOf'] }));
      out.push(await load(s, { toolName: 'tostr' }));
      const s2 = await runStep(p, { labels, stepNumber: 1 });
      out.push(s2.tools.slice(2));
      return out;
    };
    const [ref, ours] = await both(run);
    assert.deepEqual(ours, ref);
    assert.deepEqual(ours[2].loaded, ['constructor', 'toString', 'to_string', '', 'L'.repeat(5000), 'valueOf']);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore);
    // own '__proto__' key: must not crash, must not pollute prototypes
    const p = new Ours({ tools, ttl: 0 });
    const s = await runStep(p, { labels });
    const r = await execTool(s.result.tools.load_tool, { toolName: '__proto__' });
    assert.ok(!r.threw || r.threw.isTypeError, `load_tool('__proto__') threw ${r.threw?.name}`);
    const s2 = await runStep(p, { labels, stepNumber: 1 });
    assert.equal(Object.getPrototypeOf(s2.result.tools), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore);
  });
});

// ---------------------------------------------------------------------------
// Key order, concurrency, stale executes
// ---------------------------------------------------------------------------

describe('ordering and timing details', () => {
  test('integer-like keys and ids follow JS property order (they come first)', async () => {
    const labels = new Labels();
    const tools = {};
    for (const [k, id] of [['b', '42'], ['7', 'seven'], ['a', 'alpha_1'], ['3', '3']]) tools[k] = labels.set(tagged(id, `number tool ${k}`, k), k);
    const [ref, ours] = await both(async P => {
      const p = new P({ tools, ttl: 0 });
      const s = await runStep(p, { labels });
      const r = await search(s, 'number tool');
      await load(s, { toolNames: ['42', 'a', '7', 'seven', '3'] });
      const s2 = await runStep(p, { labels, stepNumber: 1 });
      return { r, names: s2.toolNames, tools: s2.tools.map(([n, d]) => [n, typeof d === 'string' ? d : 'meta']) };
    });
    assert.deepEqual(ours.names, ['3', '7', '42', 'search_tools', 'load_tool', 'a', 'seven']);
    assert.deepEqual(ours.r.results.map(x => x.name), ['3', 'seven', '42', 'alpha_1']);
    assert.deepEqual(ours, ref);
  });

  test('JS toLowerCase semantics: final sigma, dotted İ, ß (tokenizer, name boost and suggestions)', async () => {
    const mk = (id, d) => createTool({ id, description: d, execute: async () => ({}) });
    const tools = {
      σ: mk('sigma_small', 'small sigma'),
      'email.channel.Σ': mk('email.channel.Σ', 'ends with capital sigma ΟΔΟΣ'),
      ΣΊΣΥΦΟΣ: mk('ΣΊΣΥΦΟΣ', 'Sisyphus ΣΊΣΥΦΟΣ'),
      İstanbul: mk('İstanbul', 'city İstanbul'),
      straße: mk('STRASSE', 'street straße'),
    };
    const [ref, ours] = await both(async P => {
      const { s } = await stepOf(P, { tools });
      const loads = {};
      for (const n of ['Σ', 'ς', 'σ', 'i̇stanbul', 'ΣΊΣ', 'strasse']) loads[n] = await load(s, { toolName: n });
      const searches = {};
      for (const q of ['σίσυφος', 'ΣΊΣΥΦΟΣ', 'οδος', 'οδοσ', 'i̇stanbul', 'istanbul', 'İSTANBUL', 'strasse', 'STRAßE', 'Σ']) {
        searches[q] = (await search(s, q)).results.map(r => [r.name, r.score]);
      }
      return { loads, searches };
    });
    assert.equal(ours.loads['Σ'].message, 'Tool "Σ" not found. Did you mean: σ, ΣΊΣΥΦΟΣ?');
    assert.equal(ours.loads['ς'].message, 'Tool "ς" not found. Did you mean: email.channel.Σ, ΣΊΣΥΦΟΣ?');
    assert.equal(ours.loads['ΣΊΣ'].message, 'Tool "ΣΊΣ" not found. Did you mean: σ?');
    assert.equal(ours.loads['i̇stanbul'].message, 'Tool "i̇stanbul" not found. Did you mean: İstanbul?');
    assert.deepEqual(ours.searches, {
      σίσυφος: [['ΣΊΣΥΦΟΣ', 7.15]],
      ΣΊΣΥΦΟΣ: [['ΣΊΣΥΦΟΣ', 7.15]],
      οδος: [['email.channel.Σ', 1.04]],
      οδοσ: [],
      'i̇stanbul': [['İstanbul', 7.15]],
      istanbul: [],
      İSTANBUL: [['İstanbul', 7.15]],
      strasse: [['STRASSE', 6.56]],
      STRAßE: [['STRASSE', 1.56]],
      Σ: [],
    });
    assert.deepEqual(ours, ref);
  });

  test("a tool whose id is '' is found by load_tool('') (lookup by id), like any other id", async () => {
    const labels = new Labels();
    const emptyId = labels.set({ id: '', description: 'weather tool with an empty id', execute: async () => ({}) }, 'emptyId');
    const tools = { keyed: emptyId, getWeather: labels.set(tagged('get_weather', 'weather', 'w'), 'w') };
    const [ref, ours] = await both(async P => {
      const { s, processor } = await stepOf(P, { tools });
      const out = [await load(s, { toolNames: ['', 'get_weather'] }), await search(s, 'weather empty')];
      const s2 = await runStep(processor, { labels, stepNumber: 1 });
      return { out, tools: s2.tools.slice(2) };
    });
    assert.deepEqual(ours.out[0], {
      success: true,
      message: 'Loaded: , get_weather — available on your next turn',
      loadedCount: 2,
      loaded: ['', 'get_weather'],
      notFound: undefined,
      alreadyLoaded: undefined,
    });
    // indexed under its key, but search cannot map the key back to a tool
    assert.deepEqual(ours.out[1].results.map(r => r.name), ['get_weather']);
    assert.deepEqual(ours.tools, [['', 'emptyId'], ['get_weather', 'w']]);
    assert.deepEqual(ours, ref);
  });

  // The Agent runs a step's tool calls concurrently, each execute started from its own
  // setImmediate (see createExecute in Mastra's tool builder). With microtask-only
  // work that makes them effectively sequential; a filter doing real I/O interleaves them.
  const likeAgent = fn => new Promise((resolve, reject) => setImmediate(() => fn().then(resolve, reject)));
  const parallelFilters = {
    none: undefined,
    sync: () => true,
    microtask: () => Promise.resolve(true),
    macrotask: () => new Promise(r => setTimeout(() => r(true), 1)),
  };
  for (const [fname, filter] of Object.entries(parallelFilters)) {
    test(`parallel tool calls in one step, started like the Agent starts them (filter: ${fname})`, async () => {
      const { tools, labels } = docsCatalog();
      const [ref, ours] = await both(async P => {
        const p = new P({ tools, ttl: 0, filter });
        const s = await runStep(p, { labels });
        const outs = await Promise.all([
          likeAgent(() => execTool(s.result.tools.load_tool, { toolName: 'get_weather' })),
          likeAgent(() => execTool(s.result.tools.load_tool, { toolName: 'get_weather' })),
          likeAgent(() => execTool(s.result.tools.load_tool, { toolNames: ['get_weather', 'send_email'] })),
          likeAgent(() => execTool(s.result.tools.search_tools, { query: 'weather' })),
        ]);
        const s2 = await runStep(p, { labels, stepNumber: 1 });
        return { outs, names: s2.toolNames };
      });
      if (fname !== 'macrotask') {
        assert.deepEqual(ours.outs.map(o => o.value.message), [
          'Tool "get_weather" loaded successfully. It will be available on your next turn.',
          'Tool "get_weather" is already loaded and available.',
          'Loaded: send_email — available on your next turn | Already loaded: get_weather',
          FOUND(1),
        ]);
      }
      assert.deepEqual(ours, ref);
    });
  }

  test("a previous step's meta-tools keep working on that step's snapshot", async () => {
    const { tools, labels } = docsCatalog();
    const [ref, ours] = await both(async P => {
      const p = new P({ tools, ttl: 0, search: { autoLoad: false } });
      const s1 = await runStep(p, { labels });
      await load(s1, { toolName: 'get_weather' });
      const s2 = await runStep(p, { labels, stepNumber: 1 });
      return {
        staleAgain: await load(s1, { toolName: 'get_weather' }), // s1's snapshot already has it (this call)
        fresh: await load(s2, { toolName: 'get_weather' }),
        staleNew: await load(s1, { toolName: 'send_email' }),
        names: (await runStep(p, { labels, stepNumber: 2 })).toolNames,
      };
    });
    assert.deepEqual(ours, ref);
    assert.equal(ours.fresh.message, 'Tool "get_weather" is already loaded and available.');
  });
});

// ---------------------------------------------------------------------------
// Differential run against the reference
// ---------------------------------------------------------------------------

describe('differential (seeded random cases vs the reference)', () => {
  const CASES = Number(process.env.TS_DIFF_CASES ?? 5000);
  const FIRST = Number(process.env.TS_DIFF_SEED ?? 1);
  const MAX_FAILURES = Number(process.env.TS_DIFF_MAX_FAILURES ?? 8);

  test(`${CASES} random cases: tool lists, instructions, every execute result, filter calls, state stats`, { timeout: 600_000 }, async () => {
    const clock = installClock(1_700_000_000_000);
    const intervals = captureIntervals();
    const t0 = performance.now();
    const failures = [];
    const show = v => {
      const s = JSON.stringify(v);
      return s === undefined ? String(v) : s.length > 1500 ? s.slice(0, 1500) + '…' : s;
    };
    try {
      for (let seed = FIRST; seed < FIRST + CASES && failures.length < MAX_FAILURES; seed++) {
        const scenario = genScenario(seed);
        clock.set(1_700_000_000_000);
        const ref = await runScenario(Ref, scenario, { role: 'ref', clock });
        intervals.clearAll();
        clock.set(1_700_000_000_000);
        let ours;
        try {
          ours = await runScenario(Ours, scenario, { role: 'ours', clock });
        } catch (e) {
          failures.push(`seed ${seed}: ours crashed: ${e?.stack ?? e}`);
          continue;
        } finally {
          intervals.clearAll();
        }
        const d = firstDiff(ours, ref);
        if (d) {
          failures.push(
            `seed ${seed} differs at ${d.path}\n    ours: ${show(d.ours)}\n    ref:  ${show(d.ref)}\n` +
              `    options: ${show(scenario.opts)} filter: ${show(scenario.filterSpec)}`,
          );
        }
      }
    } finally {
      intervals.restore();
      clock.restore();
    }
    if (process.env.TS_VERBOSE) console.log(`differential: ${CASES} cases in ${(performance.now() - t0).toFixed(0)} ms`);
    if (failures.length) {
      assert.fail(
        `${failures.length}${failures.length >= MAX_FAILURES ? '+' : ''} failing seed(s):\n  ${failures.join('\n  ')}\n` +
          `  rerun one: TS_DIFF_SEED=<seed> TS_DIFF_CASES=1 node --test __test__/tool-search.test.mjs`,
      );
    }
  });
});

// ---------------------------------------------------------------------------
// Bad input: ours returns the reference's result or throws a TypeError
// ---------------------------------------------------------------------------

describe('bad input (same result as the reference, or a TypeError; never another error, a crash or a hang)', () => {
  // A frozen clock so getStateStats().oldestAccessTime compares exactly.
  let clock;
  before(() => {
    clock = installClock(1_800_000_000_000);
  });
  after(() => clock.restore());

  const weather = tagged('get_weather', 'Get the weather', 'w');
  const email = tagged('send_email', 'Send an email', 'e');
  const base = { getWeather: weather, sendEmail: email };
  const labels = new Labels();
  labels.set(weather, 'weather');
  labels.set(email, 'email');

  const construct = (P, opts) => (opts === '<none>' ? new P() : new P(opts));

  const optionCases = [
    ['no options', '<none>'],
    ['{}', {}],
    ['tools: null', { tools: null }],
    ['tools: undefined', { tools: undefined }],
    ['tools: "abc"', { tools: 'abc' }],
    ['tools: []', { tools: [] }],
    ["search.topK: '3'", { tools: base, search: { topK: '3' } }],
    ['search.topK: 2.5', { tools: base, search: { topK: 2.5 } }],
    ['search.topK: -1', { tools: base, search: { topK: -1 } }],
    ['search.topK: NaN', { tools: base, search: { topK: NaN } }],
    ['search.topK: Infinity', { tools: base, search: { topK: Infinity } }],
    ['search.minScore: NaN', { tools: base, search: { minScore: NaN } }],
    ["search.minScore: '0.5'", { tools: base, search: { minScore: '0.5' } }],
    ['search.minScore: -1', { tools: base, search: { minScore: -1 } }],
    ['search: null', { tools: base, search: null }],
    ['search.autoLoad: 1', { tools: base, search: { autoLoad: 1 } }],
    ["storage: 'disk'", { tools: base, storage: 'disk' }],
    ['storage: null', { tools: base, storage: null }],
    ['filter: 5', { tools: base, filter: 5 }],
    ["filter: 'yes'", { tools: base, filter: 'yes' }],
    ['filter: null', { tools: base, filter: null }],
    ["ttl: 'abc'", { tools: base, ttl: 'abc' }],
    ['ttl: NaN', { tools: base, ttl: NaN }],
    ['includeResolvedTools: "yes"', { tools: base, includeResolvedTools: 'yes' }],
    ['null tool in the record', { tools: { ...base, broken: null } }],
    ['undefined tool in the record', { tools: { ...base, broken: undefined } }],
    ['string tool in the record', { tools: { ...base, str: 'weather' } }],
    ['number tool in the record', { tools: { ...base, n: 42 } }],
    ['tool with numeric id', { tools: { ...base, num: { id: 5, description: 'numeric weather', execute: async () => ({}) } } }],
    ['tool with object description', { tools: { ...base, od: { id: 'od', description: { text: 'weather' }, execute: async () => ({}) } } }],
    ['tool with numeric description', { tools: { ...base, nd: { id: 'nd', description: 12345, execute: async () => ({}) } } }],
    ["tool with '' id", { tools: { ...base, emptyId: { id: '', description: 'weather tool with empty id', execute: async () => ({}) } } }],
    ['very long names', { tools: { ...base, ['k'.repeat(20000)]: { id: 'weather_' + 'i'.repeat(20000), description: 'weather', execute: async () => ({}) } } }],
  ];

  for (const [name, opts] of optionCases) {
    test(`options: ${name}`, async () => {
      await sameOrTypeError(
        async () => probeProcessor(construct(Ref, opts), { labels }),
        async () => probeProcessor(construct(Ours, opts), { labels }),
        { label: name },
      );
    });
  }

  test('hostile step arguments', async () => {
    const cases = [
      ['tools: null', { tools: null }],
      ['tools: "x"', { tools: 'x' }],
      ['requestContext: undefined', { requestContext: undefined }],
      ['requestContext: Map', { requestContext: new Map([[MASTRA_THREAD_ID_KEY, 'map-thread']]) }],
      ['requestContext: {}', { requestContext: {} }],
      ['messageList missing', { omit: ['messageList'] }],
      ['messages: "x"', { messages: 'x' }],
      ['messages with null entry', { messages: [null] }],
      ['messages with null part', { messages: [{ id: 'x', role: 'assistant', content: { format: 2, parts: [null] } }] }],
      ['messages with numeric parts', { messages: [{ id: 'x', role: 'assistant', content: { format: 2, parts: 5 } }] }],
    ];
    for (const storage of ['in-memory', 'context']) {
      for (const includeResolvedTools of [false, true]) {
        for (const [name, args] of cases) {
          await sameOrTypeError(
            async () => {
              const p = new Ref({ tools: base, ttl: 0, storage, includeResolvedTools });
              const s = await runStep(p, { labels, requestContext: makeRequestContext(), ...args });
              return { tools: s.tools, sys: s.systemCalls, stats: p.getStateStats() };
            },
            async () => {
              const p = new Ours({ tools: base, ttl: 0, storage, includeResolvedTools });
              const s = await runStep(p, { labels, requestContext: makeRequestContext(), ...args });
              return { tools: s.tools, sys: s.systemCalls, stats: p.getStateStats() };
            },
            { label: `${storage}/${includeResolvedTools}/${name}` },
          );
        }
      }
    }
  });

  test('odd resolved step tools with includeResolvedTools', async () => {
    const cases = {
      nullTool: { a: null },
      numberTool: { a: 5 },
      numericId: { a: { id: 7, description: 'weather seven', execute: async () => ({}) } },
      stringTool: { a: 'weather' },
      arrayTools: [weather],
    };
    for (const [name, stepTools] of Object.entries(cases)) {
      const run = P => async () => {
        const p = new P({ tools: base, ttl: 0, includeResolvedTools: true });
        return probeProcessor(p, { labels, stepTools, queries: ['weather', 'seven'], loads: [{ toolName: 'a' }, { toolNames: ['7', 'a', '0'] }] });
      };
      await sameOrTypeError(run(Ref), run(Ours), { label: name });
    }
  });

  test('huge queries and names (100k chars), lone surrogates, control characters', async () => {
    const big = 'weather '.repeat(12_500); // 100k chars
    const inputs = [
      { query: big },
      { query: 'x'.repeat(100_000) },
      { query: '\uD800weather' },
      { query: 'weather\uDC00' },
      { query: '\uDBFF\uDFFF\uD800' },
      { query: '\u0000weather\u0000' },
      { query: 'İ'.repeat(50_000) },
    ];
    const loads = [
      { toolName: 'n'.repeat(100_000) },
      { toolName: '\uD800' },
      { toolNames: ['\uDC00weather', 'get_weather\uD800'] },
      { toolNames: Array.from({ length: 5000 }, (_, i) => `t${i}`) },
    ];
    for (const input of inputs) {
      const run = P => async () => {
        const p = new P({ tools: base, ttl: 0 });
        const s = await runStep(p, { labels });
        return execTool(s.result.tools.search_tools, input);
      };
      const t = performance.now();
      await sameOrTypeError(run(Ref), run(Ours), { label: `query ${JSON.stringify(input.query.slice(0, 20))}…` });
      assert.ok(performance.now() - t < 20_000);
    }
    for (const input of loads) {
      const run = P => async () => {
        const p = new P({ tools: base, ttl: 0 });
        const s = await runStep(p, { labels });
        return execTool(s.result.tools.load_tool, input);
      };
      await sameOrTypeError(run(Ref), run(Ours), { label: `load ${JSON.stringify(input).slice(0, 40)}` });
    }
    // lone surrogates inside the catalog
    const odd = { ['k\uD800']: { id: 'weather\uDC00', description: 'lone \uD800 surrogate weather', execute: async () => ({}) }, ...base };
    await sameOrTypeError(
      async () => probeProcessor(new Ref({ tools: odd, ttl: 0 }), { labels, queries: ['weather', 'lone'], loads: [{ toolName: 'weather\uDC00' }, { toolName: 'k\uD800' }] }),
      async () => probeProcessor(new Ours({ tools: odd, ttl: 0 }), { labels, queries: ['weather', 'lone'], loads: [{ toolName: 'weather\uDC00' }, { toolName: 'k\uD800' }] }),
      { label: 'lone surrogates in the catalog' },
    );
  });

  test('state methods with odd arguments', async () => {
    const run = P => async () => {
      const p = new P({ tools: base, ttl: 1000 });
      await runStep(p, { labels, requestContext: makeRequestContext({ threadId: 't' }) });
      const out = [];
      for (const a of [null, 5, {}, '', 'default', 't', Symbol.iterator]) {
        out.push(String(p.clearState(a)));
        out.push(p.getStateStats());
      }
      out.push(p.cleanupNow(1, 2, 3));
      out.push(snapshot(await p.getLoadedToolsForRequestContext(null)));
      out.push(snapshot(await p.getLoadedToolsForRequestContext({ requestContext: null, tools: null })));
      return out;
    };
    await sameOrTypeError(run(Ref), run(Ours), { label: 'state methods' });
  });
});
