// Types of mastra-native-processors. They are the documented API of
// `@mastra/core`'s ToolSearchProcessor and ToolCallFilter, built on Mastra's own
// types, so code written against the docs compiles unchanged after the import swap.

import type { MastraDBMessage, MessageList } from '@mastra/core/agent/message-list'
import type { ProcessInputStepArgs, ProcessInputStepResult, Processor } from '@mastra/core/processors'
import type { RequestContext } from '@mastra/core/request-context'
import type { Tool, ToolExecutionContext } from '@mastra/core/tools'

// ─── ToolCallFilter ─────────────────────────────────────────────────────────

export type ToolCallFilterOptions = {
  /** Tool names whose calls and results are removed. Absent: every tool; `[]`: none. */
  exclude?: string[]
  /** Also filter inside the agent loop, keeping the calls of this many recent tool-producing steps. */
  filterAfterToolSteps?: number
  /** Keep `providerMetadata.mastra.modelOutput` of removed completed results as text. */
  preserveModelOutput?: boolean
}

/** Removes tool calls and their results from the history sent to the model. */
export declare class ToolCallFilter implements Processor<'tool-call-filter'> {
  readonly id: 'tool-call-filter'
  name: string
  constructor(options?: ToolCallFilterOptions)
  processInput(args: {
    messages: MastraDBMessage[]
    messageList: MessageList
    abort: (reason?: string) => never
    requestContext?: RequestContext
  }): Promise<MessageList | MastraDBMessage[]>
  processInputStep(args: ProcessInputStepArgs): Promise<ProcessInputStepResult>
}

// ─── ToolSearchProcessor ────────────────────────────────────────────────────

export type ToolSearchFilterPhase = 'search' | 'load' | 'active'

export type ToolSearchFilterArgs = {
  /** The resolved tool id (the name `search_tools` returns), not necessarily its key in `tools`. */
  toolName: string
  tool: Tool<any, any>
  requestContext?: RequestContext
  phase: ToolSearchFilterPhase
}

export interface ToolSearchProcessorOptions {
  /** Every tool that can be searched for and loaded. */
  tools: Record<string, Tool<any, any>>
  /** Also index the tools the agent resolved for the request, and withhold them until loaded. */
  includeResolvedTools?: boolean
  /**
   * List the catalog (each tool's name and short description) in a system message on every step,
   * so the model can load a tool without searching first; the `filter` hook (phase `'search'`)
   * decides what is listed. Honoured with `@mastra/core` 1.67.0 and later, ignored before, as
   * those releases ignore it. @default false
   */
  injectCatalog?: boolean
  search?: {
    /** Most results `search_tools` returns. @default 5 */
    topK?: number
    /** Lowest score a result may have, exclusive. @default 0 */
    minScore?: number
    /** Load every search result at once; `load_tool` is not offered. @default false */
    autoLoad?: boolean
  }
  /** Where loaded-tool state lives. @default 'in-memory' */
  storage?: 'in-memory' | 'context'
  /** Idle time, in ms, after which an in-memory thread's state is swept; 0 never sweeps. @default 3600000 */
  ttl?: number
  /** Decides per request whether a tool may be found, loaded or stay active. A throw or rejection means no. */
  filter?: (args: ToolSearchFilterArgs) => boolean | Promise<boolean>
}

export type SearchToolsTool = Tool<
  { query: string },
  { results: { name: string; description: string; score: number }[]; message: string },
  unknown,
  unknown,
  ToolExecutionContext<unknown, unknown, unknown>,
  'search_tools',
  unknown
>

export type LoadToolTool = Tool<
  { toolName?: string | undefined; toolNames?: string[] | undefined },
  {
    success: boolean
    message: string
    loadedCount?: number | undefined
    toolName?: string | undefined
    loaded?: string[] | undefined
    notFound?: string[] | undefined
    alreadyLoaded?: string[] | undefined
  },
  unknown,
  unknown,
  ToolExecutionContext<unknown, unknown, unknown>,
  'load_tool',
  unknown
>

/** Lets an agent search a large tool library and load tools on demand. */
export declare class ToolSearchProcessor implements Processor<'tool-search'> {
  readonly id: 'tool-search'
  readonly name: 'Tool Search Processor'
  readonly description: 'Enables dynamic tool discovery and loading via search'
  constructor(options: ToolSearchProcessorOptions)
  processInputStep(args: ProcessInputStepArgs): Promise<{
    tools: { search_tools: SearchToolsTool; load_tool?: LoadToolTool }
  }>
  /** The loaded tools of a request; the Agent calls it when a tool-approval suspension resumes. */
  getLoadedToolsForRequestContext(args?: {
    requestContext?: RequestContext
    stepArgs?: ProcessInputStepArgs
    tools?: Record<string, unknown>
  }): Promise<Record<string, Tool<any, any>>>
  /** Forgets one thread's loaded tools (in-memory store only). */
  clearState(threadId?: string): void
  /** Forgets every thread's loaded tools (in-memory store only). */
  clearAllState(): void
  /** Thread count and oldest access time of the in-memory store. */
  getStateStats(): { threadCount: number; oldestAccessTime: number | null }
  /** Sweeps idle threads now; returns how many were removed. */
  cleanupNow(): number
}
