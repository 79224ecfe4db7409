// A throwaway npm registry on loopback for the deploy tests: it serves our
// packages from their tarballs, as the release will publish them (each name's
// packument with this one version as `latest`), and hands every other request
// to the registry npm is configured with, so an install from it resolves
// Mastra and the rest as a user's would. A deployed app's own `npm install`
// (Mastra's deployer writes a package.json naming `mastra-native-processors`
// by version) can then find a version that is not published yet.
//
//   const registry = await startRegistry([tarball, ...])  -> { url, close() }
//   npm install --registry <url> ...

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { basename } from 'node:path'

/** The registry npm uses here (npm config get registry), ending in '/'. */
function upstreamRegistry() {
  const result = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', shell: process.platform === 'win32' })
  const url = result.status === 0 ? result.stdout.trim() : ''
  return (url || 'https://registry.npmjs.org/').replace(/\/?$/, '/')
}

/** The manifest inside a tarball (package/package.json). */
function manifestOf(tarball) {
  const result = spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`cannot read package.json in ${tarball}: ${result.stderr}`)
  return JSON.parse(result.stdout)
}

/** Starts the registry on 127.0.0.1 with these tarballs; resolves to { url, close, requests }. */
export async function startRegistry(tarballs) {
  const upstream = upstreamRegistry()
  const ours = new Map()
  for (const tarball of tarballs) {
    const bytes = readFileSync(tarball)
    const manifest = manifestOf(tarball)
    ours.set(manifest.name, { manifest, bytes, file: basename(tarball) })
  }
  /** Request paths asked of upstream, and of ours: for tests that want to see what npm fetched. */
  const requests = { ours: [], upstream: 0 }
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, 'http://registry')
      const name = decodeURIComponent(url.pathname.slice(1))
      const own = ours.get(name)
      if (own && request.method === 'GET') {
        requests.ours.push(name)
        const { manifest, bytes, file } = own
        const dist = {
          tarball: `${base}/-/${file}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        }
        const packument = { name, 'dist-tags': { latest: manifest.version }, versions: { [manifest.version]: { ...manifest, dist } } }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument))
        return
      }
      const file = url.pathname.startsWith('/-/') ? [...ours.values()].find((entry) => `/-/${entry.file}` === url.pathname) : undefined
      if (file) {
        requests.ours.push(url.pathname)
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file.bytes)
        return
      }
      requests.upstream++
      const answer = await fetch(new URL(request.url.slice(1), upstream), {
        method: request.method,
        headers: { accept: request.headers.accept ?? '*/*' },
      })
      const body = Buffer.from(await answer.arrayBuffer())
      const type = answer.headers.get('content-type')
      response.writeHead(answer.status, type ? { 'content-type': type } : {}).end(body)
    } catch (error) {
      response.writeHead(502).end(String(error))
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${server.address().port}`
  return {
    url: `${base}/`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(resolve)
      }),
  }
}
