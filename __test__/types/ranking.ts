// search.ranking is typed: 'reference' | 'fielded' | 'hybrid', beside the release's own search options,
// search.embedder takes an AI SDK embedding model, and search.model the built-in model's package.

import { createTool } from '@mastra/core/tools'
import { z } from 'zod'

import type { EmbeddingModel } from 'ai'

import builtinModel from 'mastra-native-processors-potion-base-8m'

import {
  ToolSearchProcessor,
  type ToolSearchBuiltinModel,
  type ToolSearchEmbedder,
  type ToolSearchProcessorOptions,
  type ToolSearchRanking,
} from '../../index.js'

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

// 'hybrid', with the built-in model or an AI SDK embedding model of the user's.
const openai = { embedding: (_id: string): EmbeddingModel<string> => null as unknown as EmbeddingModel<string> }
const builtIn = new ToolSearchProcessor({ tools: { lookup }, search: { ranking: 'hybrid', topK: 3 } })
const model = openai.embedding('text-embedding-3-small')
if (typeof model !== 'string') new ToolSearchProcessor({ tools: { lookup }, search: { ranking: 'hybrid', embedder: model } })
const embedder: ToolSearchEmbedder = { doEmbed: async ({ values }) => ({ embeddings: values.map(() => [0.6, 0.8]) }) }
new ToolSearchProcessor({ tools: { lookup }, search: { ranking: 'hybrid', embedder } })
// @ts-expect-error an embedder is a model object, not its name
new ToolSearchProcessor({ tools: { lookup }, search: { ranking: 'hybrid', embedder: 'openai/text-embedding-3-small' } })

// The built-in model handed over, as the model package exports itself (so a bundler or deployer ships it).
new ToolSearchProcessor({ tools: { lookup }, search: { ranking: 'hybrid', model: builtinModel } })
const handedOver: ToolSearchBuiltinModel = builtinModel
// @ts-expect-error the model is the package's export, not its name
new ToolSearchProcessor({ tools: { lookup }, search: { ranking: 'hybrid', model: 'mastra-native-processors-potion-base-8m' } })

void [builtIn, handedOver]
