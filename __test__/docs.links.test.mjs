// The documentation's relative links resolve: every link in the README, docs/,
// ARCHITECTURE.md, CONTRIBUTING.md, benches/README.md and fuzz/README.md names a
// file or folder that exists, and where it has a #anchor, a heading of that
// Markdown file with that GitHub slug. Also: the README stays a front door
// (at most 250 lines) and names every page of docs/.

import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, test } from 'node:test'

const ROOT = resolve(import.meta.dirname, '..')
const README_MAX_LINES = 250

const docs = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`)
  .sort()
const PAGES = ['README.md', ...docs, 'ARCHITECTURE.md', 'CONTRIBUTING.md', 'benches/README.md', 'fuzz/README.md']

/** The lines of a Markdown text outside fenced code blocks, inline code taken out. */
function proseLines(text) {
  const lines = []
  let fence = null
  for (const line of text.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence === null && opening) fence = opening[1]
    else if (fence !== null && line.trim().startsWith(fence)) fence = null
    else if (fence === null) lines.push(line.replace(/(`+)[^`]*?\1/g, ''))
  }
  return lines
}

/**
 * A heading's anchor as GitHub makes it (github-slugger): the text as
 * rendered, lowercased, every character but letters, marks, digits,
 * underscores, hyphens and spaces dropped, spaces made hyphens.
 */
function slug(heading) {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a Markdown file's headings, with GitHub's -1, -2 for repeats. */
function anchorsOf(file) {
  const anchors = new Set()
  const seen = new Map()
  let fence = null
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence === null && opening) fence = opening[1]
    else if (fence !== null && line.trim().startsWith(fence)) fence = null
    if (fence !== null || opening) continue
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = slug(heading[1])
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** Every link target of a Markdown text: inline links, images and reference definitions. */
function linkTargets(text) {
  const targets = []
  for (const line of proseLines(text)) {
    for (const match of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1])
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line)
    if (definition) targets.push(definition[1])
  }
  return targets
}

/** Why a relative link from `page` does not resolve, or null. */
function brokenLink(page, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null
  const hash = target.indexOf('#')
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1))
  const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), path)
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`
  if (anchor === null) return null
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return `#${anchor} on ${relative(ROOT, file)}, which has no headings`
  if (!anchorsOf(file).has(anchor)) return `${relative(ROOT, file)} has no heading #${anchor}`
  return null
}

describe('documentation links', () => {
  test('slugs are made as GitHub makes them', () => {
    assert.equal(slug("Following Mastra's releases"), 'following-mastras-releases')
    assert.equal(slug("Finding tools by meaning: `search.ranking: 'hybrid'`"), 'finding-tools-by-meaning-searchranking-hybrid')
    assert.equal(slug('Under load: `npm run soak`'), 'under-load-npm-run-soak')
    assert.equal(slug("The 1.59 filter in the reference's order"), 'the-159-filter-in-the-references-order')
    assert.equal(slug('See [the README](../README.md) first'), 'see-the-readme-first')
  })

  for (const page of PAGES) {
    test(`every relative link of ${page} resolves`, () => {
      assert.ok(existsSync(join(ROOT, page)), `${page} exists`)
      const targets = linkTargets(readFileSync(join(ROOT, page), 'utf8'))
      const broken = targets.map((target) => [target, brokenLink(page, target)]).filter(([, why]) => why !== null)
      assert.deepEqual(broken, [], `${page}: ${broken.map(([target, why]) => `(${target}): ${why}`).join('; ')}`)
    })
  }

  test(`the README has at most ${README_MAX_LINES} lines and links to every page of docs/`, () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`)
    const linked = new Set(linkTargets(text).map((target) => target.split('#')[0]))
    assert.deepEqual(
      docs.filter((page) => !linked.has(page)),
      [],
    )
    assert.ok(docs.length >= 5, `docs/ has ${docs.length} pages`)
  })
})
