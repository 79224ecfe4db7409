// `npm run bench`'s command line: its usage, its options, and the groups its
// rows fall in. Nothing here imports @mastra/core or the addon, so `--help` and
// a usage error answer at once, before bench.mjs loads them.

/** The groups of rows, for `--only`, and what each holds. */
export const GROUPS = {
  filter: 'ToolCallFilter, 1.59.0 (message list) and 1.71.0 (prompt)',
  search: 'ToolSearchProcessor: construction, search_tools',
  step: 'ToolSearchProcessor: processInputStep',
  large: '100,000 tools (the reference estimated)',
  'end-to-end': 'a whole agent.generate with both processors',
  other: 'any row in none of the above',
}

/**
 * A row's group: its own `group`, else from its name, so rows added without
 * one land in the group their name says.
 */
export function groupOf(workload) {
  if (workload.group) return workload.group
  const { name } = workload
  if (name.startsWith('ToolCallFilter')) return 'filter'
  if (name.includes('(reference estimated)')) return 'large'
  if (name.startsWith('ToolSearch construct') || name.startsWith('search_tools')) return 'search'
  if (name.startsWith('processInputStep')) return 'step'
  return 'other'
}

const groupList = Object.entries(GROUPS)
  .map(([group, holds]) => `                       ${group.padEnd(11)} ${holds}`)
  .join('\n')

export const USAGE = `Usage: npm run bench -- [options]
       node --expose-gc benches/bench.mjs [options]

Times mastra-native-processors against @mastra/core's own ToolCallFilter and
ToolSearchProcessor, side by side in one process, each workload in a process
of its own, and prints the median time per operation and the speedup
(reference / native). A full run takes 10 minutes or more. Progress goes to
stderr, the table to stdout.

  --only <group>     only the rows of these groups (comma-separated, or repeated):
${groupList}
  --filter <text>    only the rows whose "workload size" contains <text>
  --sizes <n,...>    these sizes (tools, or messages for the history rows) for
                     every row chosen instead of each row's own
  --history <n>      messages of history before the end-to-end history row's
                     request (default 400)
  --quick            fewer samples
  --json             also write benches/results.json
  --chart            also write benches/speedup.svg (the README's chart)
  -h, --help         this text`

const WHOLE = /^[1-9]\d*$/

/**
 * The options in `argv`: `{ help }`, `{ error }` (a usage error's message), or
 * `{ options }`. `--workload <n>` is bench.mjs's own, for the process it starts
 * per workload.
 */
export function parseOptions(argv) {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true }
  const options = { quick: false, json: false, chart: false, filter: '', only: null, sizes: null, history: 400, workload: undefined }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--quick') options.quick = true
    else if (arg === '--json') options.json = true
    else if (arg === '--chart') options.chart = true
    else if (['--only', '--filter', '--sizes', '--history', '--workload'].includes(arg)) {
      const value = argv[++i]
      if (value === undefined) return { error: `${arg} needs a value` }
      if (arg === '--filter') options.filter = value.toLowerCase()
      else if (arg === '--only') {
        const groups = value.split(',').map((group) => group.trim())
        const unknown = groups.find((group) => !Object.hasOwn(GROUPS, group))
        if (unknown !== undefined) return { error: `unknown group ${JSON.stringify(unknown)} (the groups: ${Object.keys(GROUPS).join(', ')})` }
        options.only = [...(options.only ?? []), ...groups]
      } else if (arg === '--sizes') {
        const sizes = value.split(',').map((size) => size.trim())
        if (!sizes.every((size) => WHOLE.test(size) && Number(size) <= 1_000_000))
          return { error: '--sizes takes whole numbers from 1 to 1000000, separated by commas' }
        options.sizes = sizes.map(Number)
      } else if (arg === '--history') {
        if (!WHOLE.test(value) || Number(value) > 100_000) return { error: '--history takes a whole number of messages from 1 to 100000' }
        options.history = Number(value)
      } else {
        if (!/^\d+$/.test(value)) return { error: '--workload takes a workload index' }
        options.workload = Number(value)
      }
    } else return { error: `unknown option ${JSON.stringify(arg)}` }
  }
  return { options }
}
