'use strict'
// What the ToolSearchProcessor's rooms share of the protocol Rust declares
// (src/protocol/tool_search.rs, read once here through
// `toolSearchProtocol()`): the protocol itself, from which each room reads
// the codes and layouts it alone needs; the layout of an operation's `ask`
// codes; how a record's values of the wrong kind are refused; the
// meta-tools' names; the empty list. May import: native.js.

const { toolSearchProtocol } = require('../native.js')

const PROTOCOL = toolSearchProtocol()
const ASK = PROTOCOL.operation.ask
const KIND_MASK = (1 << ASK.kindBits) - 1
const FOUND_MASK = (1 << ASK.foundBits) - 1
const READ_MASK = (1 << ASK.readBits) - 1
const REFUSED = PROTOCOL.refused
/** How a record's values are refused: the constructor's record (`options.tools`) and a step's tools. */
const RECORD_VALUES = { tool: REFUSED.tool, id: REFUSED.toolId, description: REFUSED.toolDescription }
const STEP_VALUES = { tool: REFUSED.stepTool, id: REFUSED.stepToolId, description: REFUSED.stepToolDescription }
const { searchTools: SEARCH_TOOLS, loadTool: LOAD_TOOL } = PROTOCOL.metaTools

/** No keys, no tools. */
const NONE = Object.freeze([])

module.exports = { PROTOCOL, ASK, KIND_MASK, FOUND_MASK, READ_MASK, REFUSED, RECORD_VALUES, STEP_VALUES, SEARCH_TOOLS, LOAD_TOOL, NONE }
