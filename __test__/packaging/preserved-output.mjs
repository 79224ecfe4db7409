// One prompt through ToolCallFilter({ preserveModelOutput: true }), inside a
// user's project: a history tool result that stored its own model output is
// removed, and the text the filter leaves in its place shows whose filter ran.
// Prints one JSON line: { implementation, texts }.

import { ToolCallFilter, implementation } from 'mastra-native-processors'

const prompt = [
  { role: 'user', content: [{ type: 'text', text: 'Find order 42.' }] },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'searchDatabase', input: { query: 'order 42' } }] },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'searchDatabase',
        output: { type: 'json', value: { rows: [] } },
        providerOptions: { mastra: { modelOutput: { type: 'text', value: 'No order 42.' } } },
      },
    ],
  },
]
const filtered = await new ToolCallFilter({ preserveModelOutput: true }).processLLMRequest({ prompt, state: {} })
const texts = (filtered?.prompt ?? prompt).flatMap((message) => message.content.filter((part) => part.type === 'text').map((part) => part.text))
console.log(JSON.stringify({ implementation, texts }))
