'use strict'
// The tools' parameters, for a `search.ranking` that reads them (Rust says
// which: `NativeToolSearchOptions.readsParameters`). They cross to Rust beside
// the tool table, in the same call, as the core's `search::table` reads them:
// every parameter's name and description end to end in one string, and per
// tool `[count, nameLength, descriptionLength, ...]` in an Int32Array.
//
// Only the top-level properties of a tool's `inputSchema` are read, and only
// where that is cheap: a zod object's `shape` (zod 3 and 4), a JSON schema
// (plain, or wrapped as the AI SDK's `jsonSchema()` does), or a Standard
// Schema that converts itself to JSON schema (Mastra wraps JSON schemas this
// way). Zod is never converted to JSON schema: that costs about 100 µs a tool.
//
// Imports nothing: a leaf of the tool search.

/**
 * A tool's `inputSchema`, read once; `undefined` for anything that is no
 * tool, and where the read throws (a getter): that tool is searched without
 * parameters, as one whose schema throws inside is.
 */
function inputSchemaOf(tool) {
  if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) return undefined
  try {
    return tool.inputSchema
  } catch {
    return undefined
  }
}

/** `{ text, table }`: the parameter table of the tools whose input schemas (as `inputSchemaOf` read them) are `schemas`. */
function parameterTable(schemas) {
  let text = ''
  const table = []
  const registry = zodRegistry()
  for (const schema of schemas) {
    const countAt = table.length
    table.push(0)
    let count = 0
    readParameters(schema, registry, (name, description) => {
      text += name + description
      table.push(name.length, description.length)
      count++
    })
    table[countAt] = count
  }
  return { text, table: Int32Array.from(table) }
}

/** Calls `visit(name, description)` for each top-level property of a schema it can read cheaply. */
function readParameters(schema, registry, visit) {
  if (schema === null || typeof schema !== 'object') return
  try {
    const shape = zodShape(schema)
    if (shape !== undefined) {
      for (const name of Object.keys(shape)) visit(name, zodDescription(shape[name], registry))
      return
    }
    const json = jsonSchemaOf(schema)
    const properties = json?.properties
    if (properties === null || typeof properties !== 'object') return
    for (const name of Object.keys(properties)) {
      const description = properties[name]?.description
      visit(name, typeof description === 'string' ? description : '')
    }
  } catch {
    // A schema that throws when read is searched by name and description only.
  }
}

/** A zod object schema's shape (zod 3, zod 4 classic and mini), looking through a few wrappers. */
function zodShape(schema) {
  for (let depth = 0; depth < 4 && schema !== null && typeof schema === 'object'; depth++) {
    const def = schema._zod?.def ?? schema._def
    if (def === undefined) return undefined
    const shape = typeof def.shape === 'function' ? def.shape() : def.shape
    if (shape !== null && typeof shape === 'object') return shape
    // Optional, nullable, default, effects (zod 3) and pipes (zod 4).
    schema = def.innerType ?? def.schema ?? def.in
  }
  return undefined
}

/**
 * Zod 4's metadata registry (shared through `globalThis`), read when the tools
 * are: its `.description` getter copies inherited metadata on every read (about
 * 1 µs a field, most of the cost of reading 10,000 tools), so a field's own
 * entry is looked up first. Absent (zod 3, another layout): the getter alone.
 */
function zodRegistry() {
  const map = globalThis.__zod_globalRegistry?._map
  return typeof map?.get === 'function' ? map : undefined
}

/** A zod field's description, looking through optional, nullable and default wrappers. */
function zodDescription(field, registry) {
  for (let depth = 0; depth < 4 && field !== null && typeof field === 'object'; depth++) {
    const own = registry?.get(field)?.description
    if (typeof own === 'string') return own
    const description = field.description
    if (typeof description === 'string') return description
    const def = field._zod?.def ?? field._def
    field = def?.innerType
  }
  return ''
}

/** The JSON schema of a schema that is one, wraps one, or converts itself to one (not zod: too slow). */
function jsonSchemaOf(schema) {
  if (schema.properties !== undefined) return schema
  if (schema.jsonSchema !== null && typeof schema.jsonSchema === 'object') return schema.jsonSchema
  const standard = schema['~standard']
  if (standard?.vendor === 'zod' || typeof standard?.jsonSchema?.input !== 'function') return undefined
  return standard.jsonSchema.input({ target: 'draft-07' })
}

module.exports = { parameterTable, inputSchemaOf }
