'use strict'
// The @mastra/core release this package stands in for. Its version is read
// once, at import, and Rust (src/releases.rs) says which of the processors'
// rules that release has; a release outside the supported range is refused
// with one clear error instead of being served the wrong rules.

const { releaseBehaviours, supportedMastraRange } = require('./native.js')

/**
 * A host release: its version, its processors' rules, and how to reach its
 * `createTool` (the meta-tools are made with the host's own).
 */
function hostRelease(version, loadTools) {
  let createTool
  return {
    version,
    behaviours: releaseBehaviours(version),
    createTool: (options) => {
      createTool ??= loadTools().createTool
      return createTool(options)
    },
  }
}

/** The `@mastra/core` installed beside this package. */
function installedHost() {
  let version
  try {
    version = require('@mastra/core/package.json').version
  } catch (error) {
    throw new Error(
      `mastra-native-processors needs @mastra/core ${supportedMastraRange()} installed beside it: ${error.message}`,
    )
  }
  return hostRelease(version, () => require('@mastra/core/tools'))
}

module.exports = { hostRelease, installedHost }
