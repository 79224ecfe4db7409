'use strict'
// A model output as both ToolCallFilter stages read it: its shape written
// onto a tape in the reference's order (`writeModelOutput`), the JSON its
// text may need filled in where Rust asks for it (`fillJson`), and the text
// that stands in for a removed result (`resultText`). May import: common.js
// of this folder.

const { codes } = require('./common.js')

const NODE = codes.modelOutput
const RESULT_HEADING = codes.resultHeading

/**
 * Writes the shape of a model output onto `tape`; see `node` in
 * src/tool_call_filter/tape.rs. Reads the output as the reference's
 * `modelOutputToText` does, in its order (each array's `length` once, then
 * each item it has; an object's `type`, then its `value` and `text` only
 * where the reference asks for them), and without recursion: an output nests
 * as deep as the caller made it, far past the depth where a recursive walk
 * (the reference's included) overflows the stack.
 *
 * An object's text is decided here, since nothing inside it can change it:
 * `{ value }` is written as its value, and every other object as the string it
 * answers with (its string `value` or `text`, or its JSON), so only strings,
 * primitives, arrays, nothing and `tooDeep` reach the tape.
 */
function writeModelOutput(scratch, tape, output) {
  // The arrays and `{ value }` objects the node being written is inside, each
  // with its next item and its length (both 0 for an object).
  const { ancestors, cursors, ends } = scratch
  const strings = scratch.strings
  const base = ancestors.length
  // The `{ value }` object whose value is being written, kept out of
  // `ancestors` until that value has items of its own: most outputs are one
  // such object around a string or a JSON object, which then costs no entry.
  let wrapper = null
  let value = output
  for (;;) {
    switch (typeof value) {
      case 'string':
        writeString(tape, strings, value)
        break
      case 'number':
      case 'boolean':
      case 'bigint':
        tape.push(NODE.primitive)
        tape.push(strings.push(String(value)) - 1)
        break
      case 'object': {
        if (value === null) {
          tape.push(NODE.nothing)
          break
        }
        // A cycle (or the far limit): Rust fails only if this output's text is needed.
        const depth = ancestors.length - base + (wrapper === null ? 0 : 1)
        if (depth >= NODE.maxDepth || value === wrapper || isAncestor(scratch, value)) {
          tape.push(NODE.tooDeep)
          break
        }
        if (Array.isArray(value)) {
          if (wrapper !== null) {
            enter(scratch, wrapper, 0)
            wrapper = null
          }
          tape.push(NODE.array)
          // An array's JSON is its text only when no item has any: left for later.
          scratch.lazyJson.set(tape.length, value)
          tape.push(NODE.jsonLater)
          const length = value.length
          tape.push(length)
          enter(scratch, value, length)
          break
        }
        if (value.type === 'text') {
          const textValue = value.value
          if (typeof textValue === 'string') {
            writeString(tape, strings, textValue)
            break
          }
          const text = value.text
          if (typeof text === 'string') {
            writeString(tape, strings, text)
            break
          }
        }
        if ('value' in value) {
          // The object stays an ancestor while its value is written, to catch a cycle through it.
          if (wrapper !== null) enter(scratch, wrapper, 0)
          wrapper = value
          value = value.value
          continue
        }
        if ('text' in value) {
          const text = value.text
          if (typeof text === 'string') {
            writeString(tape, strings, text)
            break
          }
        }
        const json = jsonIndex(value, strings)
        if (json === NODE.noJson) {
          tape.push(NODE.nothing)
          break
        }
        tape.push(NODE.string)
        tape.push(json)
        // JSON is never the empty string.
        tape.push(1)
        break
      }
      default:
        tape.push(NODE.nothing)
    }
    wrapper = null
    // The node is written: on to the next item of the innermost unfinished array.
    for (;;) {
      const depth = ancestors.length
      if (depth === base) return
      const at = cursors[depth - 1]
      if (at < ends[depth - 1]) {
        cursors[depth - 1] = at + 1
        const array = ancestors[depth - 1]
        // A hole is skipped by the reference's `map`, and contributes nothing.
        value = at in array ? array[at] : undefined
        break
      }
      leave(scratch)
    }
  }
}

function writeString(tape, strings, value) {
  tape.push(NODE.string)
  tape.push(strings.push(value) - 1)
  tape.push(value.length > 0 ? 1 : 0)
}

/**
 * Ancestors past this many are also kept in a set: a linear search of the
 * path is cheapest for the shallow outputs tools make, and a set keeps a
 * deep one linear in its size.
 */
const SEARCHED_ANCESTORS = 32

function isAncestor(scratch, value) {
  const ancestors = scratch.ancestors
  const depth = ancestors.length
  if (depth <= SEARCHED_ANCESTORS) return depth !== 0 && ancestors.includes(value)
  return ancestors.lastIndexOf(value, SEARCHED_ANCESTORS - 1) !== -1 || scratch.deepAncestors.has(value)
}

function enter(scratch, container, length) {
  const depth = scratch.ancestors.length
  scratch.ancestors.push(container)
  scratch.cursors.push(0)
  scratch.ends.push(length)
  if (depth >= SEARCHED_ANCESTORS) scratch.deepAncestors.add(container)
}

function leave(scratch) {
  const container = scratch.ancestors.pop()
  scratch.cursors.pop()
  scratch.ends.pop()
  if (scratch.ancestors.length >= SEARCHED_ANCESTORS) scratch.deepAncestors.delete(container)
}

/**
 * Fills in the JSON the outputs' texts may need, by the `count` asks at
 * `from` of the answer (`scratch.plan`; see `JsonAsks` in
 * src/tool_call_filter/tape.rs), in the tape that starts at `start` of
 * `scratch.tape`. In their order, each ask's value is
 * stringified where none of the asks that hang on it gave JSON: where the
 * reference's recursion stringifies it, and no more (stringifying every level
 * of `[[[[]]]]` cost the cube of its depth). Where `JSON.stringify` threw,
 * the array around it, which holds what threw, is taken to throw too.
 */
function fillJson(scratch, start, from, count) {
  const data = scratch.tape.data
  const asks = scratch.plan
  const strings = scratch.strings
  const lazyJson = scratch.lazyJson
  // Per ask: how many of those that hang on it gave no JSON, and whether one threw.
  const failed = new Int32Array(count)
  const threw = new Uint8Array(count)
  for (let k = 0, at = from; k < count; k++, at += NODE.jsonAskLength) {
    if (failed[k] !== asks[at + NODE.jsonAskInside]) continue
    const slot = asks[at + NODE.jsonAskSlot]
    let json = NODE.noJson
    let thrown = threw[k] === 1
    if (slot !== NODE.noAsk) {
      if (!thrown) {
        try {
          const text = JSON.stringify(lazyJson.get(start + slot))
          if (typeof text === 'string') json = strings.push(text) - 1
        } catch {
          thrown = true
        }
      }
      data[start + slot] = json
    }
    const around = asks[at + NODE.jsonAskAround]
    if (json === NODE.noJson && around !== NODE.noAsk) {
      failed[around]++
      if (thrown) threw[around] = 1
    }
  }
}

function jsonIndex(value, strings) {
  let json
  try {
    json = JSON.stringify(value)
  } catch {
    return NODE.noJson
  }
  return typeof json === 'string' ? strings.push(json) - 1 : NODE.noJson
}

/**
 * The text that stands in for a removed result: its tool's name and its output's strings.
 * Positional: a kernel run per removed result, whose arguments are the slice it reads (`strings[plan[at..at + count]]`).
 */
function resultText(toolName, strings, plan, at, count) {
  let text = strings[plan[at]]
  for (let k = 1; k < count; k++) text += '\n' + strings[plan[at + k]]
  return `${toolName}${RESULT_HEADING}${text}`
}

module.exports = { writeModelOutput, fillJson, resultText }
