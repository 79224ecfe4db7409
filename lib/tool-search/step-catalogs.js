'use strict'
// The catalogs a ToolSearchProcessor's steps search, and their lifecycle
// (`StepCatalogs`): the constructor's tools' catalog, made once; a step's
// own, over the caller's record as it is now and the step's tools, read into
// the tool pool (`Selection`) and kept while the next step's tools are the
// very same (`sameSelection`); the catalogs made in one turn of the event
// loop kept built, older ones let go of in Rust, and one let go of made again
// from what its selection read when a step searches it after all. May import:
// tool-parameters.js, and this folder's common.js, record.js and pool.js.

const { parameterTable } = require('../tool-parameters.js')
const { RECORD_VALUES, STEP_VALUES, NONE } = require('./common.js')
const { toolTable, valuesOf } = require('./record.js')
const { ToolPool, Selection, sameSelection } = require('./pool.js')

/**
 * Step catalogs made within one turn of the event loop that stay built; an
 * older one of the same turn is let go of (see `#keepBuilt`). Rust frees a
 * catalog when its wrappers are collected, which Node tells it only after a
 * turn, so a caller that makes steps without one would otherwise hold them
 * all. A server's requests that reach their steps in the same turn, up to
 * this many, keep theirs (a catalog made again costs a build from the text).
 */
const STEP_CATALOGS_PER_TURN = 16

/** A processor's step catalogs (see the top of this file), over its native half (`NativeToolSearch`). */
class StepCatalogs {
  /** The tools Rust has analysed for step catalogs, by tool object (see `ToolPool`). */
  pool = new ToolPool()
  /** What `#keepBuilt` and `built` did, for tests (`stepCatalogStats`). */
  counts = { letGo: 0, madeAgain: 0 }
  #native
  /** What Rust decided about the options (`searchesStepTools`). */
  #settings
  /** The caller's tools record, read as it is when a step catalog is made. */
  #record
  /** Whether the ranking reads tools' parameters, so a step catalog's (the record's and the step's tools') are sent too. */
  #readsParameters
  /** The catalog of the constructor's tools: `{ native, live, visible, message }` (see `#stepCatalog`). */
  #static
  #last
  /** The step catalogs made (or made again) in this turn of the event loop that are built, oldest first (see `#keepBuilt`). */
  #builtThisTurn = []

  constructor(native, settings, record, readsParameters) {
    this.#native = native
    this.#settings = settings
    this.#record = record
    this.#readsParameters = readsParameters
    const staticCatalog = native.staticCatalog()
    this.#static = { native: staticCatalog, live: staticCatalog.live, visible: staticCatalog.visible, message: undefined }
  }

  /** The catalog a step over `stepTools` searches: with the step's own tools when they are searchable. */
  catalogFor(stepTools) {
    const record = stepTools ?? {}
    const keys = this.#settings.searchesStepTools ? Object.keys(record) : NONE
    return this.built(keys.length > 0 ? this.#stepCatalog(record, keys) : this.#static)
  }

  /**
   * The catalog of the step's own tools merged with the constructor's
   * record as it is now (`{ ...tools, ...resolved }`), as a record
   * `{ native, live, visible, message, keys, tools, record, selection }`.
   * Each tool is analysed in Rust once, kept by the pool under its object
   * while its id and description (and input schema, for a ranking that
   * reads parameters) stay what was analysed, so a step sends only its
   * tools' slots and keys; Rust lays out the selection's index from what
   * it kept. The pool holds analyses, never tools: the tools a step hands
   * out are the step's own (`keys`, `tools`, `record.tools`). An agent
   * hands every step of a run (and often every run) the very same tools,
   * so the last catalog is kept while they are (see `sameSelection`).
   */
  #stepCatalog(stepRecord, keys) {
    const record = this.#record
    const recordKeys = Object.keys(record)
    const last = this.#last
    if (last !== undefined && sameSelection(last, record, recordKeys, stepRecord, keys)) return last
    const recordTools = valuesOf(record, recordKeys)
    const tools = valuesOf(stepRecord, keys)
    const pool = this.pool
    const selection = new Selection(pool, recordKeys.length + keys.length, this.#readsParameters)
    selection.read(recordKeys, recordTools, false)
    selection.read(keys, tools, true)
    const parameters = this.#readsParameters ? parameterTable(selection.addedEntries.map((entry) => entry.schema)) : undefined
    const {
      catalog: native,
      added,
      forgotten,
    } = this.#native.poolStepCatalog({
      added: Int32Array.from(selection.added),
      addedText: selection.addedText,
      addedParametersText: parameters?.text,
      addedParameters: parameters?.table,
      released: Int32Array.from(pool.released),
      rows: selection.rows,
      keysText: selection.keysText,
      recordCount: recordKeys.length,
    })
    pool.follow(selection, added, forgotten)
    this.#last = {
      keys,
      tools,
      record: { keys: recordKeys, tools: recordTools },
      selection,
      native,
      live: native.live,
      visible: native.visible,
      message: undefined,
      built: true,
    }
    this.#keepBuilt(this.#last)
    return this.#last
  }

  /**
   * Notes that `catalog` was built in this turn of the event loop, and lets
   * go of this turn's oldest when more than `STEP_CATALOGS_PER_TURN` were.
   */
  #keepBuilt(catalog) {
    const built = this.#builtThisTurn
    if (built.length === 0) setImmediate(() => (built.length = 0)).unref()
    // Never there already: a catalog is made again only once let go of, which took it out.
    built.push(catalog)
    if (built.length <= STEP_CATALOGS_PER_TURN) return
    const oldest = built.shift()
    oldest.native.letGo()
    oldest.built = false
    this.counts.letGo++
  }

  /**
   * `catalog`, made again in Rust if it was let go of (see `#keepBuilt`),
   * from its tools as its selection read them (their keys, and ids,
   * descriptions and input schemas then): the catalog it was.
   */
  built(catalog) {
    if (catalog.built !== false) return catalog
    const { record, keys, selection } = catalog
    const recordTools = selection.seen.slice(0, record.keys.length)
    const tools = selection.seen.slice(record.keys.length)
    // The schemas read then, for a ranking that reads parameters.
    const withParameters = (table, seen) => {
      if (!this.#readsParameters) return table
      const parameters = parameterTable(seen.map((entry) => entry?.schema))
      return { ...table, parametersText: parameters.text, parameters: parameters.table }
    }
    this.#native.restoreStepCatalog(
      catalog.native,
      withParameters(toolTable(record.keys, recordTools, RECORD_VALUES), recordTools),
      withParameters(toolTable(keys, tools, STEP_VALUES, { stepTools: true }), tools),
    )
    catalog.built = true
    this.counts.madeAgain++
    this.#keepBuilt(catalog)
    return catalog
  }
}

module.exports = { StepCatalogs, STEP_CATALOGS_PER_TURN }
