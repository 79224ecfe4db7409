// The files under a folder of the checkout, for the tests that hold a
// package's file list to what the checkout has.
//
//   filesUnder(dir) -> ['lib/native.js', ...]  (paths from the checkout's root, with '/')

import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'

import { ROOT } from '../../scripts/platform-packages.mjs'

export const filesUnder = (dir) =>
  readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      relative(ROOT, join(entry.parentPath ?? entry.path, entry.name))
        .split('\\')
        .join('/'),
    )
