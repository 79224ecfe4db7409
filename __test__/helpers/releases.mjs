// The @mastra/core releases the tests compare against, installed side by side
// as npm aliases (package.json devDependencies), and our processors built for
// each of them exactly as the package builds them for an installed host.
//
//   TESTED_RELEASES                 versions, oldest first
//   loadRelease(version)            -> { version, reference: { ToolCallFilter, ToolSearchProcessor },
//                                        ours: { ToolCallFilter, ToolSearchProcessor }, importCore(subpath) }
//   releasesWithFilterStage(stage)  -> the releases whose ToolCallFilter works at that stage
//   toolSearchHarness(version)      -> the tool-search harness module bound to that release

import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

import { RELEASE_UNDER_TEST } from '../fixtures/releases.mjs'

const require = createRequire(import.meta.url)
const { hostRelease } = require('../../lib/host.js')
const { releaseBehaviours } = require('../../lib/native.js')
const { processorsFor } = require('../../lib/processors.js')

/** Where each tested release is installed. */
const PACKAGES = {
  '1.59.0': 'mastra-core-1.59.0',
  '1.60.0': 'mastra-core-1.60.0',
  '1.67.0': 'mastra-core-1.67.0',
  '1.71.0': '@mastra/core',
}

/** The releases the suites compare against: the tested ones, or only a release under `npm run check-release`. */
export const TESTED_RELEASES = RELEASE_UNDER_TEST ? [RELEASE_UNDER_TEST.version] : Object.keys(PACKAGES)

/** The package each tested release is installed as. */
export const PACKAGES_OF = Object.freeze({ ...PACKAGES })

/** The tested releases (or the release under test) whose ToolCallFilter works at this stage ('messageList' or 'prompt'). */
export const releasesWithFilterStage = (stage) => TESTED_RELEASES.filter((version) => releaseBehaviours(rulesOf(version)).toolCallFilterStage === stage)

/** The tested release whose rules ours follow beside this release. */
const rulesOf = (version) => (version === RELEASE_UNDER_TEST?.version ? RELEASE_UNDER_TEST.rulesOf : version)

const loaded = new Map()

/** How a release's own modules are reached: `{ importCore(subpath), requireCore(subpath), installed }`. */
async function modulesOf(version) {
  if (version === RELEASE_UNDER_TEST?.version) {
    // A module inside the release's project imports with its resolution (check-release writes it).
    const { importCore } = await import(pathToFileURL(join(RELEASE_UNDER_TEST.dir, 'import-core.mjs')).href)
    const requireHere = createRequire(join(RELEASE_UNDER_TEST.dir, 'package.json'))
    return { importCore, requireCore: (subpath) => requireHere(`@mastra/core/${subpath}`), installed: requireHere('@mastra/core/package.json').version }
  }
  const packageName = PACKAGES[version]
  if (!packageName) throw new Error(`no tested release ${version}`)
  return {
    importCore: (subpath) => import(`${packageName}/${subpath}`),
    requireCore: (subpath) => require(`${packageName}/${subpath}`),
    installed: require(`${packageName}/package.json`).version,
  }
}

export async function loadRelease(version) {
  if (loaded.has(version)) return loaded.get(version)
  const { importCore, requireCore, installed } = await modulesOf(version)
  if (installed !== version) throw new Error(`the installed @mastra/core for ${version} is ${installed}: run npm install`)
  const processors = await importCore('processors')
  const release = {
    version,
    importCore,
    reference: { ToolCallFilter: processors.ToolCallFilter, ToolSearchProcessor: processors.ToolSearchProcessor },
    ours: processorsFor(hostRelease(rulesOf(version), () => requireCore('tools'))),
  }
  loaded.set(version, release)
  return release
}

/**
 * The tool-search harness (tool-search-harness.mjs) bound to one release: its
 * RequestContext, MessageList, createTool and reference all come from that
 * release. Each version gets its own instance of the module, which binds the
 * release-free pieces in tool-search/ to that release.
 */
export function toolSearchHarness(version) {
  if (!TESTED_RELEASES.includes(version)) throw new Error(`no tested release ${version}`)
  return import(`./tool-search-harness.mjs?release=${encodeURIComponent(version)}`)
}
