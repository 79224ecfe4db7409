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

const { optionalDependencies = {} } = require('../package.json')

const PACKAGE = 'mastra-native-processors'

/** This machine as napi-rs names builds: linux-x64-gnu, linux-arm64-musl, darwin-arm64, win32-x64-msvc. */
function platformName() {
  const { platform, arch } = process
  if (platform === 'linux') {
    // The test npm itself uses for `libc`: glibc reports its version, musl none.
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime
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

/** Why no build loaded, in one sentence. */
function reasonFor(error) {
  const platform = platformName()
  const platformPackage = `${PACKAGE}-${platform}`
  if (!(platformPackage in optionalDependencies)) return `there is no build for ${platform}`
  const messages = attempts(error)
  if (messages.length === 0) return `its loader failed: ${firstLine(error?.message ?? error)}`
  // A missing local file is the normal case in an installed package, and the
  // WebAssembly build is only there when installed on purpose: neither is news.
  const telling = messages.filter((message) => !/^Cannot find module '\.\//.test(message) && !message.includes('wasm32-wasi'))
  const [first] = telling
  if (first === undefined) return `the ${platform} build did not load`
  if (first.startsWith(`Cannot find module '${platformPackage}'`)) return `${platformPackage} is not installed`
  return `the ${platform} build did not load: ${first}`
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

if (binding) {
  module.exports = { ...binding }
  Object.defineProperty(module.exports, 'outcome', { value: outcome, enumerable: false })
} else {
  // Nothing of the binding is here: reading any of it says why, instead of
  // handing out undefined. (index.js never does; it serves @mastra/core's own.)
  module.exports = new Proxy(Object.freeze({ outcome }), {
    get(target, key) {
      if (typeof key === 'symbol' || key === 'outcome') return target[key]
      throw new Error(`${PACKAGE}: the native addon is not loaded (${outcome.reason}), so it has no ${key}`)
    },
  })
}
