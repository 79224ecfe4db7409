'use strict'
// The @mastra/core release installed beside this package, and what to serve
// beside it. Rust decides (src/releases/): a release whose processors it knows
// runs natively with their rules; a later one whose processors' sources are a
// tested release's does too; any other 1.x from 1.59.0 (processors changed, a
// pre-release, sources unreadable) is served its own processors with one notice,
// never an error. Only a release older than 1.59.0 is refused.
//
// Where the addon did not load (index.js then serves @mastra/core's own
// processors anyway), that one refusal is made here, from package.json's peer
// range, which a test holds equal to the one Rust states.
//
// May import: native.js, package.json, and the host's @mastra/core/tools and zod.

const native = require('./native.js')

/**
 * The processors' rules of a known release (its version, as the release table
 * has it), and how to reach the host's `createTool` and zod: the meta-tools are
 * made with the app's own, in the module format the app imports this package
 * in (index.mjs hands in the ESM ones). Tools and schemas of the other format
 * are other classes to Mastra's ESM code, whose schema conversion then slows
 * down on every step.
 */
function hostRelease(version, loadTools, loadZod = () => require('zod/v4')) {
  let createTool
  let z
  return {
    version,
    behaviours: native.releaseBehaviours(version),
    createTool: (options) => {
      createTool ??= loadTools().createTool
      return createTool(options)
    },
    zod: () => (z ??= loadZod().z),
  }
}

/** The path of the installed @mastra/core's package.json. */
function installedManifest(peerRange) {
  try {
    return require.resolve('@mastra/core/package.json')
  } catch (error) {
    throw new Error(`mastra-native-processors needs @mastra/core ${peerRange} installed beside it: ${error.message}`)
  }
}

/**
 * What to serve beside the installed @mastra/core, with the addon loaded:
 * `{ implementation: 'native', host }` (host as from hostRelease), or
 * `{ implementation: 'fallback', reason, remedy }`.
 */
function serveInstalledHost() {
  const served = native.serveHost(installedManifest(native.mastraPeerRange()))
  if (served.implementation === 'fallback') return { implementation: 'fallback', reason: served.reason, remedy: served.remedy ?? null }
  return { implementation: 'native', host: hostRelease(served.rulesOf, () => require('@mastra/core/tools')) }
}

// ─── Without the addon ──────────────────────────────────────────────────────

/** `{ range, first }` of package.json's peer range, which has the form `^A`. */
function peerRange() {
  /** @type {string} */
  const range = require('../package.json').peerDependencies['@mastra/core']
  const first = /^\^(\S+)$/.exec(range)?.[1]
  const release = first && parseRelease(first)
  if (!release || release.preRelease) {
    throw new Error(`mastra-native-processors: package.json's @mastra/core peer range ${JSON.stringify(range)} is not of the form ^A`)
  }
  return { range, first: release.numbers }
}

/**
 * `{ numbers: [major, minor, patch], preRelease }` of a version as npm writes it,
 * or null, as src/releases.rs parses it: pre-release and build identifiers
 * are dot-separated, non-empty, of ASCII letters, digits and hyphens.
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
 * addon gives, if it is older than the first supported release or no version.
 */
function checkVersionWithoutAddon(version) {
  const { range, first } = peerRange()
  const release = typeof version === 'string' ? parseRelease(version) : null
  if (!release || compare(release.numbers, first) < 0) {
    throw new Error(
      `mastra-native-processors supports @mastra/core ${range}, but this project has @mastra/core ${JSON.stringify(version)}. ` +
        "Install a supported @mastra/core, or import ToolSearchProcessor and ToolCallFilter from '@mastra/core/processors' instead.",
    )
  }
  return version
}

/** The installed @mastra/core's version, checked as above. */
function checkedHostVersionWithoutAddon() {
  const { range } = peerRange()
  return checkVersionWithoutAddon(require(installedManifest(range)).version)
}

module.exports = { checkVersionWithoutAddon, checkedHostVersionWithoutAddon, hostRelease, serveInstalledHost }
