// The documented example history in Mastra's stored message format (format 2),
// and what the message-list ToolCallFilter makes of it.

export const D = (s) => new Date(Date.UTC(2025, 0, 1, 0, 0, s))

export const SEARCH_ARGS = () => ({ query: 'order 42' })
export const SEARCH_RESULT = () => ({ rows: [{ id: 42, total: 99.5 }] })
export const EMAIL_ARGS = () => ({ to: 'bob@example.com', body: 'Order 42 shipped' })

export const U1 = () => ({
  id: 'u1',
  role: 'user',
  createdAt: D(0),
  threadId: 'thread-1',
  resourceId: 'user-1',
  content: {
    format: 2,
    parts: [{ type: 'text', text: 'Find order 42, email Bob, check Tokyo weather' }],
    content: 'Find order 42, email Bob, check Tokyo weather',
  },
})
export const A1 = () => ({
  id: 'a1',
  role: 'assistant',
  createdAt: D(1),
  threadId: 'thread-1',
  resourceId: 'user-1',
  content: {
    format: 2,
    parts: [
      { type: 'step-start' },
      {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId: 'call-search', toolName: 'searchDatabase', args: SEARCH_ARGS(), result: SEARCH_RESULT() },
        providerMetadata: { mastra: { modelOutput: { type: 'text', value: '1 row: order 42 (99.5 USD)' } } },
      },
      { type: 'text', text: 'Found order 42.' },
    ],
    toolInvocations: [{ state: 'result', toolCallId: 'call-search', toolName: 'searchDatabase', args: SEARCH_ARGS(), result: SEARCH_RESULT() }],
  },
})
// a bare tool call ...
export const A2 = () => ({
  id: 'a2',
  role: 'assistant',
  createdAt: D(2),
  threadId: 'thread-1',
  content: {
    format: 2,
    parts: [{ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 'call-email', toolName: 'sendEmail', args: EMAIL_ARGS() } }],
  },
})
// ... and its result in a separate message
export const T1 = () => ({
  id: 't1',
  role: 'tool',
  createdAt: D(3),
  threadId: 'thread-1',
  content: {
    format: 2,
    parts: [
      {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId: 'call-email', toolName: 'sendEmail', args: EMAIL_ARGS(), result: { sent: true } },
        providerMetadata: { mastra: { modelOutput: 'sent to bob@example.com' } },
      },
    ],
  },
})
// legacy `toolCall.id` instead of toolCallId, no stored modelOutput, top-level text
export const A3 = () => ({
  id: 'a3',
  role: 'assistant',
  createdAt: D(4),
  threadId: 'thread-1',
  content: {
    format: 2,
    parts: [
      {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCall: { id: 'call-weather' }, toolName: 'getWeather', args: { city: 'Tokyo' }, result: { tempC: 21 } },
      },
    ],
    content: 'Checking the weather.',
  },
})
export const A4 = () => ({
  id: 'a4',
  role: 'assistant',
  createdAt: D(5),
  threadId: 'thread-1',
  content: { format: 2, parts: [{ type: 'text', text: 'Done: email sent, 21°C in Tokyo.' }] },
})
export const U2 = () => ({
  id: 'u2',
  role: 'user',
  createdAt: D(6),
  threadId: 'thread-1',
  content: { format: 2, parts: [{ type: 'text', text: 'Thanks! And Paris?' }] },
})
export const docHistory = () => [U1(), A1(), A2(), T1(), A3(), A4(), U2()]

/** withContent(A1(), {...}) -> same message, content replaced */
export const withContent = (msg, content) => ({ ...msg, content })

export const A1_NO_TOOLS = () => withContent(A1(), { format: 2, parts: [{ type: 'step-start' }, { type: 'text', text: 'Found order 42.' }] })
export const A1_PRESERVED = () =>
  withContent(A1(), {
    format: 2,
    parts: [{ type: 'step-start' }, { type: 'text', text: 'searchDatabase result:\n1 row: order 42 (99.5 USD)' }, { type: 'text', text: 'Found order 42.' }],
  })
export const A3_NO_TOOLS = () => withContent(A3(), { format: 2, parts: [], content: 'Checking the weather.' })

export const EXPECTED_EXCLUDE_ALL = () => [U1(), A1_NO_TOOLS(), A3_NO_TOOLS(), A4(), U2()]
