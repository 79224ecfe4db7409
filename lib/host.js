'use strict'
// The @mastra/core release this package stands in for. Its version is read
// once, at import, and Rust (src/releases.rs) says which of the processors'
// rules that release has; a release outside the supported range is refused
// with one clear error instead of being served the wrong rules.
//
// Where the addon did not load (index.js then serves @mastra/core's own
// processors), the same range is checked here against package.json's peer
// range, which a test holds equal to the one Rust enforces: an unsupported
// release stays an error, because the user has to act either way.

const native = require('./native.js')

/**
 * A host release: its version, its processors' rules, and how to reach its
 * `createTool` (the meta-tools are made with the host's own).
 */
function hostRelease(version, loadTools) {
  let createTool
  return {
    version,
    behaviours: native.releaseBehaviours(version),
    createTool: (options) => {
      createTool ??= loadTools().createTool
      return createTool(options)
    },
  }
}

/** The version of the @mastra/core installed beside this package. */
function installedVersion(supportedRange) {
  try {
    return require('@mastra/core/package.json').version
  } catch (error) {
    throw new Error(`mastra-native-processors needs @mastra/core ${supportedRange} installed beside it: ${error.message}`)
  }
}

/** The `@mastra/core` installed beside this package. */
function installedHost() {
  return hostRelease(installedVersion(native.supportedMastraRange()), () => require('@mastra/core/tools'))
}

// ─── Without the addon ──────────────────────────────────────────────────────

/** `{ first, firstUnsupported }` of package.json's peer range, which has the form `>=A <B`. */
function peerRange() {
  const range = require('../package.json').peerDependencies['@mastra/core']
  const match = /^>=(\S+) <(\S+)$/.exec(range)
  const bounds = match && [parseRelease(match[1]), parseRelease(match[2])]
  if (!bounds || !bounds[0] || !bounds[1] || bounds[0].preRelease || bounds[1].preRelease) {
    throw new Error(`mastra-native-processors: package.json's @mastra/core peer range ${JSON.stringify(range)} is not of the form >=A <B`)
  }
  return { range, first: bounds[0].numbers, firstUnsupported: bounds[1].numbers }
}

/**
 * `{ numbers: [major, minor, patch], preRelease }` of a version as npm writes it,
 * or null, as src/releases.rs parses it: pre-release and build identifiers are
 * dot-separated, non-empty, of ASCII letters, digits and hyphens.
 */
const IDENTIFIERS = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*'
const VERSION = new RegExp(`^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(${IDENTIFIERS}))?(?:\\+${IDENTIFIERS})?$`)
function parseRelease(version) {
  const match = VERSION.exec(version)
  return match && { numbers: match.slice(1, 4).map(Number), preRelease: match[4] !== undefined }
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return 0
}

/**
 * A host version, when the addon is not loaded: refused, with the message the
 * addon gives, unless it is inside the supported range.
 */
function checkVersionWithoutAddon(version) {
  const { range, first, firstUnsupported } = peerRange()
  const release = typeof version === 'string' ? parseRelease(version) : null
  if (!release || release.preRelease || compare(release.numbers, first) < 0 || compare(release.numbers, firstUnsupported) >= 0) {
    throw new Error(
      `mastra-native-processors supports @mastra/core ${range}, but this project has @mastra/core ${JSON.stringify(version)}. ` +
        "Install a supported @mastra/core, or import ToolSearchProcessor and ToolCallFilter from '@mastra/core/processors' instead.",
    )
  }
  return version
}

/** The installed @mastra/core's version, checked as above. */
function checkedHostVersionWithoutAddon() {
  return checkVersionWithoutAddon(installedVersion(peerRange().range))
}

module.exports = { checkVersionWithoutAddon, checkedHostVersionWithoutAddon, hostRelease, installedHost }
