// An executable model of how ours looks names up in a tools record that
// changed, put on a release's own ToolSearchProcessor (test-only; it relies on
// the processor's private members at runtime, as withOurFixes does): the
// reference's code, but each lookup made as ours makes it, which differs from
// the reference's in one documented case (docs/differences.md; `reads` in
// src/tool_search/operation.rs).
//
// A catalog's tables are what was read when it was made: the record's keys,
// tools and string ids (the constructor's record for the static catalog; a
// step's merged copy for a step's own). A lookup finds in the tables the tool
// under the key that is the name, or the first with that id (the order the
// hook decides), or, for a search hit, the tool indexed under its key for lack
// of an id; then makes, in the record as it is now, only the reads Rust lists
// for that: the key named, the tool now under the key of the one found (if its
// id is the name), and the whole record scanned by id only when those give
// nothing. The reference scans every tool's id at every lookup, and so also
// finds a tool that took the name as its id while the one the tables found
// still answers to it. With a `filter` hook ours also asks, of the tool the
// tables found, whether it is the first with that id in the record as one
// reading of it an operation found it (read as far as the lookups need, and
// again where the hook changed the id of the tool it was last asked about;
// issue 29), and scans the record where it is not: so with a hook only an
// edit the hook makes, during an operation, to another tool before the one
// found goes unseen. An operation is one search, one `load_tool` call (with
// its suggestions), one step's loaded tools, or one injected catalog.
//
//   withOurLookups(Base) -> a subclass of Base looking names up as ours does
//   LOOKUPS_DIFFER        a Symbol: the model sets processor[LOOKUPS_DIFFER] = true
//                         when one of its lookups found another tool than the reference's would

import { AsyncLocalStorage } from 'node:async_hooks'

export const LOOKUPS_DIFFER = Symbol('lookups differ')

const { hasOwn } = Object

/** The operation a lookup is made in (its `{ lookups, asked, askedId }`), as ours keeps one per operation. */
const operation = new AsyncLocalStorage()
const newOperation = () => ({ lookups: undefined, asked: undefined, askedId: undefined })

/** A record's first tools by id, read as far as the names asked need (ours' `IdLookups` in lib/tool-search/operation.js). */
class IdLookups {
  constructor(record) {
    this.record = record
    this.keys = Object.keys(record)
    this.read = 0
    this.byId = new Map()
  }

  find(id) {
    if (this.byId.has(id)) return this.byId.get(id)
    while (this.read < this.keys.length) {
      const key = this.keys[this.read++]
      if (!hasOwn(this.record, key)) continue
      const tool = this.record[key]
      if (tool === null || typeof tool !== 'object') continue
      if (!this.byId.has(tool.id)) this.byId.set(tool.id, tool)
      if (tool.id === id) return tool
    }
    return undefined
  }
}

/** With a hook: `tool` (found standing) where the operation's reading of `record` finds it first with the id, else the first now. */
function standingFirst(record, name, tool) {
  const op = operation.getStore()
  if (op === undefined) throw new Error('a lookup with a hook outside an operation')
  if (op.asked !== undefined) {
    const asked = op.asked
    op.asked = undefined
    if (asked.id !== op.askedId) op.lookups = undefined
  }
  op.lookups ??= new IdLookups(record)
  return op.lookups.find(name) === tool ? tool : firstById(record, name)
}

/** What a catalog's tables hold: keys, tools and string ids, in key order, read now. */
function tablesOf(record) {
  const keys = Object.keys(record)
  const tools = keys.map((key) => record[key])
  const ids = tools.map((tool) => (typeof tool?.id === 'string' ? tool.id : undefined))
  return { keys, tools, ids }
}

/** `tools[name]`, own keys only, nothing for a nullish value. */
function own(record, name) {
  return hasOwn(record, name) ? (record[name] ?? undefined) : undefined
}

const firstById = (record, name) => Object.values(record).find((tool) => tool.id === name)

/** The reads of src/tool_search/operation.rs's `reads`, for (lookup, what the tables found, whether the record is the caller's). */
function readsFor(lookup, found, live) {
  if (found === 'unnamed') return ['standing']
  if (live) {
    if (lookup === 'keyFirst') return found === 'byId' ? ['own', 'standing', 'firstById'] : ['own', 'firstById']
    if (lookup === 'idFirst') return found === 'byId' ? ['standing', 'firstById', 'own'] : found === 'byKey' ? ['own', 'firstById'] : ['firstById', 'own']
    return found === 'byId' ? ['standing', 'firstById'] : ['firstById']
  }
  if (found === 'byKey') return []
  if (found === 'byId') return lookup === 'idFirst' ? ['standing', 'firstById', 'own'] : ['standing', 'firstById']
  return ['firstById']
}

/** The tool ours finds for `name` in `view` (`{ tools: the record now, tables, live }`), `hooked` where there is a hook. */
function lookUp({ tools: record, tables, live }, name, lookup, hooked) {
  const byKey = () => {
    const at = tables.keys.indexOf(name)
    return at < 0 ? undefined : ['byKey', at]
  }
  const byId = () => {
    const at = tables.ids.indexOf(name)
    return at < 0 ? undefined : ['byId', at]
  }
  const unnamed = () => {
    const at = tables.keys.indexOf(name)
    return at < 0 || tables.ids[at] ? undefined : ['unnamed', at]
  }
  const [found, at] = (lookup === 'keyFirst' ? (byKey() ?? byId()) : lookup === 'idFirst' ? (byId() ?? byKey()) : (byId() ?? unnamed())) ?? ['missing']
  const reads = readsFor(lookup, found, live)
  if (reads.length === 0) return tables.tools[at]
  for (const read of reads) {
    let tool
    if (read === 'own') tool = own(record, name)
    else if (read === 'firstById') tool = firstById(record, name)
    else {
      tool = own(record, tables.keys[at])
      if (tool?.id !== name) tool = undefined
      else if (hooked) tool = standingFirst(record, name, tool)
    }
    if (tool !== undefined) return tool
  }
  return undefined
}

export function withOurLookups(Base) {
  return class OurLookups extends Base {
    constructor(options) {
      super(options)
      this.staticCatalog.tables = tablesOf(this.staticCatalog.tools)
      this.staticCatalog.live = true
    }

    catalogForStep(stepTools) {
      const catalog = super.catalogForStep(stepTools)
      if (catalog.tables === undefined) {
        catalog.tables = tablesOf(catalog.tools)
        catalog.live = false
      }
      return catalog
    }

    /** Looks `name` up as ours does, noting when the reference's lookup (`reference()`) finds another tool. */
    #lookUp(catalog, name, lookup, reference) {
      const view = this.listing?.catalog === catalog ? this.listing : catalog
      const tool = lookUp(view, name, lookup, this.filter !== undefined)
      if (tool !== reference()) this[LOOKUPS_DIFFER] = true
      return tool
    }

    findToolById(catalog, toolId) {
      return this.#lookUp(catalog, toolId, 'idOnly', () => super.findToolById(catalog, toolId))
    }

    findToolForDynamicName(catalog, toolName) {
      const reference = () => {
        const byKey = own(catalog.tools, toolName)
        const byId = firstById(catalog.tools, toolName)
        return this.filter ? (byId ?? byKey) : (byKey ?? byId)
      }
      return this.#lookUp(catalog, toolName, this.filter ? 'idFirst' : 'keyFirst', reference)
    }

    /** The injected catalog's listing of the caller's record reads it as it is when the listing starts; a step's copy keeps its tables. */
    async #listing(catalog, list) {
      this.listing = { catalog, tools: catalog.tools, live: catalog.live, tables: catalog.live ? tablesOf(catalog.tools) : catalog.tables }
      try {
        return await list()
      } finally {
        this.listing = undefined
      }
    }

    formatCatalog(catalog, requestContext) {
      return operation.run(newOperation(), () => this.#listing(catalog, () => super.formatCatalog(catalog, requestContext)))
    }

    // Ours' operations, each with its reading of the record (see `standingFirst`).

    searchTools(catalog, query, requestContext) {
      return operation.run(newOperation(), () => super.searchTools(catalog, query, requestContext))
    }

    getLoadedTools(catalog, loadedNames, requestContext) {
      return operation.run(newOperation(), () => super.getLoadedTools(catalog, loadedNames, requestContext))
    }

    async processInputStep(args) {
      const result = await super.processInputStep(args)
      const load = result?.tools?.load_tool
      if (load !== undefined) {
        const execute = load.execute
        load.execute = (...input) => operation.run(newOperation(), () => execute.apply(load, input))
      }
      return result
    }

    /** The tool the hook is asked about, and its id then: ours reads it again at its next lookup. */
    isToolAllowed(tool, requestContext, phase) {
      const op = operation.getStore()
      if (op !== undefined && this.filter) {
        op.asked = tool
        op.askedId = tool.id
      }
      return super.isToolAllowed(tool, requestContext, phase)
    }

    // `load_tool`'s suggestions are no listing: ours reads the record's keys
    // alone, and looks each key that matches up as any name (the catalog's
    // tables, then the reads they call for).
  }
}
