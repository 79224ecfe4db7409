// search.ranking is typed: 'reference' | 'fielded', beside the release's own search options.

import { createTool } from '@mastra/core/tools'
import { z } from 'zod'

import { ToolSearchProcessor, type ToolSearchProcessorOptions, type ToolSearchRanking } from '../../index.js'

const lookup = createTool({
  id: 'lookup',
  description: 'Look something up',
  inputSchema: z.object({ query: z.string().describe('What to look up') }),
  execute: async () => ({ ok: true }),
})

const fielded = new ToolSearchProcessor({ tools: { lookup }, search: { topK: 3, minScore: 0.1, ranking: 'fielded' } })
const reference = new ToolSearchProcessor({ tools: { lookup }, search: { ranking: 'reference' } })
const ranking: ToolSearchRanking = 'fielded'
const options: ToolSearchProcessorOptions = { tools: { lookup }, search: { ranking } }

// @ts-expect-error not a ranking
new ToolSearchProcessor({ tools: { lookup }, search: { ranking: 'bm25' } })
// @ts-expect-error the release's own search options keep their types
new ToolSearchProcessor({ tools: { lookup }, search: { topK: '3', ranking: 'fielded' } })

void [fielded, reference, options]
