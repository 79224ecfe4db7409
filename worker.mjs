// The entry for runtimes that load no native addon, which their bundlers pick
// by the `workerd`, `worker` and `edge-light` export conditions (Cloudflare
// Workers, and Mastra's own Cloudflare deployer; Vercel's Edge runtime): Node
// never sets them. It serves @mastra/core's own processors and says so once,
// as index.js does where no binary loads, so such a build succeeds (bundling
// index.js would meet binding.js's `.node` requires) and the app works as it
// would without this package. See docs/deploying.md.

import { ToolCallFilter, ToolSearchProcessor } from '@mastra/core/processors'

export const implementation = 'fallback'
export const fallbackReason = 'this runtime loads no native addon (a Cloudflare Worker or an edge runtime)'

console.warn(`mastra-native-processors: ${fallbackReason}; using @mastra/core's own ToolSearchProcessor and ToolCallFilter instead.`)

export { ToolCallFilter, ToolSearchProcessor }
