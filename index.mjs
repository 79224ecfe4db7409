import native from './index.js'
export const { ToolCallFilter, ToolSearchProcessor } = native
