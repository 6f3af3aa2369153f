// The talk's picture: events/s against simulated time, midnights marked.
// Pure: rows in, SVG / HTML text out.
import { DAY_MS, HOUR_MS } from '../../src/bucket/time.js'

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd']

const esc = s => String(s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]))

function niceMax (v) {
  if (!(v > 0)) return 1
  const p = 10 ** Math.floor(Math.log10(v))
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return m * p
  return 10 * p
}

/**
 * phases: [{ phase, rows }] (rows from minuteRows). Every phase is drawn
 * against simulated time since its own start, so compared runs overlay.
 */
export function renderSvg (phases, { title = 'events/s per simulated minute', width = 1000, height = 420 } = {}) {
  const pad = { left: 70, right: 20, top: 40, bottom: 60 }
  const w = width - pad.left - pad.right
  const h = height - pad.top - pad.bottom
  const all = phases.flatMap(p => p.rows)
  const t0 = Math.min(...phases.map(p => p.rows[0]?.simMinute ?? Infinity))
  const spans = phases.map(p => (p.rows.length ? p.rows.at(-1).simMinute + 60_000 - p.rows[0].simMinute : 0))
  const span = Math.max(60_000, ...spans)
  const yMax = niceMax(Math.max(0, ...all.map(r => r.eventsPerS)))
  const x = dt => pad.left + (dt / span) * w
  const y = v => pad.top + h - (v / yMax) * h
  const out = []
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`)
  out.push(`<rect width="${width}" height="${height}" fill="#fff"/>`)
  out.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${esc(title)}</text>`)
  // y grid
  for (let i = 0; i <= 5; i++) {
    const v = (yMax / 5) * i
    out.push(`<line x1="${pad.left}" x2="${pad.left + w}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`)
    out.push(`<text x="${pad.left - 6}" y="${y(v) + 4}" text-anchor="end">${Math.round(v).toLocaleString('en-US')}</text>`)
  }
  out.push(`<text transform="translate(16 ${pad.top + h / 2}) rotate(-90)" text-anchor="middle">events/s</text>`)
  // x ticks: simulated time of day of the first phase
  if (Number.isFinite(t0)) {
    const stepH = span > 2 * DAY_MS ? 24 : span > 12 * HOUR_MS ? 3 : span > 3 * HOUR_MS ? 1 : null
    const tick = stepH ? stepH * HOUR_MS : niceMax(span / 8 / 60_000) * 60_000
    for (let t = Math.ceil(t0 / tick) * tick; t <= t0 + span; t += tick) {
      const label = new Date(t).toISOString().slice(11, 16)
      out.push(`<line x1="${x(t - t0)}" x2="${x(t - t0)}" y1="${pad.top + h}" y2="${pad.top + h + 5}" stroke="#333"/>`)
      out.push(`<text x="${x(t - t0)}" y="${pad.top + h + 18}" text-anchor="middle">${label}</text>`)
    }
    out.push(`<text x="${pad.left + w / 2}" y="${height - 12}" text-anchor="middle">simulated time (UTC) from ${esc(new Date(t0).toISOString().slice(0, 16))}Z</text>`)
    // midnights
    for (let d = Math.floor(t0 / DAY_MS) * DAY_MS + DAY_MS; d < t0 + span; d += DAY_MS) {
      out.push(`<line x1="${x(d - t0)}" x2="${x(d - t0)}" y1="${pad.top}" y2="${pad.top + h}" stroke="#888" stroke-dasharray="4 4"/>`)
      out.push(`<text x="${x(d - t0) + 4}" y="${pad.top + h - 6}" fill="#555">midnight ${new Date(d).toISOString().slice(0, 10)}</text>`)
    }
  }
  out.push(`<line x1="${pad.left}" x2="${pad.left}" y1="${pad.top}" y2="${pad.top + h}" stroke="#333"/>`)
  out.push(`<line x1="${pad.left}" x2="${pad.left + w}" y1="${pad.top + h}" y2="${pad.top + h}" stroke="#333"/>`)
  phases.forEach((p, i) => {
    if (p.rows.length === 0) return
    const base = p.rows[0].simMinute
    const pts = p.rows.map(r => `${x(r.simMinute + 30_000 - base).toFixed(1)},${y(r.eventsPerS).toFixed(1)}`).join(' ')
    const color = COLORS[i % COLORS.length]
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${pts}"/>`)
    if (phases.length > 1) {
      out.push(`<rect x="${pad.left + 10}" y="${pad.top + 8 + i * 16}" width="12" height="3" fill="${color}"/>`)
      out.push(`<text x="${pad.left + 28}" y="${pad.top + 13 + i * 16}">${esc(p.phase)}</text>`)
    }
  })
  out.push('</svg>')
  return out.join('\n') + '\n'
}

/** A standalone HTML page: the chart and the summary text */
export function renderHtml (phases, { title, summaryText = '' } = {}) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title ?? 'statbucket loadgen')}</title>
<style>body{font-family:sans-serif;margin:2em}pre{background:#f6f6f6;padding:1em}</style></head>
<body><h1>${esc(title ?? 'statbucket loadgen')}</h1>
${renderSvg(phases, { title })}
<pre>${esc(summaryText)}</pre>
</body></html>
`
}
