// The cardinality section's targets and markdown (bench-report.js joins
// them to the report). Pure: a figure not measured prints as n/a.
import { bytes, fmt } from './bench-format.js'

export const CARDINALITY_TARGETS = [
  { key: 'bytesPerSparseMetricDay', label: 'Cardinality: bytes per sparse metric-day (its daily document and its day\'s field in the month\'s)', op: '≤', limit: 1024, unit: ' B' },
  { key: 'sweepCheckedPerBusy', label: 'Cardinality: metrics the sweep read ÷ metrics busy today (not the registry)', op: '≤', limit: 1, unit: '' },
  { key: 'sparsePreallocatedBySweep', label: 'Cardinality: sparse metrics given a zero-filled tomorrow by the sweep', op: '≤', limit: 0, unit: '', limitDigits: 0 },
  { key: 'sweepShareOfDayLeft', label: 'Cardinality: sweep duration at PREALLOC_SWEEP_RATE ÷ time left in its day', op: '≤', limit: 0.5, unit: '' },
  { key: 'midnightP99', label: 'Cardinality: ingest p99 across midnight (bodies of 500 events, 4 connections)', op: '≤', limit: 250, unit: ' ms' },
  { key: 'findP99', label: 'Cardinality: GET /metrics/find p99 (worst pattern) over the registry', op: '≤', limit: 20, unit: ' ms' },
  { key: 'countsAddUp', label: 'Cardinality: counts that do not add up', op: '≤', limit: 0, unit: '', limitDigits: 0 }
]

const isNum = v => typeof v === 'number' && Number.isFinite(v)

/** The section's judged figures (null when not measured) */
export function cardinalityFigures (c) {
  const finds = (c?.find ?? []).map(q => q.p99Ms).filter(isNum)
  const sparseBySweep = c?.sweep?.tomorrowsAfter ? c.sweep.tomorrowsAfter.sparse - c.sweep.tomorrowsBefore.sparse : null
  return {
    bytesPerSparseMetricDay: c?.stored?.bytesPerSparseMetricDay ?? null,
    sweepCheckedPerBusy: c?.sweep && c.busy ? c.sweep.checked / c.busy : null,
    sparsePreallocatedBySweep: sparseBySweep,
    sweepShareOfDayLeft: c?.sweep?.shareOfTimeLeft ?? null,
    midnightP99: c?.midnight?.whole?.p99Ms ?? null,
    findP99: finds.length && finds.length === c.find.length ? Math.max(...finds) : null,
    countsAddUp: c?.checks ? c.checks.filter(k => !k.ok).length : null
  }
}

const ms = (v, digits = 0) => (isNum(v) ? `${fmt(v, digits)} ms` : 'n/a')
const each = (total, count) => (count ? bytes(Math.round(total / count)) : 'n/a')

/** The section as markdown lines */
export function cardinalitySection (c) {
  const s = c.stored
  const m = c.midnight
  const sw = c.sweep
  const dayRow = (label, d) => [label, fmt(d.documents), fmt(d.preallocated), bytes(d.bytes), each(d.bytes, d.documents)]
  const out = [
    `**Cardinality** — ${fmt(c.metrics)} registered metrics, ${fmt(c.busy)} busy (${fmt(c.busyPerMinute)} events a minute each in ${c.busyMinutes} distinct minutes of ${c.day} 23:00–24:00, PREALLOC_BUSY_MINUTES=${c.service.busyMinutes}) and ${fmt(c.sparse)} sparse (1–5 events on ${c.day}); the service on a simulated clock, MAX_METRICS=${fmt(c.service.maxMetrics)}, WRITE_TIMEOUT_MS=${fmt(c.service.writeTimeoutMs)}, PREALLOC_PROBABILITY=${c.service.preallocProbability}${c.javaHeap ? `; mongo-java-server heap ${c.javaHeap}` : ''}. Registry and days: ${c.registryLoad}.`,
    '',
    `Loading: the sparse day ${fmt(c.phases.sparse.events)} events in ${fmt(c.phases.sparse.seconds, 0)} s (${fmt(c.phases.sparse.metricsPerS)} new metrics/s, ${fmt(c.phases.sparse.retries)} bodies sent again after a 503); the busy minutes ${fmt(c.phases.busy.events)} events in ${fmt(c.phases.busy.seconds, 0)} s. Longest event-loop stall of the service: ${ms(c.phases.sparse.loopDelayMaxMs)} while loading, ${ms(c.phases.busy.loopDelayMaxMs)} in the busy minutes, ${ms(m.loopDelayMaxMs)} across midnight.`,
    '',
    `**The sweep** at ${sw.startedAt.slice(11, 19)} (the first 10-minute tick after the busy metrics were marked), PREALLOC_SWEEP_RATE=${fmt(sw.rate)}: read ${fmt(sw.checked)} metrics of the registry's ${fmt(c.metrics)}, created the ${fmt(sw.created)} busy days \`PREALLOC_PROBABILITY\` had not in ${fmt(sw.seconds, 0)} s (${fmt(sw.pacedSeconds, 0)} s of it the rate's pacing), done at ${sw.endedAt.slice(11, 19)}: ${fmt(sw.shareOfTimeLeft * 100, 1)} % of the ${fmt(sw.secondsLeftAtStart / 60, 0)} minutes left in its day${sw.endedBeforeMidnight ? '' : ' — **not done by midnight**'}. At this rate one run preallocates ${fmt(sw.metricsPerTick)} metrics between two ticks.${sw.failedRuns?.length ? ` Runs that failed first (and were done again at the next tick): ${sw.failedRuns.map(r => `${r.at.slice(11, 19)} after ${fmt(r.seconds, 0)} s (${r.error})`).join('; ')}.` : ''}`,
    '',
    '**Documents and BSON bytes** (each document\'s BSON as the server returns it), per day and population; `preallocated`: begun zero-filled (every minute present):',
    '',
    table(['documents', 'count', 'of them preallocated', 'bytes', 'each'], [
      dayRow(`today (${c.day}), busy`, s.today.busy),
      dayRow(`today (${c.day}), sparse`, s.today.sparse),
      dayRow('tomorrow, busy (the sweep, then the midnight window\'s writes)', s.tomorrow.busy),
      dayRow('tomorrow, sparse (their own writes after midnight, and `PREALLOC_PROBABILITY`)', s.tomorrow.sparse),
      ['monthly, busy (one per metric per month)', fmt(s.monthly.busy.documents), '', bytes(s.monthly.busy.bytes), each(s.monthly.busy.bytes, s.monthly.busy.documents)],
      ['monthly, sparse', fmt(s.monthly.sparse.documents), '', bytes(s.monthly.sparse.bytes), each(s.monthly.sparse.bytes, s.monthly.sparse.documents)],
      ['registry entries, busy (one per metric)', fmt(c.stored.registry.busy.entries), '', bytes(s.registry.busy.bytes), each(s.registry.busy.bytes, s.registry.busy.entries)],
      ['registry entries, sparse', fmt(c.stored.registry.sparse.entries), '', bytes(s.registry.sparse.bytes), each(s.registry.sparse.bytes, s.registry.sparse.entries)]
    ]),
    '',
    `Bytes per sparse metric-day: ${fmt(s.bytesPerSparseMetricDay, 0)} B: its daily document (${each(s.today.sparse.bytes, s.today.sparse.documents)} on average), its day's field in the month's document (${fmt(s.monthly.sparse.meanTodayFieldBytes, 0)} B) and its share of the zero-filled days \`PREALLOC_PROBABILITY\` gave ${fmt(s.tomorrow.sparse.preallocated)} sparse metrics (${fmt(s.sparseZeroFilledShare, 0)} B). A busy metric-day preallocated: ${each(s.tomorrow.busy.preallocatedBytes, s.tomorrow.busy.preallocated)}. Tomorrow's documents before the sweep (made by \`PREALLOC_PROBABILITY\`): ${fmt(sw.tomorrowsBefore.busy)} busy, ${fmt(sw.tomorrowsBefore.sparse)} sparse; after it: ${fmt(sw.tomorrowsAfter.busy)} busy, ${fmt(sw.tomorrowsAfter.sparse)} sparse.`,
    '',
    `**Ingest across midnight** (4 connections, each sending its next body of 500 events as soon as the last was answered: the busy metrics in turn, ${fmt(m.sparseShare * 100, 2)} % of the events to sparse metrics, their share of a day in which each busy one sends one a second; without \`ts\`, so the service's clock puts them on either side of midnight):`,
    '',
    table(['window', 'requests', 'events acknowledged', 'events/s', 'failed requests', 'p50', 'p99', 'max'], [
      ['before midnight', m.before], ['after midnight', m.after], ['whole window', m.whole]
    ].map(([label, w]) => [label, fmt(w.requests), fmt(w.acknowledged), fmt(w.eventsPerS), fmt(w.failed), ms(w.p50Ms), ms(w.p99Ms), ms(w.maxMs)])),
    '',
    `**GET /metrics/find** over ${fmt(c.metrics)} names (2 connections, a random service and host per request):`,
    '',
    table(['query', 'requests', 'nodes answered (mean)', 'p50', 'p99', 'failed'], c.find.map(q => [q.label, fmt(q.requests), fmt(q.nodes, 0), ms(q.p50Ms, 1), ms(q.p99Ms, 1), fmt(q.failed)])),
    '',
    `**Service RSS** with ${fmt(c.metrics)} names: peak ${bytes(c.rss.peakBytes)} (${Object.entries(c.rss.byPhase).map(([k, v]) => `${k} ${bytes(v)}`).join(', ')}); at the end ${bytes(c.rss.endBytes)}, JS heap in use ${bytes(c.rss.heapUsedBytes)}.`,
    '',
    `Counts: ${c.checks.map(k => `${k.what}: ${fmt(k.found)}${k.ok ? '' : ` **(expected ${fmt(k.expected)})**`}`).join('; ')}.`
  ]
  return out
}

function table (header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map(r => `| ${r.join(' | ')} |`)].join('\n')
}
