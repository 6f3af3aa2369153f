// The SLO section's targets and markdown (bench-report.js joins them to the
// report; docs/benchmarks-tags-otlp-slos.md#slos keeps its table). Pure: a figure not
// measured prints as n/a.
import { fmt } from './bench-format.js'

export const SLOS_TARGETS = [
  { key: 'sloYearReportP99', label: 'SLOs: a report over a calendar year of minute data, p99 over HTTP (worst zone)', op: '≤', limit: 20, unit: ' ms' },
  { key: 'sloYearDocuments', label: 'SLOs: documents a year report reads per selector (worst zone, the most of its SLOs)', op: '≤', limit: 30, unit: '' },
  { key: 'sloMetricsP99', label: 'SLOs: GET /metrics with 100 SLOs, p99', op: '≤', limit: 100, unit: ' ms' }
]

const isNum = v => typeof v === 'number' && Number.isFinite(v)
const worstOf = (values) => (values.length && values.every(isNum) ? Math.max(...values) : null)

/** The section's judged figures (null when not measured; a report that disagreed with the model or failed: null) */
export function slosFigures (s) {
  const year = (s?.reports ?? []).filter(r => r.kind === 'year')
  const trusted = s?.checks?.wrong === 0 && year.every(r => !r.failed)
  return {
    sloYearReportP99: trusted ? worstOf(year.map(r => r.p99Ms)) : null,
    sloYearDocuments: trusted ? worstOf(year.map(r => r.documentsPerSelectorMax)) : null,
    sloMetricsP99: s?.metrics && !s.metrics.failed ? s.metrics.p99Ms ?? null : null
  }
}

const ms = (v, digits = 1) => (isNum(v) ? `${fmt(v, digits)} ms` : 'n/a')

function table (header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map(r => `| ${r.join(' | ')} |`)].join('\n')
}

const short = name => name.replace('Europe/', '').replace('Asia/', '')
const judged = (v, limit, unit = '') => (isNum(v) ? `${fmt(v, v < 100 ? 1 : 0)}${unit} (${v <= limit ? 'met' : '**not met**'})` : 'n/a')

/** The table docs/benchmarks-tags-otlp-slos.md keeps (`--only slos --write-docs`), and the run's section: lines of markdown */
export function slosTable (s) {
  const p = s.population
  const m = s.metrics
  const f = slosFigures(s)
  const shape = v => `${fmt(s.shapes[v].bytes)} B, ${fmt(s.shapes[v].usPerEvent, 1)} µs`
  return [
    `${fmt(p.slos)} SLOs, ${fmt(p.series)} series (${fmt(p.plain)} counter pairs, ${fmt(p.tagged)} names × 4 tagged), an event a minute since ${new Date(p.seededFrom).toISOString().slice(0, 10)}: ${fmt(p.dailyDocs)} day (minutes: the last ${p.minuteDays}) and ${fmt(p.monthlyDocs)} month documents; ${fmt(s.checks.reports - s.checks.wrong)} of ${fmt(s.checks.reports)} reports equal the model. Targets: a year's report p99 ${judged(f.sloYearReportP99, 20, ' ms')}, documents a selector ${judged(f.sloYearDocuments, 30)}, \`/metrics\` p99 ${judged(f.sloMetricsP99, 100, ' ms')}.`,
    '',
    table([`report (${s.readConnections} conn.)`, 'days', 'docs / selector (max)', 'p50 ms', 'p99 ms', 'n'], s.reports.map(r => [
      short(r.name), fmt(r.days), `${fmt(r.documentsPerSelector, 1)} (${fmt(r.documentsPerSelectorMax, 1)})`, fmt(r.p50Ms), fmt(r.p99Ms), `${fmt(r.requests)}${r.failed ? ` (${fmt(r.failed)} failed)` : ''}`
    ])),
    '',
    `\`GET /v1/slos\` (${fmt(s.list.documents)} documents): p50 ${ms(s.list.p50Ms, 0)}, p99 ${ms(s.list.p99Ms, 0)}, max ${ms(s.list.maxMs, 0)} of ${fmt(s.list.requests)}. \`GET /metrics\` (${fmt(m.sloSeries)} SLO series): p50 ${ms(m.p50Ms, 0)}, p99 ${ms(m.p99Ms, 0)}, max ${ms(m.maxMs, 0)} of ${fmt(m.requests)}; 1 connection each.`,
    ...(s.shapes ? ['', `A month document, an event a minute, and database time an event (in turns): as stored ${shape('stored')}; (a) + \`hourly.D.H\` ${shape('hours')}; (b) + 2 zones' local days ${shape('zones')}.`] : [])
  ]
}
