// Test harness for ToolSearchProcessor, bound to one release: drives a
// processor the way the Agent does and records everything a model or user can
// observe, so that a release's own processor (the reference) and ours for that
// release can be compared exactly. Import it through toolSearchHarness(version)
// (releases.mjs), which gives each release its own instance of this module (a
// plain import takes MASTRA_RELEASE, else 1.59.0); this module binds the
// release's RequestContext, MessageList, createTool and schema conversion to
// the pieces in tool-search/ and re-exports them:
//
//   tool-search/reference-models.mjs  referenceHas, FixedReferenceToolSearchProcessor, withOurFixes,
//                                     modelBoundedContextState, adjustMessagesForReference
//   tool-search/builders.mjs          makeRequestContext, toolInvocationMessage, userMessage, docsCatalog,
//                                     makeFilter, hash32
//   tool-search/observation.mjs       Labels, runStep, execTool, describeTools, describeMetaTool, schemaJson,
//                                     makeMessageList, snapshot, capture, firstDiff, sameOrTypeError
//   tool-search/clock.mjs             installClock, captureIntervals
//   tool-search/random-inputs.mjs     isInheritedName, catalogNames, randomQuery, nearMiss, randomLoadInput,
//                                     randomOptions
//   tool-search/scenario-generation.mjs  randomCatalog, genScenario
//   tool-search/scenario.mjs          runScenario, probeProcessor
//   tool-search-literals.mjs          INSTRUCTION, INSTRUCTION_AUTOLOAD, CATALOG_HEADER, CATALOG_HEADER_AUTOLOAD
//   here                              release, loadOurs() (our class, or TOOL_SEARCH_OURS's), RefToolSearchProcessor,
//                                     the release's RequestContext, MASTRA_THREAD_ID_KEY, MessageList, createTool,
//                                     Tool; zod's z
// Nothing here touches global state but installClock and captureIntervals. The
// random generator is random.mjs's (the scenarios draw with its sfc32).

import { z } from 'zod/v4'

import { loadRelease } from './releases.mjs'
import { builders } from './tool-search/builders.mjs'
import { observers } from './tool-search/observation.mjs'
import * as models from './tool-search/reference-models.mjs'
import { scenarioGenerator } from './tool-search/scenario-generation.mjs'
import { scenarioRunner } from './tool-search/scenario.mjs'

/**
 * The release under test: the `release` parameter this module was imported
 * with (`toolSearchHarness(version)` in releases.mjs gives each release its own
 * instance of this module), else MASTRA_RELEASE, else the one the docs describe.
 */
export const release = await loadRelease(new URL(import.meta.url).searchParams.get('release') ?? process.env.MASTRA_RELEASE ?? '1.59.0')
const RefToolSearchProcessor = release.reference.ToolSearchProcessor

/** What the release's own processor does that 1.59.0's did not (reference-models.mjs). */
export const referenceHas = models.referenceFeatures(release.version)

const { RequestContext, MASTRA_THREAD_ID_KEY } = await release.importCore('request-context')
const { MessageList } = await release.importCore('agent')
const { createTool, Tool, MASTRA_TOOL_MARKER } = await release.importCore('tools')
/** The release's own pieces that the builders and observers are bound to. */
const core = { RequestContext, MASTRA_THREAD_ID_KEY, MessageList, createTool, Tool, MASTRA_TOOL_MARKER, schema: await release.importCore('schema') }

export { RefToolSearchProcessor, RequestContext, MASTRA_THREAD_ID_KEY, MessageList, createTool, Tool, z }

// The literal system messages, for the agent tests that import them from here.
export { INSTRUCTION, INSTRUCTION_AUTOLOAD, CATALOG_HEADER, CATALOG_HEADER_AUTOLOAD } from './tool-search-literals.mjs'

/** A processor class plus our deliberate differences (reference-models.mjs), with this release's thread key. */
export const withOurFixes = (Base) => models.withOurFixes(Base, MASTRA_THREAD_ID_KEY)
export const FixedReferenceToolSearchProcessor = withOurFixes(RefToolSearchProcessor)

/**
 * Our implementation (ESM entry point of this package).
 * TOOL_SEARCH_OURS=fixed-ref swaps in FixedReferenceToolSearchProcessor (the
 * reference plus our deliberate differences), to validate the tests themselves
 * while index.js still re-exports the plain reference.
 * TOOL_SEARCH_OURS=fixed-ref:/abs/path/processors/index.js does the same on top of
 * another build of the reference (used for mutation testing of this suite).
 */
export async function loadOurs() {
  const sel = process.env.TOOL_SEARCH_OURS
  if (sel === 'fixed-ref') return FixedReferenceToolSearchProcessor
  if (sel && sel.startsWith('fixed-ref:')) {
    const mod = await import(sel.slice('fixed-ref:'.length))
    return withOurFixes(mod.ToolSearchProcessor)
  }
  return release.ours.ToolSearchProcessor
}

const built = builders(core)
export const { makeRequestContext, toolInvocationMessage, userMessage, docsCatalog } = built
export const { makeMessageList, schemaJson, describeMetaTool, describeTools, execTool, runStep } = observers(core)
export const { randomCatalog, genScenario } = scenarioGenerator({ referenceHas, scenarioTool: built.scenarioTool })
export const { runScenario, probeProcessor } = scenarioRunner({
  referenceHas,
  makeRequestContext,
  toolInvocationMessage,
  userMessage,
  runStep,
  execTool,
  describeTools,
})

export { modelBoundedContextState, adjustMessagesForReference } from './tool-search/reference-models.mjs'
export { makeFilter, hash32 } from './tool-search/builders.mjs'
export { Labels, snapshot, capture, firstDiff, sameOrTypeError } from './tool-search/observation.mjs'
export { installClock, captureIntervals } from './tool-search/clock.mjs'
export {
  isInheritedName,
  catalogNames,
  randomQuery,
  nearMiss,
  randomLoadInput,
  randomOptions,
} from './tool-search/random-inputs.mjs'
