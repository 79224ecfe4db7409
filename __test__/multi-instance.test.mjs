// Running on more than one server. The 'in-memory' store is per process; with
// storage: 'context' the loaded tools are read back from the thread's messages,
// so a Mastra memory on a shared database carries them from one server to the
// next. Two Node processes (multi-instance/server.mjs), each with its own Agent,
// ToolSearchProcessor and Memory on one libSQL database file: a tool loaded
// through the first is offered to, and runs in, the second on the same thread.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

import { startServer } from './multi-instance/client.mjs'

// libSQL publishes no build for some platforms this package runs on (Windows on arm64).
const noLibsql = (() => {
  try {
    createRequire(import.meta.url)('libsql')
    return false
  } catch (error) {
    return `libSQL does not load here: ${error.message.split('\n')[0]}`
  }
})()

const work = mkdtempSync(join(tmpdir(), 'mnp-multi-'))
const servers = []

/** Starts a server process (multi-instance/server.mjs) on a libSQL file of `work`. */
async function start(name, storage, database) {
  const server = await startServer({ name, storage, url: pathToFileURL(join(work, database)).href })
  servers.push(server)
  return {
    pid: server.pid,
    implementation: server.implementation,
    /** Runs one request on this server; resolves with what its model was offered and what ran. */
    async request(kind, thread) {
      const { server: _, ...reply } = await server.request({ kind, thread })
      return reply
    },
  }
}

after(async () => {
  await Promise.all(servers.map((server) => server.stop()))
  rmSync(work, { recursive: true, force: true })
})

/** The first request: search (the context store counts search results as loaded), then load. */
const searchResult = [
  'search_tools',
  {
    results: [{ name: 'getWeather', description: 'Get the current weather for a city', score: 2.67 }],
    message: 'Found 1 tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.',
  },
]
const LOADED_CONTEXT = {
  calls: [
    ['search_tools', 'load_tool'],
    ['search_tools', 'load_tool', 'getWeather'],
    ['search_tools', 'load_tool', 'getWeather'],
  ],
  toolResults: [searchResult, ['load_tool', { success: true, message: 'Tool "getWeather" is already loaded and available.', toolName: 'getWeather' }]],
  text: 'getWeather is loaded.',
}
const LOADED_IN_MEMORY = {
  calls: [
    ['search_tools', 'load_tool'],
    ['search_tools', 'load_tool'],
    ['search_tools', 'load_tool', 'getWeather'],
  ],
  toolResults: [
    searchResult,
    ['load_tool', { success: true, message: 'Tool "getWeather" loaded successfully. It will be available on your next turn.', toolName: 'getWeather' }],
  ],
  text: 'getWeather is loaded.',
}
const NOT_OFFERED = { calls: [['search_tools', 'load_tool']], toolResults: [], text: 'I have no weather tool.' }

describe("storage: 'context' on a shared Mastra memory (libSQL file)", { skip: noLibsql }, () => {
  let first
  let second
  before(async () => {
    // Both up before anything is loaded: the second learns of the tool only from the database.
    first = await start('first', 'context', 'shared.db')
    second = await start('second', 'context', 'shared.db')
  })

  test('two separate processes, each with the native processors', () => {
    assert.notEqual(first.pid, second.pid)
    assert.deepEqual([first.implementation, second.implementation], ['native', 'native'])
  })

  test('a tool loaded through the first server is offered by the second on the same thread, and runs there', async () => {
    assert.deepEqual(await first.request('load', 'thread-1'), LOADED_CONTEXT)
    assert.deepEqual(await second.request('use', 'thread-1'), {
      calls: [
        ['search_tools', 'load_tool', 'getWeather'],
        ['search_tools', 'load_tool', 'getWeather'],
      ],
      toolResults: [['getWeather', { city: 'Paris', tempC: 18, server: 'second' }]],
      text: 'It is 18C in Paris.',
    })
  })

  test('another thread of the same user does not get it', async () => {
    assert.deepEqual(await second.request('use', 'thread-2'), NOT_OFFERED)
    assert.deepEqual(await first.request('use', 'thread-2'), NOT_OFFERED)
  })
})

describe("storage: 'in-memory', for contrast: the state stays in the process that loaded the tool", { skip: noLibsql }, () => {
  test('the second server does not offer what the first loaded, though the messages are in the shared database', async () => {
    const first = await start('first-in-memory', 'in-memory', 'in-memory.db')
    const second = await start('second-in-memory', 'in-memory', 'in-memory.db')
    assert.deepEqual(await first.request('load', 'thread-1'), LOADED_IN_MEMORY)
    assert.deepEqual(await second.request('use', 'thread-1'), NOT_OFFERED)
    // The first still has it, in its own memory.
    assert.deepEqual((await first.request('use', 'thread-1')).toolResults, [['getWeather', { city: 'Paris', tempC: 18, server: 'first-in-memory' }]])
  })
})
