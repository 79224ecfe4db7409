// How many seeded cases each randomized test runs: one rule for every test
// file. `npm test` runs the quick count (still hundreds of cases, a few
// seconds a file); `npm run test:all` (scripts/test-all.mjs) sets MNP_TESTS=all
// and runs the long count. A test's own variable (TS_DIFF_CASES=20000, ...)
// overrides both.
//
//   cases('TS_DIFF_CASES', { quick: 500, all: 5000 }) -> the count to run
//   ALL                                             -> MNP_TESTS=all is set

const mode = process.env.MNP_TESTS || 'quick'
if (mode !== 'quick' && mode !== 'all') throw new Error(`MNP_TESTS must be quick or all, not ${JSON.stringify(mode)}`)

export const ALL = mode === 'all'

/** The count for this test: its own variable if set, else the quick or the long count. */
export function cases(variable, { quick, all }) {
  const given = process.env[variable]
  if (given !== undefined && given !== '') {
    const n = Number(given)
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${variable} must be a positive integer, not ${JSON.stringify(given)}`)
    return n
  }
  return ALL ? all : quick
}
