'use strict'
// The tool objects themselves, which Rust names by number, and the rules
// about their identity and lifetime that only JavaScript can keep: the
// analyses Rust's pool keeps, followed by tool object while the tool lives
// and its id, description and input schema are what was analysed
// (`ToolPool`); a step catalog's tools read into it (`Selection`), and
// whether they are still what a catalog was made of (`sameSelection`); a
// step's tools by Rust's number (`StepTools`: `LiveStep` over the caller's
// record, where a name is resolved by the keys Rust says to read, and
// `SnapshotStep` over a record of its own, whose tables are the answer).
// May import: tool-parameters.js, and this folder's common.js and
// record.js.

const { inputSchemaOf } = require('../tool-parameters.js')
const { PROTOCOL, RECORD_VALUES, STEP_VALUES, NONE } = require('./common.js')
const { isTool, isText, isMetaKey, ownTool } = require('./record.js')

const TABLE = PROTOCOL.toolTable
const { noTool: NO_TOOL, newTool: NEW_TOOL, keyIsId: KEY_IS_ID, rowColumns: ROW_COLUMNS } = TABLE

/** In place of an entry's slot: Rust's pool let go of its analysis (the tool is analysed again should it come back). */
const LET_GO = -1

/**
 * What JavaScript keeps of the tools Rust's pool has analysed (the core's
 * `search::pool`, which numbers the slots and sweeps them): by tool object,
 * the entry `{ slot, id, description, schema, token }` that was analysed
 * into its slot, while the tool lives. An entry serves while the tool's id
 * and description (and input schema, where read) are still those; otherwise
 * the tool is analysed again into the same slot. A slot goes back to Rust
 * when its tool is collected (all such slots with the next step catalog),
 * and Rust says which tools it let go of sooner.
 */
class ToolPool {
  constructor() {
    this.entries = new WeakMap()
    /** Per slot: its tool's entry, to let go of when Rust sweeps the slot. */
    this.owners = []
    /** Slots of collected tools, not yet released in Rust. */
    this.released = []
    this.registry = new FinalizationRegistry((slot) => this.#release(slot))
  }

  /** The slot is to be released (its tool was collected). */
  #release(slot) {
    this.owners[slot] = undefined
    this.released.push(slot)
  }

  /**
   * Follows what Rust made of `selection`: the released slots are gone, its
   * new tools hold the slots `added` (in order) until they are collected,
   * its changed ones were analysed again in theirs, and the tools of the
   * slots `forgotten` (if any) were let go of.
   */
  follow(selection, added, forgotten) {
    const { entries, owners, registry } = this
    this.released.length = 0
    const { addedTools, addedEntries } = selection
    for (let i = 0, next = 0; i < addedTools.length; i++) {
      const entry = addedEntries[i]
      if (entry.slot === NEW_TOOL) {
        entry.slot = added[next++]
        entry.token = entry
        registry.register(addedTools[i], entry.slot, entry.token)
      }
      owners[entry.slot] = entry
      entries.set(addedTools[i], entry)
    }
    for (const slot of forgotten ?? NONE) {
      const owner = owners[slot]
      if (owner === undefined) continue
      owners[slot] = undefined
      owner.slot = LET_GO
      registry.unregister(owner.token)
    }
  }

  /** What happens when `tool` is collected, now (for tests: `forgetPooledTool`). */
  forget(tool) {
    const entry = this.entries.get(tool)
    if (entry === undefined || entry.slot === LET_GO || !this.registry.unregister(entry.token)) return
    this.entries.delete(tool)
    this.#release(entry.slot)
  }
}

/**
 * The tools of a step catalog as they cross to Rust (the protocol's
 * `toolTable`): per tool `[slot, keyLength]` in `rows`, the keys that are
 * not the tool's id in `keysText`, and the tools to analyse first (new, or
 * changed since) as `[slot, idLength, descriptionLength]` in `added`, their
 * ids and descriptions in `addedText`; a tool new to the pool has no slot
 * yet (`newTool`). `seen` keeps what was read of each tool, from which the
 * catalog can be made again. Nothing of the pool changes until Rust
 * answers (`ToolPool.follow`).
 */
class Selection {
  constructor(pool, count, readsParameters) {
    this.pool = pool
    this.rows = new Int32Array(count * ROW_COLUMNS)
    /** Per row, what was read of its tool (`{ id, description, schema }`), undefined for no tool. */
    this.seen = new Array(count)
    this.at = 0
    this.keysText = ''
    this.readsParameters = readsParameters
    this.added = []
    this.addedText = ''
    /** The tools to analyse, and the entries they will have. */
    this.addedTools = []
    this.addedEntries = []
  }

  /**
   * Whether the tools under `keys` of `record` now are still those of
   * `known` (`{ keys, tools }`: the catalog's record or its step's tools),
   * whose rows start at `base`, each with its id and description (and
   * input schema, where read) as read then.
   */
  sameAs(known, base, record, keys) {
    const { seen, readsParameters } = this
    const knownKeys = known.keys
    const knownTools = known.tools
    if (knownKeys.length !== keys.length) return false
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]
      const tool = record[key]
      if (knownKeys[i] !== key || knownTools[i] !== tool) return false
      // No tool (a meta-tool's key): the same value.
      const was = seen[base + i]
      if (was === undefined) continue
      if (tool.id !== was.id || tool.description !== was.description || (readsParameters && inputSchemaOf(tool) !== was.schema)) {
        return false
      }
    }
    return true
  }

  /**
   * Reads `tools` (under `keys`) into the selection, checking them as
   * `toolTable` does; `stepTools` passes over the meta-tools' keys.
   */
  read(keys, tools, stepTools) {
    const { rows, readsParameters, pool } = this
    const refused = stepTools ? STEP_VALUES : RECORD_VALUES
    const { entries } = pool
    let at = this.at
    try {
      for (let i = 0; i < keys.length; i++, at += ROW_COLUMNS) {
        const key = keys[i]
        const tool = tools[i]
        const isMeta = stepTools && isMetaKey(key)
        if (!isTool(tool, key, refused, isMeta)) {
          this.#noTool(at, key)
          continue
        }
        const row = at / ROW_COLUMNS
        let entry = entries.get(tool)
        // What was analysed is checked once: a value that is still the same
        // needs no other test.
        const id = tool.id
        const sameId = entry !== undefined && entry.id === id
        if (!sameId) isText(id, key, refused.id)
        const description = tool.description
        const sameDescription = sameId && entry.description === description
        if (!sameDescription) isText(description, key, refused.description)
        const schema = readsParameters ? inputSchemaOf(tool) : undefined
        if (isMeta) {
          this.seen[row] = { id, description, schema }
          this.#noTool(at, key)
          continue
        }
        if (!sameDescription || entry.schema !== schema || entry.slot === LET_GO) {
          entry = this.#analyse(tool, entry, id, description, schema)
        }
        this.seen[row] = entry
        rows[at] = entry.slot
        if (key === id) {
          rows[at + 1] = KEY_IS_ID
        } else {
          this.keysText += key
          rows[at + 1] = key.length
        }
      }
    } finally {
      this.at = at
    }
  }

  #noTool(row, key) {
    this.rows[row] = NO_TOOL
    this.rows[row + 1] = key.length
    this.keysText += key
  }

  /**
   * Sends `tool` to be analysed (into its slot, if it holds one), and gives the entry it will have.
   * Positional: what `read` has just read of the tool, handed on from its locals; the entry made of them is their named object.
   */
  #analyse(tool, before, id, description, schema) {
    const holds = before !== undefined && before.slot !== LET_GO
    const entry = holds ? { slot: before.slot, id, description, schema, token: before.token } : { slot: NEW_TOOL, id, description, schema, token: undefined }
    this.addedTools.push(tool)
    this.addedEntries.push(entry)
    const descriptionText = typeof description === 'string' ? description : ''
    this.addedText += (typeof id === 'string' ? id : '') + descriptionText
    this.added.push(entry.slot, typeof id === 'string' ? id.length : TABLE.noId, descriptionText.length)
    return entry
  }
}

/**
 * Whether the caller's record (`record`, its keys `recordKeys`) and the
 * step's tools (`stepRecord`, `keys`) are still what `catalog` was made of:
 * the same keys and tool objects, and each tool's id and description (and
 * input schema, where its selection read them) as read then (see
 * `Selection#sameAs`). It reads the records themselves rather than copies
 * of their values: a step that finds its catalog unchanged copies nothing.
 * Positional: the step's two records and their keys, just read, each set
 * against its side of the catalog; an object of them would be made per step.
 */
function sameSelection(catalog, record, recordKeys, stepRecord, keys) {
  const selection = catalog.selection
  return selection.sameAs(catalog.record, 0, record, recordKeys) && selection.sameAs(catalog, recordKeys.length, stepRecord, keys)
}

/**
 * The tools a step's Rust half names by number (its `ToolRef`s): those its
 * catalog was made of, then any met while the step runs (a tool the
 * caller's record gives now under a key, `adopt`).
 */
class StepTools {
  constructor(native, catalog, visibleTools, count) {
    this.native = native
    this.catalog = catalog
    this.visibleTools = visibleTools
    /** How many tools Rust knows before any is met. */
    this.count = count
    /** Tools met since, from `count` on. */
    this.met = undefined
  }

  toolFor(ref) {
    return ref < this.count ? this.known(ref) : this.met[ref - this.count]
  }

  /** @abstract @param {number} ref @returns {object} The tool Rust knows as `ref`. */
  known(ref) {
    throw new Error(`${this.constructor.name} does not say which tool is ${ref}`)
  }

  /** A tool the record gives now, as the step's tool number. */
  adopt(tool) {
    this.met ??= []
    return this.count + this.met.push(tool) - 1
  }
}

/**
 * A step over the caller's record (the constructor's, read live): Rust's tool
 * `i` is the constructor's tool `i` (under `keys[i]`, with the id `ids[i]`
 * then), and the tools met since come after them. A name Rust resolves is
 * read here by key only (the protocol's `operation.ask`: `own`, `standing`),
 * a constant number of reads in any record.
 */
class LiveStep extends StepTools {
  constructor(native, catalog, visibleTools, { keys, tools, ids, record }) {
    super(native, catalog, visibleTools, tools.length)
    this.keys = keys
    this.tools = tools
    this.ids = ids
    this.callerRecord = record
  }

  get live() {
    return true
  }

  known(ref) {
    return this.tools[ref]
  }

  /** The key and the id (as read then) of the tool `ref` the tables found. */
  keyOf(ref) {
    return this.keys[ref]
  }

  idOf(ref) {
    return this.ids[ref]
  }

  /** `tools[name]` in the caller's record now, own keys only. */
  own(name) {
    return ownTool(this.callerRecord, name)
  }

  /** The tool now under the key of the tool `ref`, if its `id` is `name`. */
  standing(ref, name) {
    const key = this.keys[ref]
    const known = this.tools[ref]
    // Most often the key still holds the tool the tables were made from (a
    // tool, checked then): one load. Anything else is read as any key is.
    const tool = this.callerRecord[key] === known ? known : ownTool(this.callerRecord, key)
    return tool !== undefined && tool.id === name ? tool : undefined
  }
}

/**
 * A step over a record of its own: the constructor's record merged with the
 * step's tools, `{ ...record, ...resolved }` as read at the step's start,
 * whose tables are the answer (Rust asks only the hook about its tools).
 * Rust's tool `i` is the record's tool `i`, then the step's resolved tools.
 */
class SnapshotStep extends StepTools {
  constructor(native, catalog, resolved, visibleTools) {
    const { record } = catalog
    super(native, catalog, visibleTools, record.tools.length + resolved.length)
    this.recordTools = record.tools
    this.resolved = resolved
  }

  get live() {
    return false
  }

  known(ref) {
    const { recordTools } = this
    return ref < recordTools.length ? recordTools[ref] : this.resolved[ref - recordTools.length]
  }
}

module.exports = { ToolPool, Selection, sameSelection, LiveStep, SnapshotStep }
