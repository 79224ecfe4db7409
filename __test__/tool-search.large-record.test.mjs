// A constructor's record of `feedFromTools` tools or more crosses in runs of
// `runTools`, indexed on a thread as they come (the core's `search::feed`):
// these check that such a record answers as the reference, with what the
// runs split (repeated names across a run's end, ids other than keys, no id,
// text outside Latin-1), and that a bad tool late in it is refused as in a
// small one.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { toolSearchKit } from './helpers/tool-search-kit.mjs';

const require = createRequire(import.meta.url);
const { toolTable: TABLE } = require('../lib/native.js').toolSearchCodes();

const kit = await toolSearchKit('1.71.0');
const { both, stepOf, search, load, tagged, makeRequestContext } = kit;

const WORDS = ['weather', 'forecast', 'email', 'invoice', 'größe', '検索', 'data🙂base', 'query', 'records', 'payment'];

/** `n` tools, every kind the table carries, some names repeated across runs' ends. */
function largeRecord(n) {
  const run = TABLE.runTools;
  const tools = {};
  for (let i = 0; i < n; i++) {
    const words = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} number${i % 97}`;
    let key = `tool_${i}`;
    let id = key;
    if (i % 11 === 3) id = `other_${i}`;
    // The same name at both ends of a run's boundary, and far apart.
    if (i === run - 1 || i === run) id = 'boundary_twin';
    if (i === 5 || i === 3 * run + 7) id = 'far_twin';
    if (i % 13 === 4) key = `keyed_${i}`;
    const tool = tagged(id, i % 17 === 6 ? undefined : `${words} ${i % 5 === 0 ? 'Größe 検索' : ''}`, `t${i}`);
    if (i % 19 === 8) delete tool.id;
    if (i % 23 === 9) tool.id = '';
    tools[key] = tool;
  }
  return tools;
}

describe('a record fed in runs', () => {
  for (const size of [TABLE.feedFromTools, TABLE.feedFromTools + TABLE.runTools / 2 + 3]) {
    test(`${size} tools answer as the reference`, async () => {
      const tools = largeRecord(size);
      const rc = makeRequestContext({ threadId: 'large' });
      const queries = ['weather forecast', 'größe', '検索 payment', 'boundary_twin', 'far_twin records', 'tool_1000', 'number5', 'data🙂base query'];
      const [ref, ours] = await both(async P => {
        const { s } = await stepOf(P, { tools, search: { topK: 20 } }, { requestContext: rc });
        const answers = [];
        for (const query of queries) answers.push(await search(s, query, rc));
        answers.push(await load(s, { toolNames: ['boundary_twin', 'far_twin', `tool_${size - 1}`, 'other_14', 'nope'] }, rc));
        return answers;
      });
      assert.deepEqual(ours, ref);
    });
  }

  test('a bad tool late in the record is refused as in a small one, and the next record is built', () => {
    const tools = largeRecord(TABLE.feedFromTools + 10);
    const key = Object.keys(tools).at(-3);
    const bad = { ...tools, [key]: { ...tools[key], description: 42 } };
    assert.throws(() => new kit.Ours({ tools: bad }), {
      name: 'TypeError',
      message: `ToolSearchProcessor: options.tools.${key}.description must be a string, got a number`,
    });
    const small = { [key]: { ...tools[key], description: 42 } };
    assert.throws(() => new kit.Ours({ tools: small }), {
      name: 'TypeError',
      message: `ToolSearchProcessor: options.tools.${key}.description must be a string, got a number`,
    });
    assert.throws(() => new kit.Ours({ tools: { ...tools, [key]: null } }), TypeError);
    // Refused options after a record fed whole.
    assert.throws(() => new kit.Ours({ tools, search: { topK: 'many' } }), TypeError);
    assert.doesNotThrow(() => new kit.Ours({ tools }));
  });

  test("ranking 'fielded' over a fed record finds a tool by its name", async () => {
    const tools = largeRecord(TABLE.feedFromTools + 1);
    const rc = makeRequestContext({ threadId: 'fielded' });
    const { s } = await stepOf(kit.Ours, { tools, search: { ranking: 'fielded' } }, { requestContext: rc });
    const answer = await search(s, 'boundary_twin', rc);
    assert.equal(answer.results[0].name, 'boundary_twin');
  });
});
