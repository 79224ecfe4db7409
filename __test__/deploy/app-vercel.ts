// app-default.ts's plain agent, built by Mastra's Vercel deployer: `mastra
// build` writes .vercel/output/functions/index.func, whose handlers Vercel's
// Node runtime calls with a Request.

import { Agent } from '@mastra/core/agent'
import { Mastra } from '@mastra/core/mastra'
import { VercelDeployer } from '@mastra/deployer-vercel'
import { ToolCallFilter, ToolSearchProcessor } from 'mastra-native-processors'

import { model, servedRoute, tools } from './shared'

const plain = new Agent({
  id: 'plain',
  name: 'plain',
  instructions: 'Search for tools, load them, then use them.',
  model,
  inputProcessors: [new ToolCallFilter({ exclude: ['searchDatabase'] }), new ToolSearchProcessor({ tools, search: { topK: 2 } })],
})

export const mastra = new Mastra({ agents: { plain }, server: { apiRoutes: [servedRoute] }, deployer: new VercelDeployer() })
