// The otlp section's targets and markdown (bench-report.js joins them to
// the report). Pure: a figure not measured prints as n/a.
import { fmt } from './bench-format.js'

export const OTLP_TARGETS = [
  { key: 'otlpVsStatsd', label: 'OTLP/HTTP protobuf points ÷ StatsD TCP lines applied per second of service CPU (one process, one run; issue 31)', op: '≥', limit: 0.5, unit: '', digits: 2 },
  { key: 'otlpCountersStored', label: 'OTLP: acknowledged counter increments missing from (or past what was sent in) the day documents', op: '≤', limit: 0, unit: '', limitDigits: 0, digits: 0 }
]

const isNum = v => typeof v === 'number' && Number.isFinite(v)

/** The section's judged figures (null when not measured) */
export function otlpFigures (o) {
  // stored past what was sent would be a double count: as wrong as a loss
  const off = (c) => (c.stored > c.sent ? c.stored - c.sent : Math.max(0, c.expected - c.stored))
  const checks = [o?.otlp?.counterCheck, o?.sumsOnly?.counterCheck].filter(Boolean)
  return {
    otlpVsStatsd: o?.ratio ?? null,
    otlpCountersStored: checks.length ? checks.reduce((n, c) => n + off(c), 0) : null
  }
}

const us = v => (isNum(v) ? `${fmt(v, 2)} µs` : 'n/a')

const row = (label, o) => `| ${label} | ${fmt(o.pointsPerS)} | ${fmt(o.pointsPerCoreS)} | ${us(o.cpuUsPerPoint)} / point | ${fmt(o.statementsPerPoint, 3)} / point | ${us(o.databaseCpuUsPerPoint)} / point | ${fmt(o.acknowledged)} / ${fmt(o.requests)} (${fmt(o.p99Ms, 0)} ms) |`

/** The section's lines of the report */
export function otlpSection ({ statsd: s, otlp: o, sumsOnly: d }) {
  const m = o.mix
  return [
    `**OTLP beside StatsD** (one service process, StatsD on): OTLP/HTTP protobuf exports captured from \`@opentelemetry/sdk-metrics\` + \`exporter-metrics-otlp-proto\` (delta), each ${fmt(o.pointsPerRequest)} points in ${fmt(o.bodyBytes)} B: ${m.deltaSums} delta sums, ${m.explicitHistograms} explicit-bounds and ${m.exponentialHistograms} exponential histograms (${m.valuesPerHistogram} latencies each), ${m.gauges} gauges, ${m.upDownCounters} up-down counters; 3 attributes a point, \`service.name\` a tag; ${o.connections} connections, ${fmt(o.seconds)} s:`,
    '',
    '| door | applied / s | per core of service CPU | service CPU | statements | database CPU | exports: 200 / sent (p99) |',
    '|---|---|---|---|---|---|---|',
    `| StatsD TCP counter lines | ${fmt(s.appliedPerS)} | ${fmt(s.linesPerCoreS)} | ${us(s.cpuUsPerLine)} / line |  | ${isNum(s.databaseCores) ? `${fmt(s.databaseCores, 2)} cores` : 'n/a'} |  |`,
    row('OTLP protobuf points, the mix', o),
    ...(d ? [row(`the same, ${fmt(d.pointsPerRequest)} delta sums an export (information)`, d)] : []),
    '',
    `Counter increments stored for those acknowledged: ${[o, d].filter(Boolean).map(x => `${fmt(x.counterCheck.stored)} for ${fmt(x.counterCheck.expected)}`).join('; ')}.`
  ]
}
