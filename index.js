'use strict'
// mastra-native-processors: native drop-in replacements for @mastra/core's
// ToolSearchProcessor and ToolCallFilter. Swap the import; nothing else changes.
// The classes behave as those of the @mastra/core release installed beside them.

const { installedHost } = require('./lib/host.js')
const { processorsFor } = require('./lib/processors.js')

const { ToolCallFilter, ToolSearchProcessor } = processorsFor(installedHost())

module.exports = { ToolCallFilter, ToolSearchProcessor }
