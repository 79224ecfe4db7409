// Type test: the documented examples, with only the import line changed, must
// compile; misuse must not. `npm run test:types` compiles this file against the
// installed @mastra/core (1.71.0) and against 1.59.0 (tsconfig.1.59.json).
import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import type { Processor } from '@mastra/core/processors'
import { z } from 'zod'
import { ToolCallFilter, ToolSearchProcessor } from 'mastra-native-processors'
import type { ToolSearchFilterArgs, ToolCallFilterOptions } from 'mastra-native-processors'

const searchDatabase = createTool({
  id: 'searchDatabase',
  description: 'Search the database',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) => ({ rows: [query] }),
})
const sendEmail = createTool({
  id: 'sendEmail',
  description: 'Send an email',
  inputSchema: z.object({ to: z.string() }),
  execute: async () => ({ sent: true }),
})
const allTools = { searchDatabase, sendEmail }

// ToolCallFilter, as documented.
const filterAll = new ToolCallFilter()
const filterSpecific = new ToolCallFilter({ exclude: ['searchDatabase', 'sendEmail'] })
const filterAfterRecentTools = new ToolCallFilter({ filterAfterToolSteps: 2 })
const filterWithCompactToolHistory = new ToolCallFilter({ preserveModelOutput: true })
const combined = new ToolCallFilter({ exclude: ['searchDatabase'], preserveModelOutput: true })
const id: 'tool-call-filter' = filterAll.id
const name: string = filterAll.name
const options: ToolCallFilterOptions = { exclude: [] }

// ToolSearchProcessor, as documented.
const toolSearch = new ToolSearchProcessor({
  tools: allTools,
  search: { topK: 5, minScore: 0.1 },
})
const withFilter = new ToolSearchProcessor({
  tools: allTools,
  filter: ({ toolName, requestContext, phase }: ToolSearchFilterArgs) => {
    const plan = requestContext?.get('plan')
    if (phase === 'search') return true
    return plan === 'pro' || !toolName.startsWith('premium_')
  },
})
const asyncFilter = new ToolSearchProcessor({ tools: allTools, filter: async () => false })
const autoLoad = new ToolSearchProcessor({ tools: allTools, search: { topK: 3, autoLoad: true } })
const contextStore = new ToolSearchProcessor({ tools: allTools, storage: 'context', ttl: 0 })
const resolved = new ToolSearchProcessor({ tools: allTools, includeResolvedTools: true })
// Options of the newest supported release compile whichever release is installed.
const withCatalog = new ToolSearchProcessor({ tools: allTools, injectCatalog: true, search: { autoLoad: true } })
toolSearch.clearState('thread-123')
toolSearch.clearState()
toolSearch.clearAllState()
const { threadCount, oldestAccessTime } = toolSearch.getStateStats()
const count: number = threadCount
const oldest: number | null = oldestAccessTime
const cleaned: number = toolSearch.cleanupNow()
const searchId: 'tool-search' = toolSearch.id

// Both fit an Agent's inputProcessors, beside Mastra's own processors.
const processors: Processor[] = [filterAll, toolSearch]
export const agent = new Agent({
  id: 'dynamic-tools-agent',
  name: 'dynamic-tools-agent',
  instructions: 'Use search_tools to find relevant tools, then load_tool to make them available.',
  model: 'openai/gpt-4o',
  tools: async () => allTools,
  inputProcessors: [toolSearch, filterSpecific, combined],
})

// Misuse is a type error.
// @ts-expect-error exclude is a list of names
new ToolCallFilter({ exclude: 'searchDatabase' })
// @ts-expect-error filterAfterToolSteps is a number
new ToolCallFilter({ filterAfterToolSteps: '2' })
// @ts-expect-error tools is required
new ToolSearchProcessor({})
// @ts-expect-error storage is 'in-memory' or 'context'
new ToolSearchProcessor({ tools: allTools, storage: 'disk' })
// @ts-expect-error injectCatalog is a boolean
new ToolSearchProcessor({ tools: allTools, injectCatalog: 'yes' })
// @ts-expect-error topK is a number
new ToolSearchProcessor({ tools: allTools, search: { topK: '3' } })
// @ts-expect-error the filter answers a boolean
new ToolSearchProcessor({ tools: allTools, filter: () => 'yes' })
// @ts-expect-error injectCatalog is a boolean
new ToolSearchProcessor({ tools: allTools, injectCatalog: 'yes' })

void [filterAfterRecentTools, filterWithCompactToolHistory, id, name, options, withFilter, asyncFilter]
void [autoLoad, contextStore, resolved, withCatalog, count, oldest, cleaned, searchId, processors]

// Which processors the import serves, and why Mastra's own if so.
import { fallbackReason, implementation } from 'mastra-native-processors'
const served: 'native' | 'fallback' = implementation
const why: string | null = fallbackReason
// @ts-expect-error implementation is one of two names
const unknownImplementation: 'wasm' = implementation
void [served, why, unknownImplementation]
