// `npm install` hook. In a source checkout (Cargo.toml beside package.json) it builds
// the addon in release mode with the napi CLI; in an installed tarball the prebuilt
// binary is already there, so it only checks that one for this platform is.
import { existsSync, readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

if (existsSync(join(root, 'Cargo.toml'))) {
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
  process.exit(result.status ?? 1)
}

/** The platform part of a napi-rs binary's name: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`. */
function platformName() {
  const { platform, arch } = process
  if (platform === 'linux') {
    // glibc reports its version in the process report; musl reports none.
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime
    return `${platform}-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  if (platform === 'win32') return `${platform}-${arch}-msvc`
  return `${platform}-${arch}`
}

const wanted = `mastra-native-processors.${platformName()}.node`
if (!existsSync(join(root, wanted))) {
  const shipped = readdirSync(root).filter((name) => name.endsWith('.node'))
  console.error(
    `mastra-native-processors: this package has no prebuilt binary for ${platformName()} (it needs ${wanted}; ` +
      `it carries ${shipped.length > 0 ? shipped.join(', ') : 'none'}). Build from source with a Rust toolchain: npm run build`,
  )
  process.exit(1)
}
