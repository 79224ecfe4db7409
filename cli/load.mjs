// The user's modules the commands take: their tools record (`--tools`), and
// for `eval` their storage or Memory (`--from`) and embedding model
// (`--embedder`). Each is a path from the current directory; what it must
// export is said when it does not.

import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

import { UsageError } from './questions.mjs'

/** The module at `path`, or a `UsageError` saying why it cannot be imported. */
export async function importModule(path, flag) {
  try {
    return await import(pathToFileURL(resolve(path)).href)
  } catch (error) {
    const hint =
      /\.[cm]?tsx?$/.test(path) && error.code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ` (run it through a TypeScript loader, e.g. npx tsx node_modules/.bin/mastra-native-processors ..., or point ${flag} at built JavaScript)`
        : ''
    throw new UsageError(`cannot import ${path}: ${error.message}${hint}`)
  }
}

const exportsOf = (module) => Object.keys(module).join(', ') || 'nothing'

/** The tools record a module exports, or throws saying what it exports instead. */
export async function loadTools(path) {
  const module = await importModule(path, '--tools')
  const tools = module.tools ?? module.default?.tools ?? module.default
  const isRecord = tools && typeof tools === 'object' && !Array.isArray(tools)
  const entries = isRecord ? Object.entries(tools).filter(([, tool]) => tool && typeof tool === 'object') : []
  if (entries.length === 0) {
    throw new UsageError(
      `${path} exports no tools record: expected \`export default { myTool, ... }\` or \`export const tools = { ... }\` (it exports ${exportsOf(module)})`,
    )
  }
  return Object.fromEntries(entries)
}

/** The exports to look at first, by name, then the rest in order. */
function candidates(module, names) {
  const first = names.filter((name) => name in module).map((name) => module[name])
  return [...first, ...Object.values(module).filter((value) => !first.includes(value))]
}

/**
 * The AI SDK embedding model a module exports (default, `embedder`,
 * `embeddingModel` or `model`, else the first export with a `doEmbed`).
 */
export async function loadEmbedder(path) {
  const module = await importModule(path, '--embedder')
  const model = candidates(module, ['default', 'embedder', 'embeddingModel', 'model']).find((value) => typeof value?.doEmbed === 'function')
  if (model === undefined) {
    throw new UsageError(
      `${path} exports no embedding model: expected an AI SDK embedding model (with doEmbed), e.g. \`export default openai.embedding('text-embedding-3-small')\` (it exports ${exportsOf(module)})`,
    )
  }
  return model
}

/**
 * Checks an embedding model on one text before it is measured, so a model
 * that fails (a missing key, no network) is an error, not a silently
 * lexical row.
 */
export async function checkEmbedder(model, text) {
  let embeddings
  try {
    ;({ embeddings } = await model.doEmbed({ values: [text] }))
  } catch (error) {
    throw new UsageError(`the --embedder model failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  const vector = Array.isArray(embeddings) ? embeddings[0] : undefined
  if (!(vector?.length > 0) || !Array.from(vector).every(Number.isFinite)) {
    throw new UsageError('the --embedder model failed: its doEmbed gave no vector of numbers for a text')
  }
}

/**
 * The memory a module exports, for `--from`: whatever of its exports (default,
 * `storage`, `memory`, `mastra`, then the rest) `memoryStoreOf` reads.
 */
export async function loadMemoryStore(path, memoryStoreOf) {
  const module = await importModule(path, '--from')
  for (const value of candidates(module, ['default', 'storage', 'memory', 'mastra'])) {
    const store = await memoryStoreOf(value)
    if (store === null) throw new UsageError(`${path}: its storage has no memory domain (getStore('memory') gave nothing)`)
    if (store !== undefined) return store
  }
  throw new UsageError(
    `${path} exports no Mastra storage or Memory: expected e.g. \`export const storage = new LibSQLStore({ ... })\`, the Memory or the Mastra instance your agent uses (it exports ${exportsOf(module)})`,
  )
}
