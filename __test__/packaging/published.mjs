// Every package the release publishes, packed from this checkout as the release
// will publish it, for a registry that stands in for npm's (registry.mjs):
//
//   packAsPublished(dest) -> [tarball, ...]
//
// - the main package with the optionalDependencies the release adds (one per
//   target, at its own version);
// - this machine's platform package, with the binary built here;
// - every other platform package as its manifest alone (npm resolves each
//   optional dependency's manifest, then skips those whose os/cpu/libc do not
//   match, so no binary is ever fetched);
// - each model package (models/*).

import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

import { ROOT, pack, packForThisMachine, packageForThisMachine, platformPackages } from '../../scripts/platform-packages.mjs'

export function packAsPublished(dest) {
  const { main, platformPackage } = packForThisMachine(dest)
  const here = packageForThisMachine()
  const others = platformPackages()
    .filter((entry) => entry.dir !== here.dir)
    .map((entry) => pack(entry.path, dest))
  const models = readdirSync(join(ROOT, 'models'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => pack(join(ROOT, 'models', entry.name), dest))
  rmSync(join(dest, 'stage'), { recursive: true, force: true })
  return [main, platformPackage, ...others, ...models].map(({ tarball }) => tarball)
}
