// The random material of the ToolSearchProcessor scenarios, each drawn from a
// seeded generator (random.mjs): words (ASCII, CJK, case-mapping oddities),
// texts with separators JavaScript and Rust disagree on, tool ids and
// descriptions, queries, load_tool inputs and processor options. Pure: no
// release, no tools (the catalogs are drawn in scenario-generation.mjs).
//
//   randomId(rng)                   a tool id: words joined by a separator, or camelCase
//   randomDescription(rng)          normal, empty, long, exactly 150 or 151 characters, or undefined
//   isInheritedName(name)           a name ours never treats as a tool (Object.prototype's): runs avoid them
//   safeName(rng, make)             a name from `make` that is not inherited
//   catalogNames(tools)             keys and ids of a tools record
//   randomQuery(rng, names, descriptions)  words, names, parts of names, unicode, empty, very long
//   nearMiss(rng, names)            a name near an existing one (suggestions), or a miss
//   randomLoadInput(rng, names, extraNames) -> a load_tool input, valid or not
//   randomOptions(rng)              -> { opts, filterSpec } (the filter hook is made per run)

const WORDS = [
  'weather',
  'forecast',
  'email',
  'send',
  'create',
  'issue',
  'github',
  'list',
  'pull',
  'request',
  'merge',
  'slack',
  'message',
  'channel',
  'database',
  'query',
  'insert',
  'update',
  'delete',
  'user',
  'file',
  'read',
  'write',
  'search',
  'calendar',
  'event',
  'invoice',
  'payment',
  'stripe',
  'refund',
  'ticket',
  'jira',
  'deploy',
  'build',
  'log',
  'metrics',
  'alert',
  'translate',
  'image',
  'resize',
  'pdf',
  'export',
  'import',
  'get',
  'set',
  'run',
  'tool',
  'data',
  'city',
  'api',
  'v2',
  'a',
  'an',
  'the',
  'of',
  'to',
  'is',
  'x',
  'premium',
  'admin',
  'report',
  'summary',
  'chart',
  'map',
  'geo',
  'time',
  'zone',
  'currency',
  'convert',
  // unicode
  '天気',
  '予報',
  '邮件',
  '发送',
  '数据库',
  '查询',
  'メール',
  '送信',
  '検索',
  '東京',
  '北京',
  '🔥',
  '🚀',
  '🌦️',
  'Σ',
  'σ',
  'ς',
  'ΣΊΣΥΦΟΣ',
  'İstanbul',
  'İ',
  'ß',
  'straße',
  'Ǆ',
  'ǅ',
  'ﬁle',
  'Ωmega',
  'café',
  'cafe\u0301',
  'naïve',
  'Ångström',
  'K',
  'ı',
  'ǰ',
  'ŉ',
  'Привет',
  'ПОГОДА',
  'погода',
  'مرحبا',
  'שלום',
  'données',
  'über',
  'ÜBER',
]

const SEPARATORS_IN_TEXT = [
  ' ',
  ' ',
  ' ',
  ' ',
  '  ',
  '\t',
  '\n',
  '-',
  '_',
  '.',
  ',',
  ';',
  ':',
  '!',
  '?',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  "'",
  '"',
  ' / ',
  ' & ',
  '+',
  '#',
  '@',
  '|',
  '~',
  '*',
  '\uFEFF', // BOM: \s in JS, not char::is_whitespace in Rust
  '\u0085', // NEL: not \s in JS, whitespace in Rust
  '\u00A0', // NBSP: \s in JS
  '\u2028',
  '\u3000',
  '\u1680',
  '\u200B',
  '\u180E',
  '\u2007',
  '\u000B',
  '\u000C',
  '\r\n',
]

const ID_SEPARATORS = ['_', '-', '.', '', ':', '/', ' ', '__']

function randomWord(rng) {
  const w = rng.pick(WORDS)
  const r = rng.next()
  if (r < 0.1) return w.toUpperCase()
  if (r < 0.2) return w[0].toUpperCase() + w.slice(1)
  if (r < 0.25) return w + rng.int(0, 99)
  return w
}

function randomText(rng, nWords) {
  let s = ''
  for (let i = 0; i < nWords; i++) {
    if (i > 0) s += rng.pick(SEPARATORS_IN_TEXT)
    s += randomWord(rng)
  }
  return s
}

export function randomId(rng) {
  const n = rng.int(1, 4)
  const sep = rng.pick(ID_SEPARATORS)
  const parts = []
  for (let i = 0; i < n; i++) parts.push(randomWord(rng))
  if (sep === '' && rng.bool(0.7)) {
    // camelCase
    return parts.map((p, i) => (i === 0 ? p.toLowerCase() : p[0].toUpperCase() + p.slice(1))).join('')
  }
  return parts.join(sep)
}

/** Names a differential run must avoid: ours treats only own keys as tools. */
export function isInheritedName(name) {
  return typeof name === 'string' && name in Object.prototype
}

export function safeName(rng, make) {
  for (let i = 0; i < 20; i++) {
    const n = make()
    if (!isInheritedName(n)) return n
  }
  return `tool_${rng.int(0, 1e6)}`
}

export function randomDescription(rng) {
  const kind = rng.weighted([
    [6, 'normal'],
    [1, 'empty'],
    [1, 'long'],
    [0.5, 'exact150'],
    [0.5, 'exact151'],
    [0.3, 'undefined'],
  ])
  switch (kind) {
    case 'empty':
      return ''
    case 'undefined':
      return undefined
    case 'long': {
      const s = randomText(rng, rng.int(30, 60))
      return s
    }
    case 'exact150':
    case 'exact151': {
      const target = kind === 'exact150' ? 150 : 151
      let s = randomText(rng, 40)
      while (s.length < target) s += ' ' + randomText(rng, 5)
      s = s.slice(0, target)
      // never cut a surrogate pair in half (no lone surrogates in differential data)
      if (/[\uD800-\uDBFF]$/.test(s)) s = s.slice(0, -1) + 'x'
      return s
    }
    default:
      return randomText(rng, rng.int(1, 14))
  }
}

/** Names (keys and ids) present in a catalog. */
export function catalogNames(tools) {
  const names = []
  for (const [k, t] of Object.entries(tools)) {
    names.push(k)
    if (t && typeof t.id === 'string') names.push(t.id)
  }
  return names
}

/** Query text built from catalog words, partial words, unicode, empty, very long. */
export function randomQuery(rng, names, descriptions) {
  const kind = rng.weighted([
    [5, 'words'],
    [3, 'name'],
    [2, 'partial'],
    [1, 'random'],
    [0.5, 'empty'],
    [0.3, 'spaces'],
    [0.3, 'long'],
    [0.1, 'verylong'],
    [0.5, 'unicode'],
    [0.5, 'dupTokens'],
  ])
  const pickDescWords = () => {
    const d = rng.pick(descriptions.filter(Boolean)) ?? 'weather'
    const words = d.split(/[\s\-_.,;:!?()[\]{}'"]+/).filter(Boolean)
    return rng.sample(words, rng.int(1, 3)).join(rng.pick([' ', '  ', '-', ', ', '_']))
  }
  switch (kind) {
    case 'words':
      return pickDescWords()
    case 'name': {
      const n = rng.pick(names) ?? 'x'
      return rng.bool(0.3) ? n.toUpperCase() : rng.bool(0.3) ? `${n} ${pickDescWords()}` : n
    }
    case 'partial': {
      const n = rng.pick(names) ?? 'weather'
      const a = rng.int(0, Math.max(0, n.length - 2))
      const part = n.slice(a, a + rng.int(1, 6))
      return /[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/.test(part) ? 'part' : part
    }
    case 'empty':
      return ''
    case 'spaces':
      return rng.pick([' ', '   ', '\t\n', '\uFEFF', '\u0085', '-_-', '!?', '\u3000'])
    case 'long':
      return Array.from({ length: rng.int(50, 300) }, () => randomWord(rng)).join(' ')
    case 'verylong':
      return pickDescWords().concat(' ').repeat(rng.int(500, 2000))
    case 'unicode':
      return rng.pick([
        '天気 予報',
        '邮件',
        '🔥',
        '🚀 deploy',
        'ΣΊΣΥΦΟΣ',
        'σίσυφος',
        'İstanbul',
        'i̇stanbul',
        'STRASSE',
        'straße',
        'ǅ',
        'ǆ',
        'ﬁle',
        'file',
        'ω',
        'k',
        'ı',
        'cafe\u0301',
        'café',
        'погода',
        '\u0085weather\u0085',
        'weather\uFEFFemail',
      ])
    case 'dupTokens': {
      const w = pickDescWords()
      return `${w} ${w} ${w}`
    }
    default:
      return randomText(rng, rng.int(1, 5))
  }
}

/** A name near an existing one (to trigger suggestions), or a miss. */
export function nearMiss(rng, names) {
  const n = rng.pick(names) ?? 'tool'
  const kind = rng.int(0, 6)
  let out
  switch (kind) {
    case 0:
      out = n.slice(0, Math.max(1, Math.floor(n.length / 2)))
      break
    case 1:
      out = n.toUpperCase()
      break
    case 2:
      out = n + rng.pick(['s', '_v2', 'X', ' '])
      break
    case 3:
      out = n.length > 3 ? n.slice(1) : n + 'z'
      break
    case 4:
      out = rng.pick(['weather', 'email', 'get', 'send', 'a', 'xyz', '天気', 'Σ', 'İ'])
      break
    case 5:
      out = n.length > 2 ? n[1] + n[0] + n.slice(2) : n
      break
    default:
      out = 'no_such_tool_' + rng.int(0, 9)
  }
  if (/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/.test(out) || isInheritedName(out)) out = 'near_' + rng.int(0, 99)
  return out
}

export function randomLoadInput(rng, names, extraNames = []) {
  const pool = [...names, ...extraNames]
  const nameOf = () =>
    rng.weighted([
      [5, () => rng.pick(pool) ?? 'x'],
      [3, () => nearMiss(rng, pool)],
      [0.3, () => ''],
    ])()
  const kind = rng.weighted([
    [5, 'single'],
    [4, 'multi'],
    [1, 'both'],
    [0.4, 'emptyArray'],
    [0.3, 'emptyArrayWithName'],
    [0.3, 'none'],
    [0.2, 'emptyName'],
    [0.15, 'invalid'],
  ])
  switch (kind) {
    case 'single':
      return { toolName: nameOf() }
    case 'multi': {
      const arr = Array.from({ length: rng.int(1, 6) }, nameOf)
      if (rng.bool(0.3) && arr.length) arr.push(arr[0]) // duplicates
      return { toolNames: arr }
    }
    case 'both':
      return { toolName: nameOf(), toolNames: Array.from({ length: rng.int(1, 3) }, nameOf) }
    case 'emptyArray':
      return { toolNames: [] }
    case 'emptyArrayWithName':
      return { toolNames: [], toolName: nameOf() }
    case 'none':
      return {}
    case 'emptyName':
      return { toolName: '' }
    default:
      return rng.pick([{ toolNames: 'x' }, { toolName: 5 }, { toolNames: [1, 2] }, { toolName: null }])
  }
}

/** Random processor options (filter given as a spec; materialised per run). */
export function randomOptions(rng) {
  const opts = {}
  const search = {}
  if (rng.bool(0.8)) search.topK = rng.int(0, 8)
  if (rng.bool(0.6))
    search.minScore = rng.weighted([
      [3, 0],
      [2, rng.int(0, 30) / 10],
      [1, rng.next() * 3],
      [0.5, 0.1],
    ])
  if (rng.bool(0.35)) search.autoLoad = rng.bool(0.8)
  if (rng.bool(0.85)) opts.search = search
  if (rng.bool(0.5)) opts.storage = rng.bool(0.55) ? 'context' : 'in-memory'
  if (rng.bool(0.6)) opts.ttl = rng.pick([0, 0, -5, 1000, 60_000, 3_600_000, 1.5, 45_000])
  if (rng.bool(0.3)) opts.includeResolvedTools = rng.bool(0.85)
  // Kept on every release: those before 1.67.0 must ignore it, as theirs do.
  if (rng.bool(0.35)) opts.injectCatalog = rng.bool(0.8)
  let filterSpec = null
  if (rng.bool(0.4)) {
    filterSpec = {
      mode: rng.weighted([
        [3, 'sync'],
        [2, 'async'],
        [2, 'mixed'],
      ]),
      denyPct: rng.pick([0, 10, 30, 50, 90, 100]),
      salt: rng.int(0, 1000),
    }
  }
  return { opts, filterSpec }
}
