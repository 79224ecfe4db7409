'use strict'
// `search.ranking: 'hybrid'`'s vectors, from JavaScript's side: the built-in
// model's file, named to the addon (which reads and uses it off this thread),
// and an embedding model of the user's (the AI SDK's `EmbeddingModel`, as
// Mastra's Memory takes one for semantic recall), whose `doEmbed` this module
// calls: the tools' texts in batches at construction, then each question.
// Until the tools' vectors are in, and whenever the model fails or answers
// what cannot be used (no vector for the question, one of another length
// than the tools', NaN or infinite values), the addon ranks lexically (as
// 'fielded'); each kind of trouble is said once a processor, as a process
// warning naming the model, and never fails `search_tools`. The model's name
// and error are quoted as the addon's `cappedEcho` cuts them.
//
// May import: native.js (the binding, for `cappedEcho`), node:fs, and the
// built-in model's package when the app did not hand it over.

const { existsSync } = require('node:fs')

/** The npm package that carries the built-in model (`models/potion-base-8m/` in the repository). */
const MODEL_PACKAGE = 'mastra-native-processors-potion-base-8m'

/** The `type` of the warning a failing embedding model raises. */
const WARNING_TYPE = 'ToolSearchProcessorWarning'

/** Whether a missing built-in model was said (once a process). */
let missingSaid = false

/**
 * Names the built-in model's file to the addon (the first named serves the
 * process): `file`, the `path` of the model package the app handed over as
 * `search.model` (so its bundler or deployer ships the package), else the
 * package as found from this one. Where there is no file, says once, as a
 * process warning, what to do, and returns false: the processor then ranks
 * as 'fielded', and a deployed server still starts.
 */
function locateBuiltinModel(binding, file) {
  const handedOver = file != null
  if (!handedOver) {
    try {
      file = require(MODEL_PACKAGE).path
    } catch (error) {
      if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes(MODEL_PACKAGE)) throw error
      return sayMissing(
        `${MODEL_PACKAGE} is not installed where mastra-native-processors can find it (npm install ${MODEL_PACKAGE}; in an app that mastra build or a bundler ships, also hand it over: import model from '${MODEL_PACKAGE}', then search: { ranking: 'hybrid', model }; or give search.embedder)`,
      )
    }
  }
  if (typeof file !== 'string' || !existsSync(file)) {
    return sayMissing(
      `its file ${file} is missing${handedOver ? ` (a bundler took ${MODEL_PACKAGE} into the bundle without the file: keep the package external, so that it is installed beside the app)` : ''}`,
    )
  }
  binding.locateBuiltinModel(file)
  return true
}

function sayMissing(why) {
  if (!missingSaid) {
    missingSaid = true
    process.emitWarning(`ToolSearchProcessor: search.ranking 'hybrid' has no built-in model: ${why}. Until then search_tools ranks as 'fielded'. Said once.`, {
      type: WARNING_TYPE,
    })
  }
  return false
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

/** The first index of a value in `values` that is NaN or infinite, or -1. */
function notFinite(values) {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return i
  return -1
}

/** A value of the user's, quoted as our texts quote one: cut past the protocol's `echo.MAX_LENGTH`. */
function echo(text) {
  return require('./native.js').cappedEcho(text)
}

/** The model as a warning names it (`provider/modelId`, as far as it says), or `''`. */
function nameOf(model) {
  try {
    const parts = [model.provider, model.modelId].filter((part) => typeof part === 'string' && part !== '')
    return parts.length > 0 ? ` '${echo(parts.join('/'))}'` : ''
  } catch {
    return ''
  }
}

/** What a thrown value says, as a warning quotes it. */
function reasonOf(error) {
  try {
    return echo(error instanceof Error ? String(error.message) : String(error))
  } catch {
    return 'an error that cannot be made a string'
  }
}

/** A processor's use of the user's embedding model. */
class UserEmbedder {
  #model
  /** The model as warnings name it (see `nameOf`). */
  #name
  /** The kinds of trouble already said. */
  #warned = new Set()
  /** The length of the tools' vectors, once they are in; a question's must be the same. */
  #dimensions = 0
  /** Whether the tools' vectors are in, so questions are worth embedding. */
  #ready = false
  /** Settles once the tools' vectors are in, or failed (for tests: `toolVectorsReady`). */
  settled

  /** Starts embedding the tools of `native` (a `NativeToolSearch`); construction does not wait. */
  constructor(model, native) {
    this.#model = model
    this.#name = nameOf(model)
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
      if (notFinite(vectors.flat) !== -1) {
        const { flat, dimensions } = vectors
        let bad = 0
        for (let start = 0; start < flat.length; start += dimensions) bad += notFinite(flat.subarray(start, start + dimensions)) === -1 ? 0 : 1
        return this.#say(
          'tool values',
          `gave NaN or infinite values in ${bad} of the ${texts.length} tools' vectors; search_tools ranks without it, as 'fielded'.`,
        )
      }
      this.#ready = native.setToolVectors(vectors.flat, vectors.dimensions)
      if (this.#ready) this.#dimensions = vectors.dimensions
    } catch (error) {
      this.#failed(error)
    }
  }

  /**
   * The question's vector, or `undefined` (not ready, the model failed, or
   * its answer cannot be used: the search ranks lexically).
   */
  async queryVector(query) {
    if (!this.#ready) return undefined
    let embeddings
    try {
      // Not kept: questions are many and seldom repeat.
      ;({ embeddings } = await this.#model.doEmbed({ values: [query] }))
    } catch (error) {
      this.#failed(error)
      return undefined
    }
    const first = Array.isArray(embeddings) ? embeddings[0] : undefined
    // An array of numbers, or a typed array (as flatten takes either).
    const given = Array.isArray(first) || (ArrayBuffer.isView(first) && !(first instanceof DataView)) ? /** @type {ArrayLike<number>} */ (first) : undefined
    const FOR_SUCH = "search_tools ranks without it, as 'fielded', for such questions."
    if (given === undefined || given.length === 0) {
      return this.#say('no question vector', `gave no vector for a question; ${FOR_SUCH}`)
    }
    if (given.length !== this.#dimensions) {
      return this.#say('question length', `gave a question a vector of ${given.length} values, where the tools' have ${this.#dimensions}; ${FOR_SUCH}`)
    }
    // As 32-bit floats, as the addon takes it: a number past their range is infinite there.
    const vector = Float32Array.from(given)
    const at = notFinite(vector)
    if (at !== -1) {
      return this.#say('question values', `gave ${vector[at]} at index ${at} of a question's vector; ${FOR_SUCH}`)
    }
    return vector
  }

  #failed(error) {
    this.#say('failed', `failed (${reasonOf(error)}); search_tools ranks without it, as 'fielded', while it fails.`)
  }

  /** Says what went wrong, once for each `kind` a processor; `undefined`, for the caller to return. */
  #say(kind, what) {
    if (this.#warned.has(kind)) return undefined
    this.#warned.add(kind)
    process.emitWarning(`ToolSearchProcessor: search.embedder${this.#name} ${what} Said once.`, { type: WARNING_TYPE })
    return undefined
  }
}

module.exports = { locateBuiltinModel, UserEmbedder, MODEL_PACKAGE, WARNING_TYPE }
