// Generates oracle.rs: search cases whose expected values come from the
// reference itself, @mastra/core@1.59.0 (a devDependency of this package).
//
//   node src/search/tests/oracle.mjs > src/search/tests/oracle.rs
//
// Expected search results come from the real ToolSearchProcessor (its private
// searchTools, called directly). Expected raw ranking scores, which the
// processor only shows rounded, come from the real BM25Index plus the name
// boost and sort restated below.
import { ToolSearchProcessor } from '@mastra/core/processors';
import { createRequire } from 'module';
import { readdirSync } from 'fs';
import { dirname, join } from 'path';

const require = createRequire(import.meta.url);
// BM25Index is not a public export; find the bundle chunk that defines it.
const dist = dirname(dirname(require.resolve('@mastra/core/processors')));
const chunk = readdirSync(dist).find(f => /^workspace-[^.]+\.cjs$/.test(f) && require(join(dist, f)).BM25Index);
const { BM25Index } = require(join(dist, chunk));
const OPTS = { lowercase: true, removePunctuation: false, minLength: 2, stopwords: new Set(), splitPattern: /[\s\-_.,;:!?()[\]{}'"]+/ };

// The reference's searchTools up to the filter walk, keeping unrounded scores.
function rank(entries, query, limit) {
  const index = new BM25Index({}, OPTS);
  for (const [key, id, desc] of entries) { const name = id || key; index.add(name, `${name} ${desc || ''}`); }
  if (index.size === 0) return [];
  const hits = index.search(query, limit, 0);
  const terms = query.toLowerCase().split(/[\s\-_.,;:!?()[\]{}'"]+/).filter(t => t.length > 1);
  return hits.map(h => { let s = h.score; const n = h.id.toLowerCase();
    for (const t of terms) { if (n === t) s += 5; else if (n.includes(t)) s += 2; } return { id: h.id, score: s }; })
    .sort((a, b) => b.score - a.score);
}

async function search(entries, query, opts, reject) {
  const tools = {};
  for (const [key, id, desc] of entries) { const t = { key }; if (id !== null) t.id = id; if (desc) t.description = desc; tools[key] = t; }
  const asked = [];
  const filter = reject ? ({ tool }) => { asked.push(tool.key); return !reject.includes(tool.key); } : undefined;
  const p = new ToolSearchProcessor({ tools, search: opts, filter });
  const hits = await p.searchTools(p.staticCatalog, query);
  return { hits, asked };
}

function lit(s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xDC00 && s.charCodeAt(i + 1) <= 0xDFFF) {
      const ch = String.fromCodePoint(s.codePointAt(i));
      out += /[\p{L}\p{N}\p{So}]/u.test(ch) ? ch : `\\u{${s.codePointAt(i).toString(16)}}`; i++; continue;
    }
    if (c >= 0xD800 && c <= 0xDFFF) { out += `\\\\u${c.toString(16).toUpperCase().padStart(4, '0')}`; continue; }
    if (c === 0x22 || c === 0x5C) { out += '\\' + s[i]; continue; }
    if (c >= 0x20 && c < 0x7F) { out += s[i]; continue; }
    out += /[\p{L}\p{N}\p{So}]/u.test(s[i]) && !/\p{M}/u.test(s[i]) ? s[i] : `\\u{${c.toString(16)}}`;
  }
  return out + '"';
}
function num(x) {
  if (Number.isNaN(x)) return 'f64::NAN';
  if (x === Infinity) return 'f64::INFINITY';
  if (x === -Infinity) return 'f64::NEG_INFINITY';
  if (Object.is(x, -0)) return '-0.0';
  const s = String(x);
  return /[.e]/.test(s) ? s : s + '.0';
}

const S1 = [
  ['weather', 'get_weather', 'Get the current weather forecast for a city'],
  ['forecast', 'forecast', 'Weather forecast for the next days'],
  ['email', 'send_email', 'Send an email message to a recipient'],
  ['calendar', 'create_event', 'Create a calendar event; invite people by email'],
  ['noid', null, 'Weather tool without an id'],
  ['search', 'web-search', 'Search the web (Google, Bing) for pages about weather'],
];
const S2 = [
  ['a', 'alpha', 'shared words here'],
  ['b', 'beta', 'shared words here'],
  ['c', 'gamma', 'shared words here'],
  ['a2', 'alpha', 'shared words here'],
  ['d', null, 'shared words only'],
  ['e', 'epsilon', 'old description words'],
  ['e2', 'epsilon', 'new description words here'],
];
const S3 = [
  ['sigma', 'ΟΔΟΣ', 'Greek road ΟΔΟΣ.ΧΑΡΤΗΣ maps'],
  ['istanbul', 'İstanbul', 'City guide for İstanbul'],
  ['bom', 'bom_tool', 'alpha\uFEFFbeta gamma'],
  ['nel', 'nel_tool', 'alpha\u0085beta gamma'],
  ['emoji', 'emoji', '😀 party 🎉 tools ü'],
  ['lone', 'lone\uD800', 'broken \uDC00surrogate text'],
  ['long', 'long', 'a'.repeat(146) + '😀' + 'tail words'],
  ['long2', 'exact150', 'b'.repeat(150)],
  ['long3', 'len151', 'c'.repeat(151)],
];
const scenarios = { basic: S1, duplicates: S2, unicode: S3 };
const queries = {
  basic: ['weather forecast', 'email', 'weather weather', 'WEATHER', 'send email', 'get_weather', 'x', '', 'calendar event email', 'noid weather', 'web search', 'weather, email; city!'],
  duplicates: ['shared', 'words here', 'alpha shared', 'only', 'old', 'new description', 'epsilon'],
  unicode: ['οδος', 'ΟΔΟΣ', 'χαρτης', 'i\u0307stanbul', 'İstanbul', 'istanbul', 'beta', 'alpha', '😀', 'party', '\uDC00surrogate', 'lone\uD800', 'long', 'exact150', 'len151', 'gamma'],
};
const optionSets = [
  { topK: 5, minScore: 0 }, { topK: 1, minScore: 0 }, { topK: 2.5, minScore: 0 }, { topK: NaN, minScore: 0 },
  { topK: -1, minScore: 0 }, { topK: Infinity, minScore: 0 }, { topK: 5, minScore: 3 }, { topK: 5, minScore: NaN }, { topK: 0, minScore: 0 },
];

let out = `// Generated by oracle.mjs (next to this file) from @mastra/core@1.59.0's own\n// ToolSearchProcessor and BM25Index; do not edit by hand.\n\nuse super::{catalog, check_rank, check_search, opts};\n`;
for (const [name, entries] of Object.entries(scenarios)) {
  out += `\n#[test]\nfn oracle_${name}() {\n    let c = catalog(&[\n`;
  for (const [k, id, d] of entries) out += `        (${lit(k)}, ${id === null ? 'None' : `Some(${lit(id)})`}, ${lit(d)}),\n`;
  out += `    ]);\n`;
  for (const q of queries[name]) {
    const full = name === 'basic' && ['weather forecast', 'email', 'noid weather'].includes(q);
    for (const limit of [10, 3, 1.5, NaN, -1, Infinity]) {
      if (!full && limit !== 10) continue;
      const r = rank(entries, q, limit);
      out += `    check_rank(&c, ${lit(q)}, ${num(limit)}, &[${r.map(x => `(${lit(x.id)}, ${num(x.score)})`).join(', ')}]);\n`;
    }
    for (const o of optionSets) {
      if (!full && !(o.topK === 5 && o.minScore === 0) && !(o.topK === 1)) continue;
      for (const reject of [null, ['forecast', 'search', 'b'], []]) {
        if (!full && reject && reject.length === 0) continue;
        const { hits, asked } = await search(entries, q, o, reject);
        out += `    check_search(&c, ${lit(q)}, opts(${num(o.topK)}, ${num(o.minScore)}, ${reject ? `Some(&[${reject.map(lit).join(', ')}])` : 'None'}), &[${hits.map(h => `(${lit(h.name)}, ${lit(h.description)}, ${num(h.score)})`).join(', ')}], &[${asked.map(lit).join(', ')}]);\n`;
      }
    }
  }
  out += `}\n`;
}
process.stdout.write(out);
