// The @mastra/core releases the tests compare against, installed side by side
// as npm aliases (package.json devDependencies), and our processors built for
// each of them exactly as the package builds them for an installed host.
//
//   TESTED_RELEASES                 versions, oldest first
//   loadRelease(version)            -> { version, packageName, reference: { ToolCallFilter, ToolSearchProcessor },
//                                        ours: { ToolCallFilter, ToolSearchProcessor }, importCore(subpath) }
//   toolSearchHarness(version)      -> the tool-search harness module bound to that release

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { hostRelease } = require('../../lib/host.js')
const { processorsFor } = require('../../lib/processors.js')

/** Where each tested release is installed. */
const PACKAGES = {
  '1.59.0': 'mastra-core-1.59.0',
  '1.60.0': 'mastra-core-1.60.0',
  '1.67.0': 'mastra-core-1.67.0',
  '1.71.0': '@mastra/core',
}

export const TESTED_RELEASES = Object.keys(PACKAGES)

/** The package each tested release is installed as. */
export const PACKAGES_OF = Object.freeze({ ...PACKAGES })

const loaded = new Map()

export async function loadRelease(version) {
  if (loaded.has(version)) return loaded.get(version)
  const packageName = PACKAGES[version]
  if (!packageName) throw new Error(`no tested release ${version}`)
  const installed = require(`${packageName}/package.json`).version
  if (installed !== version) throw new Error(`${packageName} is ${installed}, expected ${version}: run npm install`)
  const importCore = (subpath) => import(`${packageName}/${subpath}`)
  const processors = await importCore('processors')
  const release = {
    version,
    packageName,
    importCore,
    reference: { ToolCallFilter: processors.ToolCallFilter, ToolSearchProcessor: processors.ToolSearchProcessor },
    ours: processorsFor(hostRelease(version, () => require(`${packageName}/tools`))),
  }
  loaded.set(version, release)
  return release
}

/**
 * The tool-search harness (tool-search-harness.mjs) bound to one release: its
 * RequestContext, MessageList, createTool and reference all come from that
 * release. Each version gets its own instance of the module.
 */
export function toolSearchHarness(version) {
  if (!PACKAGES[version]) throw new Error(`no tested release ${version}`)
  return import(`./tool-search-harness.mjs?release=${encodeURIComponent(version)}`)
}
