// The bench's chart: speedup (reference / native) against input size, one line
// per workload, as a self-contained SVG. Two panels, since the sizes mean
// different things: tools in the catalog (ToolSearchProcessor) and messages in
// the history (ToolCallFilter and the 'context' store). Both axes are
// logarithmic; the dashed line is 1x, where both sides take the same time.

const PANEL = { width: 560, height: 400, left: 56, right: 12, top: 36, bottom: 44 }
const LEGEND_WIDTH = 560
const LINE_HEIGHT = 14
// Distinct enough on white, and for the common kinds of colour blindness when
// paired with the marker shapes below.
const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000', '#7f3c8d', '#a0522d', '#3969ac']
const MARKERS = ['circle', 'square', 'diamond', 'triangle']

/** Which panel a workload belongs to: its sizes count messages, or tools. */
export function panelOf(workload) {
  return workload.startsWith('ToolCallFilter') || workload.includes("'context' store") ? 'history' : 'catalog'
}

const PANELS = [
  { key: 'catalog', title: 'ToolSearchProcessor: speedup by catalog size', axis: 'tools' },
  { key: 'history', title: 'ToolCallFilter and the context store: speedup by history length', axis: 'messages' },
]

/**
 * The SVG for `results` (the bench's rows: `{ workload, size, speedup }`),
 * titled with `caption` (the machine and date, say).
 */
export function speedupChart(results, caption) {
  const panels = PANELS.map((panel) => ({ ...panel, series: seriesOf(results.filter((r) => panelOf(r.workload) === panel.key)) })).filter(
    (panel) => panel.series.length > 0,
  )
  const rows = Math.max(...panels.map((panel) => panel.series.length), 0)
  const panelHeight = Math.max(PANEL.height, PANEL.top + rows * LINE_HEIGHT + 16)
  const width = PANEL.width + LEGEND_WIDTH
  const height = 28 + panels.length * panelHeight
  const body = panels.map((panel, i) => drawPanel(panel, 28 + i * panelHeight)).join('\n')
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="8" y="18" font-size="12" fill="#333">${escapeXml(caption)}</text>`,
    body,
    '</svg>',
    '',
  ].join('\n')
}

/** Rows grouped by workload, in the order they first appear, each sorted by size. */
function seriesOf(rows) {
  const byName = new Map()
  for (const row of rows) {
    if (!(row.speedup > 0) || !(row.size > 0)) continue
    if (!byName.has(row.workload)) byName.set(row.workload, [])
    byName.get(row.workload).push(row)
  }
  return [...byName].map(([name, points]) => ({ name, points: points.sort((a, b) => a.size - b.size) }))
}

function drawPanel(panel, top) {
  const points = panel.series.flatMap((s) => s.points)
  const x = logScale(
    points.map((p) => p.size),
    PANEL.left,
    PANEL.width - PANEL.right,
  )
  const y = logScale([1, ...points.map((p) => p.speedup)], top + PANEL.height - PANEL.bottom, top + PANEL.top)
  const out = [`<text x="${PANEL.left}" y="${top + 20}" font-size="13" font-weight="600">${escapeXml(panel.title)}</text>`]

  // Grid and ticks: each power of ten, with 2 and 5 between on the speedup axis.
  for (const value of ticks(y.domain, [1, 2, 5])) {
    const at = y.at(value)
    out.push(`<line x1="${PANEL.left}" x2="${PANEL.width - PANEL.right}" y1="${at}" y2="${at}" stroke="#eee"/>`)
    out.push(`<text x="${PANEL.left - 6}" y="${at + 4}" text-anchor="end" fill="#555">${formatNumber(value)}x</text>`)
  }
  for (const value of ticks(x.domain, [1])) {
    const at = x.at(value)
    out.push(`<line x1="${at}" x2="${at}" y1="${y.at(y.domain[0])}" y2="${y.at(y.domain[1])}" stroke="#eee"/>`)
    out.push(`<text x="${at}" y="${top + PANEL.height - PANEL.bottom + 16}" text-anchor="middle" fill="#555">${formatNumber(value)}</text>`)
  }
  const one = y.at(1)
  out.push(`<line x1="${PANEL.left}" x2="${PANEL.width - PANEL.right}" y1="${one}" y2="${one}" stroke="#888" stroke-dasharray="4 3"/>`)
  out.push(
    `<text x="${(PANEL.left + PANEL.width - PANEL.right) / 2}" y="${top + PANEL.height - 8}" text-anchor="middle" fill="#333">${panel.axis} (log scale)</text>`,
  )

  panel.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length]
    const marker = MARKERS[Math.floor(i / COLORS.length) % MARKERS.length]
    const coords = series.points.map((p) => [x.at(p.size), y.at(p.speedup)])
    if (coords.length > 1) {
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${coords.map((c) => c.join(',')).join(' ')}"/>`)
    }
    for (const [cx, cy] of coords) out.push(markerAt(marker, cx, cy, color))
    const ly = top + PANEL.top + i * LINE_HEIGHT
    out.push(markerAt(marker, PANEL.width + 10, ly - 4, color))
    const last = series.points[series.points.length - 1]
    out.push(
      `<text x="${PANEL.width + 20}" y="${ly}" fill="#222">${escapeXml(series.name)} (${formatNumber(last.speedup)}x at ${formatNumber(last.size)})</text>`,
    )
  })
  return out.join('\n')
}

function markerAt(shape, x, y, color) {
  const r = 3
  switch (shape) {
    case 'square':
      return `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" fill="${color}"/>`
    case 'diamond':
      return `<polygon points="${x},${y - r - 1} ${x + r + 1},${y} ${x},${y + r + 1} ${x - r - 1},${y}" fill="${color}"/>`
    case 'triangle':
      return `<polygon points="${x},${y - r - 1} ${x + r + 1},${y + r} ${x - r - 1},${y + r}" fill="${color}"/>`
    default:
      return `<circle cx="${x}" cy="${y}" r="${r}" fill="${color}"/>`
  }
}

/**
 * A log10 scale over `values`, widened to whole powers of ten, mapping onto
 * [from, to] (pixels; `to` may be smaller, as the y axis runs upwards).
 */
function logScale(values, from, to) {
  const lo = 10 ** Math.floor(Math.log10(Math.min(...values)))
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...values)))
  const span = Math.log10(hi) - Math.log10(lo) || 1
  return {
    domain: [lo, hi],
    at: (value) => round(from + ((Math.log10(value) - Math.log10(lo)) / span) * (to - from)),
  }
}

/** Each power of ten in `domain` times each of `steps`, within the domain. */
function ticks([lo, hi], steps) {
  const out = []
  for (let decade = lo; decade <= hi; decade *= 10) {
    for (const step of steps) if (decade * step <= hi) out.push(decade * step)
  }
  return out
}

function formatNumber(value) {
  if (value >= 1000) return value.toLocaleString('en-US', { maximumFractionDigits: 0 })
  if (value >= 10) return value.toFixed(0)
  return String(Number(value.toPrecision(2)))
}

const round = (value) => Math.round(value * 10) / 10

function escapeXml(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;')
}
