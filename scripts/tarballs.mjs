// `npm run tarballs [-- <dir>]`: packs this checkout's build for installing into
// a project without the registry: the main package as the release publishes it,
// this machine's platform package with the binary just built, and the built-in
// embedding model's package (only `search.ranking: 'hybrid'` needs it). Prints
// the `npm install` line that takes them.

import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ROOT, pack, packForThisMachine } from './platform-packages.mjs'

const dest = resolve(process.argv[2] ?? join(ROOT, '.scratch', 'tarballs'))
mkdirSync(dest, { recursive: true })
const { main, platformPackage } = packForThisMachine(dest)
const models = readdirSync(join(ROOT, 'models'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => pack(join(ROOT, 'models', entry.name), dest))
rmSync(join(dest, 'stage'), { recursive: true, force: true })

console.log(`packed into ${dest}:`)
for (const { tarball } of [main, platformPackage, ...models]) console.log(`  ${tarball}`)
console.log('\nin your project:')
console.log(`  npm install ${main.tarball} ${platformPackage.tarball}`)
if (models.length > 0) console.log(`and for search.ranking 'hybrid' with the built-in model:\n  npm install ${models.map((m) => m.tarball).join(' ')}`)
