// Mastra's next release must never break an app. Stand-ins for releases after
// ours, made from @mastra/core 1.71.0's own package (packaging/stand-ins.mjs),
// are installed with npm into fresh projects beside our packed packages, as a
// user who upgrades Mastra has them:
// - 1.72.0 with 1.71.0's processors: npm says nothing of peers; the package
//   recognises the processors by their sources and runs natively with 1.71.0's
//   rules, and an Agent sees exactly what 1.72.0's own processors give it;
// - 1.72.0 whose ToolCallFilter writes another text for a preserved model output
//   (in its code and in its source maps): 1.72.0's own processors are served,
//   with one notice, and the model sees their text;
// - 1.72.0 without source maps: its own processors, with one notice.
// The three projects are installed side by side (npm waits on the network and
// the disk more than on a core), each describe awaiting its own.
// (Pre-releases, and hosts this package knows by version, are in releases.test.mjs.)

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { EXPECTED_RUN, installProjectAsync, runAgent, runPreservedOutput } from './packaging/project.mjs'
import { changePreservedText, dropSourceMaps, standIn } from './packaging/stand-ins.mjs'
import { packForThisMachine } from '../scripts/platform-packages.mjs'

const work = mkdtempSync(join(tmpdir(), 'mnp-stand-ins-'))
after(() => rmSync(work, { recursive: true, force: true }))
const installs = {}

before(() => {
  const { main, platformPackage } = packForThisMachine(work)
  const ours = [main.tarball, platformPackage.tarball]
  const edits = { same: undefined, changed: changePreservedText, 'no-maps': dropSourceMaps }
  for (const [name, edit] of Object.entries(edits)) {
    const tarball = standIn(join(work, 'stand-ins', name), '1.72.0', edit)
    installs[name] = installProjectAsync(join(work, name), [tarball, ...ours])
  }
})

const USING = "; using @mastra/core's own ToolSearchProcessor and ToolCallFilter instead."
const REMEDY = ' A newer mastra-native-processors may run them natively: npm install mastra-native-processors@latest'
const FORCED = 'MASTRA_NATIVE_PROCESSORS=fallback is set'
const UNTESTED = '@mastra/core 1.72.0 was not tested with this version of mastra-native-processors'

/**
 * A fresh project with this stand-in and our packages: npm must succeed, say
 * nothing of peers, and find no engine of ours unsupported (Mastra's own
 * dependencies ask for Node 22 and warn on 20).
 */
async function projectWith(name) {
  const dir = join(work, name)
  const installed = await installs[name]
  const said = `${installed.stdout}${installed.stderr}`
  assert.equal(installed.status, 0, `npm install failed:\n${said}`)
  assert.doesNotMatch(said, /peer|ERESOLVE/i)
  assert.doesNotMatch(said, /package: 'mastra-native-processors/)
  return dir
}

/** The JSON line a script printed, with its stderr. */
function output(result) {
  assert.equal(result.status, 0, result.stderr)
  return { ...JSON.parse(result.stdout), stderr: result.stderr }
}

const agentRun = (dir, env) => {
  const { implementation, calls, text, toolResults, stderr } = output(runAgent(dir, env))
  return { implementation, run: { calls, text, toolResults }, stderr }
}
const expectedRun = { calls: EXPECTED_RUN.calls, text: EXPECTED_RUN.text, toolResults: EXPECTED_RUN.toolResults }

describe("@mastra/core 1.72.0 with 1.71.0's processors", () => {
  let dir
  before(async () => (dir = await projectWith('same')))

  test("runs natively, silently, and the Agent sees what 1.72.0's own processors give it", () => {
    assert.deepEqual(agentRun(dir), { implementation: 'native', run: expectedRun, stderr: '' })
    assert.deepEqual(agentRun(dir, { MASTRA_NATIVE_PROCESSORS: 'fallback' }), {
      implementation: 'fallback',
      run: expectedRun,
      stderr: `mastra-native-processors: ${FORCED}${USING}\n`,
    })
  })

  test("a preserved model output becomes the same text as with 1.72.0's own filter", () => {
    const texts = ['Find order 42.', 'searchDatabase result:\n{"rows":[]}']
    assert.deepEqual(output(runPreservedOutput(dir)), { implementation: 'native', texts, stderr: '' })
    assert.deepEqual(output(runPreservedOutput(dir, { MASTRA_NATIVE_PROCESSORS: 'fallback' })), {
      implementation: 'fallback',
      texts,
      stderr: `mastra-native-processors: ${FORCED}${USING}\n`,
    })
  })
})

describe('@mastra/core 1.72.0 whose ToolCallFilter changed', () => {
  let dir
  before(async () => (dir = await projectWith('changed')))

  test('is served its own processors, with a notice naming the release, what changed and how to get native speed back; the model sees their text', () => {
    const reason = `${UNTESTED}, and its processors differ from every tested release's (src/processors/processors/tool-call-filter.ts changed since 1.71.0)`
    assert.deepEqual(output(runPreservedOutput(dir)), {
      implementation: 'fallback',
      texts: ['Find order 42.', 'searchDatabase output:\n{"rows":[]}'],
      stderr: `mastra-native-processors: ${reason}${USING}${REMEDY}\n`,
    })
    assert.deepEqual(agentRun(dir), { implementation: 'fallback', run: expectedRun, stderr: `mastra-native-processors: ${reason}${USING}${REMEDY}\n` })
  })
})

describe('@mastra/core 1.72.0 without source maps', () => {
  test('is served its own processors, with a notice saying its sources could not be compared', async () => {
    const dir = await projectWith('no-maps')
    const { stderr, ...served } = agentRun(dir)
    assert.deepEqual(served, { implementation: 'fallback', run: expectedRun })
    assert.match(
      stderr,
      new RegExp(
        `^mastra-native-processors: ${UNTESTED}, and its processors could not be compared: it has no source map dist/agent-[\\w-]+\\.js\\.map${USING.replace(/[.()]/g, '\\$&')}`,
      ),
    )
    assert.ok(stderr.endsWith(`${REMEDY}\n`), stderr)
  })
})
