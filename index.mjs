import native from './index.js'
export const { ToolCallFilter, ToolSearchProcessor, implementation, fallbackReason } = native
