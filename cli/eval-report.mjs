// `eval`'s report: where the questions came from, each ranking's figures,
// the questions each missed with what it ranked instead, and a plain reading:
// which ranking to set and the option line to paste.

import { duration, quote } from './report.mjs'
import { bestRanking } from './eval.mjs'

const pct = (x) => `${(x * 100).toFixed(1)}%`
const count = (n) => n.toLocaleString('en-US')
const plural = (n, one, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`
const list = (names) => (names.length === 0 ? 'nothing' : names.join(', '))

/** Where the questions came from, and for questions from memory what was skipped and why. */
export function sourceLines(source) {
  if (source.kind === 'file') return [`${plural(source.found, 'question')} from ${source.path}`]
  const where = source.kind === 'messages' ? source.path : `the memory of ${source.path}`
  const lines = [
    `${plural(source.found, 'question')} from ${plural(source.threads, 'thread')} of ${where} (the ${source.threads === source.limit ? `${source.limit} most recent` : 'threads there'}): ` +
      `${plural(source.searches, 'search_tools call')}, ${source.found} followed by a load_tool or a call of one of your tools, ${source.searches - source.found} skipped`,
  ]
  for (const { reason, count, examples } of source.skipped) {
    lines.push(`  skipped ${count}: ${reason}${examples.length > 0 ? ` (e.g. ${examples.join('; ')})` : ''}`)
  }
  return lines
}

function table(results) {
  const header = ['ranking', 'hit@1', 'hit@5', 'MRR@5', 'per question']
  const rows = results.rankings.map((r) =>
    r.available ? [r.label, pct(r.hit1), pct(r.hit5), r.mrr5.toFixed(3), duration(r.msPerQuestion)] : [r.label, `not measured: ${r.reason}`],
  )
  const widths = header.map((_, i) => Math.max(header[i].length, ...rows.filter((row) => i === 0 || row.length > 2).map((row) => row[i].length)))
  const format = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[0]) : cells.length === 2 ? cell : cell.padStart(widths[i]))).join('  ')
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(format)].join('\n')
}

function missesOf(results) {
  const out = []
  for (const r of results.rankings) {
    if (!r.available || r.missed === 0) continue
    const shown = r.misses.length < r.missed ? `; the first ${r.misses.length}` : ''
    if (r.misses.length === 0) continue
    const lines = r.misses.map((m) => `  ${quote(m.question)}\n    want ${list(m.want)}\n    got  ${list(m.got)}`)
    out.push(`Missed by ${r.label} (${r.missed} of ${r.questions}${shown}):\n${lines.join('\n')}`)
  }
  return out
}

/** Which ranking to set and why, in a few sentences; `choice` its id, `option` the line to paste (null: nothing to set). */
export function reading(results) {
  const measured = results.rankings.filter((r) => r.available)
  const best = bestRanking(measured)
  const mastra = measured.find((r) => r.id === 'mastra')
  const n = best.questions
  const said = []
  const right = (r) => `${count(r.hits5)} of ${count(n)} (${pct(r.hit5)}) in the first 5, ${count(r.hits1)} (${pct(r.hit1)}) first`
  if (best.id === 'mastra') {
    said.push(
      `Keep Mastra's ranking, the default: no other ranking found a right tool for more of your questions. It finds ${right(best)}.` +
        (best.option ? ` Paste: ${best.option}` : " Nothing to set: ToolSearchProcessor without search.ranking ranks as Mastra's does."),
    )
  } else {
    said.push(
      `Set ${best.label}: it finds ${right(best)}; Mastra's ranking ${count(mastra.hits5)} (${pct(mastra.hit5)}) and ${count(mastra.hits1)} (${pct(mastra.hit1)}).`,
    )
    said.push(`Paste into new ToolSearchProcessor({ tools, ... }): ${best.option}`)
    if (best.id === 'hybrid') said.push("'hybrid' reads its model from mastra-native-processors-potion-base-8m: keep it in your dependencies.")
    if (best.id === 'embedder')
      said.push(
        `embedder being the model your --embedder module exports; it is called once per search_tools question (${duration(best.msPerQuestion)} a question here).`,
      )
  }
  for (const r of results.rankings) {
    if (!r.available && r.id === 'hybrid')
      said.push(`'hybrid' with the built-in model was not measured: npm install mastra-native-processors-potion-base-8m, then run eval again.`)
  }
  if (n < 50) {
    said.push(
      `With ${n} questions one question is ${pct(1 / n)}: a difference of a question or two is chance. More questions (--from with more --threads, or more lines) make the choice surer.`,
    )
  }
  return { choice: best.id, option: best.option, sentences: said }
}

export function formatEvalReport(results, source) {
  const topK =
    results.topK === null ? "each processor's default topK" : `topK ${results.topK}${results.topK === results.defaultTopK ? " (the processor's default)" : ''}`
  const heading = `mastra-native-processors eval: ${plural(results.tools, 'tool')}, ${topK}, @mastra/core ${results.mastra}, Node ${results.node}, ours ${results.implementation}`
  const { sentences } = reading(results)
  const misses = missesOf(results)
  return [heading, sourceLines(source).join('\n'), table(results), ...misses, `What to set:\n${sentences.map((s) => `- ${s}`).join('\n')}`].join('\n\n')
}
