// `npm install` hook. In a source checkout (Cargo.toml beside package.json) it builds
// the addon in release mode with the napi CLI; in an installed tarball the prebuilt
// binary is already there, so it only checks that one matches this platform.
import { existsSync, readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

if (existsSync(join(root, 'Cargo.toml'))) {
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
  process.exit(result.status ?? 1)
}

const binaries = readdirSync(root).filter((name) => name.endsWith('.node'))
if (binaries.length === 0) {
  console.error(
    'mastra-native-processors: no prebuilt binary in this package for ' +
      `${process.platform}-${process.arch}. Build from source with a Rust toolchain: npm run build`,
  )
  process.exit(1)
}
