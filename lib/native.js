'use strict'
// The Rust addon, loaded once for every module of the package. This file and the
// loader napi-rs generates (../binding.js) are the only code that knows how.
//
// The loader tries, in order: the binary beside it (mastra-native-processors.<platform>.node,
// what `npm run build` leaves in a source checkout), the platform package npm
// installed from our optionalDependencies (mastra-native-processors-<platform>, chosen
// by its os/cpu/libc), then a WebAssembly build (mastra-native-processors-wasm32-wasi),
// which we do not publish and refuse here: under emnapi, what Rust writes into a
// JavaScript Int32Array (the ToolCallFilter's answer buffers) never reaches
// JavaScript, so a WebAssembly ToolCallFilter would silently filter nothing.
// `<platform>` is e.g. linux-x64-gnu, linux-arm64-musl, darwin-arm64 or win32-x64-msvc.
//
// When a build loaded, this module is the binding: its classes, functions and
// enums as properties (lib/*.js destructure them). In every case its `outcome`
// property says what runs, which index.js reads to choose the processors:
//
//   { implementation: 'native', reason: null }     a .node addon loaded
//   { implementation: 'fallback', reason }         none did; reason is one short sentence
//
// May import: nothing of lib/ (the napi-rs loader, ../binding.js, and package.json).

const { napi } = require('../package.json')

const PACKAGE = 'mastra-native-processors'

/**
 * napi-rs's name for the build of a target triple, as `napi create-npm-dirs`
 * names npm/<platform>/ (x86_64-unknown-linux-gnu -> linux-x64-gnu), for the
 * systems we build for. fallback.test.mjs checks it on each target's platform.
 */
const CPUS = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }
function platformOf(triple) {
  const [cpu, ...rest] = triple.split('-')
  const arch = CPUS[cpu] ?? cpu
  const system = rest.join('-')
  if (system === 'apple-darwin') return `darwin-${arch}`
  if (system === 'pc-windows-msvc') return `win32-${arch}-msvc`
  const linux = /^unknown-linux-(gnu|musl)$/.exec(system)
  return linux ? `linux-${arch}-${linux[1]}` : null
}

/** The platforms a build is published for. */
const PUBLISHED = new Set(napi.targets.map(platformOf))

/** This machine as napi-rs names builds: linux-x64-gnu, linux-arm64-musl, darwin-arm64, win32-x64-msvc. */
function platformName() {
  const { platform, arch } = process
  if (platform === 'linux') {
    // The test npm itself uses for `libc`: glibc reports its version, musl none.
    const report = /** @type {{ header?: { glibcVersionRuntime?: string } } | undefined} */ (process.report?.getReport?.())
    const glibc = report?.header?.glibcVersionRuntime
    return `${platform}-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  if (platform === 'win32') return `${platform}-${arch}-msvc`
  return `${platform}-${arch}`
}

const firstLine = (message) => String(message).split('\n')[0]

/**
 * The loader's errors, oldest attempt first. It throws one error whose `cause`
 * chain holds each attempt's message, newest first.
 */
function attempts(error) {
  const messages = []
  for (let cause = error?.cause; cause; cause = cause.cause) messages.unshift(firstLine(cause.message))
  return messages
}

const MISSING_PACKAGE = new RegExp(`^Cannot find module '${PACKAGE}-([^'/]+)'`)

/**
 * Why no build loaded, in one sentence, from what the loader tried: a build that
 * is there but failed to load, else the platform package it looked for and npm
 * did not install, else no build published for this platform. (Files beside the
 * loader are missing in any installed package, and the WebAssembly package is
 * only there when installed on purpose: neither is news.)
 */
function reasonFor(error) {
  const messages = attempts(error)
  if (messages.length === 0) return `its loader failed: ${firstLine(error?.message ?? error)}`
  const failed = messages.find(
    (message) => !message.startsWith('Cannot find module') && !message.includes('wasm32-wasi') && !message.startsWith('Unsupported '),
  )
  if (failed) {
    const platform = new RegExp(`\\.([a-z0-9-]+)\\.node\\b`).exec(failed)?.[1]
    return `${platform ? `the ${platform} build` : 'a build'} did not load: ${failed}`
  }
  const wanted = messages.map((message) => MISSING_PACKAGE.exec(message)?.[1]).filter((platform) => platform && platform !== 'wasm32-wasi')
  const published = wanted.find((platform) => PUBLISHED.has(platform))
  if (published) return `${PACKAGE}-${published} is not installed`
  return `there is no build for ${wanted.at(-1) ?? platformName()}`
}

let binding = null
let reason = null
try {
  binding = require('../binding.js')
} catch (error) {
  reason = reasonFor(error)
}
const target = binding?.__napiBindingTarget
if (typeof target === 'string' && target !== 'native') {
  binding = null
  reason = `the ${target} (WebAssembly) build is not supported: its ToolCallFilter answers would be lost`
}

const outcome = Object.freeze(binding ? { implementation: 'native', reason: null } : { implementation: 'fallback', reason })

/**
 * The binding as binding.d.ts types it, and what runs. Without a build every
 * member but `outcome` throws (below), so the type is the binding's either way.
 * @typedef {typeof import('../binding.js') & { readonly outcome: typeof outcome }} Native
 */

/** @type {Native} */
let native
if (binding) {
  native = /** @type {Native} */ ({ ...binding })
  Object.defineProperty(native, 'outcome', { value: outcome, enumerable: false })
} else {
  // Nothing of the binding is here: reading any of it says why, instead of
  // handing out undefined. (index.js never does; it serves @mastra/core's own.)
  native = /** @type {Native} */ (
    new Proxy(Object.freeze({ outcome }), {
      get(target, key) {
        if (typeof key === 'symbol' || key === 'outcome') return target[key]
        throw new Error(`${PACKAGE}: the native addon is not loaded (${outcome.reason}), so it has no ${key}`)
      },
    })
  )
}
module.exports = native
