// With @mastra/core 1.60 and later, ToolCallFilter works on the provider prompt.
import type { ProcessLLMRequestArgs } from '@mastra/core/processors'
import { ToolCallFilter } from 'mastra-native-processors'

declare const args: ProcessLLMRequestArgs
export const filtered = new ToolCallFilter({ exclude: ['searchDatabase'] }).processLLMRequest(args)
// @ts-expect-error 1.60 and later have no processInput
new ToolCallFilter().processInput
