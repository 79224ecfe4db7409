// Conversation histories of tool calls, for the collection rhythms and the
// bench scripts that time a filter (benches/ab.mjs,
// benches/after-collection.mjs): turns of a question, a call, its result
// (every third with a stored model output) and an answer, as a provider
// prompt (1.60+) or as stored messages (1.59's message list).

/** The tools the turns call, in turn. */
export const TOOL_NAMES = ['searchDatabase', 'getWeather', 'sendEmail']

/** A provider prompt: a system message, then `turns` turns, call ids `${prefix}${turn}`. */
export function providerPrompt(prefix, turns) {
  const messages = [{ role: 'system', content: 'You are a helpful assistant.' }]
  for (let t = 0; t < turns; t++) {
    const toolCallId = `${prefix}${t}`
    const toolName = TOOL_NAMES[t % TOOL_NAMES.length]
    const result = { type: 'tool-result', toolCallId, toolName, output: { type: 'json', value: { t } } }
    if (t % 3 === 0) result.providerOptions = { mastra: { modelOutput: { type: 'text', value: `result ${t}` } } }
    messages.push(
      { role: 'user', content: [{ type: 'text', text: `question ${t}` }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'looking' },
          { type: 'tool-call', toolCallId, toolName, input: {} },
        ],
      },
      { role: 'tool', content: [result] },
      { role: 'assistant', content: [{ type: 'text', text: `answer ${t}` }] },
    )
  }
  return messages
}

/** The same turns as stored messages (format 2, a question and a call with its result each), ids prefixed too. */
export function storedHistory(prefix, turns) {
  const messages = []
  for (let t = 0; t < turns; t++) {
    const toolName = TOOL_NAMES[t % TOOL_NAMES.length]
    const invocation = { state: 'result', toolCallId: `${prefix}${t}`, toolName, args: {}, result: { t } }
    const part = { type: 'tool-invocation', toolInvocation: invocation }
    if (t % 3 === 0) part.providerMetadata = { mastra: { modelOutput: `result ${t}` } }
    messages.push(
      { id: `${prefix}u${t}`, role: 'user', content: { format: 2, parts: [{ type: 'text', text: `question ${t}` }] } },
      {
        id: `${prefix}a${t}`,
        role: 'assistant',
        content: { format: 2, parts: [{ type: 'text', text: 'looking' }, part], toolInvocations: [{ ...invocation }] },
      },
    )
  }
  return messages
}
