// `bench`'s report: the table of medians and speedups, then a short plain
// reading of what they mean for this catalog.

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * A text of the user's or the model's (a question mined from memory, say) as
 * the reports quote it: as JSON, cut first as the package's own texts cut
 * what they echo (the addon's `cappedEcho`: past the protocol's
 * `echo.MAX_LENGTH`, marked) where the addon runs.
 */
export function quote(text) {
  const native = require('../lib/native.js')
  return JSON.stringify(typeof text === 'string' && native.outcome.implementation === 'native' ? native.cappedEcho(text) : text)
}

/** A duration in milliseconds, in the unit that reads best. */
export function duration(ms) {
  if (ms === undefined || Number.isNaN(ms)) return '-'
  if (ms >= 1000) return `${(ms / 1000).toPrecision(3)} s`
  if (ms >= 1) return `${ms.toPrecision(3)} ms`
  return `${(ms * 1000).toPrecision(3)} µs`
}

const row = (results, prefix) => results.rows.find((r) => r.workload.startsWith(prefix) && !r.skipped)

function table(results) {
  const header = ['workload', "Mastra's", 'ours', 'speedup', 'samples']
  const lines = results.rows.map((r) =>
    r.skipped
      ? [r.workload, '-', '-', '-', `skipped: ${r.skipped}`]
      : [r.workload, duration(r.mastraMs), duration(r.oursMs), `${r.speedup.toFixed(2)}x`, String(r.samples)],
  )
  const widths = header.map((_, i) => Math.max(header[i].length, ...lines.map((line) => (i === 4 ? 0 : line[i].length))))
  const format = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : i === 4 ? cell : cell.padStart(widths[i]))).join('  ')
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(format)].join('\n')
}

/** What the figures mean for this catalog, in a few sentences. */
function reading(results) {
  const said = []
  if (results.implementation === 'fallback') {
    said.push(`Beside this @mastra/core the package serves Mastra's own processors (${results.fallbackReason}), so both columns time the same code.`)
  }
  const construct = row(results, 'construct')
  const first = row(results, 'construct + first search')
  if (construct && first) {
    said.push(
      `Startup: building the processor for your ${results.tools} tools blocks for ${duration(construct.mastraMs)} with Mastra's and ${duration(construct.oursMs)} with ours; ` +
        `the first search_tools answer is ready after ${duration(first.mastraMs)} and ${duration(first.oursMs)}.`,
    )
  }
  const search = row(results, 'search_tools')
  if (search) said.push(`Each search_tools call the model makes: ${duration(search.mastraMs)} with Mastra's, ${duration(search.oursMs)} with ours.`)
  const resolved = row(results, 'a step with your tools resolved')
  if (resolved) {
    said.push(
      `If your agent resolves these tools per request (includeResolvedTools), each step that searches costs ${duration(resolved.mastraMs)} with Mastra's and ${duration(resolved.oursMs)} with ours.`,
    )
  }
  const injected = row(results, 'a step with the catalog')
  if (injected) said.push(`With injectCatalog, each step costs ${duration(injected.mastraMs)} with Mastra's and ${duration(injected.oursMs)} with ours.`)
  const filter = row(results, 'ToolCallFilter')
  if (filter)
    said.push(
      `ToolCallFilter over ${results.history} messages: ${duration(filter.mastraMs)} with Mastra's, ${duration(filter.oursMs)} with ours, on every model call.`,
    )
  for (const request of results.rows.filter((r) => r.workload.startsWith('agent.generate') && !r.skipped)) {
    const rest = Math.max(0, request.mastraMs - request.mastraHooksMs)
    said.push(
      `${request.workload}: ${duration(request.mastraMs)} with Mastra's processors, ${duration(request.oursMs)} with ours (${request.speedup.toFixed(2)}x). ` +
        `Their hooks and meta-tools (search_tools, load_tool) take ${duration(request.mastraHooksMs)} and ${duration(request.oursHooksMs)} of it; the rest, about ${duration(rest)}, is Mastra's own agent loop, the same for both.`,
    )
  }
  said.push(
    'The model here answers at once; a real model adds its latency (often hundreds of milliseconds a call, three calls a request) to both sides, ' +
      'so the gain shows most where the processors dominate: startup, large catalogs, tools resolved per request, injectCatalog and long histories.',
  )
  return said.map((sentence) => `- ${sentence}`).join('\n')
}

export function formatReport(results) {
  const heading =
    `mastra-native-processors bench: ${results.tools} tools, @mastra/core ${results.mastra}, Node ${results.node}, ` +
    `ours ${results.implementation}; medians, the two sides alternating in one process`
  return `${heading}\n\n${table(results)}\n\nWhat it means for this catalog:\n${reading(results)}`
}
