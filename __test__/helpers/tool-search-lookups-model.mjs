// An executable model of how ours looks names up in a tools record edited
// after construction, put on a release's own ToolSearchProcessor (test-only;
// it relies on the processor's private members at runtime, as withOurFixes
// does): the reference's code, but each lookup made by the one rule ours
// follows (docs/differences.md; `reads` in src/tool_search/operation.rs).
//
// A catalog's tables are what was read when it was made: the record's keys,
// tools and string ids (the constructor's record, at construction, for the
// static catalog; a step's merged copy, at the step's start, for a step's
// own). A lookup finds in the tables the tool under the key that is the
// name, or the first with that id (the order the hook decides); then, over
// the constructor's record, reads in the record as it is now only the keys
// Rust lists for that: the key that is the name, and the key of the tool
// found by id (whose tool answers if its id is still the name). A name the
// tables hold by no id is never found by id. Over a step's own catalog the
// tables are the answer. The injected catalog lists the tables' keys, each
// named as the tables name its tool; with a hook each is looked up as
// `load_tool` looks up a name. `load_tool`'s suggestions are the same kind
// of listing: the tables' keys that match, each looked up with a hook.
//
//   withOurLookups(Base) -> a subclass of Base looking names up as ours does
//   LOOKUPS_DIFFER        a Symbol: the model sets processor[LOOKUPS_DIFFER] = true
//                         when one of its lookups found another tool than the reference's would

export const LOOKUPS_DIFFER = Symbol('lookups differ')

const { hasOwn } = Object

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

/** The reads of src/tool_search/operation.rs's `reads`, for (lookup, what the tables found). */
function readsFor(lookup, found) {
  if (found === 'byId') return lookup === 'keyFirst' ? ['own', 'standing'] : lookup === 'idFirst' ? ['standing', 'own'] : ['standing']
  return lookup === 'idOnly' ? [] : ['own']
}

/** What the tables find for `name` (`[found, at]`), looked up as `lookup` says. */
function inTables(tables, name, lookup) {
  const byKey = () => {
    const at = tables.keys.indexOf(name)
    return at < 0 ? undefined : ['byKey', at]
  }
  const byId = () => {
    const at = tables.ids.indexOf(name)
    return at < 0 ? undefined : ['byId', at]
  }
  return (lookup === 'keyFirst' ? (byKey() ?? byId()) : lookup === 'idFirst' ? (byId() ?? byKey()) : byId()) ?? ['missing']
}

/** The tool ours finds for `name` in `catalog` (`{ tools: the record now, tables, live }`). */
function lookUp({ tools: record, tables, live }, name, lookup) {
  const [found, at] = inTables(tables, name, lookup)
  if (!live) return found === 'missing' ? undefined : tables.tools[at]
  for (const read of readsFor(lookup, found)) {
    let tool
    if (read === 'own') tool = own(record, name)
    else {
      tool = own(record, tables.keys[at])
      if (tool?.id !== name) tool = undefined
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
      const tool = lookUp(catalog, name, lookup)
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

    /**
     * The injected catalog (1.67+): the tables' keys, in order, each named by
     * the tables' id of the tool they find for it (id first with a hook),
     * else the key; with a hook, each looked up and asked about as it is
     * listed. The reference lists the record's keys now, named by the id of
     * the tool it finds now.
     */
    async formatCatalog(catalog, requestContext) {
      const reference = await this.#referenceListing(catalog)
      const { tables } = catalog
      const lines = []
      for (const key of tables.keys) {
        const [, at] = inTables(tables, key, this.filter ? 'idFirst' : 'keyFirst')
        if (this.filter) {
          const tool = lookUp(catalog, key, 'idFirst')
          if (!tool) continue
          if (!(await this.isToolAllowed(tool, requestContext, 'search'))) continue
        }
        const toolName = tables.ids[at] || key
        const raw = catalog.descriptions.get(toolName) ?? ''
        const description = raw.length > 150 ? `${raw.slice(0, 147)}...` : raw
        lines.push(description ? `- \`${toolName}\`: ${description}` : `- \`${toolName}\``)
      }
      const listing = lines.join('\n')
      if (reference !== undefined && reference !== listing) this[LOOKUPS_DIFFER] = true
      return listing
    }

    /** The reference's listing, where it can be made without asking the hook (which would log its calls twice). */
    async #referenceListing(catalog) {
      if (this.filter) return undefined
      const lines = []
      for (const name of Object.keys(catalog.tools)) {
        const tool = own(catalog.tools, name) ?? firstById(catalog.tools, name)
        if (!tool) continue
        const toolName = tool.id || name
        const raw = catalog.descriptions.get(toolName) ?? ''
        const description = raw.length > 150 ? `${raw.slice(0, 147)}...` : raw
        lines.push(description ? `- \`${toolName}\`: ${description}` : `- \`${toolName}\``)
      }
      return lines.join('\n')
    }

    /**
     * `load_tool`'s suggestions: the tables' keys that match (a listing, as
     * the injected catalog), but for the name itself without a hook (its key
     * was just read and found empty); with a hook each looked up as any name
     * (findToolForDynamicName above) and asked about, the first three
     * allowed. The reference lists the record's keys now.
     */
    async getSuggestedToolNames(catalog, toolName, requestContext) {
      const lower = toolName.toLowerCase()
      const matches = (name) => name.toLowerCase().includes(lower) || lower.includes(name.toLowerCase())
      const keys = catalog.tables.keys.filter(matches)
      if (!this.filter) {
        const listed = keys.filter((key) => key !== toolName)
        const reference = Object.keys(catalog.tools).filter(matches)
        if (listed.join('\u0000') !== reference.join('\u0000')) this[LOOKUPS_DIFFER] = true
        return listed
      }
      const allowed = []
      for (const name of keys) {
        const tool = this.findToolForDynamicName(catalog, name)
        if (!tool) continue
        if (await this.isToolAllowed(tool, requestContext, 'load')) {
          allowed.push(name)
          if (allowed.length >= 3) break
        }
      }
      return allowed
    }
  }
}
