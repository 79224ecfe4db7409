// A Mastra app with both processors at their defaults, and a second agent
// asking for 'hybrid' without handing its model over: nothing imports the model
// package, so a deployed copy has none, and that agent must still serve.

import { Agent } from '@mastra/core/agent'
import { Mastra } from '@mastra/core/mastra'
import { ToolCallFilter, ToolSearchProcessor } from 'mastra-native-processors'

import { model, servedRoute, tools } from './shared'

const agent = (id: string, search: ConstructorParameters<typeof ToolSearchProcessor>[0]['search']) =>
  new Agent({
    id,
    name: id,
    instructions: 'Search for tools, load them, then use them.',
    model,
    inputProcessors: [new ToolCallFilter({ exclude: ['searchDatabase'] }), new ToolSearchProcessor({ tools, search })],
  })

export const mastra = new Mastra({
  agents: { plain: agent('plain', { topK: 2 }), unshipped: agent('unshipped', { topK: 2, ranking: 'hybrid' }) },
  server: { apiRoutes: [servedRoute] },
})
