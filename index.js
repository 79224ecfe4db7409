'use strict'
// mastra-native-processors: native drop-in replacements for @mastra/core's
// ToolSearchProcessor and ToolCallFilter. Swap the import; nothing else changes.
// The classes behave as those of the @mastra/core release installed beside them.
//
// @mastra/core's own processors are served instead, with one line on stderr
// saying why, where no build of the addon loads (a platform without one, an
// optional dependency npm left out, a broken download), where the installed
// release's processors are not ones this package knows (a release after ours
// that changed them, a pre-release), or where MASTRA_NATIVE_PROCESSORS=fallback
// asks for them: a Mastra project never breaks because of this package.
// `implementation` says which are in use and `fallbackReason` why. Only a
// @mastra/core older than 1.59.0 is an error at import.

const { outcome } = require('./lib/native.js')
const host = require('./lib/host.js')

/** Where index.mjs finds how to make the classes with its own modules. */
const FOR_ESM = Symbol.for('mastra-native-processors.forEsm')

/** `{ ToolCallFilter, ToolSearchProcessor, implementation, fallbackReason }`, the notice written if any. */
function served() {
  if (outcome.implementation === 'fallback') {
    host.checkedHostVersionWithoutAddon()
    return hostProcessors(outcome.reason, null)
  }
  const serving = host.serveInstalledHost()
  if (serving.implementation === 'fallback') return hostProcessors(serving.reason, serving.remedy)
  const { processorsFor } = require('./lib/processors.js')
  const { ToolCallFilter, ToolSearchProcessor } = processorsFor(serving.host)
  const exported = { ToolCallFilter, ToolSearchProcessor, implementation: 'native', fallbackReason: null }
  // For index.mjs: the classes again, their meta-tools made with the ESM
  // `createTool` and zod an ESM app has (see lib/host.js's hostRelease).
  Object.defineProperty(exported, FOR_ESM, {
    value: (tools, zod) =>
      processorsFor(
        host.hostRelease(
          serving.host.version,
          () => tools,
          () => zod,
        ),
      ),
  })
  return exported
}

function hostProcessors(reason, remedy) {
  const { ToolCallFilter, ToolSearchProcessor } = require('@mastra/core/processors')
  process.stderr.write(
    `mastra-native-processors: ${reason}; using @mastra/core's own ToolSearchProcessor and ToolCallFilter instead.${remedy ? ` ${remedy}` : ''}\n`,
  )
  return { ToolCallFilter, ToolSearchProcessor, implementation: 'fallback', fallbackReason: reason }
}

module.exports = served()
