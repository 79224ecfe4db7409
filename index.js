'use strict'
// mastra-native-processors: native drop-in replacements for @mastra/core's
// ToolSearchProcessor and ToolCallFilter. Swap the import; nothing else changes.

const { ToolCallFilter } = require('./lib/tool-call-filter.js')
const { ToolSearchProcessor } = require('./lib/tool-search.js')

module.exports = { ToolCallFilter, ToolSearchProcessor }
