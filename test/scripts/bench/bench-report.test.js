// The benchmark's ratios, targets and markdown (pure): nothing is invented,
// a figure not measured prints as n/a.
import { describe, expect, it } from 'vitest'
import { bytes, evaluateTargets, headlineFigures, renderMarkdown } from '../../../scripts/bench/bench-report.js'
import { benchEnv } from '../../helpers/bench-env.js'

const env = benchEnv()

const service = { flushes: 10, requestsPerFlush: 5, statementsPerFlush: 300, flushMs: 12.5, cpuUsPerRequest: 150 }

const figures = {
  env,
  ingest: {
    naive: { eventsPerS: 2000, concurrency: 16, statementsPerEvent: 2, p50Ms: 1, p99Ms: 5 },
    writer: { eventsPerS: 80_000, concurrency: 16, batch: 1000, cpuUsPerEvent: 1.5, statementsPerEvent: 0.04, p50Ms: 50, p99Ms: 90 },
    http: { eventsPerS: 60_000, connections: 16, batch: 1000, statementsPerEvent: 0.03, p50Ms: 100, p99Ms: 200, service, check: 'yes' },
    httpFixed: { eventsPerS: 64_000, connections: 16, batch: 1000, statementsPerEvent: 0.02, p50Ms: 90, p99Ms: 180, service }
  },
  single: { requestsPerS: 4000, p50Ms: 12, p99Ms: 60, connections: 64, seconds: 8, non2xx: 0, errors: 0, service },
  yardstick: {
    rounds: 3,
    seconds: 4,
    warmupSeconds: 1,
    byConnections: [
      { connections: 1, rounds: 3, sides: { service: { cpuUsPerRequest: { median: 600, min: 560, max: 700 }, databaseUsPerRequest: { median: 200, min: 180, max: 500 }, requestsPerS: 1000, notOk: 0 }, naive: { cpuUsPerRequest: { median: 560, min: 530, max: 740 }, databaseUsPerRequest: { median: 200, min: 190, max: 270 }, requestsPerS: 1100, notOk: 0 }, bare: { cpuUsPerRequest: { median: 90, min: 90, max: 110 }, requestsPerS: 5700, notOk: 0 } }, vsNaive: { median: 1.05, min: 0.94, max: 1.11 }, vsBare: { median: 6.2, min: 5.4, max: 7.7 } },
      { connections: 32, rounds: 3, sides: { service: { cpuUsPerRequest: { median: 140, min: 127, max: 158 }, databaseUsPerRequest: { median: 74, min: 69, max: 78 }, requestsPerS: 3300, notOk: 2 }, naive: { cpuUsPerRequest: { median: 466, min: 454, max: 467 }, databaseUsPerRequest: { median: 177, min: 174, max: 194 }, requestsPerS: 1600, notOk: 0 }, bare: { cpuUsPerRequest: { median: 62, min: 57, max: 64 }, requestsPerS: 8000, notOk: 0 } }, vsNaive: { median: 0.3, min: 0.28, max: 0.34 }, vsBare: { median: 2.19, min: 2.05, max: 2.77 } }
    ]
  },
  reads: {
    seed: { metrics: 25, days: 400, eventsPerDay: 24, dailyDocs: 10_000, monthlyDocs: 350 },
    connections: 4,
    seconds: 5,
    queries: [
      { name: 'series-1d-minute', label: 'a', requestsPerS: 100, p50Ms: 3, p99Ms: 9, docsPerQuery: 1 },
      { name: 'ytd', label: 'b', requestsPerS: 100, p50Ms: 5, p99Ms: 25, docsPerQuery: 30 },
      // not among the first build's four reads the target is about
      { name: 'ytd-local', label: 'c', requestsPerS: 100, p50Ms: 10, p99Ms: 40, docsPerQuery: 14 }
    ]
  },
  rss: { peakBytes: 200e6, byPhase: { ingest: 150e6, reads: 200e6 } },
  storage: {
    events: 100,
    metrics: 1,
    days: 31,
    perDay: 4,
    k: 10,
    agreed: 20,
    compared: 20,
    stores: [
      { label: 'buckets', available: true, insertSeconds: 1, eventsPerS: 100, documents: 32, storageBytes: null, indexBytes: null, sizeNote: 'backend reports no storage or index sizes', window: { totalMs: 10, p99Ms: 2 }, month: { totalMs: 20, p99Ms: 3 } },
      { label: 'time series', available: false, note: 'backend lacks time series collections' }
    ]
  },
  notes: ['scaled down']
}

describe('targets', () => {
  it('derives the ratios from the measured figures', () => {
    const h = headlineFigures(figures)
    expect(h.coalescingGain).toBe(30)
    expect(h.httpOverhead).toBe(0.75)
    expect(h.statementsPerEvent).toBe(0.03)
    expect(h.singleRps).toBe(4000)
    expect(h.singleVsNaive32).toBe(0.3) // the median of the rounds' ratios at 32 connections
    expect(h.singleVsNaive1).toBe(1.05)
    expect(h.adaptiveVsFixed).toBe(60 / 64)
    expect(h.readsP99).toBe(25) // the worst of the target's queries (ytd-local is beside it, not in it)
    expect(h.longReadDocs).toBe(null) // the 1-year day series was not measured: no verdict on one of the two
    expect(h.rssMB).toBe(200)
  })

  it('judges each target, and none that was not measured', () => {
    const byKey = Object.fromEntries(evaluateTargets(figures).map(t => [t.key, t.met]))
    expect(byKey).toEqual({ coalescingGain: true, httpOverhead: true, statementsPerEvent: true, singleRps: false, singleP99: false, singleVsNaive32: true, singleVsNaive1: false, adaptiveVsFixed: false, timerCpuPerValue: null, timerIngestRatio: null, readsP99: false, longReadDocs: null, rssMB: true })
    const none = evaluateTargets({ env })
    expect(none.every(t => t.value === null && t.met === null)).toBe(true)
    // the documents target: the more of the two long reads
    const long = headlineFigures({ reads: { queries: [{ name: 'series-1y-day', p99Ms: 5, docsPerQuery: 13 }, { name: 'ytd', p99Ms: 5, docsPerQuery: 8.2 }] } })
    expect(long.longReadDocs).toBe(13)
    expect(evaluateTargets({ env, reads: { queries: [{ name: 'series-1y-day', docsPerQuery: 14 }, { name: 'ytd', docsPerQuery: 8 }] } }).find(t => t.key === 'longReadDocs').met).toBe(false)
    // a ratio needs both sides
    expect(headlineFigures({ ingest: { http: { eventsPerS: 5 }, naive: { eventsPerS: 0 } } }).coalescingGain).toBeNull()
  })
})

describe('markdown', () => {
  const md = renderMarkdown(figures)

  it('is headed by the run, machine, database and versions', () => {
    expect(md.split('\n')[0]).toMatch(/^\*\*Run\*\* 2026-11-21T14:00:00Z · `npm run bench`/)
    expect(md).toMatch(/\*\*Machine\*\* Test CPU × 2 cores, 8\.0 GiB RAM, Linux test; load average 0\.25/)
    expect(md).toMatch(/\*\*Database\*\* mongo-java-server 1\.47\.0 \(embedded\)/)
    expect(md).toMatch(/Node\.js v20\.20\.2 · statbucket 0\.1\.0 · mongodb driver 6\.22\.0/)
  })

  it('has the targets table with what was measured and whether it met the target', () => {
    expect(md).toMatch(/\| figure \| target \| measured \| met \|/)
    expect(md).toMatch(/\| Coalescing gain: .* \| ≥ 10× \| 30\.0× \| yes \|/)
    expect(md).toMatch(/\| Single-event requests, 64 connections \(req\/s\) \| ≥ 5,000 req\/s \| 4,000 req\/s \| \*\*no\*\* \|/)
    expect(md).toMatch(/\| Update statements per event.* \| ≤ 0\.05 \| 0\.0300 \| yes \|/)
    expect(md).toMatch(/Service RSS under load \(peak\) \| ≤ 250 MB \| 200 MB \| yes/)
  })

  it('gives the database process\'s CPU beside the service\'s where it was measured, and nothing where it was not', () => {
    const measured = renderMarkdown({
      ...figures,
      ingest: {
        ...figures.ingest,
        writer: { ...figures.ingest.writer, databaseCpuUsPerEvent: 0.31 },
        http: { ...figures.ingest.http, databaseCpuUsPerEvent: 0.345 },
        httpFixed: { ...figures.ingest.httpFixed, databaseCpuUsPerEvent: 0.4 }
      },
      single: { ...figures.single, databaseCpuUsPerRequest: 32.44 }
    })
    expect(measured).toMatch(/Service side of the HTTP batches: .*\(0\.15 µs per event\)\. The database's process: 0\.35 µs of CPU per event \(0\.40 with FLUSH_INTERVAL_MS=10\)\./)
    expect(measured).toMatch(/The in-process writer's process: .*\(1\.50 µs per event\)\. The database's process: 0\.31 µs of CPU per event\./)
    expect(measured).toMatch(/\*\*Single-event requests\*\*: .*µs of service CPU per request\. The database's process: 32\.4 µs of CPU per request\./)
    expect(md).not.toMatch(/The database's process/) // not measured (an external MONGODB_URI): not invented
  })

  it('prints n/a with the reason where the backend gives no figure', () => {
    expect(md).toMatch(/\| buckets \| 1\.0 s \(100 events\/s\) \| 32 \| n\/a \(backend reports no storage or index sizes\) \|/)
    expect(md).toMatch(/\| time series \| n\/a \(backend lacks time series collections\) \| n\/a/)
    expect(md).toMatch(/agreed on 20 of 20 queries/)
    expect(md).toMatch(/\*\*Local time\*\* beside UTC, same run: the year to date 2\.00× the UTC p50 latency, reading 14\.0 documents instead of 30\.0\./)
    expect(md).toMatch(/12\.5 ms per flush; 150 µs of service CPU per request/)
    expect(renderMarkdown({ env })).toMatch(/\| Reads p99 latency .* \| n\/a \| n\/a \|/)
  })

  it('formats sizes', () => {
    expect(bytes(null)).toBe('n/a')
    expect(bytes(999)).toBe('999 B')
    expect(bytes(12_345)).toBe('12 kB')
    expect(bytes(250e6)).toBe('250.0 MB')
    expect(bytes(3.2e9)).toBe('3.20 GB')
  })
})

describe('the statsd section', () => {
  const run = (over) => ({ maxBufferSize: 8192, offeredRate: null, sent: 1_000_000, stored: 1_000_000, lost: 0, lossPct: 0, sentPerS: 500_000, appliedPerS: 450_000, cpuUsPerLine: 1.1, linesPerCoreS: 900_000, received: 1_000_000, dropped: {}, serviceCores: 0.5, clientCores: 0.9, databaseCores: 0.1, machineBusy: 0.9, machineCores: 2, hostUdpRcvbufErrors: 0, clientErrors: 0, ...over })
  const statsd = {
    client: 'hot-shots 17.1.1',
    metrics: 100,
    clients: 2,
    seconds: 8,
    flushIntervalMs: 1000,
    tcp: run({}),
    udp: run({ maxBufferSize: 1432, offeredRate: 500_000, stored: 970_000, lost: 30_000, lossPct: 3, received: 970_000, dropped: { overload: 5 }, hostUdpRcvbufErrors: 545 }),
    rssPeakBytes: 120e6
  }

  it('judges lines/s per core and TCP loss only when it ran', () => {
    const rows = evaluateTargets({ env, statsd }).filter(t => t.key.startsWith('statsd'))
    expect(rows.map(t => [t.key, t.value, t.met])).toEqual([['statsdTcpPerCore', 900_000, true], ['statsdTcpLost', 0, true], ['statsdTimerRatio', null, null]]) // no timer runs here
    const lossy = evaluateTargets({ env, statsd: { ...statsd, tcp: run({ lost: 1 }) } }).find(t => t.key === 'statsdTcpLost')
    expect(lossy.met).toBe(false)
    expect(evaluateTargets({ env }).some(t => t.key.startsWith('statsd'))).toBe(false)
  })

  it('prints both transports side by side, with the drops and where the CPU went', () => {
    const md = renderMarkdown({ env, statsd })
    expect(md).toMatch(/\| StatsD over TCP \(hot-shots\): applied lines\/s per core of service CPU \| ≥ 100,000 lines\/s \| 900,000 lines\/s \| yes \|/)
    expect(md).toMatch(/\| StatsD over TCP: lines lost .* \| ≤ 0 \| 0 \| yes \|/)
    expect(md).toMatch(/\| TCP as fast as the service reads \(maxBufferSize 8,192\) \| 1,000,000 \| 500,000 \| 450,000 \| 1\.10 µs \| 900,000 \| 1,000,000 \| 0 \(0\.00 %\) \|/)
    expect(md).toMatch(/\| UDP at the rate TCP reached \(maxBufferSize 1,432, 500,000 lines\/s offered\) \| .* \| 970,000 \| 30,000 \(3\.00 %\) \|/)
    expect(md).toMatch(/read 970,000 of the 1,000,000 lines sent .*: 30,000 never reached it/)
    expect(md).toMatch(/counted as dropped: overload 5/)
    expect(md).toMatch(/RcvbufErrors` rose by 545 datagrams/)
    expect(md).toMatch(/service 0\.50 cores, hot-shots 0\.90, database 0\.10; the machine was 90 % busy \(0\.30 cores of it other processes\)/)
  })
})

describe('the talk\'s targets', () => {
  const talk = {
    metrics: 100,
    concurrency: 8,
    simMinutes: 1450,
    speedup: 300,
    prealloc: 0.000667,
    runs: [
      { layout: 'flat', prealloc: 0, eventsPerS: 900, endOfDayRatio: 0.4, firstHour: 1000, lastHour: 400, midnightDip: 0.3, requestsPerMinute: 200 },
      { layout: 'flat', prealloc: 0.000667, eventsPerS: 900, endOfDayRatio: 0.45, firstHour: 1000, lastHour: 450, midnightDip: 0.8, requestsPerMinute: 200 },
      { layout: 'hierarchical', prealloc: 0, eventsPerS: 1000, endOfDayRatio: 0.95, firstHour: 1000, lastHour: 950, midnightDip: 0.5, requestsPerMinute: 200 },
      { layout: 'hierarchical', prealloc: 0.000667, eventsPerS: 1000, endOfDayRatio: 0.9, firstHour: 1000, lastHour: 900, midnightDip: 0.9, requestsPerMinute: 200 }
    ]
  }

  it('are judged on a real mongod only, and shown elsewhere', () => {
    const onMongod = evaluateTargets({ env: { backend: { name: 'mongod' } }, talk }).filter(t => t.key in { hierEndOfDay: 1, flatEndOfDayGap: 1, dipGain: 1 })
    expect(onMongod.map(t => [t.key, t.met])).toEqual([['hierEndOfDay', true], ['flatEndOfDayGap', true], ['dipGain', true]])
    expect(onMongod[1].value).toBeCloseTo(0.45, 12)
    expect(onMongod[2].value).toBeCloseTo(0.4, 12)
    const elsewhere = evaluateTargets({ env: { ...env, backend: { name: 'mongo-java-server', description: 'x' } }, talk })
    expect(elsewhere.filter(t => t.why).map(t => t.met)).toEqual([null, null, null])
    const md = renderMarkdown({ env, talk })
    expect(md).toMatch(/\| Talk: hierarchical layout's end-of-day ratio \(with preallocation\) \| ≥ 0\.80 \| 0\.90 \| n\/a \(judged on a real mongod only\) \|/)
    expect(md).toMatch(/\| hierarchical \| p = 0\.000667 \| 1,000 \| 0\.90 \(900 ÷ 1,000\) \| 0\.90 \| 200 \|/)
    expect(evaluateTargets({ env })).toHaveLength(13) // no talk: no talk rows
  })
})

describe('the cardinality targets', () => {
  const cardinality = {
    busy: 100,
    sweep: { checked: 100, created: 40, shareOfTimeLeft: 0.05, tomorrowsBefore: { busy: 60, sparse: 3 }, tomorrowsAfter: { busy: 100, sparse: 3 } },
    stored: { bytesPerSparseMetricDay: 300 },
    midnight: { whole: { p99Ms: 400 } },
    find: [{ p99Ms: 2 }, { p99Ms: 9 }],
    checks: [{ ok: true }, { ok: true }]
  }
  const judged = f => Object.fromEntries(evaluateTargets({ env, cardinality: f }).filter(t => t.key in { bytesPerSparseMetricDay: 1, sweepCheckedPerBusy: 1, sparsePreallocatedBySweep: 1, sweepShareOfDayLeft: 1, midnightP99: 1, findP99: 1, countsAddUp: 1 }).map(t => [t.key, [t.value, t.met]]))

  it('are judged when the section ran, from what it measured', () => {
    expect(judged(cardinality)).toEqual({
      bytesPerSparseMetricDay: [300, true],
      sweepCheckedPerBusy: [1, true],
      sparsePreallocatedBySweep: [0, true],
      sweepShareOfDayLeft: [0.05, true],
      midnightP99: [400, false],
      findP99: [9, true],
      countsAddUp: [0, true]
    })
    // a sweep that reads the registry, a sparse day over 1 KB, a sparse tomorrow made by the sweep, a count off
    const bad = judged({ ...cardinality, sweep: { ...cardinality.sweep, checked: 1000, tomorrowsAfter: { busy: 100, sparse: 4 } }, stored: { bytesPerSparseMetricDay: 1400 }, checks: [{ ok: false }] })
    expect(bad).toMatchObject({ bytesPerSparseMetricDay: [1400, false], sweepCheckedPerBusy: [10, false], sparsePreallocatedBySweep: [1, false], countsAddUp: [1, false] })
    // not run: no rows
    expect(evaluateTargets({ env }).some(t => t.key === 'findP99')).toBe(false)
    // a pattern without a p99 makes the worst unknown
    expect(judged({ ...cardinality, find: [{ p99Ms: 2 }, { p99Ms: null }] }).findP99).toEqual([null, null])
  })
})

describe('timers beside counters', () => {
  const run = (over) => ({ maxBufferSize: 8192, offeredRate: null, sent: 1_000_000, stored: 1_000_000, lost: 0, lossPct: 0, sentPerS: 500_000, appliedPerS: 400_000, cpuUsPerLine: 1, linesPerCoreS: 1_000_000, received: 1_000_000, dropped: {}, serviceCores: 0.5, clientCores: 0.9, databaseCores: 0.1, machineBusy: 0.9, machineCores: 2, hostUdpRcvbufErrors: 0, clientErrors: 0, ...over })
  const statsd = {
    client: 'hot-shots 17.1.1',
    metrics: 100,
    clients: 2,
    seconds: 8,
    flushIntervalMs: 1000,
    tcp: run({}),
    udp: run({ maxBufferSize: 1432, offeredRate: 500_000 }),
    timers: {
      tcp: run({ appliedPerS: 220_000, linesPerCoreS: 300_000, cpuUsPerLine: 3.33 }),
      udp: run({ maxBufferSize: 1432, offeredRate: 250_000, stored: 990_000, lost: 10_000, lossPct: 1, dropped: { overload: 10_000 } })
    },
    rssPeakBytes: 120e6
  }
  const ingest = {
    ...figures.ingest,
    http: { ...figures.ingest.http, seconds: 8 },
    httpTimer: { eventsPerS: 24_000, connections: 16, batch: 1000, seconds: 8, statementsPerEvent: 0.05, p50Ms: 300, p99Ms: 600, service: { ...service, cpuUsPerRequest: 600 }, databaseCpuUsPerEvent: 41.5, check: 'yes (8,000 acknowledged, 8,000 counted in the day documents)' }
  }
  const timerSizes = { accuracy: 0.01, perSecond: 1, latency: { medianMs: 20, sigma: 0.6, resolutionMs: 0.1 }, valuesPerDay: 86_400, dailyBytes: 254_639, downsampledBytes: 171_048, monthlyBytes: 62_591, monthDays: 30, monthlySharePerDay: 62_591 / 30, dayBuckets: 221 }
  const sizes = [{ value: 7, dailyBytes: 12_690, downsampledBytes: 1215, monthlyBytes: 341, metrics: 10_000, projections: [] }]
  const timerReads = {
    seed: { metrics: 100, days: 30, perSecond: 1, dailyDocs: 3100, monthlyDocs: 200, dailyBytes: 3100 * 250_000, values: 260_000_000, dayBuckets: 221 },
    connections: 4,
    seconds: 5,
    queries: [
      { name: 'quantiles-30d-p99', label: 'q', requestsPerS: 100, p50Ms: 20, p99Ms: 45, non2xx: 0, errors: 0, docsPerQuery: 4 },
      { name: 'series-30d-p99-day', label: 's', requestsPerS: 200, p50Ms: 10, p99Ms: 25, non2xx: 0, errors: 0, docsPerQuery: 2 }
    ],
    check: { expectedCount: 2_592_000, count: 2_592_000, p99: 80.6, ok: true }
  }

  it('judges timer ÷ counter events/s over HTTP and lines/s over StatsD against 0.5', () => {
    const judged = Object.fromEntries(evaluateTargets({ env, ingest, statsd }).filter(t => ['timerCpuPerValue', 'timerIngestRatio', 'statsdTimerRatio'].includes(t.key)).map(t => [t.key, [t.value, t.met]]))
    expect(judged).toEqual({ timerCpuPerValue: [0.6, true], timerIngestRatio: [0.4, false], statsdTimerRatio: [0.55, true] })
    // a StatsD run without timers (an older figures file), or no counter side: no verdict
    const noTimers = evaluateTargets({ env, statsd: { ...statsd, timers: undefined } }).find(t => t.key === 'statsdTimerRatio')
    expect([noTimers.value, noTimers.met]).toEqual([null, null])
    expect(headlineFigures({ ingest: { httpTimer: { eventsPerS: 5 } } }).timerIngestRatio).toBeNull()
  })

  it('prints the timers side by side with the counters in one table, then the 30-day reads', () => {
    const md = renderMarkdown({ env, ingest, statsd, sizes, timerSizes, timerReads })
    expect(md).toMatch(/\| Timers: HTTP batched ingest of timer values ÷ of counter increments .* \| ≥ 0\.50 \| 0\.40 \| \*\*no\*\* \|/)
    expect(md).toMatch(/\| StatsD over TCP: timer lines \(type ms\) ÷ counter lines \(type c\), applied lines\/s \| ≥ 0\.50 \| 0\.55 \| yes \|/)
    expect(md).toMatch(/\| the same batches of timer values \(`"kind": "distribution"`, latencies in ms\) \| 16 connections \| 24,000 \| 0\.0500 \| 300 \/ 600 ms \|/)
    expect(md).toMatch(/Acknowledged HTTP timer values found in the database: yes \(8,000 acknowledged/)
    expect(md).toMatch(/Service side of the HTTP timer batches: 10 flushes of 5\.0 requests .*; 600 µs of service CPU per request \(0\.60 µs per value\)\. The database's process: 41\.5 µs of CPU per value\./)
    expect(md).toMatch(/\| timers, TCP as fast as the service reads \| 1,000,000 \| 500,000 \| 220,000 \| 3\.33 µs \| 300,000 \|/)
    expect(md).toMatch(/\| timers, UDP at the rate their TCP reached \(250,000 lines\/s offered\) \| .* \| 990,000 \| 10,000 \(1\.00 %\) \|/)
    expect(md).toMatch(/Timers: over UDP the service read 1,000,000 of the 1,000,000 lines sent .*dropped: overload 10,000/)
    expect(md).toMatch(/\*\*Timers beside counters\*\* \(distributions at α = 1 %, log-normal latencies, median 20 ms, σ 0\.6, in ms to 0\.1/)
    expect(md).toMatch(/\| HTTP `POST \/v1\/events`, batches of 1,000, 16 connections, 8 s: events\/s \| 60,000 \| 24,000 \| 0\.40 \|/)
    expect(md).toMatch(/\| … service CPU per event \| 0\.15 µs \| 0\.60 µs \| 4\.00 \|/)
    expect(md).toMatch(/\| StatsD over TCP \(hot-shots 17\.1\.1, 2 processes, 8 s\): applied lines\/s \| 400,000 \| 220,000 \| 0\.55 \|/)
    expect(md).toMatch(/\| StatsD over UDP at the rate TCP reached: lost \| 0 \(0\.00 %\) \| 10,000 \(1\.00 %\) \| – \|/)
    expect(md).toMatch(/\| bytes per busy metric-day \(BSON\): day document with its minutes .*86,400 values, 221 buckets in its day tier\) \| 12\.7 kB \| 254\.6 kB \| 20\.1 \|/)
    expect(md).toMatch(/\| … the same day past MINUTE_RETENTION_DAYS \(minute tier removed\) \| 1\.2 kB \| 171\.0 kB \| 140\.8 \|/)
    expect(md).toMatch(/\| … its monthly document's share .*timer month 62\.6 kB\) \| 11 B \| 2\.1 kB \| 183\.6 \|/)
    expect(md).toMatch(/\*\*30-day p99 over busy timers\*\*: 100 timers × 30 days and today up to the run, a latency a second \(3,100 day documents, 250\.0 kB on average, \+ 200 monthly; 260,000,000 values\), 4 connections, 5 s per query/)
    expect(md).toMatch(/\| q \| 100 \| 20 ms \| 45 ms \| 4\.0 \|/)
    expect(md).toMatch(/counted 2,592,000 values where 2,592,000 were seeded in its window \(yes\); its p99 80\.6 ms\./)
    // nothing of timers measured: no timer section
    expect(renderMarkdown({ env })).not.toMatch(/Timers beside counters|30-day p99/)
  })
})

describe('the yardsticks', () => {
  const md = renderMarkdown(figures)

  it('prints each connection count\'s CPU per request of the three processes, with the range of the rounds and the ratios', () => {
    expect(md).toMatch(/\| 1 \| 600 \(560–700\) \| 560 \(530–740\) \| 90 \(90–110\) \| 1\.05 \(0\.94–1\.11\) \| 6\.20 \(5\.40–7\.70\) \|/)
    expect(md).toMatch(/\| 32 \| 140 \(127–158\) \| 466 \(454–467\) \| 62 \(57–64\) \| 0\.30 \(0\.28–0\.34\) \|/)
    expect(md).toMatch(/Requests not answered 200\*\*: service at 32: 2\./)
  })
})

describe('the otlp section', () => {
  const statsdRun = { appliedPerS: 100_000, linesPerCoreS: 400_000, cpuUsPerLine: 2.5, databaseCores: 0.2 }
  const otlpRun = (over = {}) => ({ mix: { deltaSums: 100, explicitHistograms: 50, exponentialHistograms: 10, gauges: 20, upDownCounters: 20, valuesPerHistogram: 20 }, pointsPerRequest: 200, bodyBytes: 39_000, connections: 32, seconds: 8, requests: 100, acknowledged: 90, pointsPerS: 2250, pointsPerCoreS: 100_000, cpuUsPerPoint: 10, statementsPerPoint: 0.2, databaseCpuUsPerPoint: 30, p99Ms: 900, counterCheck: { expected: 900, sent: 1000, stored: 900 }, ...over })
  const otlp = { statsd: statsdRun, otlp: otlpRun(), sumsOnly: otlpRun({ pointsPerCoreS: 200_000 }), ratio: 0.25 }

  it('judges the ratio of OTLP points to StatsD lines per core against 0.5, and increments missing or past what was sent', () => {
    const rows = (o) => evaluateTargets({ env, otlp: o }).filter(t => t.key.startsWith('otlp')).map(t => [t.key, t.value, t.met])
    expect(rows(otlp)).toEqual([['otlpVsStatsd', 0.25, false], ['otlpCountersStored', 0, true]])
    expect(rows({ ...otlp, ratio: 0.6, otlp: otlpRun({ counterCheck: { expected: 900, sent: 1000, stored: 850 } }) })).toEqual([['otlpVsStatsd', 0.6, true], ['otlpCountersStored', 50, false]])
    expect(rows({ ...otlp, sumsOnly: otlpRun({ counterCheck: { expected: 900, sent: 1000, stored: 1010 } }) })[1]).toEqual(['otlpCountersStored', 10, false])
    expect(evaluateTargets({ env }).some(t => t.key.startsWith('otlp'))).toBe(false)
  })

  it('prints both doors\' rows, the mix and the sums alone, and n/a for what was not measured', () => {
    const md = renderMarkdown({ env, otlp: { ...otlp, otlp: otlpRun({ databaseCpuUsPerPoint: null }) } })
    expect(md).toContain('| StatsD TCP counter lines | 100,000 | 400,000 | 2.50 µs / line |')
    expect(md).toContain('| OTLP protobuf points, the mix | 2,250 | 100,000 | 10.00 µs / point | 0.200 / point | n/a / point | 90 / 100 (900 ms) |')
    expect(md).toContain('| the same, 200 delta sums an export (information) | 2,250 | 200,000 |')
    expect(md).toMatch(/\| OTLP\/HTTP protobuf points ÷ StatsD TCP lines .* \| ≥ 0\.50 \| 0\.25 \| \*\*no\*\* \|/)
  })
})
