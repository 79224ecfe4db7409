// Calls a Vercel function that Mastra's Vercel deployer built, as Vercel's
// Node runtime does: imports its handler module (index.mjs in the current
// directory) and hands its GET and POST a Request. Prints one JSON line:
// { served, status, body } (GET /served, then an agent's run).

import { pathToFileURL } from 'node:url'

const handlers = await import(pathToFileURL(`${process.cwd()}/index.mjs`).href)
const send = (method, path, init = {}) => handlers[method](new Request(`http://localhost${path}`, { method, ...init }))
const served = await (await send('GET', '/served')).json()
const response = await send('POST', `/api/agents/${process.argv[2]}/generate`, {
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ messages: [{ role: 'user', content: process.argv[3] }] }),
})
console.log(JSON.stringify({ served, status: response.status, body: await response.json() }))
process.exit(0)
