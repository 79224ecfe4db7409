// A Mastra app with search.ranking 'hybrid' and the built-in model handed
// over, as the README shows: mastra build sees the model package imported and
// ships it.

import { Agent } from '@mastra/core/agent'
import { Mastra } from '@mastra/core/mastra'
import builtinModel from 'mastra-native-processors-potion-base-8m'
import { ToolCallFilter, ToolSearchProcessor } from 'mastra-native-processors'

import { model, servedRoute, tools } from './shared'

const hybrid = new Agent({
  id: 'hybrid',
  name: 'hybrid',
  instructions: 'Search for tools, load them, then use them.',
  model,
  inputProcessors: [
    new ToolCallFilter({ exclude: ['searchDatabase'] }),
    new ToolSearchProcessor({ tools, search: { topK: 2, ranking: 'hybrid', model: builtinModel } }),
  ],
})

export const mastra = new Mastra({ agents: { hybrid }, server: { apiRoutes: [servedRoute] } })
