// ToolCallFilter takes time linear in every input's size (issue 29): each
// dimension below is one call at sizes s, 4s and 16s, and 16 times the size
// may take at most 40 times the time (helpers/scaling.mjs). Both stages: 1.59's
// message list (`processInput` / `processInputStep`, the model output in
// `providerMetadata.mastra.modelOutput`) and 1.60+'s provider prompt
// (`processLLMRequest`, the output in the result's `output`). At size s each
// answer is also compared with the release's own filter's.
//
// Mastra's own filter is not timed here. Where it grows faster than linear:
// `exclude.includes` per part makes an exclude list of n names over n calls
// n² (both stages); turning the model output into text copies the text at
// every level (`join`), so arrays nested n deep with a text beside each level
// are n², and an empty innermost array is stringified again at every level
// (n², and a RangeError from about 4,000 levels on); 1.59's
// `processInputStep` copies the ids it has seen on every step.

import { loadRelease } from './helpers/releases.mjs'
import { inputArgs, stepArgs } from './helpers/tool-call-filter-harness.mjs'
import { scalingSuite } from './helpers/scaling.mjs'

// ---- model outputs nested n deep, of every kind --------------------------

const nest = (n, leaf, wrap) => {
  let o = leaf
  for (let i = 0; i < n; i++) o = wrap(o, i)
  return o
}
const OBJECTS = 'objects `{ a: { a: … } }`'
/**
 * An object's text is its JSON, from V8's `JSON.stringify` as in the
 * reference, and V8 looks for a cycle by searching the whole path at every
 * level: n² in the depth (4,000 levels 5 ms, 1,000 levels 0.3 ms, on Node 20),
 * up to the depth where it throws a RangeError (about 4,000 levels; the text
 * is then none, as the reference's). So one object costs at most a few
 * milliseconds, bounded by V8's stack, and only a JSON writer of our own would
 * make it linear.
 */
const V8_JSON = "V8's JSON.stringify is n² in an object's depth, up to the depth where it throws"
/**
 * `[kind, s, output n deep]`. From 500 levels: 8,000 take a few milliseconds
 * and still fit the CPU's caches (past about 10,000 levels even a bare
 * JavaScript walk of such an output slows per level as it leaves them);
 * main's cubic walk of empty arrays (issue 29) fails at 4s within a second or
 * two rather than running for minutes. Objects stay under V8's JSON depth.
 */
const NESTINGS = [
  ['arrays, a text innermost `[[["deep"]]]`', 500, (n) => nest(n, 'deep', (o) => [o])],
  ['arrays, an empty array innermost `[[[[]]]]`', 500, (n) => nest(n, [], (o) => [o])],
  ["arrays inside `{ type: 'json', value }`", 500, (n) => ({ type: 'json', value: nest(n, 'deep', (o) => [o]) })],
  [OBJECTS, 250, (n) => ({ type: 'json', value: nest(n, 'deep', (o) => ({ a: o })) })],
  ["`value` chains `{ type: 'json', value: { type: 'json', value: … } }`", 500, (n) => nest(n, 'deep', (o) => ({ type: 'json', value: o }))],
  [
    // Four objects a level: from 250, to stay in the caches as the others do.
    "content parts `{ type: 'content', value: [text, { type: 'content', … }] }`",
    250,
    (n) => nest(n, { type: 'text', text: 'deep' }, (o) => ({ type: 'content', value: [{ type: 'text', text: 'level' }, o] })),
  ],
  ['arrays with a text beside each level `[[["deep"], "x"], "x"]`', 500, (n) => nest(n, 'deep', (o) => [o, 'x'])],
  ['mixed: arrays with `[]` and `""` beside, alternating with `{ value }`', 500, (n) => nest(n, 'deep', (o, i) => (i % 2 ? [[], o, ''] : { value: o }))],
]

// ---- histories: steps of tool calls, laid out as each stage reads them ----

/** A tool call of the history: `{ id, name, output }`. */
const callOf = (i, { name = `tool${i % 8}`, id = `call-${i}`, output = `result ${i}` } = {}) => ({ id, name, output })
/** n steps of one call each. */
const stepsOfOne = (n, make = callOf) => Array.from({ length: n }, (_, i) => [make(i)])

/** 1.60+: an assistant message of tool calls and a tool message of their results per step. */
function promptOf(steps) {
  const prompt = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: [{ type: 'text', text: 'Go' }] },
  ]
  for (const step of steps) {
    prompt.push({ role: 'assistant', content: step.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: { q: 1 } })) })
    prompt.push({
      role: 'tool',
      content: step.map((c) => ({
        type: 'tool-result',
        toolCallId: c.id,
        toolName: c.name,
        output: c.output,
        providerOptions: { mastra: { modelOutput: true } },
      })),
    })
  }
  return prompt
}

/** 1.59: one assistant message of tool invocations per step, each model output in its metadata. */
function messagesOf(steps) {
  const user = { id: 'm-user', role: 'user', content: { format: 2, parts: [{ type: 'text', text: 'Go' }] } }
  return [
    user,
    ...steps.map((step, i) => ({
      id: `m${i}`,
      role: 'assistant',
      content: {
        format: 2,
        parts: step.map((c) => ({
          type: 'tool-invocation',
          toolInvocation: { state: 'result', toolCallId: c.id, toolName: c.name, args: { q: 1 }, result: { ok: true } },
          providerMetadata: { mastra: { modelOutput: c.output } },
        })),
      },
    })),
  ]
}

// ---- the two stages ------------------------------------------------------

const STAGES = [
  {
    stage: 'prompt (1.71.0, processLLMRequest)',
    version: '1.71.0',
    /** The history as this stage's one call reads it, made before timing. */
    input: (steps) => ({ prompt: promptOf(steps) }),
    run: (filter, { prompt }) => filter.processLLMRequest({ prompt, state: {} }),
    /** A call of the agent loop with filterAfterToolSteps. */
    loopInput: (steps) => ({ prompt: promptOf(steps) }),
    loopRun: (filter, { prompt }) => filter.processLLMRequest({ prompt, state: {} }),
  },
  {
    stage: 'message list (1.59.0, processInput / processInputStep)',
    version: '1.59.0',
    input: (steps) => inputArgs(messagesOf(steps)),
    run: (filter, args) => filter.processInput(args),
    // Every step of the history is the run's own (the response), the state fresh.
    loopInput: (steps) => {
      const all = messagesOf(steps)
      return stepArgs(all, all.slice(1), {}, { stepNumber: steps.length })
    },
    loopRun: (filter, args) => filter.processInputStep(args),
  },
]

for (const { stage, version, input, run, loopInput, loopRun } of STAGES) {
  const { reference, ours } = await loadRelease(version)
  /** A dimension whose call is one `run` of a filter made with these options on the history `steps(n)`. */
  const dimension = (name, base, options, steps, { loop = false, fresh = loop } = {}) => ({
    name,
    base,
    fresh,
    build: (n) => ({ filter: new ours.ToolCallFilter(options(n)), input: (loop ? loopInput : input)(steps(n)) }),
    call: ({ filter, input }) => (loop ? loopRun : run)(filter, input),
    reference: (built) => (loop ? loopRun : run)(new reference.ToolCallFilter(options(base)), built.input),
  })
  const preserve = () => ({ preserveModelOutput: true })

  const dimensions = [
    ...NESTINGS.map(([kind, base, make]) => ({
      ...dimension(`model output nested n deep: ${kind}`, base, preserve, (n) => [[callOf(0, { name: 'deep', output: make(n) })]]),
      sharedGrowth: kind === OBJECTS ? V8_JSON : undefined,
    })),
    dimension('messages: n steps of one call', 500, preserve, (n) => stepsOfOne(n)),
    dimension('parts per message: one step of n calls', 500, preserve, (n) => [Array.from({ length: n }, (_, i) => callOf(i))]),
    dimension('tool steps: n steps with filterAfterToolSteps n/2', 250, (n) => ({ filterAfterToolSteps: n / 2, preserveModelOutput: true }), stepsOfOne, {
      loop: true,
    }),
    dimension(
      'exclude length: n names excluded, n calls each to one of them',
      250,
      (n) => ({ exclude: Array.from({ length: n }, (_, i) => `tool${i}`) }),
      (n) => stepsOfOne(n, (i) => callOf(i, { name: `tool${(i * 7) % n}` })),
    ),
    // Fresh ids every run: a string's hash, once made, is kept by V8.
    dimension(
      'tool-call id length: 16 calls with ids n characters long',
      2_000,
      preserve,
      (n) => stepsOfOne(16, (i) => callOf(i, { id: `${String.fromCharCode(97 + i)}${'x'.repeat(n - 1)}`.split('').join('') })),
      { fresh: true },
    ),
  ]
  // The exclude list is read when the filter is made: time that too.
  dimensions.push({
    name: 'exclude length: the filter made with n names',
    base: 1_000,
    build: (n) => ({ exclude: Array.from({ length: n }, (_, i) => `tool${i}`) }),
    call: (options) => new ours.ToolCallFilter(options).exclude,
  })
  if (version !== '1.59.0') {
    // The agent loop's later calls read the ids the first call recorded in `state`.
    dimensions.push(
      {
        name: 'recorded state: a later call after a first call recorded n history ids',
        base: 250,
        fresh: true,
        build: async (n) => {
          const filter = new ours.ToolCallFilter({ preserveModelOutput: true })
          const history = promptOf(stepsOfOne(n))
          const state = {}
          await filter.processLLMRequest({ prompt: history, state })
          return { filter, state, prompt: [...history, ...promptOf([[callOf(n, { id: 'run-1' })]]).slice(2)] }
        },
        call: ({ filter, prompt, state }) => filter.processLLMRequest({ prompt, state }),
      },
      {
        name: 'recorded state over an agent loop: call n+1 after n calls, the prompt a step longer each',
        base: 50,
        build: async (n) => {
          const filter = new ours.ToolCallFilter({ preserveModelOutput: true })
          const history = stepsOfOne(20)
          const state = {}
          for (let k = 0; k < n; k++)
            await filter.processLLMRequest({ prompt: promptOf([...history, ...stepsOfOne(k, (i) => callOf(i, { id: `run-${i}` }))]), state })
          return { filter, state, prompt: promptOf([...history, ...stepsOfOne(n, (i) => callOf(i, { id: `run-${i}` }))]) }
        },
        call: ({ filter, prompt, state }) => filter.processLLMRequest({ prompt, state }),
      },
      {
        // Up to 400 calls: past about 1,000 calls their garbage is collected within the run timed, as it is not at s.
        name: 'recorded state over many calls: n calls of one request on one state',
        base: 25,
        fresh: true,
        build: (n) => ({ filter: new ours.ToolCallFilter({ preserveModelOutput: true }), prompt: promptOf(stepsOfOne(20)), calls: n }),
        call: async ({ filter, prompt, calls }) => {
          const state = {}
          let answer
          for (let i = 0; i < calls; i++) answer = await filter.processLLMRequest({ prompt, state })
          return answer
        },
      },
    )
  }
  scalingSuite(`ToolCallFilter scales linearly, ${stage}`, dimensions)
}
