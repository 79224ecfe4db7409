// ToolSearchProcessor's model-facing system texts, literally (byte for byte the
// releases' own), for the tests' literal expectations.

// The system instructions (every supported release).
export const INSTRUCTION =
  'To discover available tools, call search_tools with a keyword query. ' +
  'To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. ' +
  'Tools must be loaded before they can be used.';
export const INSTRUCTION_AUTOLOAD =
  'To discover available tools, call search_tools with a keyword query. ' +
  'Matching tools are loaded automatically and become available on your next turn — ' +
  'there is no separate load step. After searching, use the tool directly.';

/** The injected catalog (`injectCatalog`, from 1.67.0), one `- \`name\`: description` line per tool. */
export const catalogText = (lines, { autoLoad }) =>
  (autoLoad
    ? 'The following tools are available. Call search_tools with a keyword to load one — ' +
      'matching tools are loaded automatically and become available on your next turn.'
    : 'The following tools are available to load. Call load_tool with a toolName or toolNames array ' +
      'to add one or more before using them — no search step is required. ' +
      'search_tools is also available if you need to rediscover tools by keyword.') +
  '\n\nAvailable tools:\n' +
  lines.join('\n');

/** The agent scenarios' own instructions, and the meta-tools offered without autoLoad. */
export const SYSTEM = 'You are a helpful assistant.';
export const META = ['search_tools', 'load_tool'];
