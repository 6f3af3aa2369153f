// The benchmark's figures → ratios, targets and a markdown report. Pure:
// the figures come in measured; nothing here invents a number, a missing
// figure prints as n/a with its reason.
import { bytes, fmt } from './bench-format.js'
import { CARDINALITY_TARGETS, cardinalityFigures, cardinalitySection } from './cardinality-report.js'
import { TAGS_TARGETS, tagsFigures, tagsSection } from './tags-report.js'
import { OTLP_TARGETS, otlpFigures, otlpSection } from './otlp-report.js'
import { SLOS_TARGETS, slosFigures, slosTable } from './slos-report.js'

export { bytes, fmt }

export const TARGETS = [
  { key: 'coalescingGain', label: 'Coalescing gain: HTTP batched ingest ÷ naive per-event upserts (events/s)', op: '≥', limit: 10, unit: '×' },
  { key: 'httpOverhead', label: 'HTTP overhead: HTTP batched ingest ÷ in-process coalescing writer (events/s)', op: '≥', limit: 0.7, unit: '' },
  { key: 'statementsPerEvent', label: 'Update statements per event, HTTP batched ingest of 100 metrics', op: '≤', limit: 0.05, unit: '' },
  { key: 'singleRps', label: 'Single-event requests, 64 connections (req/s)', op: '≥', limit: 5000, unit: ' req/s' },
  { key: 'singleP99', label: 'Single-event requests, p99 latency', op: '≤', limit: 50, unit: ' ms' },
  { key: 'singleVsNaive32', label: 'Single-event requests, 32 connections: service CPU per request ÷ the naive per-event writer\'s behind the same route (µs/µs, median of the rounds)', op: '≤', limit: 0.5, unit: '×' },
  { key: 'singleVsNaive1', label: 'Single-event requests, 1 connection: service CPU per request ÷ the naive per-event writer\'s (µs/µs, median of the rounds)', op: '≤', limit: 1, unit: '×' },
  { key: 'adaptiveVsFixed', label: 'HTTP batched ingest, FLUSH_INTERVAL_MS=0 (default) ÷ =10 (events/s; not slower)', op: '≥', limit: 1, unit: '' },
  { key: 'timerCpuPerValue', label: 'Timers: service CPU per timer value, HTTP batched ingest of timer values', op: '≤', limit: 3, unit: ' µs' },
  { key: 'timerIngestRatio', label: 'Timers: HTTP batched ingest of timer values ÷ of counter increments (events/s; same batches, connections and duration)', op: '≥', limit: 0.5, unit: '' },
  { key: 'readsP99', label: 'Reads p99 latency (worst of the four queries)', op: '≤', limit: 20, unit: ' ms' },
  { key: 'longReadDocs', label: 'Documents read by a 1-year day series and by ytd (the more of the two, mean per query)', op: '≤', limit: 13, unit: '' },
  { key: 'rssMB', label: 'Service RSS under load (peak)', op: '≤', limit: 250, unit: ' MB' }
]

const isNum = v => typeof v === 'number' && Number.isFinite(v)
/** The reads the latency target is about (the first build's four) */
const TARGET_READS = new Set(['series-1d-minute', 'series-30d-hour', 'series-1y-day', 'ytd'])
/** The long reads the documents target is about: ≤ 13 monthly documents each */
const LONG_READS = new Set(['series-1y-day', 'ytd'])
const ratio = (a, b) => (isNum(a) && isNum(b) && b > 0 ? a / b : null)

/** The yardstick comparison at `connections` connections, or undefined */
const yardstickAt = (f, connections) => f.yardstick?.byConnections.find(y => y.connections === connections)

/** The figures the targets are about, from the measured ones (null when not measured) */
export function headlineFigures (f) {
  const reads = (f.reads?.queries ?? []).filter(q => TARGET_READS.has(q.name)) // the target is about the four series and ytd queries
  const readP99s = reads.map(q => q.p99Ms).filter(isNum)
  const longReads = (f.reads?.queries ?? []).filter(q => LONG_READS.has(q.name))
  const longDocs = longReads.map(q => q.docsPerQuery).filter(isNum)
  return {
    coalescingGain: ratio(f.ingest?.http?.eventsPerS, f.ingest?.naive?.eventsPerS),
    httpOverhead: ratio(f.ingest?.http?.eventsPerS, f.ingest?.writer?.eventsPerS),
    statementsPerEvent: f.ingest?.http?.statementsPerEvent ?? null,
    singleRps: f.single?.requestsPerS ?? null,
    singleP99: f.single?.p99Ms ?? null,
    singleVsNaive32: yardstickAt(f, 32)?.vsNaive.median ?? null,
    singleVsNaive1: yardstickAt(f, 1)?.vsNaive.median ?? null,
    adaptiveVsFixed: ratio(f.ingest?.http?.eventsPerS, f.ingest?.httpFixed?.eventsPerS),
    timerCpuPerValue: isNum(f.ingest?.httpTimer?.service?.cpuUsPerRequest) ? f.ingest.httpTimer.service.cpuUsPerRequest / f.ingest.httpTimer.batch : null,
    timerIngestRatio: ratio(f.ingest?.httpTimer?.eventsPerS, f.ingest?.http?.eventsPerS),
    readsP99: readP99s.length && readP99s.length === reads.length ? Math.max(...readP99s) : null,
    longReadDocs: longDocs.length && longDocs.length === LONG_READS.size ? Math.max(...longDocs) : null,
    rssMB: isNum(f.rss?.peakBytes) ? f.rss.peakBytes / 1e6 : null
  }
}

// Judged when the statsd section ran (figures.statsd): the service's CPU per line it applied, and nothing lost over TCP.
export const STATSD_TARGETS = [
  { key: 'statsdTcpPerCore', label: 'StatsD over TCP (hot-shots): applied lines/s per core of service CPU', op: '≥', limit: 100_000, unit: ' lines/s' },
  { key: 'statsdTcpLost', label: 'StatsD over TCP: lines lost (sent − stored once the service drained)', op: '≤', limit: 0, unit: '', limitDigits: 0 },
  { key: 'statsdTimerRatio', label: 'StatsD over TCP: timer lines (type ms) ÷ counter lines (type c), applied lines/s', op: '≥', limit: 0.5, unit: '' }
]

/** The statsd section's judged figures (null when not measured) */
export function statsdFigures (statsd) {
  return {
    statsdTcpPerCore: statsd?.tcp?.linesPerCoreS ?? null,
    statsdTcpLost: statsd?.tcp?.lost ?? null,
    statsdTimerRatio: ratio(statsd?.timers?.tcp?.appliedPerS, statsd?.tcp?.appliedPerS)
  }
}

// The talk's targets hold on a real mongod only (docs/architecture.md#where-the-database-comes-from: the substitute
// keeps documents as Java objects, so key scans and moves do not happen).
export const TALK_TARGETS = [
  { key: 'hierEndOfDay', label: 'Talk: hierarchical layout\'s end-of-day ratio (with preallocation)', op: '≥', limit: 0.8, unit: '' },
  { key: 'flatEndOfDayGap', label: 'Talk: flat layout\'s end-of-day ratio below the hierarchical one by', op: '≥', limit: 0.1, unit: '' },
  { key: 'dipGain', label: 'Talk: midnight dip with preallocation − without (hierarchical)', op: '>', limit: 0, unit: '' }
]

function talkRun (talk, layout, preallocated) {
  return talk?.runs.find(r => r.layout === layout && Boolean(r.prealloc) === preallocated) ?? null
}

/** The talk's figures (null when not measured) */
export function talkFigures (talk) {
  const hier = talkRun(talk, 'hierarchical', true)
  const flat = talkRun(talk, 'flat', true)
  const hierNo = talkRun(talk, 'hierarchical', false)
  const diff = (a, b) => (isNum(a) && isNum(b) ? a - b : null)
  return {
    hierEndOfDay: hier?.endOfDayRatio ?? null,
    flatEndOfDayGap: diff(hier?.endOfDayRatio, flat?.endOfDayRatio),
    dipGain: diff(hier?.midnightDip, hierNo?.midnightDip)
  }
}

function judge (t, value) {
  if (!isNum(value)) return null
  return t.op === '≥' ? value >= t.limit : t.op === '>' ? value > t.limit : value <= t.limit
}

/** [{ ...target, value, met (true/false/null), why? }] */
export function evaluateTargets (figures) {
  const h = headlineFigures(figures)
  const out = TARGETS.map(t => ({ ...t, value: h[t.key], met: judge(t, h[t.key]) }))
  if (figures.statsd) {
    const f = statsdFigures(figures.statsd)
    for (const t of STATSD_TARGETS) out.push({ ...t, value: f[t.key], met: judge(t, f[t.key]) })
  }
  if (figures.otlp) {
    const f = otlpFigures(figures.otlp)
    for (const t of OTLP_TARGETS) out.push({ ...t, value: f[t.key], met: judge(t, f[t.key]) })
  }
  if (figures.cardinality) {
    const f = cardinalityFigures(figures.cardinality)
    for (const t of CARDINALITY_TARGETS) out.push({ ...t, value: f[t.key], met: judge(t, f[t.key]) })
  }
  if (figures.tags) {
    const f = tagsFigures(figures.tags)
    for (const t of TAGS_TARGETS) out.push({ ...t, value: f[t.key], met: judge(t, f[t.key]) })
  }
  if (figures.slos) {
    const f = slosFigures(figures.slos)
    for (const t of SLOS_TARGETS) out.push({ ...t, value: f[t.key], met: judge(t, f[t.key]) })
  }
  if (figures.talk) {
    const f = talkFigures(figures.talk)
    const realMongod = figures.env?.backend?.name === 'mongod'
    for (const t of TALK_TARGETS) {
      out.push({ ...t, value: f[t.key], met: realMongod ? judge(t, f[t.key]) : null, why: realMongod ? undefined : 'judged on a real mongod only' })
    }
  }
  return out
}

function fmtValue (t) {
  if (!isNum(t.value)) return 'n/a'
  const digits = t.digits ?? (t.key === 'statementsPerEvent' ? 4 : ['httpOverhead', 'singleVsNaive32', 'singleVsNaive1', 'adaptiveVsFixed', 'timerCpuPerValue', 'timerIngestRatio', 'statsdTimerRatio', 'hierEndOfDay', 'flatEndOfDayGap', 'dipGain', 'sweepCheckedPerBusy', 'sweepShareOfDayLeft', 'taggedIngestRatio', 'taggedCpuRatio', 'rollupIngestRatio', 'rollupCpuRatio'].includes(t.key) ? 2 : t.key === 'coalescingGain' ? 1 : ['rssMB', 'singleRps', 'statsdTcpPerCore', 'statsdTcpLost', 'bytesPerSparseMetricDay', 'sparsePreallocatedBySweep', 'midnightP99', 'countsAddUp', 'tagIndexRssPerSeries'].includes(t.key) ? 0 : 1)
  return `${fmt(t.value, digits)}${t.unit}`
}

/** The service's own account of a phase: flushes and CPU */
export function serviceLine (d) {
  return `${fmt(d.flushes)} flushes of ${fmt(d.requestsPerFlush, 1)} requests and ${fmt(d.statementsPerFlush, 0)} update statements on average, ` +
    `${fmt(d.flushMs, 1)} ms per flush; ${fmt(d.cpuUsPerRequest, 0)} µs of service CPU per request`
}

function table (header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`]
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`)
  return lines.join('\n')
}

/** The environment heading: machine, backend, versions, scale */
export function renderHeading (env) {
  const m = env.machine
  return [
    `**Run** ${env.date} · \`${env.command}\``,
    `**Machine** ${m.cpu} × ${m.cores} cores, ${m.memoryGiB} GiB RAM, ${m.os}${isNum(m.loadAverage) ? `; load average ${m.loadAverage.toFixed(2)} when the run began` : ''}`,
    `**Database** ${env.backend.description}`,
    `**Versions** Node.js ${env.node} · statbucket ${env.statbucket} · mongodb driver ${env.driver} · fastify ${env.fastify} · autocannon ${env.autocannon}`,
    `**Scale** ${env.scale.description}`,
    `**Service** ${env.service}`
  ].join('  \n')
}

const pct = v => (isNum(v) ? `${fmt(v * 100, 0)} %` : 'n/a')
const cores = v => (isNum(v) ? fmt(v, 2) : 'n/a')

/** Where the machine's CPU went during one StatsD run */
function cpuShares (r) {
  const known = [r.serviceCores, r.clientCores, r.databaseCores].filter(isNum).reduce((a, b) => a + b, 0)
  const rest = isNum(r.machineBusy) && isNum(r.machineCores) ? r.machineBusy * r.machineCores - known : null
  return `service ${cores(r.serviceCores)} cores, hot-shots ${cores(r.clientCores)}, database ${cores(r.databaseCores)}` +
    (isNum(r.machineBusy) ? `; the machine was ${pct(r.machineBusy)} busy${isNum(rest) && rest > 0.05 ? ` (${cores(rest)} cores of it other processes)` : ''}` : '')
}

function dropsText (dropped) {
  const entries = Object.entries(dropped ?? {})
  return entries.length ? entries.map(([k, v]) => `${k} ${fmt(v)}`).join(', ') : 'none'
}

/** The StatsD section: both transports side by side */
export function statsdSection (sd) {
  const { tcp, udp, timers } = sd
  const row = (label, r) => [label, fmt(r.sent), fmt(r.sentPerS), fmt(r.appliedPerS), `${fmt(r.cpuUsPerLine, 2)} µs`, fmt(r.linesPerCoreS), fmt(r.stored), `${fmt(r.lost)} (${fmt(r.lossPct, 2)} %)`]
  const out = [
    `**StatsD** (${sd.client}, ${sd.clients} client process${sd.clients > 1 ? 'es' : ''}, counter lines \`bench.statsd.m<i>:1|c\` (UDP: \`bench.statsd.udp.m<i>:1|c\`)${timers ? ', then timer lines `bench.statsd.t<i>:<latency>|ms` (UDP: `bench.statsd.udp.t<i>:…|ms`; their sum: the values counted in their day documents)' : ''} over ${fmt(sd.metrics)} metrics for ${fmt(sd.seconds)} s per transport, STATSD_FLUSH_INTERVAL_MS=${fmt(sd.flushIntervalMs)}; applied/s: the lines stored by the time their sum stopped changing ÷ the time since the first was sent; CPU: the service process's; lost: sent − the sum stored once the service drained on SIGTERM):`,
    '',
    table(['transport', 'lines sent', 'sent/s', 'applied/s', 'service CPU per line', 'applied lines/s per core', 'stored', 'lost'], [
      row(`TCP as fast as the service reads (maxBufferSize ${fmt(tcp.maxBufferSize)})`, tcp),
      row(`UDP at the rate TCP reached (maxBufferSize ${fmt(udp.maxBufferSize)}, ${fmt(udp.offeredRate)} lines/s offered)`, udp),
      ...(timers
        ? [row('timers, TCP as fast as the service reads', timers.tcp), row(`timers, UDP at the rate their TCP reached (${fmt(timers.udp.offeredRate)} lines/s offered)`, timers.udp)]
        : [])
    ]),
    '',
    `CPU during the TCP run: ${cpuShares(tcp)}. During the UDP run: ${cpuShares(udp)}.${timers ? ` During the timers' TCP run: ${cpuShares(timers.tcp)}; their UDP run: ${cpuShares(timers.udp)}.` : ''} The load generator, the service and the database share the same cores.`,
    '',
    `UDP: the service read ${fmt(udp.received)} of the ${fmt(udp.sent)} lines sent (\`statbucket_statsd_received_total{transport="udp"}\`): ${fmt(udp.sent - udp.received)} never reached it, and the host's UDP \`RcvbufErrors\` rose by ${fmt(udp.hostUdpRcvbufErrors)} datagrams (host-wide: datagrams the kernel dropped because the socket's receive buffer was full${isNum(sd.hostRmemMaxBytes) ? `, at most 2 × net.core.rmem_max = ${bytes(2 * sd.hostRmemMaxBytes)} here` : ''}); of what it read it counted as dropped: ${dropsText(udp.dropped)} (\`statbucket_statsd_dropped_total\`).` +
      ` TCP: ${fmt(tcp.received)} lines read, dropped: ${dropsText(tcp.dropped)}${tcp.clientErrors ? `; **${fmt(tcp.clientErrors)} client errors** (${tcp.firstClientError})` : ''}.` +
      (timers ? ` Timers: over UDP the service read ${fmt(timers.udp.received)} of the ${fmt(timers.udp.sent)} lines sent (\`RcvbufErrors\` +${fmt(timers.udp.hostUdpRcvbufErrors)}), dropped: ${dropsText(timers.udp.dropped)}; over TCP ${fmt(timers.tcp.received)} read, dropped: ${dropsText(timers.tcp.dropped)}${timers.tcp.clientErrors ? `; **${fmt(timers.tcp.clientErrors)} client errors** (${timers.tcp.firstClientError})` : ''}.` : '') +
      ` Service RSS peak during the section ${bytes(sd.rssPeakBytes)}.`
  ]
  return out
}

const kB = n => (isNum(n) ? (n >= 1000 ? `${fmt(n / 1000, 1)} kB` : `${fmt(n, 0)} B`) : 'n/a')
const times = (a, b) => { const r = ratio(a, b); return isNum(r) ? fmt(r, r < 0.1 ? 3 : r < 10 ? 2 : 1) : 'n/a' }

/**
 * Timers beside counters, the figures of this run side by side: ingest over
 * HTTP and StatsD, bytes per busy metric-day, and the 30-day p99 reads.
 * Lines of markdown (none when no timer figure was measured).
 */
export function timerSection (figures) {
  const ing = figures.ingest
  const sd = figures.statsd
  const z = figures.timerSizes
  const counter = figures.sizes?.find(x => Number.isInteger(x.value))
  const tr = figures.timerReads
  if (!ing?.httpTimer && !sd?.timers && !z && !tr) return []
  const rows = []
  if (ing?.httpTimer) {
    rows.push([`HTTP \`POST /v1/events\`, batches of ${fmt(ing.http.batch)}, ${ing.http.connections} connections, ${fmt(ing.http.seconds, 0)} s: events/s`, fmt(ing.http.eventsPerS), fmt(ing.httpTimer.eventsPerS), times(ing.httpTimer.eventsPerS, ing.http.eventsPerS)])
    const perEvent = r => (isNum(r?.service?.cpuUsPerRequest) ? r.service.cpuUsPerRequest / r.batch : null)
    rows.push(['… service CPU per event', `${fmt(perEvent(ing.http), 2)} µs`, `${fmt(perEvent(ing.httpTimer), 2)} µs`, times(perEvent(ing.httpTimer), perEvent(ing.http))])
  }
  if (sd?.timers) {
    rows.push([`StatsD over TCP (${sd.client}, ${sd.clients} processes, ${fmt(sd.seconds)} s): applied lines/s`, fmt(sd.tcp.appliedPerS), fmt(sd.timers.tcp.appliedPerS), times(sd.timers.tcp.appliedPerS, sd.tcp.appliedPerS)])
    rows.push(['… applied lines/s per core of service CPU', fmt(sd.tcp.linesPerCoreS), fmt(sd.timers.tcp.linesPerCoreS), times(sd.timers.tcp.linesPerCoreS, sd.tcp.linesPerCoreS)])
    rows.push(['StatsD over UDP at the rate TCP reached: lost', `${fmt(sd.udp.lost)} (${fmt(sd.udp.lossPct, 2)} %)`, `${fmt(sd.timers.udp.lost)} (${fmt(sd.timers.udp.lossPct, 2)} %)`, '–'])
  }
  if (z) {
    rows.push([`bytes per busy metric-day (BSON): day document with its minutes (counter: every minute written; timer: ${fmt(z.valuesPerDay)} values, ${fmt(z.dayBuckets)} buckets in its day tier)`, kB(counter?.dailyBytes), kB(z.dailyBytes), times(z.dailyBytes, counter?.dailyBytes)])
    if (isNum(z.minuteHistogramBytes)) rows.push(['… its minutes\' histograms (timer only: 24 minute-hour documents, kept MINUTE_HISTOGRAM_DAYS)', '–', kB(z.minuteHistogramBytes), '–'])
    if (isNum(z.minuteHistogramBytes)) rows.push(['… day document and minute histograms together', kB(counter?.dailyBytes), kB(z.dailyBytes + z.minuteHistogramBytes), times(z.dailyBytes + z.minuteHistogramBytes, counter?.dailyBytes)])
    rows.push(['… the same day past MINUTE_RETENTION_DAYS (minute tier removed)', kB(counter?.downsampledBytes), kB(z.downsampledBytes), times(z.downsampledBytes, counter?.downsampledBytes)])
    rows.push([`… its monthly document's share (a ${z.monthDays}-day month of such days ÷ ${z.monthDays}; timer month ${kB(z.monthlyBytes)})`, kB(isNum(counter?.monthlyBytes) ? counter.monthlyBytes / z.monthDays : null), kB(z.monthlySharePerDay), times(z.monthlySharePerDay, isNum(counter?.monthlyBytes) ? counter.monthlyBytes / z.monthDays : null)])
  }
  const out = []
  const latency = z?.latency ? `log-normal latencies, median ${fmt(z.latency.medianMs)} ms, σ ${fmt(z.latency.sigma, 1)}, in ms to ${z.latency.resolutionMs}` : 'log-normal latencies'
  if (rows.length) {
    out.push('', `**Timers beside counters** (distributions at α = ${fmt((z?.accuracy ?? 0.01) * 100, 0)} %, ${latency}; counters: increments of 1), measured in this run:`, '')
    out.push(table(['figure', 'counter', 'timer', 'timer ÷ counter'], rows))
  }
  if (tr) {
    out.push('', `**30-day p99 over busy timers**: ${fmt(tr.seed.metrics)} timers × ${fmt(tr.seed.days)} days and today up to the run, a latency a second (${fmt(tr.seed.dailyDocs)} day documents, ${kB(tr.seed.dailyBytes / tr.seed.dailyDocs)} on average, + ${fmt(tr.seed.monthlyDocs)} monthly; ${fmt(tr.seed.values)} values), ${tr.connections} connections, ${fmt(tr.seconds)} s per query, a random timer each request; documents read: the reader's own for the same queries:`, '')
    out.push(table(['query', 'req/s', 'p50', 'p99', 'documents read / query'], tr.queries.map(q => [q.label, fmt(q.requestsPerS), `${fmt(q.p50Ms, 0)} ms`, `${fmt(q.p99Ms, 0)} ms`, fmt(q.docsPerQuery, 1)])))
    const c = tr.check
    if (c) out.push('', `The first 30-day quantiles answer counted ${fmt(c.count)} values where ${fmt(c.expectedCount)} were seeded in its window (${c.ok ? 'yes' : '**NO**'}); its p99 ${fmt(c.p99, 1)} ms.${tr.queries.some(q => q.non2xx || q.errors) ? ` **Failed requests**: ${tr.queries.map(q => `${q.name} ${fmt(q.non2xx)} non-2xx, ${fmt(q.errors)} errors`).join('; ')}.` : ''}`)
  }
  return out
}

const usSpread = x => (isNum(x?.median) ? `${fmt(x.median, 0)} (${fmt(x.min, 0)}–${fmt(x.max, 0)})` : 'n/a')
const ratioSpread = x => (isNum(x?.median) ? `${fmt(x.median, 2)} (${fmt(x.min, 2)}–${fmt(x.max, 2)})` : 'n/a')

/** The three-way single-event comparison (bench-yardstick.js): lines of markdown */
export function yardstickSection (y) {
  const rows = y.byConnections.map(c => [
    fmt(c.connections), usSpread(c.sides.service?.cpuUsPerRequest), usSpread(c.sides.naive?.cpuUsPerRequest), usSpread(c.sides.bare?.cpuUsPerRequest),
    ratioSpread(c.vsNaive), ratioSpread(c.vsBare),
    `${usSpread(c.sides.service?.databaseUsPerRequest)} / ${usSpread(c.sides.naive?.databaseUsPerRequest)}`,
    `${fmt(c.sides.service?.requestsPerS)} / ${fmt(c.sides.naive?.requestsPerS)} / ${fmt(c.sides.bare?.requestsPerS)}`
  ])
  const notOk = y.byConnections.flatMap(c => Object.entries(c.sides).filter(([, s]) => s.notOk > 0).map(([side, s]) => `${side} at ${c.connections}: ${fmt(s.notOk)}`))
  return [
    `**Single events beside the yardsticks**: the service, the naive per-event writer (\`scripts/bench/naive-app.js\`: the same route and schema, two awaited \`$inc\` upserts per event through the official driver) and the bare route (\`bare-app.js\`, no database), each its own process on this database, in turns: ${y.rounds} rounds of ${y.warmupSeconds} s warm-up + ${y.seconds} s each per connection count. CPU of each server process (/proc) per answered request, µs, median (min–max of the rounds); ratios: the median of each round's:`,
    '',
    table(['connections', 'service µs / request', 'naive writer', 'bare route', 'service ÷ naive', 'service ÷ bare (information)', 'database µs / request: service / naive', 'req/s: service / naive / bare'], rows),
    ...(notOk.length ? ['', `**Requests not answered 200**: ${notOk.join('; ')}.`] : [])
  ]
}

/** The whole markdown report */
/** ' The database's CPU: … per unit', where it was measured (the embedded database's process), and beside FLUSH_INTERVAL_MS=10's */
function databaseLine (usPer, unit, fixedUsPer = null) {
  if (!isNum(usPer)) return ''
  const fixed = isNum(fixedUsPer) ? ` (${fmt(fixedUsPer, 2)} with FLUSH_INTERVAL_MS=10)` : ''
  return ` The database's process: ${fmt(usPer, usPer < 10 ? 2 : 1)} µs of CPU per ${unit}${fixed}.`
}

export function renderMarkdown (figures) {
  const out = [renderHeading(figures.env), '']
  const targets = evaluateTargets(figures)
  out.push(table(['figure', 'target', 'measured', 'met'], targets.map(t => [
    t.label, `${t.op} ${fmt(t.limit, t.limitDigits ?? (t.limit < 1 ? 2 : 0))}${t.unit}`, fmtValue(t), t.met === null ? (t.why ? `n/a (${t.why})` : 'n/a') : t.met ? 'yes' : '**no**'
  ])))
  const ing = figures.ingest
  if (ing) {
    out.push('', '**Ingest** (100 metrics, events without `ts`, value 1)', '')
    out.push(table(['path', 'concurrency', 'events/s', 'update statements / event', 'latency p50 / p99'], [
      ['naive: one `$inc` upsert of the daily and one of the monthly document per event, in-process', `${ing.naive.concurrency} workers`, fmt(ing.naive.eventsPerS), fmt(ing.naive.statementsPerEvent, 2), `${fmt(ing.naive.p50Ms, 2)} / ${fmt(ing.naive.p99Ms, 2)} ms`],
      ['coalescing writer in-process, 1,000-event units', `${ing.writer.concurrency} workers`, fmt(ing.writer.eventsPerS), fmt(ing.writer.statementsPerEvent, 4), `${fmt(ing.writer.p50Ms, 1)} / ${fmt(ing.writer.p99Ms, 1)} ms`],
      [`HTTP \`POST /v1/events\`, batches of ${fmt(ing.http.batch)} (FLUSH_INTERVAL_MS=0, adaptive)`, `${ing.http.connections} connections`, fmt(ing.http.eventsPerS), fmt(ing.http.statementsPerEvent, 4), `${fmt(ing.http.p50Ms, 0)} / ${fmt(ing.http.p99Ms, 0)} ms`],
      ...(ing.httpTimer ? [['the same batches of timer values (`"kind": "distribution"`, latencies in ms)', `${ing.httpTimer.connections} connections`, fmt(ing.httpTimer.eventsPerS), fmt(ing.httpTimer.statementsPerEvent, 4), `${fmt(ing.httpTimer.p50Ms, 0)} / ${fmt(ing.httpTimer.p99Ms, 0)} ms`]] : []),
      ...(ing.httpFixed ? [['the same with FLUSH_INTERVAL_MS=10', `${ing.httpFixed.connections} connections`, fmt(ing.httpFixed.eventsPerS), fmt(ing.httpFixed.statementsPerEvent, 4), `${fmt(ing.httpFixed.p50Ms, 0)} / ${fmt(ing.httpFixed.p99Ms, 0)} ms`]] : [])
    ]))
    if (ing.http.service) out.push('', `Service side of the HTTP batches: ${serviceLine(ing.http.service)} (${fmt(ing.http.service.cpuUsPerRequest / ing.http.batch, 2)} µs per event).${databaseLine(ing.http.databaseCpuUsPerEvent, 'event', ing.httpFixed?.databaseCpuUsPerEvent)}`)
    if (ing.httpTimer?.service) out.push('', `Service side of the HTTP timer batches: ${serviceLine(ing.httpTimer.service)} (${fmt(ing.httpTimer.service.cpuUsPerRequest / ing.httpTimer.batch, 2)} µs per value).${databaseLine(ing.httpTimer.databaseCpuUsPerEvent, 'value')}`)
    if (isNum(ing.writer.cpuUsPerEvent)) out.push('', `The in-process writer's process: ${fmt(ing.writer.cpuUsPerEvent * ing.writer.batch, 0)} µs of CPU per 1,000-event unit (${fmt(ing.writer.cpuUsPerEvent, 2)} µs per event).${databaseLine(ing.writer.databaseCpuUsPerEvent, 'event')}`)
    if (ing.http.check) out.push('', `Acknowledged HTTP events found in the database: ${ing.http.check}`)
    if (ing.httpTimer?.check) out.push('', `Acknowledged HTTP timer values found in the database: ${ing.httpTimer.check}`)
  }
  const s = figures.single
  if (s) {
    out.push('', `**Single-event requests**: ${s.connections} connections for ${s.seconds} s: ${fmt(s.requestsPerS)} req/s answered 200, latency p50 ${fmt(s.p50Ms, 0)} ms, p99 ${fmt(s.p99Ms, 0)} ms; other answers ${fmt(s.non2xx)}, errors ${fmt(s.errors)}.${s.service ? ` Service side: ${serviceLine(s.service)}.` : ''}${databaseLine(s.databaseCpuUsPerRequest, 'request')}`)
  }
  if (figures.yardstick) out.push('', ...yardstickSection(figures.yardstick))
  const r = figures.reads
  if (r) {
    out.push('', `**Reads** over ${fmt(r.seed.metrics)} metrics × ${fmt(r.seed.days)} days seeded sparse (${r.seed.eventsPerDay} events per metric per day; ${fmt(r.seed.dailyDocs)} daily + ${fmt(r.seed.monthlyDocs)} monthly documents), ${r.connections} connections, ${r.seconds} s per query, random metric and window:`, '')
    out.push(table(['query', 'req/s', 'p50', 'p99', 'documents read / query'], r.queries.map(q => [
      q.label, fmt(q.requestsPerS), `${fmt(q.p50Ms, 0)} ms`, `${fmt(q.p99Ms, 0)} ms`, fmt(q.docsPerQuery, 1)
    ])))
    const byName = Object.fromEntries(r.queries.map(q => [q.name, q]))
    const pairs = [['series-30d-day-local', 'series-30d-day', 'the 30-day day series'], ['ytd-local', 'ytd', 'the year to date']]
      .filter(([local, utc]) => byName[local] && byName[utc])
      .map(([local, utc, what]) => `${what} ${fmt(ratio(byName[local].p50Ms, byName[utc].p50Ms), 2)}× the UTC p50 latency, reading ${fmt(byName[local].docsPerQuery, 1)} documents instead of ${fmt(byName[utc].docsPerQuery, 1)}`)
    if (pairs.length) out.push('', `**Local time** beside UTC, same run: ${pairs.join('; ')}.`)
  }
  const g = figures.graphite
  if (g) {
    out.push('', `**Grafana's query** \`sumSeries\` over ${fmt(g.metrics)} metrics × 24 h (${fmt(g.points)} one-minute points), one client, ${g.seconds} s each; the two answers' totals ${g.sameTotal ? 'agreed' : '**DISAGREED**'}:`, '')
    out.push(table(['query', 'requests', 'p50', 'p99'], [
      ['`/render?target=sumSeries(…*)`', fmt(g.render.requests), `${fmt(g.render.p50Ms, 0)} ms`, `${fmt(g.render.p99Ms, 0)} ms`],
      [`${fmt(g.metrics)} × \`/v1/metrics/…/series?step=minute\` at once, summed by the client`, fmt(g.series.requests), `${fmt(g.series.p50Ms, 0)} ms`, `${fmt(g.series.p99Ms, 0)} ms`]
    ]))
  }
  const sd = figures.statsd
  if (sd) out.push('', ...statsdSection(sd))
  if (figures.otlp) out.push('', ...otlpSection(figures.otlp))
  for (const z of figures.sizes ?? []) {
    const kind = Number.isInteger(z.value) ? 'whole counts (int32)' : 'fractional sums (double)'
    out.push('', `**Document sizes**, ${kind} in every slot (BSON, 18-character metric name): daily with minute detail ${bytes(z.dailyBytes)}, downsampled to quarter-hours ${bytes(z.downsampledBytes)}, monthly ${bytes(z.monthlyBytes)}. Projected for ${fmt(z.metrics)} metrics:`, '')
    out.push(table(['retention', 'after one year', 'each further year'], z.projections.map(p => [p.label, bytes(p.firstYearBytes), bytes(p.perYearBytes)])))
  }
  out.push(...timerSection(figures))
  if (figures.rss) {
    out.push('', `**Service RSS** (statbucket child process, sampled every 100 ms): peak ${bytes(figures.rss.peakBytes)}; by phase ${Object.entries(figures.rss.byPhase).map(([k, v]) => `${k} ${bytes(v)}`).join(', ')}.`)
  }
  const st = figures.storage
  if (st) {
    out.push('', `**Storage comparison** (the seeds' articles): ${fmt(st.events)} events (${st.metrics} metrics × ${st.days} days × ${st.perDay} per day, integer values) stored three ways; ${st.k} random queries of each kind, one client:`, '')
    out.push(table(['store', 'insert', 'documents', 'storage', 'indexes', `${st.k} × 6-hour window average`, `${st.k} × daily averages over a month`], st.stores.map(x => x.available
      ? [x.label, `${fmt(x.insertSeconds, 1)} s (${fmt(x.eventsPerS)} events/s)`, fmt(x.documents), x.storageBytes === null ? `n/a (${x.sizeNote})` : bytes(x.storageBytes), x.indexBytes === null ? `n/a (${x.sizeNote})` : bytes(x.indexBytes),
          `${fmt(x.window.totalMs, 0)} ms (p99 ${fmt(x.window.p99Ms, 1)} ms)`, `${fmt(x.month.totalMs, 0)} ms (p99 ${fmt(x.month.p99Ms, 1)} ms)`]
      : [x.label, `n/a (${x.note})`, 'n/a', 'n/a', 'n/a', 'n/a', 'n/a'])))
    out.push('', `The three stores' answers agreed on ${fmt(st.agreed)} of ${fmt(st.compared)} queries.`)
  }
  const jobs = figures.jobs
  if (jobs) {
    out.push('', `**Data-lifecycle jobs** over ${fmt(jobs.metrics)} metrics × ${fmt(jobs.days)} days (${fmt(jobs.dailyDocs)} daily documents with minute detail, 96 events a day, + ${fmt(jobs.monthlyDocs)} monthly):`, '')
    out.push(table(['job', 'documents', 'time', 'documents/s'], [
      [`\`npm run check\` (every tier, each month against its days; ${fmt(jobs.check.violations)} violations)`, fmt(jobs.check.documents), `${fmt(jobs.check.seconds, 2)} s`, fmt(jobs.check.documentsPerS)],
      [`retention pass, RETENTION_RATE unlimited (${fmt(jobs.retention.downsampled)} downsampled, ${fmt(jobs.retention.deleted)} deleted)`, fmt(jobs.retention.downsampled + jobs.retention.deleted), `${fmt(jobs.retention.seconds, 2)} s`, fmt(jobs.retention.documentsPerS)]
    ]))
  }
  if (figures.cardinality) out.push('', ...cardinalitySection(figures.cardinality))
  if (figures.tags) out.push('', ...tagsSection(figures.tags))
  if (figures.slos) out.push('', '**SLOs**', '', ...slosTable(figures.slos))
  const talk = figures.talk
  if (talk) {
    out.push('', `**The talk's experiment**: ${talk.metrics} metrics, ${talk.concurrency} workers, one upsert of the daily and one of the monthly document per event, ${fmt(talk.simMinutes)} simulated minutes from 00:00 at ${fmt(talk.speedup)}× (${fmt(talk.simMinutes * 60 / talk.speedup)} s each):`, '')
    out.push(table(['layout', 'preallocation', 'events/s', 'end-of-day ratio (23:00–24:00 ÷ 00:00–01:00)', 'midnight dip (lowest of 00:00–00:03 ÷ median)', 'requests per simulated minute'], talk.runs.map(r => [
      r.layout, r.prealloc ? `p = ${r.prealloc}` : 'off', fmt(r.eventsPerS), `${fmt(r.endOfDayRatio, 2)} (${fmt(r.lastHour)} ÷ ${fmt(r.firstHour)})`, fmt(r.midnightDip, 2), fmt(r.requestsPerMinute)
    ])))
  }
  if (figures.notes?.length) out.push('', ...figures.notes.map(n => `- ${n}`))
  return out.join('\n') + '\n'
}
