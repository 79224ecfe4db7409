// search.syntax and filterConcurrency are typed, beside the release's own options.

import { createTool } from '@mastra/core/tools'
import { z } from 'zod'

import { ToolSearchProcessor, type ToolSearchProcessorOptions, type ToolSearchSyntax } from '../../index.js'

const lookup = createTool({
  id: 'lookup',
  description: 'Look something up',
  inputSchema: z.object({ query: z.string().describe('What to look up') }),
  execute: async () => ({ ok: true }),
})

const regex = new ToolSearchProcessor({ tools: { lookup }, search: { topK: 3, syntax: 'regex' } })
const words = new ToolSearchProcessor({ tools: { lookup }, search: { syntax: 'words', ranking: 'fielded' } })
const syntax: ToolSearchSyntax = 'regex'
const options: ToolSearchProcessorOptions = {
  tools: { lookup },
  search: { syntax },
  filterConcurrency: 16,
  filter: async ({ toolName, phase }) => phase !== 'active' || toolName !== 'lookup',
}

// @ts-expect-error not a syntax
new ToolSearchProcessor({ tools: { lookup }, search: { syntax: 'glob' } })
// @ts-expect-error a number
new ToolSearchProcessor({ tools: { lookup }, filterConcurrency: '4' })

void [regex, words, options]
