// The one home of randomness in the tests: small seeded generators, so that a
// randomized (differential) case can be replayed from the seed printed in its
// assertion message. The same seed gives the same sequence on every platform.
//
//   createRng(seed, generator = mulberry32) -> { next, int, bool, chance, pick, weighted, shuffle,
//                                               sample, subset, ascii, string, whitespace }
//   mulberry32(seed), sfc32(seed)  the raw generators: functions giving floats in [0, 1)
//   deriveSeed(base, index)        a well-mixed seed for case `index` of a run
//   TRICKY_CHARS                   characters that tend to break native string handling
//
// mulberry32 (32-bit state) serves most tests; sfc32 (128-bit state, seeded
// through splitmix32) is what the ToolSearchProcessor scenarios and the
// context-history runs were drawn with, kept so that their seeds still give the
// same cases.

/** Raw mulberry32 generator: returns a function producing floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** splitmix32: a stream of 32-bit words from one seed, to seed sfc32's four words. */
function splitmix32(a) {
  return () => {
    a |= 0
    a = (a + 0x9e3779b9) | 0
    let t = a ^ (a >>> 16)
    t = Math.imul(t, 0x21f0aaad)
    t ^= t >>> 15
    t = Math.imul(t, 0x735a2d97)
    return (t ^ (t >>> 15)) >>> 0
  }
}

/** Raw sfc32 generator, seeded through splitmix32: returns a function producing floats in [0, 1). */
export function sfc32(seed) {
  const sm = splitmix32(seed >>> 0)
  let a = sm(),
    b = sm(),
    c = sm(),
    d = sm()
  return function next() {
    a >>>= 0
    b >>>= 0
    c >>>= 0
    d >>>= 0
    let t = (a + b) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    d = (d + 1) | 0
    t = (t + d) | 0
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
}

/** Derive a well-mixed 32-bit seed from a base seed and an index (e.g. a case number). */
export function deriveSeed(base, index = 0) {
  let h = (Math.imul(base >>> 0, 0x9e3779b1) ^ Math.imul((index >>> 0) + 0x7f4a7c15, 0x85ebca6b)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}

/**
 * Characters that tend to break native string handling:
 * - whitespace that JS `trim()`/`\s` and Rust `char::is_whitespace` disagree on
 *   (U+0085 is Rust-whitespace only; U+FEFF is JS-whitespace only; U+180E and U+200B are neither),
 * - line/paragraph separators, NBSP, ideographic space,
 * - astral characters (surrogate pairs), combining marks, RTL, ZWJ sequences,
 * - case-mapping oddities (İ, ß, final sigma, Kelvin sign),
 * - control characters, quotes and backslashes (JSON escaping),
 * - LONE surrogates (cannot round-trip through UTF-8: a lossy conversion maps both
 *   '\uD800' and '\uDC00' to U+FFFD, which makes distinct strings compare equal).
 */
export const TRICKY_CHARS = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u0085',
  '\u00a0',
  '\u1680',
  '\u180e',
  '\u2000',
  '\u200a',
  '\u200b',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
  '😀',
  '👩‍💻',
  '𝒜',
  '\u{10ffff}',
  'e\u0301',
  '\u0301',
  'ع',
  'ש',
  '\u200d',
  '\u200e',
  'İ',
  'ı',
  'ß',
  'ẞ',
  'Σ',
  'ς',
  'K',
  'ﬃ',
  'Ω',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0080',
  '"',
  '\\',
  '/',
  "'",
  '<',
  '>',
  '&',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ufffd',
  '\uffff',
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
  '日',
  '本',
  'ツ',
  'ー',
  'ル',
  '中',
  '文',
  'é',
  'ü',
  'ñ',
  'Ä',
]

const ASCII = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** Create a seeded random helper object over `generator` (mulberry32 or sfc32). */
export function createRng(seed, generator = mulberry32) {
  const next = generator(seed)
  const rng = {
    seed: seed >>> 0,
    /** float in [0, 1) */
    next,
    /** integer in [min, max] (inclusive) */
    int(min, max) {
      return min + Math.floor(next() * (max - min + 1))
    },
    /** true with probability p (0.5 unless given) */
    bool(p = 0.5) {
      return next() < p
    },
    /** true with probability p (bool with a probability, by another name) */
    chance(p) {
      return rng.bool(p)
    },
    /** uniformly random element */
    pick(arr) {
      return arr[Math.floor(next() * arr.length)]
    },
    /** pick from [[weight, value], ...] */
    weighted(entries) {
      let total = 0
      for (const [w] of entries) total += w
      let r = next() * total
      for (const [w, v] of entries) {
        r -= w
        if (r < 0) return v
      }
      return entries[entries.length - 1][1]
    },
    /** Fisher-Yates shuffle (returns a new array) */
    shuffle(arr) {
      const out = [...arr]
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[out[i], out[j]] = [out[j], out[i]]
      }
      return out
    },
    /** n elements drawn without replacement, in drawn order */
    sample(arr, n) {
      return rng.shuffle(arr).slice(0, n)
    },
    /** random subset (each element kept with probability p, order preserved) */
    subset(arr, p = 0.5) {
      return arr.filter(() => next() < p)
    },
    /** plain ASCII alphanumeric string */
    ascii(minLen = 0, maxLen = 8) {
      const len = rng.int(minLen, maxLen)
      let s = ''
      for (let i = 0; i < len; i++) s += ASCII[Math.floor(next() * ASCII.length)]
      return s
    },
    /**
     * Random string mixing ASCII with TRICKY_CHARS (unicode, whitespace, lone surrogates...).
     * `unicode` is the probability of each character being a tricky one.
     */
    string(minLen = 0, maxLen = 12, unicode = 0.3) {
      const len = rng.int(minLen, maxLen)
      let s = ''
      for (let i = 0; i < len; i++) {
        s += next() < unicode ? rng.pick(TRICKY_CHARS) : ASCII[Math.floor(next() * ASCII.length)]
      }
      return s
    },
    /** string made only of whitespace-ish characters (JS-whitespace or not) */
    whitespace(minLen = 0, maxLen = 4) {
      const ws = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u0085', '\u180e', '\u200b']
      const len = rng.int(minLen, maxLen)
      let s = ''
      for (let i = 0; i < len; i++) s += rng.pick(ws)
      return s
    },
  }
  return rng
}
