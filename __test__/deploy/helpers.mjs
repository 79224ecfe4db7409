// What the deploy tests share: a Mastra project that installs every package
// packed as the release publishes it from a throwaway registry on loopback
// (../packaging/registry.mjs), `mastra build` of one of the apps here, a copy
// of a build's output where no parent directory has a node_modules, a server
// started from it, and what an agent's run over Mastra's REST route gave.
//
//   VERSIONS                                   -> what a user gets today from npm
//   await deployProject(work, extraDevDependencies) -> { project, registry, installed }
//   await mastraBuild(project, app)            -> mastra build of app-<app>.ts: { status, output }
//   copyOut(dir, work, name)                   -> dir copied to work/<name>-XXXXXX/app, with no node_modules above it
//   await startServer(dir)                     -> { served(), generate(agent, question), stop() }
//   runOf(response)                            -> { tools, text } of an agent's run

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join, relative } from 'node:path'

import { env } from '../packaging/project.mjs'
import { packAsPublished } from '../packaging/published.mjs'
import { startRegistry } from '../packaging/registry.mjs'
import { ROOT, packageForThisMachine } from '../../scripts/platform-packages.mjs'

/** What a user got from `npm install mastra @mastra/core` on 2026-12-07 (the newest of each). */
export const VERSIONS = { mastra: '1.31.0', '@mastra/core': '1.71.0', ai: '5.0.277', zod: '4.6.7' }
export const HERE = import.meta.dirname
export const { name: PACKAGE, version: VERSION } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
export const MODEL = JSON.parse(readFileSync(join(ROOT, 'models', 'potion-base-8m', 'package.json'), 'utf8'))
const platform = packageForThisMachine()
/** This machine's binary, as installed under a node_modules. */
export const BINARY = `node_modules/${platform.manifest.name}/${platform.manifest.main}`
/** Mastra's CLI sends telemetry unless told not to; nothing here leaves the machine but npm's requests. */
export const quiet = { ...env, MASTRA_TELEMETRY_DISABLED: '1', NO_COLOR: '1' }

/** Runs a command to its end: { status, output } (stdout and stderr together). */
export function run(command, args, cwd, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...quiet, ...extraEnv }, shell: process.platform === 'win32' })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.once('error', (error) => resolve({ status: null, output: `${output}${error}` }))
    child.once('close', (status) => resolve({ status, output }))
  })
}

/**
 * A Mastra project in work/project on the versions above, with this package
 * and its model package from a registry of our tarballs, installed with npm.
 * Its .npmrc names the registry, as a user's names a private one: the
 * deployer copies it into the output and installs with it.
 */
export async function deployProject(work, devDependencies = {}) {
  const registry = await startRegistry(packAsPublished(join(work, 'tarballs')))
  const project = join(work, 'project')
  mkdirSync(join(project, 'src', 'mastra'), { recursive: true })
  const manifest = {
    name: 'deployed-app',
    version: '0.0.0',
    private: true,
    type: 'module',
    dependencies: {
      '@mastra/core': VERSIONS['@mastra/core'],
      ai: VERSIONS.ai,
      zod: VERSIONS.zod,
      [PACKAGE]: VERSION,
      [MODEL.name]: MODEL.version,
    },
    devDependencies: { mastra: VERSIONS.mastra, ...devDependencies },
  }
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  writeFileSync(join(project, '.npmrc'), `registry=${registry.url}\n`)
  const installed = await run('npm', ['install', '--no-audit', '--no-fund'], project)
  return { project, registry, installed }
}

/** `mastra build` (default config, or the deployer the app names) of app-<app>.ts in the project. */
export async function mastraBuild(project, app) {
  copyFileSync(join(HERE, 'shared.ts'), join(project, 'src', 'mastra', 'shared.ts'))
  copyFileSync(join(HERE, `app-${app}.ts`), join(project, 'src', 'mastra', 'index.ts'))
  rmSync(join(project, '.mastra'), { recursive: true, force: true })
  rmSync(join(project, '.vercel'), { recursive: true, force: true })
  return run('npx', ['mastra', 'build'], project)
}

/** dir copied, with what the deployer installed there, to work/<name>-XXXXXX/app: no parent has a node_modules. */
export function copyOut(dir, work, name) {
  const copy = join(mkdtempSync(join(work, `${name}-`)), 'app')
  cpSync(dir, copy, { recursive: true })
  for (let above = dirname(copy); above !== dirname(above); above = dirname(above)) {
    assert.ok(!existsSync(join(above, 'node_modules')), `${above} has a node_modules that could stand in for the copy's`)
  }
  return copy
}

/** A free port on loopback. */
function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** Starts `node index.mjs` in dir, as the output's package.json starts it; resolves once Mastra says it listens. */
export async function startServer(dir) {
  const port = await freePort()
  const child = spawn(process.execPath, ['index.mjs'], { cwd: dir, env: { ...quiet, PORT: String(port) } })
  let output = ''
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 90 s:\n${output}`)), 90_000)
    const listen = (chunk) => {
      output += chunk
      if (/Mastra API running/.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout.setEncoding('utf8').on('data', listen)
    child.stderr.setEncoding('utf8').on('data', listen)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited (${code}) before it listened:\n${output}`))
    })
  })
  const base = `http://127.0.0.1:${port}`
  return {
    served: async () => (await fetch(`${base}/served`)).json(),
    generate: (agent, question) => generate((request) => fetch(`${base}${request.path}`, request), agent, question),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', resolve)
        child.kill()
      }),
  }
}

/** POST /api/agents/<agent>/generate with the question through `send` (fetch, or a function's handler): { status, body }. */
export async function generate(send, agent, question) {
  const response = await send({
    path: `/api/agents/${agent}/generate`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: question }] }),
  })
  return { status: response.status, body: await response.json() }
}

/** The tool calls of an agent's run, with their results (search_tools' tool names only), and its text. */
export function runOf({ status, body }) {
  assert.equal(status, 200, JSON.stringify(body))
  const results = body.steps.flatMap((step) => step.toolResults.map(({ payload }) => payload))
  return {
    tools: results.map(({ toolName, result }) => [toolName, toolName === 'search_tools' ? result.results.map((r) => r.name) : result]),
    text: body.text,
  }
}

/** The run the scripted model makes when search_tools finds `searched` (getWeather first). */
export const WEATHER = (searched) => ({
  tools: [
    ['search_tools', searched],
    ['load_tool', { success: true, message: 'Tool "getWeather" loaded successfully. It will be available on your next turn.', toolName: 'getWeather' }],
    ['getWeather', { city: 'Paris', tempC: 18 }],
  ],
  text: 'It is 18C in Paris.',
})

/** The addon files a process loaded, relative to its directory. */
export const binariesOf = (served, dir) => served.binaries.map((file) => relative(dir, file).split('\\').join('/'))
