// What the agent tests expect ToolSearchProcessor to put in the prompt, built
// from the literal texts in tool-search-literals.mjs.

import { CATALOG_HEADER, CATALOG_HEADER_AUTOLOAD } from './tool-search-literals.mjs'

export { INSTRUCTION, INSTRUCTION_AUTOLOAD } from './tool-search-literals.mjs'

/** The injected catalog (`injectCatalog`, from 1.67.0), one `- \`name\`: description` line per tool. */
export const catalogText = (lines, { autoLoad }) => (autoLoad ? CATALOG_HEADER_AUTOLOAD : CATALOG_HEADER) + '\n\nAvailable tools:\n' + lines.join('\n')

/** The agent scenarios' own instructions, and the meta-tools offered without autoLoad. */
export const SYSTEM = 'You are a helpful assistant.'
export const META = ['search_tools', 'load_tool']
