'use strict'
// `search.ranking: 'hybrid'`'s vectors, from JavaScript's side: the built-in
// model's file, named to the addon (which reads and uses it off this thread),
// and an embedding model of the user's (the AI SDK's `EmbeddingModel`, as
// Mastra's Memory takes one for semantic recall), whose `doEmbed` this module
// calls: the tools' texts in batches at construction, then each question.
// Until the tools' vectors are in, and whenever the model fails, the addon
// ranks lexically (as 'fielded'); a failure is said once, as a process
// warning, and never fails `search_tools`.
//
// May import: nothing of lib/ (the built-in model's package, when asked for it).

/** The npm package that carries the built-in model (`models/potion-base-8m/` in the repository). */
const MODEL_PACKAGE = 'mastra-native-processors-potion-base-8m'

/** The `type` of the warning a failing embedding model raises. */
const WARNING_TYPE = 'ToolSearchProcessorWarning'

/**
 * Names the built-in model's file to the addon, once per process. Throws,
 * naming the package, when it is not installed.
 */
function locateBuiltinModel(binding) {
  let model
  try {
    model = require(MODEL_PACKAGE)
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND') throw error
    throw new Error(
      `ToolSearchProcessor: search.ranking 'hybrid' needs its model: npm install ${MODEL_PACKAGE} (or give search.embedder, an embedding model of your own)`,
      { cause: error },
    )
  }
  binding.locateBuiltinModel(model.path)
}

/** Vectors a model made, by model and text: a processor made again over the same tools embeds nothing again. */
const madeBefore = new WeakMap()

/** The vectors `model` made of `texts` (one `number[]` each), in batches as `embedMany` makes them. */
async function embedAll(model, texts) {
  let made = madeBefore.get(model)
  if (made === undefined) madeBefore.set(model, (made = new Map()))
  const missing = [...new Set(texts.filter((text) => !made.has(text)))]
  if (missing.length > 0) {
    const limit = (await model.maxEmbeddingsPerCall) ?? Infinity
    const size = Number.isFinite(limit) && limit >= 1 ? Math.floor(limit) : missing.length
    const batches = []
    for (let start = 0; start < missing.length; start += size) batches.push(missing.slice(start, start + size))
    const embedBatch = async (values) => {
      const { embeddings } = await model.doEmbed({ values })
      if (!Array.isArray(embeddings) || embeddings.length !== values.length) {
        throw new Error(`doEmbed gave ${Array.isArray(embeddings) ? embeddings.length : 'no'} embeddings for ${values.length} values`)
      }
      // Kept as 32-bit floats: half the memory of the arrays of numbers the model gives.
      values.forEach((value, i) => made.set(value, Float32Array.from(embeddings[i])))
    }
    if (await model.supportsParallelCalls) await Promise.all(batches.map(embedBatch))
    else for (const batch of batches) await embedBatch(batch)
  }
  return texts.map((text) => made.get(text))
}

/**
 * `vectors` (arrays of numbers, all of one length) laid end to end, and that length; `undefined` if they are not so.
 * @param {ArrayLike<number>[]} vectors
 */
function flatten(vectors) {
  const dimensions = vectors[0]?.length
  if (!(dimensions > 0) || !vectors.every((v) => (Array.isArray(v) || ArrayBuffer.isView(v)) && v.length === dimensions)) {
    return undefined
  }
  const flat = new Float32Array(vectors.length * dimensions)
  vectors.forEach((vector, i) => flat.set(vector, i * dimensions))
  return { flat, dimensions }
}

/** A processor's use of the user's embedding model. */
class UserEmbedder {
  #model
  #warned = false
  /** Whether the tools' vectors are in, so questions are worth embedding. */
  #ready = false
  /** Settles once the tools' vectors are in, or failed (for tests: `toolVectorsReady`). */
  settled

  /** Starts embedding the tools of `native` (a `NativeToolSearch`); construction does not wait. */
  constructor(model, native) {
    this.#model = model
    this.settled = this.#embedTools(native)
  }

  async #embedTools(native) {
    try {
      // Not in the constructor's turn: making the texts of a large catalog takes a while.
      await new Promise((resolve) => setImmediate(resolve))
      const texts = native.toolTexts()
      if (texts.length === 0) return
      const vectors = flatten(await embedAll(this.#model, texts))
      if (vectors === undefined) throw new Error('doEmbed gave vectors of different lengths, or empty ones')
      this.#ready = native.setToolVectors(vectors.flat, vectors.dimensions)
    } catch (error) {
      this.#warn(error)
    }
  }

  /** The question's vector, or `undefined` (not ready, or the model failed: the search ranks lexically). */
  async queryVector(query) {
    if (!this.#ready) return undefined
    try {
      // Not kept: questions are many and seldom repeat.
      const { embeddings } = await this.#model.doEmbed({ values: [query] })
      return flatten(Array.isArray(embeddings) ? embeddings.slice(0, 1) : [])?.flat
    } catch (error) {
      this.#warn(error)
      return undefined
    }
  }

  #warn(error) {
    if (this.#warned) return
    this.#warned = true
    const reason = error instanceof Error ? error.message : String(error)
    process.emitWarning(`ToolSearchProcessor: search.embedder failed (${reason}); search_tools ranks without it, as 'fielded', while it fails. Said once.`, {
      type: WARNING_TYPE,
    })
  }
}

module.exports = { locateBuiltinModel, UserEmbedder, MODEL_PACKAGE, WARNING_TYPE }
