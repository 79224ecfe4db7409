// ToolCallFilter's TypeErrors for values of the wrong kind, word for word, on
// both stages: the options (checked once, in Rust, when the filter is made)
// and a prompt or message list that is no array. Which values are refused
// where the reference throws or misbehaves is tool-call-filter.bad-input's;
// this holds what the error says, worded in one place
// (src/tool_call_filter/refusal.rs).

import { test } from 'node:test'
import assert from 'node:assert/strict'

import { filtersOf } from './helpers/tool-call-filter-harness.mjs'

const stages = [
  { stage: 'message list (1.59.0)', OurFilter: (await filtersOf('1.59.0')).OurFilter },
  { stage: 'prompt (1.71.0)', OurFilter: (await filtersOf('1.71.0')).OurFilter },
]

const OPTIONS = [
  [5, 'ToolCallFilter: options must be an object, got a number'],
  [null, 'ToolCallFilter: options must be an object, got null'],
  ['all', 'ToolCallFilter: options must be an object, got the string "all"'],
  [{ exclude: 'getWeather' }, 'ToolCallFilter: options.exclude must be an array of tool names, got the string "getWeather"'],
  [{ exclude: new Set(['getWeather']) }, 'ToolCallFilter: options.exclude must be an array of tool names, got an object'],
  [{ exclude: true }, 'ToolCallFilter: options.exclude must be an array of tool names, got a boolean'],
  [{ filterAfterToolSteps: '2' }, 'ToolCallFilter: options.filterAfterToolSteps must be a number, got the string "2"'],
  [{ filterAfterToolSteps: 2n }, 'ToolCallFilter: options.filterAfterToolSteps must be a number, got a bigint'],
  [{ preserveModelOutput: 1 }, 'ToolCallFilter: options.preserveModelOutput must be a boolean, got a number'],
  [{ preserveModelOutput: () => true }, 'ToolCallFilter: options.preserveModelOutput must be a boolean, got a function'],
  // The first of the wrong kind, in the order the options are read.
  [
    { preserveModelOutput: 'yes', exclude: 'x', filterAfterToolSteps: 'y' },
    'ToolCallFilter: options.exclude must be an array of tool names, got the string "x"',
  ],
]

for (const { stage, OurFilter } of stages) {
  test(`${stage}: options of the wrong kind are refused, each by name`, () => {
    for (const [options, message] of OPTIONS) {
      assert.throws(() => new OurFilter(options), { name: 'TypeError', message }, `options ${String(options?.constructor?.name)}`)
    }
  })

  test(`${stage}: options of the right kinds are taken`, () => {
    for (const options of [
      undefined,
      {},
      { exclude: null, filterAfterToolSteps: null, preserveModelOutput: null },
      { exclude: [], filterAfterToolSteps: 1, preserveModelOutput: false },
    ]) {
      assert.ok(new OurFilter(options) instanceof OurFilter)
    }
  })
}

test('prompt (1.71.0): a prompt or a message of the wrong kind is refused by name', async () => {
  const filter = new stages[1].OurFilter()
  await assert.rejects(filter.processLLMRequest({ prompt: 'hello', state: {} }), {
    name: 'TypeError',
    message: 'ToolCallFilter: expected the prompt to be an array of messages, got the string "hello"',
  })
  await assert.rejects(filter.processLLMRequest({ prompt: [{ role: 'system', content: 'x' }, null], state: {} }), {
    name: 'TypeError',
    message: 'ToolCallFilter: prompt message 1 is null',
  })
  await assert.rejects(filter.processLLMRequest({ prompt: [7], state: {} }), { name: 'TypeError', message: 'ToolCallFilter: prompt message 0 is a number' })
})

test('message list (1.59.0): messages that are no array are refused by name', async () => {
  const filter = new stages[0].OurFilter()
  const messageList = { get: { all: { db: () => ({ length: 1 }) } } }
  await assert.rejects(filter.processInput({ messages: [], messageList, abort() {} }), {
    name: 'TypeError',
    message: 'ToolCallFilter: expected an array of messages, got an object',
  })
})
