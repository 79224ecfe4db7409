// Bundlers and hosts other than the default `mastra build` (npm run
// test:deploy; docs/deploying.md has what each produced): a project with the
// package installed as published (helpers.mjs), and
//
// - esbuild and rollup bundling an app that runs an Agent through both
//   processors (../packaging/agent-run.mjs): without the package external each
//   fails at build time with the message the docs quote; with it, the bundle
//   runs natively beside its installed externals;
// - @vercel/nft (how Vercel picks a function's files) tracing an esbuild
//   bundle of the app: it lists this machine's binary;
// - Mastra's Vercel deployer: `mastra build` writes a function whose handlers,
//   imported from a copy with no parent node_modules and called with a
//   Request as Vercel's Node runtime calls them, serve natively.
//
// (Mastra's Cloudflare deployer 1.2.2 fails with @mastra/deployer 1.69.0 for
// any app, before bundling: docs/deploying.md.)

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { BINARY, HERE, WEATHER, binariesOf, copyOut, deployProject, mastraBuild, quiet, run, runOf } from './helpers.mjs'

const TOOLS = {
  esbuild: '0.28.2',
  rollup: '4.69.3',
  '@rollup/plugin-node-resolve': '16.0.3',
  '@rollup/plugin-commonjs': '29.0.3',
  '@rollup/plugin-json': '6.1.0',
  '@vercel/nft': '1.11.16',
  '@mastra/deployer-vercel': '1.2.22',
}

const work = mkdtempSync(join(tmpdir(), 'mnp-bundlers-'))
let setUp
let project

before(async () => {
  setUp = await deployProject(work, TOOLS)
  project = setUp.project
  assert.equal(setUp.installed.status, 0, `npm install failed:\n${setUp.installed.output}`)
  copyFileSync(join(HERE, '..', 'packaging', 'agent-run.mjs'), join(project, 'agent-run.mjs'))
  writeFileSync(
    join(project, 'rollup.config.mjs'),
    `import { nodeResolve } from '@rollup/plugin-node-resolve'
import commonjs from '@rollup/plugin-commonjs'
import json from '@rollup/plugin-json'

const external = (process.env.EXTERNAL ?? '').split(',').filter(Boolean)
export default {
  input: 'agent-run.mjs',
  output: { dir: process.env.OUT, format: 'es' },
  external: (id) => external.some((name) => id === name || id.startsWith(name + '/')),
  plugins: [nodeResolve({ exportConditions: ['node'], preferBuiltins: true }), commonjs({ ignoreDynamicRequires: true }), json()],
  onwarn: () => {},
}
`,
  )
})

after(async () => {
  await setUp?.registry.close()
  rmSync(work, { recursive: true, force: true })
})

/** A bundle of agent-run.mjs run in the project (beside its externals): its JSON line. */
async function runBundle(file) {
  const ran = await run(process.execPath, [file], project)
  assert.equal(ran.status, 0, ran.output)
  const { implementation, binaries, text, toolResults } = JSON.parse(ran.output.trim().split('\n').at(-1))
  return { implementation, binaries, text, tools: toolResults.map(([name]) => name) }
}
const NATIVE_RUN = { implementation: 'native', binaries: [BINARY], text: 'It is 18C in Paris.', tools: ['search_tools', 'load_tool', 'getWeather'] }
const ESBUILD = ['esbuild', 'agent-run.mjs', '--bundle', '--platform=node', '--format=esm', '--log-level=error']

describe('esbuild', () => {
  test('without the package external: "No loader is configured for ".node" files", at the platform binary', async () => {
    const built = await run('npx', [...ESBUILD, '--outfile=dist/esbuild-all.mjs'], project)
    assert.notEqual(built.status, 0)
    assert.match(built.output, new RegExp(`No loader is configured for "\\.node" files: ${BINARY.replace(/\./g, '\\.')}`))
  })

  test('with --external:mastra-native-processors (and ws and gray-matter, for @mastra/core itself): the bundle runs natively', async () => {
    const built = await run(
      'npx',
      [...ESBUILD, '--outfile=dist/esbuild.mjs', '--external:mastra-native-processors', '--external:ws', '--external:gray-matter'],
      project,
    )
    assert.equal(built.status, 0, built.output)
    assert.deepEqual(await runBundle('dist/esbuild.mjs'), NATIVE_RUN)
  })

  test("@vercel/nft, tracing a bundle of the app as Vercel picks a function's files, lists the platform binary", async () => {
    // Every package external, as a function bundled for a tracer usually is; only ours is traced into (seconds, where the whole app takes minutes).
    const built = await run('npx', [...ESBUILD, '--outfile=dist/traced.mjs', '--packages=external'], project)
    assert.equal(built.status, 0, built.output)
    const trace = `
      import { nodeFileTrace } from '@vercel/nft'
      const ignore = (file) => file.startsWith('node_modules/') && !file.startsWith('node_modules/mastra-native-processors')
      const { fileList } = await nodeFileTrace(['dist/traced.mjs'], { base: process.cwd(), ignore })
      console.log(JSON.stringify([...fileList].filter((file) => file.includes('mastra-native-processors')).sort()))`
    const traced = await run(process.execPath, ['--input-type=module', '-e', trace], project)
    assert.equal(traced.status, 0, traced.output)
    const files = JSON.parse(traced.output.trim().split('\n').at(-1))
    assert.ok(files.includes(BINARY), files.join('\n'))
    assert.ok(files.includes('node_modules/mastra-native-processors/binding.js'))
  })
})

describe('rollup with @rollup/plugin-node-resolve, -commonjs and -json', () => {
  test('without the package external: the .node file is read as JavaScript ("Unexpected character")', async () => {
    const built = await run('npx', ['rollup', '-c'], project, { OUT: 'dist/rollup-all' })
    assert.notEqual(built.status, 0)
    assert.match(built.output, /Unexpected character/)
    assert.match(built.output, /\.node/)
  })

  test('with the package external: the chunks run natively', async () => {
    const built = await run('npx', ['rollup', '-c'], project, { OUT: 'dist/rollup', EXTERNAL: 'mastra-native-processors' })
    assert.equal(built.status, 0, built.output)
    assert.deepEqual(await runBundle('dist/rollup/agent-run.js'), NATIVE_RUN)
  })
})

describe("Mastra's Vercel deployer", () => {
  test('mastra build writes a function with its own node_modules; copied out, its handlers serve natively', async () => {
    const built = await mastraBuild(project, 'vercel')
    assert.equal(built.status, 0, `mastra build failed:\n${built.output}`)
    const fn = copyOut(join(project, '.vercel', 'output', 'functions', 'index.func'), work, 'vercel')
    const called = await run(process.execPath, [join(HERE, 'call-function.mjs'), 'plain', 'weather city'], fn, quiet)
    assert.equal(called.status, 0, called.output)
    const { served, status, body } = JSON.parse(called.output.trim().split('\n').at(-1))
    assert.equal(served.implementation, 'native', served.fallbackReason)
    assert.deepEqual(binariesOf(served, fn), [BINARY])
    assert.deepEqual(runOf({ status, body }), WEATHER(['getWeather']))
  })
})
