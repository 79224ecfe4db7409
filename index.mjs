// The ESM entry: the same processors as index.js, their meta-tools made with
// the ESM builds of @mastra/core's `createTool` and zod, which an ESM app's
// Agent has loaded already. (Built with the CommonJS ones, Mastra's ESM code
// would meet schemas of another zod's classes at every step, and its schema
// conversion runs slower for it.) Where @mastra/core's own processors are
// served, they are as index.js gives them. index.js runs first, so a missing
// or too old @mastra/core is its error, not a failed import.
import served from './index.js'

/** The ESM builds of the app's `createTool` and zod, or null where one is not installed (the classes then load the CommonJS ones when a step needs them, and fail there as the reference would). */
async function esmModules() {
  try {
    return [await import('@mastra/core/tools'), await import('zod/v4')]
  } catch {
    return null
  }
}

const forEsm = served[Symbol.for('mastra-native-processors.forEsm')]
const modules = forEsm ? await esmModules() : null
const classes = modules ? forEsm(...modules) : served

// ToolCallFilter makes no tools: the same class for both formats.
export const { ToolSearchProcessor } = classes
export const { ToolCallFilter, implementation, fallbackReason } = served
