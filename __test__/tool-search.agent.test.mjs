// ToolSearchProcessor inside a real Mastra Agent (no network): a scripted
// MockLanguageModelV2 (AI SDK v5) issues search_tools / load_tool / tool calls,
// and we capture what the model receives on every step (tool definitions and
// prompt). Each scenario runs with the reference processor and with ours
// (fresh Agent, fresh processor, fresh mock, fresh storage) in both `generate`
// and `stream` mode, and the captures must be deepStrictEqual step for step.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { MockLanguageModelV2, convertArrayToReadableStream } from 'ai/test';

import {
  release,
  RefToolSearchProcessor as Ref,
  loadOurs,
  RequestContext,
  createTool,
  z,
  snapshot,
  firstDiff,
  INSTRUCTION,
  INSTRUCTION_AUTOLOAD,
} from './helpers/tool-search-harness.mjs';

const { Agent } = await release.importCore('agent');
const { Mastra } = await release.importCore('mastra');
const { InMemoryStore } = await release.importCore('storage');
const { MockMemory } = await release.importCore('memory');
const Ours = await loadOurs();
const MODES = ['generate', 'stream'];


// ---------------------------------------------------------------------------
// Scripted model and capture
// ---------------------------------------------------------------------------

/**
 * Normalise what the model receives. The only run-dependent values in the V2
 * prompt are the message timestamps Mastra puts in
 * providerOptions.mastra.createdAt (wall clock): they are replaced by a marker.
 * Nothing else is normalised.
 */
function normalise(value) {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'createdAt' && typeof v === 'number') out[k] = '<createdAt>';
      else out[k] = normalise(v);
    }
    return out;
  }
  return value;
}

function captureCall(opts) {
  return normalise(
    snapshot({
      tools: opts.tools ?? null,
      toolChoice: opts.toolChoice ?? null,
      prompt: opts.prompt,
    }),
  );
}

const call = (toolCallId, toolName, input) => ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) });
const text = t => ({ type: 'text', text: t });

/**
 * A MockLanguageModelV2 whose step N returns script[N] (an array of content
 * parts, or a function of the capture returning one). Both doGenerate and
 * doStream are scripted from the same counter; every call is captured.
 */
function scriptedModel(script) {
  const calls = [];
  let i = 0;
  const nextParts = opts => {
    const cap = captureCall(opts);
    calls.push(cap);
    const st = script[i++];
    const parts = typeof st === 'function' ? st(cap) : st;
    return parts ?? [text('(script exhausted)')];
  };
  const finishReason = parts => (parts.some(p => p.type === 'tool-call') ? 'tool-calls' : 'stop');
  const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
  const model = new MockLanguageModelV2({
    doGenerate: async opts => {
      const content = nextParts(opts);
      return { content, finishReason: finishReason(content), usage, warnings: [] };
    },
    doStream: async opts => {
      const content = nextParts(opts);
      const chunks = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `resp-${i}`, modelId: 'mock-model', timestamp: new Date(0) },
      ];
      for (const p of content) {
        if (p.type === 'text') {
          chunks.push({ type: 'text-start', id: `t${i}` }, { type: 'text-delta', id: `t${i}`, delta: p.text }, { type: 'text-end', id: `t${i}` });
        } else chunks.push(p);
      }
      chunks.push({ type: 'finish', finishReason: finishReason(content), usage });
      return { stream: convertArrayToReadableStream(chunks) };
    },
  });
  return { model, calls };
}

/** Run the agent in generate or stream mode; summarise what the caller sees. */
async function drive(agent, input, options, mode) {
  if (mode === 'generate') {
    const r = await agent.generate(input, options);
    return {
      summary: {
        text: r.text,
        finishReason: r.finishReason,
        toolResults: (r.toolResults ?? []).map(t => snapshot({ toolCallId: t.payload?.toolCallId, toolName: t.payload?.toolName, result: t.payload?.result })),
        suspended: r.suspendPayload ? snapshot({ toolCallId: r.suspendPayload.toolCallId, toolName: r.suspendPayload.toolName, args: r.suspendPayload.args }) : null,
      },
      runId: r.runId,
      approvalToolCallId: r.suspendPayload?.toolCallId,
    };
  }
  const s = await agent.stream(input, options);
  return consumeStream(s);
}

async function consumeStream(s) {
  const toolResults = [];
  const toolErrors = [];
  let approval = null;
  for await (const ch of s.fullStream) {
    if (ch.type === 'tool-result') toolResults.push(snapshot({ toolCallId: ch.payload.toolCallId, toolName: ch.payload.toolName, result: ch.payload.result }));
    if (ch.type === 'tool-error') toolErrors.push({ toolCallId: ch.payload.toolCallId, toolName: ch.payload.toolName });
    if (ch.type === 'tool-call-approval') approval = snapshot({ toolCallId: ch.payload.toolCallId, toolName: ch.payload.toolName, args: ch.payload.args });
  }
  return {
    summary: { text: await s.text, toolResults, toolErrors, suspended: approval },
    runId: s.runId,
    approvalToolCallId: approval?.toolCallId,
  };
}

function mastraAgent(config, storage = new InMemoryStore()) {
  const agent = new Agent({ id: 'tool-search-agent', name: 'tool-search-agent', instructions: 'You are a helpful assistant.', ...config });
  const mastra = new Mastra({ agents: { a: agent }, storage, logger: false });
  return mastra.getAgent('a');
}

// ---------------------------------------------------------------------------
// Catalog
// ---------------------------------------------------------------------------

function catalog(executed) {
  const mk = (id, description, inputSchema, extra = {}) =>
    createTool({
      id,
      description,
      inputSchema,
      execute: async input => {
        executed.push([id, snapshot(input)]);
        return { ok: true, tool: id, input };
      },
      ...extra,
    });
  return {
    getWeather: mk('get_weather', 'Get the current weather forecast for a city', z.object({ city: z.string() })),
    sendEmail: mk('send_email', 'Send an email to a recipient', z.object({ to: z.string(), body: z.string().optional() })),
    createIssue: mk('create_issue', 'Create a new GitHub issue in a repository', z.object({ title: z.string() })),
    listPRs: mk('list_pull_requests', 'List open pull requests for a GitHub repository', z.object({ repo: z.string() })),
    mergePR: mk('merge_pull_request', 'Merge a GitHub pull request', z.object({ number: z.number() })),
    query: mk('db_query', 'Run a read-only SQL query against the database', z.object({ sql: z.string() })),
    premiumExport: mk('premium_export', 'Export a premium analytics report as PDF', z.object({ report: z.string() })),
    deleteFile: mk('delete_file', 'Delete a file from disk (requires approval)', z.object({ path: z.string() }), { requireApproval: true }),
  };
}

// ---------------------------------------------------------------------------
// Scenarios: async (P, mode) => { calls: [[...per model call]], outputs, executed }
// ---------------------------------------------------------------------------

const docsFilter = ({ toolName, requestContext, phase }) => {
  const plan = requestContext?.get('plan');
  if (phase === 'search') return true;
  return plan === 'pro' || !toolName.startsWith('premium_');
};

const scenarios = {
  async 'search → load → use'(P, mode) {
    const executed = [];
    const { model, calls } = scriptedModel([
      [call('c1', 'search_tools', { query: 'weather forecast' })],
      [call('c2', 'load_tool', { toolName: 'get_weather' })],
      [call('c3', 'get_weather', { city: 'Paris' })],
      [text('It is sunny in Paris.')],
    ]);
    const agent = mastraAgent({ model, inputProcessors: [new P({ tools: catalog(executed) })] });
    const out = await drive(agent, 'What is the weather in Paris?', { maxSteps: 6 }, mode);
    return { calls: [calls], outputs: [out.summary], executed };
  },

  async 'multi-load with not-found names and suggestions'(P, mode) {
    const executed = [];
    const { model, calls } = scriptedModel([
      [call('c1', 'load_tool', { toolNames: ['get_weather', 'send_emial', 'sendEmail', 'get_weather'] })],
      [call('c2', 'load_tool', { toolName: 'weather' }), call('c3', 'load_tool', { toolName: 'merge' })],
      [call('c4', 'sendEmail', { to: 'a@b.c' }), call('c5', 'get_weather', { city: 'Oslo' })],
      [text('done')],
    ]);
    const agent = mastraAgent({ model, inputProcessors: [new P({ tools: catalog(executed), search: { topK: 3 } })] });
    const out = await drive(agent, 'Email the Oslo weather', { maxSteps: 6 }, mode);
    return { calls: [calls], outputs: [out.summary], executed };
  },

  async autoLoad(P, mode) {
    const executed = [];
    const { model, calls } = scriptedModel([
      [call('c1', 'search_tools', { query: 'github pull request' })],
      [call('c2', 'merge_pull_request', { number: 7 })],
      [text('merged')],
    ]);
    const agent = mastraAgent({ model, inputProcessors: [new P({ tools: catalog(executed), search: { topK: 2, autoLoad: true } })] });
    const out = await drive(agent, 'Merge PR 7', { maxSteps: 6 }, mode);
    return { calls: [calls], outputs: [out.summary], executed };
  },

  async "storage: 'context' (and a restart on the same memory thread)"(P, mode) {
    const executed = [];
    const storage = new InMemoryStore();
    const memory = new MockMemory({ storage });
    const tools = catalog(executed);
    const first = scriptedModel([
      [call('c1', 'search_tools', { query: 'weather' })], // a search result alone loads with the context store
      [call('c2', 'load_tool', { toolNames: ['send_email'] })],
      [call('c3', 'send_email', { to: 'x@y.z' }), call('c4', 'get_weather', { city: 'Rome' })],
      [text('sent')],
    ]);
    const a1 = mastraAgent({ model: first.model, memory, inputProcessors: [new P({ tools, storage: 'context' })] }, storage);
    const o1 = await drive(a1, 'Send the Rome weather', { maxSteps: 6, memory: { thread: 'ctx-thread', resource: 'user-1' } }, mode);
    // "restart": a new processor and agent; the loaded state comes back from the stored messages
    const second = scriptedModel([[call('c5', 'get_weather', { city: 'Milan' })], [text('ok')]]);
    const a2 = mastraAgent({ model: second.model, memory, inputProcessors: [new P({ tools, storage: 'context' })] }, storage);
    const o2 = await drive(a2, 'And Milan?', { maxSteps: 4, memory: { thread: 'ctx-thread', resource: 'user-1' } }, mode);
    return { calls: [first.calls, second.calls], outputs: [o1.summary, o2.summary], executed };
  },

  async 'filter across phases driven by requestContext'(P, mode) {
    const executed = [];
    const processor = new P({ tools: catalog(executed), filter: docsFilter });
    const rc = plan => {
      const r = new RequestContext();
      r.set('plan', plan);
      return r;
    };
    const m1 = scriptedModel([
      [call('c1', 'search_tools', { query: 'premium export report' })],
      [call('c2', 'load_tool', { toolName: 'premium_export' })],
      [text('not allowed')],
    ]);
    const o1 = await drive(mastraAgent({ model: m1.model, inputProcessors: [processor] }), 'export', { maxSteps: 5, requestContext: rc('free') }, mode);
    const m2 = scriptedModel([
      [call('c3', 'load_tool', { toolNames: ['premium_export', 'get_weather'] })],
      [call('c4', 'premium_export', { report: 'q3' })],
      [text('exported')],
    ]);
    const o2 = await drive(mastraAgent({ model: m2.model, inputProcessors: [processor] }), 'export', { maxSteps: 5, requestContext: rc('pro') }, mode);
    // same processor, shared 'default' state: the free plan no longer sees premium_export (active phase)
    const m3 = scriptedModel([[call('c5', 'get_weather', { city: 'Lima' })], [text('ok')]]);
    const o3 = await drive(mastraAgent({ model: m3.model, inputProcessors: [processor] }), 'weather', { maxSteps: 5, requestContext: rc('free') }, mode);
    return { calls: [m1.calls, m2.calls, m3.calls], outputs: [o1.summary, o2.summary, o3.summary], executed };
  },

  async 'includeResolvedTools with a dynamic tools function'(P, mode) {
    const executed = [];
    const mcpTools = user => ({
      mcp_jira_issue: createTool({
        id: 'mcp_jira_issue',
        description: 'Create a Jira issue as the signed-in user',
        inputSchema: z.object({ summary: z.string() }),
        execute: async input => {
          executed.push(['mcp_jira_issue', user, snapshot(input)]);
          return { createdBy: user };
        },
      }),
      mcp_calendar: createTool({
        id: 'mcp_calendar',
        description: 'Read the calendar of the signed-in user',
        inputSchema: z.object({ day: z.string() }),
        execute: async () => ({ events: [], user }),
      }),
    });
    const processor = new P({ tools: catalog(executed), includeResolvedTools: true });
    const tools = async ({ requestContext }) => mcpTools(requestContext.get('userToken'));
    const rc = user => {
      const r = new RequestContext();
      r.set('userToken', user);
      return r;
    };
    const m1 = scriptedModel([
      [call('c1', 'search_tools', { query: 'jira issue' })],
      [call('c2', 'load_tool', { toolNames: ['mcp_jira_issue'] })],
      [call('c3', 'mcp_jira_issue', { summary: 'bug' })],
      [text('filed')],
    ]);
    const o1 = await drive(mastraAgent({ model: m1.model, tools, inputProcessors: [processor] }), 'file a bug', { maxSteps: 6, requestContext: rc('user-1') }, mode);
    const m2 = scriptedModel([[call('c4', 'mcp_jira_issue', { summary: 'other bug' })], [text('filed')]]);
    const o2 = await drive(mastraAgent({ model: m2.model, tools, inputProcessors: [processor] }), 'file a bug', { maxSteps: 4, requestContext: rc('user-2') }, mode);
    return { calls: [m1.calls, m2.calls], outputs: [o1.summary, o2.summary], executed };
  },

  async 'requireApproval: suspend, approve on the same agent and on a fresh agent (getLoadedToolsForRequestContext)'(P, mode) {
    const out = { calls: [], outputs: [], executed: [] };
    for (const fresh of [false, true]) {
      const executed = out.executed;
      const storage = new InMemoryStore();
      const processor = new P({ tools: catalog(executed) });
      const { model, calls } = scriptedModel([
        [call('c1', 'load_tool', { toolName: 'delete_file' })],
        [call('c2', 'delete_file', { path: '/tmp/x' })],
        [text('deleted')],
      ]);
      const mk = () => mastraAgent({ model, inputProcessors: [processor] }, storage);
      const agent = mk();
      const o1 = await drive(agent, 'delete /tmp/x', { maxSteps: 6 }, mode);
      assert.equal(o1.approvalToolCallId, 'c2', 'suspended for approval');
      const approver = fresh ? mk() : agent;
      let o2;
      if (mode === 'generate') {
        const r = await approver.approveToolCallGenerate({ runId: o1.runId, toolCallId: o1.approvalToolCallId });
        o2 = {
          summary: {
            text: r.text,
            finishReason: r.finishReason,
            toolResults: (r.toolResults ?? []).map(t => snapshot({ toolCallId: t.payload?.toolCallId, toolName: t.payload?.toolName, result: t.payload?.result })),
          },
        };
      } else {
        o2 = await consumeStream(await approver.approveToolCall({ runId: o1.runId, toolCallId: o1.approvalToolCallId }));
      }
      out.calls.push(calls);
      out.outputs.push(o1.summary, o2.summary);
    }
    return out;
  },
};

// ---------------------------------------------------------------------------
// Literal expectations (a few per scenario, on top of ref/ours equality)
// ---------------------------------------------------------------------------

const names = c => (c.tools ?? []).map(t => t.name);
const systemTexts = c => c.prompt.filter(m => m.role === 'system').map(m => m.content);
const toolResultsIn = c =>
  c.prompt
    .filter(m => m.role === 'tool')
    .flatMap(m => m.content)
    .map(p => [p.toolName, p.output?.value]);

const literal = {
  'search → load → use'(r) {
    const [calls] = r.calls;
    assert.equal(calls.length, 4);
    assert.deepEqual(names(calls[0]), ['search_tools', 'load_tool']);
    assert.deepEqual(names(calls[1]), ['search_tools', 'load_tool']);
    assert.deepEqual(names(calls[2]), ['search_tools', 'load_tool', 'get_weather']);
    assert.deepEqual(names(calls[3]), ['search_tools', 'load_tool', 'get_weather']);
    assert.deepEqual(calls[2].tools[2].inputSchema.properties, { city: { type: 'string' } });
    for (const c of calls) assert.deepEqual(systemTexts(c), ['You are a helpful assistant.', INSTRUCTION]);
    assert.deepEqual(toolResultsIn(calls[1]), [
      ['search_tools', {
        results: [{ name: 'get_weather', description: 'Get the current weather forecast for a city', score: 6.23 }],
        message: 'Found 1 tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.',
      }],
    ]);
    assert.deepEqual(r.executed, [['get_weather', { city: 'Paris' }]]);
    assert.equal(r.outputs[0].text, 'It is sunny in Paris.');
  },
  'multi-load with not-found names and suggestions'(r) {
    const [calls] = r.calls;
    assert.deepEqual(toolResultsIn(calls[1]).at(-1), ['load_tool', {
      success: false,
      message: 'Loaded: get_weather, sendEmail — available on your next turn | Not found: send_emial',
      loadedCount: 2,
      loaded: ['get_weather', 'sendEmail'],
      notFound: ['send_emial'],
      alreadyLoaded: undefined,
    }]);
    assert.deepEqual(toolResultsIn(calls[2]).slice(-2), [
      ['load_tool', { success: false, message: 'Tool "weather" not found. Did you mean: getWeather?', toolName: 'weather' }],
      ['load_tool', { success: false, message: 'Tool "merge" not found. Did you mean: mergePR?', toolName: 'merge' }],
    ]);
    assert.deepEqual(names(calls[2]), ['search_tools', 'load_tool', 'get_weather', 'sendEmail']);
    assert.deepEqual(r.executed.map(e => e[0]).sort(), ['get_weather', 'send_email']);
  },
  autoLoad(r) {
    const [calls] = r.calls;
    assert.deepEqual(names(calls[0]), ['search_tools']);
    assert.deepEqual(names(calls[1]), ['search_tools', 'merge_pull_request', 'list_pull_requests']);
    assert.deepEqual(systemTexts(calls[0]), ['You are a helpful assistant.', INSTRUCTION_AUTOLOAD]);
    assert.deepEqual(r.executed, [['merge_pull_request', { number: 7 }]]);
  },
  "storage: 'context' (and a restart on the same memory thread)"(r) {
    const [first, second] = r.calls;
    assert.deepEqual(names(first[0]), ['search_tools', 'load_tool']);
    assert.deepEqual(names(first[1]), ['search_tools', 'load_tool', 'get_weather'], 'a search result loads with the context store');
    assert.deepEqual(names(first[2]), ['search_tools', 'load_tool', 'get_weather', 'send_email']);
    assert.deepEqual(names(second[0]), ['search_tools', 'load_tool', 'get_weather', 'send_email'], 'restored from the stored messages');
    assert.deepEqual(r.executed.map(e => e[0]).sort(), ['get_weather', 'get_weather', 'send_email']);
  },
  'filter across phases driven by requestContext'(r) {
    const [m1, m2, m3] = r.calls;
    assert.deepEqual(toolResultsIn(m1[1])[0][1].results.map(x => x.name), ['premium_export']);
    assert.deepEqual(toolResultsIn(m1[2]).at(-1), ['load_tool', {
      success: false,
      message: 'Tool "premium_export" not found. Use search_tools to find available tools.',
      toolName: 'premium_export',
    }]);
    assert.deepEqual(names(m2[1]), ['search_tools', 'load_tool', 'premium_export', 'get_weather']);
    assert.deepEqual(names(m3[0]), ['search_tools', 'load_tool', 'get_weather'], 'premium_export hidden for the free plan');
    assert.deepEqual(r.executed.map(e => e[0]), ['premium_export', 'get_weather']);
  },
  'includeResolvedTools with a dynamic tools function'(r) {
    const [m1, m2] = r.calls;
    assert.deepEqual(names(m1[0]), ['search_tools', 'load_tool'], 'resolved tools are withheld');
    assert.deepEqual(toolResultsIn(m1[1])[0][1].results.map(x => x.name), ['mcp_jira_issue', 'create_issue']);
    assert.deepEqual(names(m1[2]), ['search_tools', 'load_tool', 'mcp_jira_issue']);
    assert.deepEqual(names(m2[0]), ['search_tools', 'load_tool', 'mcp_jira_issue']);
    assert.deepEqual(r.executed, [
      ['mcp_jira_issue', 'user-1', { summary: 'bug' }],
      ['mcp_jira_issue', 'user-2', { summary: 'other bug' }],
    ]);
  },
  'requireApproval: suspend, approve on the same agent and on a fresh agent (getLoadedToolsForRequestContext)'(r) {
    for (const calls of r.calls) {
      assert.equal(calls.length, 3);
      assert.deepEqual(names(calls[1]), ['search_tools', 'load_tool', 'delete_file']);
      assert.deepEqual(names(calls[2]), ['search_tools', 'load_tool', 'delete_file']);
      assert.deepEqual(toolResultsIn(calls[2]).at(-1), ['delete_file', { ok: true, tool: 'delete_file', input: { path: '/tmp/x' } }]);
    }
    assert.deepEqual(r.executed, [
      ['delete_file', { path: '/tmp/x' }],
      ['delete_file', { path: '/tmp/x' }],
    ]);
    assert.equal(r.outputs[1].text, 'deleted');
    assert.equal(r.outputs[3].text, 'deleted');
  },
};

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

function assertSameRun(ours, ref, label) {
  const d = firstDiff(ours, ref);
  if (d) {
    assert.fail(`${label}: ours differs from the reference at ${d.path}\n  ours: ${JSON.stringify(d.ours)?.slice(0, 1500)}\n  ref:  ${JSON.stringify(d.ref)?.slice(0, 1500)}`);
  }
  assert.deepStrictEqual(ours, ref);
}

describe('Agent + MockLanguageModelV2: what the model sees, reference vs ours', () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    for (const mode of MODES) {
      test(`${name} [${mode}]`, async () => {
        const ref = await scenario(Ref, mode);
        const ours = await scenario(Ours, mode);
        literal[name](ref); // the expectations hold for the reference ...
        literal[name](ours); // ... and for ours
        assertSameRun(ours, ref, `${name} [${mode}]`);
      });
    }
  }
});

// ---------------------------------------------------------------------------
// Deliberate differences, seen through the Agent (assert OUR behaviour)
// ---------------------------------------------------------------------------

describe('deliberate differences through the Agent', () => {
  for (const mode of MODES) {
    test(`(b) memory threads do not share in-memory loaded tools [${mode}]`, async () => {
      const run = async P => {
        const executed = [];
        const storage = new InMemoryStore();
        const memory = new MockMemory({ storage });
        const processor = new P({ tools: catalog(executed) });
        const mA = scriptedModel([[call('c1', 'load_tool', { toolName: 'get_weather' })], [text('loaded')]]);
        await drive(mastraAgent({ model: mA.model, memory, inputProcessors: [processor] }, storage), 'load weather', { maxSteps: 4, memory: { thread: 'thread-A', resource: 'u' } }, mode);
        const mB = scriptedModel([[text('hello')]]);
        await drive(mastraAgent({ model: mB.model, memory, inputProcessors: [processor] }, storage), 'hi', { maxSteps: 2, memory: { thread: 'thread-B', resource: 'u' } }, mode);
        const mA2 = scriptedModel([[text('hello again')]]);
        await drive(mastraAgent({ model: mA2.model, memory, inputProcessors: [processor] }, storage), 'hi', { maxSteps: 2, memory: { thread: 'thread-A', resource: 'u' } }, mode);
        return { b: names(mB.calls[0]), a2: names(mA2.calls[0]), stats: processor.getStateStats().threadCount };
      };
      const ours = await run(Ours);
      assert.deepEqual(ours.b, ['search_tools', 'load_tool']);
      assert.deepEqual(ours.a2, ['search_tools', 'load_tool', 'get_weather']);
      assert.equal(ours.stats, 2);
      const ref = await run(Ref); // 1.59.0 keys everything under 'default'
      assert.deepEqual(ref.b, ['search_tools', 'load_tool', 'get_weather']);
    });

    test(`(a) context store: a single-toolName load_tool result loads the tool [${mode}]`, async () => {
      const run = async P => {
        const executed = [];
        const { model, calls } = scriptedModel([
          [call('c1', 'load_tool', { toolName: 'get_weather' })],
          [call('c2', 'get_weather', { city: 'Kyoto' })],
          [text('ok')],
        ]);
        const out = await drive(mastraAgent({ model, inputProcessors: [new P({ tools: catalog(executed), storage: 'context' })] }), 'weather', { maxSteps: 5 }, mode);
        return { offered: calls.map(names), executed, out: out.summary };
      };
      const ours = await run(Ours);
      assert.deepEqual(ours.offered[1], ['search_tools', 'load_tool', 'get_weather']);
      assert.deepEqual(ours.executed, [['get_weather', { city: 'Kyoto' }]]);
      const ref = await run(Ref); // 1.59.0 ignores the single-toolName shape without a thread id
      assert.deepEqual(ref.offered[1], ['search_tools', 'load_tool']);
    });
  }

  test('(b) approval on a fresh agent finds tools loaded on a memory thread', async () => {
    const executed = [];
    const storage = new InMemoryStore();
    const memory = new MockMemory({ storage });
    const processor = new Ours({ tools: catalog(executed) });
    const { model } = scriptedModel([
      [call('c1', 'load_tool', { toolName: 'delete_file' })],
      [call('c2', 'delete_file', { path: '/tmp/mem' })],
      [text('deleted')],
    ]);
    const mk = () => mastraAgent({ model, memory, inputProcessors: [processor] }, storage);
    const r1 = await mk().generate('delete', { maxSteps: 6, memory: { thread: 'thread-appr', resource: 'u' } });
    assert.equal(r1.suspendPayload?.toolCallId, 'c2');
    // nothing under 'default': the state lives under the memory thread
    assert.deepEqual(Object.keys(await processor.getLoadedToolsForRequestContext({ requestContext: new RequestContext() })), []);
    const r2 = await mk().approveToolCallGenerate({ runId: r1.runId, toolCallId: 'c2' });
    assert.equal(r2.text, 'deleted');
    assert.deepEqual(executed, [['delete_file', { path: '/tmp/mem' }]]);
  });
});
