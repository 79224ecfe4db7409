// With @mastra/core 1.59, ToolCallFilter works on the message list.
import type { ProcessInputStepArgs } from '@mastra/core/processors'
import { ToolCallFilter } from 'mastra-native-processors'

declare const stepArgs: ProcessInputStepArgs
export const stepped = new ToolCallFilter({ filterAfterToolSteps: 2 }).processInputStep(stepArgs)
// @ts-expect-error 1.59 has no processLLMRequest
new ToolCallFilter().processLLMRequest
