'use strict'
// mastra-native-processors: native drop-in replacements for @mastra/core's
// ToolSearchProcessor and ToolCallFilter. Swap the import; nothing else changes.
// The classes behave as those of the @mastra/core release installed beside them.
//
// Where no build of the addon loads (a platform without one, an optional
// dependency npm left out, a broken download), @mastra/core's own processors are
// served instead and one line on stderr says why: a Mastra project never breaks
// because of this package. `implementation` says which are in use. An
// unsupported @mastra/core is an error at import either way.

const { outcome } = require('./lib/native.js')
const host = require('./lib/host.js')

const { implementation } = outcome
let processors
if (implementation === 'fallback') {
  host.checkedHostVersionWithoutAddon()
  processors = require('@mastra/core/processors')
  process.stderr.write(
    `mastra-native-processors: ${outcome.reason}; using @mastra/core's own ToolSearchProcessor and ToolCallFilter instead.\n`,
  )
} else {
  processors = require('./lib/processors.js').processorsFor(host.installedHost())
}

const { ToolCallFilter, ToolSearchProcessor } = processors

module.exports = { ToolCallFilter, ToolSearchProcessor, implementation }
