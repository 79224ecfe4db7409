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
// bundlers.test.mjs has esbuild, rollup, @vercel/nft and the Vercel deployer.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { BINARY, MODEL, PACKAGE, VERSION, WEATHER, binariesOf, copyOut, deployProject, mastraBuild, runOf, startServer } from './helpers.mjs'

const work = mkdtempSync(join(tmpdir(), 'mnp-deploy-'))
let setUp

before(async () => {
  setUp = await deployProject(work)
})

after(async () => {
  await setUp?.registry.close()
  rmSync(work, { recursive: true, force: true })
})

/** `mastra build` of app-<app>.ts, its output copied where no parent has a node_modules. */
async function buildAndCopy(app) {
  assert.equal(setUp.installed.status, 0, `npm install failed:\n${setUp.installed.output}`)
  const built = await mastraBuild(setUp.project, app)
  assert.equal(built.status, 0, `mastra build failed:\n${built.output}`)
  assert.match(built.output, /Build successful/)
  const deployed = copyOut(join(setUp.project, '.mastra', 'output'), work, `deployed-${app}`)
  return { deployed, manifest: JSON.parse(readFileSync(join(deployed, 'package.json'), 'utf8')) }
}

describe('mastra build with the default config, the output copied where no parent node_modules exists', () => {
  let app
  let server
  before(async () => {
    app = await buildAndCopy('default')
    server = await startServer(app.deployed)
  })
  after(() => server?.stop())

  test("the deployer's package.json names the package by version, and its install brought this machine's platform package", () => {
    assert.equal(app.manifest.dependencies[PACKAGE], VERSION)
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
