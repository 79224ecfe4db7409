'use strict'
// The two processor classes for one host release: each behaves, and exposes
// the hooks, exactly as that release's own.
//
// May import: native.js, tool-search.js and tool-call-filter/ (message-list.js, prompt.js).

const { ToolCallFilterStage } = require('./native.js')
const { ToolCallFilter: MessageListToolCallFilter } = require('./tool-call-filter/message-list.js')
const { definePromptToolCallFilter } = require('./tool-call-filter/prompt.js')
const { defineToolSearchProcessor } = require('./tool-search.js')

/** `{ ToolCallFilter, ToolSearchProcessor }` for a host from `lib/host.js`. */
function processorsFor(host) {
  const { behaviours } = host
  const ToolCallFilter =
    behaviours.toolCallFilterStage === ToolCallFilterStage.Prompt ? definePromptToolCallFilter(behaviours.preservedResults) : MessageListToolCallFilter
  return { ToolCallFilter, ToolSearchProcessor: defineToolSearchProcessor(host) }
}

module.exports = { processorsFor }
