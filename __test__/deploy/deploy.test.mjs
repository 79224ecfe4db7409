// Deployed as Mastra users deploy (npm run test:deploy; npm run test:all runs
// it): every package packed as the release publishes it, served by a
// throwaway registry on loopback (../packaging/registry.mjs), a Mastra project
// that installs them from it, `mastra build` with the default config (the
// deployer bundles the app into .mastra/output, writes a package.json there and
// installs it, with the project's .npmrc), and the output copied to a fresh
// directory under the system's temp dir, where no parent node_modules can
// stand in for what the output lacks. There the server starts, the server's
// own route says which implementation serves it and which addon file it
// loaded, and an agent is called over Mastra's REST route with a scripted mock
// model (no network): search_tools, load_tool, the loaded tool, an answer.
//
// - app-default.ts: both processors at their defaults, natively, and an
//   agent asking for 'hybrid' without handing its model over, which a
//   deployed copy then lacks: the server starts all the same, says once what
//   to do, and that agent ranks as 'fielded'.
// - app-hybrid.ts: 'hybrid' with the built-in model handed over (README's
//   way): the deployer ships the model package, and search_tools finds by
//   meaning a tool that shares no word with the question.
//
// About three minutes: one install, two builds (each installs its output).

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'

import { env } from '../packaging/project.mjs'
import { packAsPublished } from '../packaging/published.mjs'
import { startRegistry } from '../packaging/registry.mjs'
import { ROOT, packageForThisMachine } from '../../scripts/platform-packages.mjs'

/** What a user gets today from `npm install mastra` and `npm install @mastra/core` (the versions). */
export const VERSIONS = { mastra: '1.31.0', '@mastra/core': '1.71.0', ai: '5.0.277', zod: '4.6.7' }
const HERE = import.meta.dirname
const { name: PACKAGE, version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const MODEL = JSON.parse(readFileSync(join(ROOT, 'models', 'potion-base-8m', 'package.json'), 'utf8'))
const platform = packageForThisMachine()

const work = mkdtempSync(join(tmpdir(), 'mnp-deploy-'))
const project = join(work, 'project')
/** Mastra's CLI sends telemetry unless told not to; nothing here leaves the machine but npm's requests. */
const quiet = { ...env, MASTRA_TELEMETRY_DISABLED: '1', NO_COLOR: '1' }
let registry
let installed

/** Runs a command to its end: { status, output }. */
function run(command, args, cwd, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...quiet, ...extraEnv }, shell: process.platform === 'win32' })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.once('error', (error) => resolve({ status: null, output: `${output}${error}` }))
    child.once('close', (status) => resolve({ status, output }))
  })
}

before(async () => {
  registry = await startRegistry(packAsPublished(join(work, 'tarballs')))
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
      [PACKAGE]: version,
      [MODEL.name]: MODEL.version,
    },
    devDependencies: { mastra: VERSIONS.mastra },
  }
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  // As a user with a private registry has it: the deployer copies .npmrc into the output and installs with it.
  writeFileSync(join(project, '.npmrc'), `registry=${registry.url}\n`)
  installed = await run('npm', ['install', '--no-audit', '--no-fund'], project)
})

after(async () => {
  await registry?.close()
  rmSync(work, { recursive: true, force: true })
})

/** `mastra build` of app-<variant>.ts; the output copied, with what the deployer installed there, where no parent has node_modules. */
async function buildAndCopy(variant) {
  assert.equal(installed.status, 0, `npm install failed:\n${installed.output}`)
  copyFileSync(join(HERE, 'shared.ts'), join(project, 'src', 'mastra', 'shared.ts'))
  copyFileSync(join(HERE, `app-${variant}.ts`), join(project, 'src', 'mastra', 'index.ts'))
  const output = join(project, '.mastra', 'output')
  rmSync(join(project, '.mastra'), { recursive: true, force: true })
  const built = await run('npx', ['mastra', 'build'], project)
  assert.equal(built.status, 0, `mastra build failed:\n${built.output}`)
  assert.match(built.output, /Build successful/)
  const deployed = join(mkdtempSync(join(tmpdir(), `mnp-deployed-${variant}-`)), 'app')
  cpSync(output, deployed, { recursive: true })
  for (let dir = dirname(deployed); dir !== dirname(dir); dir = dirname(dir)) {
    assert.ok(!existsSync(join(dir, 'node_modules')), `${dir} has a node_modules that could stand in for the output's`)
  }
  return { deployed, manifest: JSON.parse(readFileSync(join(deployed, 'package.json'), 'utf8')) }
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
async function startServer(dir) {
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
    generate: async (agent, question) => {
      const response = await fetch(`${base}/api/agents/${agent}/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: question }] }),
      })
      return { status: response.status, body: await response.json() }
    },
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', resolve)
        child.kill()
      }),
  }
}

/** The tool calls of an agent's run, with the results (search_tools' tool names only), and its text. */
function runOf({ status, body }) {
  assert.equal(status, 200, JSON.stringify(body))
  const results = body.steps.flatMap((step) => step.toolResults.map(({ payload }) => payload))
  return {
    tools: results.map(({ toolName, result }) => [toolName, toolName === 'search_tools' ? result.results.map((r) => r.name) : result]),
    text: body.text,
  }
}

/** The addon files a deployed server loaded, relative to its directory. */
const binariesOf = (served, dir) => served.binaries.map((file) => relative(dir, file).split('\\').join('/'))
const BINARY = `node_modules/${platform.manifest.name}/${platform.manifest.main}`
const WEATHER = (searched) => ({
  tools: [
    ['search_tools', searched],
    ['load_tool', { success: true, message: 'Tool "getWeather" loaded successfully. It will be available on your next turn.', toolName: 'getWeather' }],
    ['getWeather', { city: 'Paris', tempC: 18 }],
  ],
  text: 'It is 18C in Paris.',
})

describe('mastra build with the default config, the output copied where no parent node_modules exists', () => {
  let app
  let server
  before(async () => {
    app = await buildAndCopy('default')
    server = await startServer(app.deployed)
  })
  after(() => server?.stop())

  test("the deployer's package.json names the package by version, and its install brought this machine's platform package", () => {
    assert.equal(app.manifest.dependencies[PACKAGE], version)
    assert.equal(app.manifest.dependencies[MODEL.name], undefined, 'nothing imports the model package')
    assert.ok(statSync(join(app.deployed, BINARY)).isFile())
  })

  test("the server's own report: native, with the binary installed in the output", async () => {
    const served = await server.served()
    assert.equal(served.implementation, 'native', served.fallbackReason)
    assert.deepEqual(binariesOf(served, app.deployed), [BINARY])
  })

  test('an agent over the REST route: search_tools, load_tool, the loaded tool, an answer', async () => {
    assert.deepEqual(runOf(await server.generate('plain', 'weather city')), WEATHER(['getWeather']))
  })

  test("'hybrid' without its model handed over: the server started, says once what to do, and ranks as 'fielded'", async () => {
    assert.deepEqual(runOf(await server.generate('unshipped', 'weather city')), WEATHER(['getWeather']))
    const { warnings } = await server.served()
    const said = warnings.filter((warning) => warning.includes("'hybrid' has no built-in model"))
    assert.equal(said.length, 1, warnings.join('\n'))
    assert.match(said[0], new RegExp(`import model from '${MODEL.name}', then search: \\{ ranking: 'hybrid', model \\}`))
    assert.match(said[0], /ranks as 'fielded'/)
  })
})

describe("mastra build of an app with search.ranking 'hybrid' and its model handed over, copied out", () => {
  let app
  let server
  before(async () => {
    app = await buildAndCopy('hybrid')
    server = await startServer(app.deployed)
  })
  after(() => server?.stop())

  test("the deployer ships the model package: its package.json names it and its install brought the model's file", () => {
    assert.equal(app.manifest.dependencies[MODEL.name], MODEL.version)
    assert.ok(statSync(join(app.deployed, 'node_modules', MODEL.name, 'potion-base-8m.m2v')).size > 1_000_000)
  })

  test('native, no warning; search_tools finds by meaning a tool that shares no word with the question', async () => {
    // 'fielded' finds nothing for these words; the built-in model relates them to the weather.
    assert.deepEqual(runOf(await server.generate('hybrid', 'will it rain')), WEATHER(['getWeather']))
    const served = await server.served()
    assert.equal(served.implementation, 'native', served.fallbackReason)
    assert.deepEqual(binariesOf(served, app.deployed), [BINARY])
    assert.deepEqual(served.warnings, [])
  })
})
