// A fresh Mastra project for the package tests, and what the Agent run in it
// (agent-run.mjs) must give whichever implementation serves it.
//
//   freshProject(dir, tarballs, npmArgs?) -> dir, with @mastra/core 1.71.0 and these tarballs installed (--ignore-scripts)
//   installProject(dir, tarballs, npmArgs?) -> npm install's { status, stdout, stderr } for the same project
//   installProjectAsync(dir, tarballs, npmArgs?) -> the same, as a promise (installs that run side by side)
//   runAgent(dir, env?)                   -> { status, stdout, stderr } of agent-run.mjs there
//   env                                   -> this environment with no Rust toolchain on PATH
//   EXPECTED_RUN                          -> the model calls, text and tool results of that run

import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { delimiter, join } from 'node:path'

import { templateDir } from '../fixtures/releases.mjs'
import { ROOT, withoutNpmRunEnv } from '../../scripts/platform-packages.mjs'

/** PATH without any directory that holds cargo or rustc. */
function pathWithoutRust() {
  const names = process.platform === 'win32' ? ['cargo.exe', 'rustc.exe'] : ['cargo', 'rustc']
  return process.env.PATH.split(delimiter)
    .filter((dir) => !names.some((name) => existsSync(join(dir, name))))
    .join(delimiter)
}
export const env = { ...withoutNpmRunEnv(process.env), PATH: pathWithoutRust() }

export const run = (command, args, cwd, extraEnv = {}) =>
  spawnSync(command, args, {
    cwd,
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
    shell: process.platform === 'win32' && (command === 'npm' || command === 'npx'),
  })

/**
 * A project as a user has it on @mastra/core 1.71.0 (the agent fixture's
 * package.json and lockfile), into which npm installs these tarballs with
 * `--ignore-scripts`.
 */
export function freshProject(dir, tarballs, npmArgs = []) {
  const installed = installProject(dir, tarballs, npmArgs)
  assert.equal(installed.status, 0, `npm install failed:\n${installed.stdout}${installed.stderr}`)
  return dir
}

/** As freshProject, returning what npm install printed (its status, stdout and stderr), whatever it was. */
export function installProject(dir, tarballs, npmArgs = []) {
  return run('npm', installArgs(dir, tarballs, npmArgs), dir)
}

/** As installProject, without blocking: resolves (never rejects) to { status, stdout, stderr }. */
export function installProjectAsync(dir, tarballs, npmArgs = []) {
  const args = installArgs(dir, tarballs, npmArgs)
  return new Promise((resolve) => {
    const child = spawn('npm', args, { cwd: dir, env, shell: process.platform === 'win32' })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    child.once('error', (error) => resolve({ status: null, stdout, stderr: `${stderr}${error}` }))
    child.once('close', (status) => resolve({ status, stdout, stderr }))
  })
}

/** The project's files in dir, and npm install's arguments for it. */
function installArgs(dir, tarballs, npmArgs) {
  mkdirSync(dir, { recursive: true })
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(templateDir('1.71.0'), file), join(dir, file))
  for (const script of ['agent-run.mjs', 'preserved-output.mjs']) copyFileSync(join(ROOT, '__test__', 'packaging', script), join(dir, script))
  return ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', ...npmArgs, ...tarballs]
}

export const runAgent = (dir, extraEnv) => run(process.execPath, ['agent-run.mjs'], dir, extraEnv)
/** preserved-output.mjs there: one prompt through ToolCallFilter({ preserveModelOutput: true }). */
export const runPreservedOutput = (dir, extraEnv) => run(process.execPath, ['preserved-output.mjs'], dir, extraEnv)

const INSTRUCTIONS = [
  'Search for tools, load them, then use them.',
  'To discover available tools, call search_tools with a keyword query. To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. Tools must be loaded before they can be used.',
  'Find order 42.',
  'There is no order 42.',
  'What is the weather in Paris?',
]

/** The meta-tools are offered, then the loaded getWeather; the earlier searchDatabase call is filtered out of every prompt. */
export const EXPECTED_RUN = {
  calls: [
    { tools: ['search_tools', 'load_tool'], toolCallIds: [], texts: INSTRUCTIONS },
    { tools: ['search_tools', 'load_tool'], toolCallIds: ['c1'], texts: INSTRUCTIONS },
    { tools: ['search_tools', 'load_tool', 'getWeather'], toolCallIds: ['c1', 'c2'], texts: INSTRUCTIONS },
    { tools: ['search_tools', 'load_tool', 'getWeather'], toolCallIds: ['c1', 'c2', 'c3'], texts: INSTRUCTIONS },
  ],
  text: 'It is 18C in Paris.',
  toolResults: [
    [
      'search_tools',
      {
        results: [{ name: 'getWeather', description: 'Get the current weather for a city', score: 3.82 }],
        message: 'Found 1 tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.',
      },
    ],
    ['load_tool', { success: true, message: 'Tool "getWeather" loaded successfully. It will be available on your next turn.', toolName: 'getWeather' }],
    ['getWeather', { city: 'Paris', tempC: 18 }],
  ],
}
