// The cardinality section: what it sends (pure), what it makes of what it
// measured (pure), and a quick-scale run against the suite's server that
// must show preallocation following activity, not the registry.
import { describe, expect, it } from 'vitest'
import { MongoClient } from 'mongodb'
import { mongodbUri, uniqueDbName } from '../../helpers/test-app.js'
import { benchEnv } from '../../helpers/bench-env.js'
import { serverLacks } from '../../helpers/server-gaps.js'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../../src/bucket/time.js'
import { SCALES } from '../../../scripts/bench/bench-args.js'
import { offsetClock } from '../../../scripts/bench/bench-clock.js'
import { benchCardinality } from '../../../scripts/bench/bench-cardinality.js'
import { evaluateTargets, renderMarkdown } from '../../../scripts/bench/bench-report.js'
import {
  busyMinuteBodies, busyNames, findQueries, isBusyName, metricIndex, metricName, populationShape, sparseBodies, sparseEvents, timeline, windowBody
} from '../../../scripts/bench/cardinality-workload.js'
import {
  classifyDaily, countChecks, createTally, dayFieldBytes, hasEveryMinute, latencyWindow, midnightFigures, storedFigures, sweepFigures
} from '../../../scripts/bench/cardinality-figures.js'
import { globParts } from '../../../src/graphite/glob.js'

const DAY = Date.UTC(2026, 10, 18)
const shape = populationShape({ metrics: 20_000, busy: 200 })

describe('the population', () => {
  it('names every metric once, as a Graphite tree, every 100th busy', () => {
    expect(shape).toMatchObject({ metrics: 20_000, busy: 200, sparse: 19_800, busyEvery: 100, hostsPerService: 4 })
    const names = new Set()
    let busy = 0
    for (let i = 0; i < shape.metrics; i++) {
      const name = metricName(i, shape)
      expect(metricIndex(name, shape)).toBe(i)
      names.add(name)
      if (isBusyName(name, shape)) busy++
    }
    expect(names.size).toBe(20_000)
    expect(busy).toBe(200)
    expect(metricName(0, shape)).toBe('card.svc00.host000.m00')
    expect(metricName(19_999, shape)).toBe('card.svc49.host003.m99')
    expect(busyNames(shape)).toHaveLength(200)
    expect(busyNames(shape).every(n => n.endsWith('.m00'))).toBe(true)
    // the full scale's shape
    expect(populationShape({ metrics: 1_000_000, busy: 10_000 })).toMatchObject({ sparse: 990_000, hostsPerService: 200 })
    expect(isBusyName('other.metric', shape)).toBeNull()
    expect(isBusyName('card.svc00.host004.m00', shape)).toBeNull() // past the hosts of this scale
  })

  it('refuses sizes it cannot lay out', () => {
    expect(() => populationShape({ metrics: 12_345, busy: 5 })).toThrow(/multiple of 5000/)
    expect(() => populationShape({ metrics: 20_000, busy: 300 })).toThrow(/busy must divide/)
  })

  it('gives a sparse metric 1 to 5 events inside the day so far, the same each run', () => {
    const until = DAY + 18 * HOUR_MS
    const counts = new Set()
    for (let i = 1; i < 500; i++) {
      const events = sparseEvents(i, shape, { day: DAY, until })
      counts.add(events.length)
      for (const e of events) expect(e.ts >= DAY && e.ts < until).toBe(true)
      expect(sparseEvents(i, shape, { day: DAY, until })).toEqual(events)
    }
    expect([...counts].sort()).toEqual([1, 2, 3, 4, 5])
  })

  it('sends every sparse metric\'s events in one body, and no busy metric', () => {
    const until = DAY + 18 * HOUR_MS
    const seen = new Map()
    let bodies = 0
    for (const body of sparseBodies(shape, { day: DAY, until, batch: 1000 })) {
      bodies++
      expect(body.length).toBeLessThan(1005) // whole metrics: at most 4 events past the batch
      const inBody = new Set(body.map(e => e.metric))
      for (const metric of inBody) {
        expect(seen.has(metric)).toBe(false) // a metric's events are never split over bodies
        seen.set(metric, body.filter(e => e.metric === metric).length)
      }
    }
    expect(seen.size).toBe(shape.sparse)
    expect([...seen.keys()].some(n => isBusyName(n, shape))).toBe(false)
    expect(bodies).toBeGreaterThan(50)
  })

  it('writes each busy metric once a second in a busy minute, whole metrics per body', () => {
    const names = busyNames(shape)
    const minuteStart = DAY + 23 * HOUR_MS + 5 * MINUTE_MS
    const perMetric = new Map()
    for (const body of busyMinuteBodies(names, { minuteStart, perMinute: 60, batch: 1000 })) {
      expect(body.length).toBeLessThanOrEqual(1000)
      for (const e of body) {
        const t = Date.parse(e.ts)
        expect(t >= minuteStart && t < minuteStart + MINUTE_MS).toBe(true)
        perMetric.set(e.metric, (perMetric.get(e.metric) ?? new Set()).add(t))
      }
    }
    expect(perMetric.size).toBe(200)
    for (const seconds of perMetric.values()) expect(seconds.size).toBe(60)
  })

  it('lays the day out: busy in the last hour, the sweep at the next tick, the window across midnight', () => {
    const tl = timeline({ day: DAY, busyMinutes: 30, windowSeconds: 60 })
    expect(tl.busyFrom).toBe(DAY + 23 * HOUR_MS)
    expect(tl.sweepAt).toBe(DAY + 23 * HOUR_MS + 30 * MINUTE_MS)
    expect(timeline({ day: DAY, busyMinutes: 33, windowSeconds: 60 }).sweepAt).toBe(DAY + 23 * HOUR_MS + 40 * MINUTE_MS)
    expect(tl.windowFrom).toBe(DAY + DAY_MS - 30_000)
    expect(tl.windowTo).toBe(DAY + DAY_MS + 30_000)
    expect(tl.sparseSentAt).toBeLessThan(tl.busyFrom)
  })

  it('takes the busy metrics in turn across the window, with the sparse metrics\' share of the events', () => {
    const busy = busyNames(shape)
    const counts = new Map()
    let sparse = 0
    for (let n = 0; n < 40; n++) { // 40 bodies of 50: each busy metric 10 times, minus the sparse share
      const body = windowBody(n, { busy, shape, size: 50, sparseShare: 0.01 })
      expect(body).toHaveLength(50)
      for (const name of body) {
        if (isBusyName(name, shape)) counts.set(name, (counts.get(name) ?? 0) + 1)
        else { expect(isBusyName(name, shape)).toBe(false); sparse++ }
      }
    }
    expect(sparse).toBe(20) // 1 % of 2,000
    expect(counts.size).toBe(200)
    expect(Math.min(...counts.values())).toBeGreaterThanOrEqual(9)
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(10)
  })

  it('asks /metrics/find what Grafana asks, patterns the glob parser takes', () => {
    let seed = 0
    const random = () => ((seed = (seed * 9301 + 49297) % 233280) / 233280)
    const queries = findQueries(shape)
    expect(queries.map(q => q.name)).toEqual(['root', 'services', 'hosts', 'metrics', 'autocomplete', 'variable'])
    for (const q of queries) {
      const pattern = q.make(random)
      expect(pattern).toMatch(/^(\*|card\.)/)
      expect(globParts(pattern).length).toBe(pattern.split('.').length)
    }
  })
})

describe('the simulated clock', () => {
  it('runs at real speed from where it was set', () => {
    let real = 1_000
    const clock = offsetClock(DAY, () => real)
    expect(clock.now()).toBe(DAY)
    real += 250
    expect(clock.now()).toBe(DAY + 250)
    clock.set(DAY + DAY_MS - 30_000)
    real += 31_000
    expect(clock.now()).toBe(DAY + DAY_MS + 1000)
  })
})

describe('the figures', () => {
  it('splits the window at midnight', () => {
    const midnight = DAY + DAY_MS
    const requests = [
      { at: midnight - 20_000, ms: 5, events: 100, ok: true },
      { at: midnight - 10, ms: 50, events: 100, ok: true },
      { at: midnight, ms: 7, events: 100, ok: true },
      { at: midnight + 5_000, ms: 900, events: 100, ok: false }
    ]
    const f = midnightFigures(requests, { windowFrom: midnight - 30_000, windowTo: midnight + 30_000, midnight })
    expect(f.before).toMatchObject({ requests: 2, acknowledged: 200, failed: 0, p99Ms: 50, maxMs: 50 })
    expect(f.after).toMatchObject({ requests: 2, acknowledged: 100, failed: 1, p99Ms: 900 })
    expect(f.whole.eventsPerS).toBe(300 / 60)
    expect(latencyWindow([], 0, 1000)).toMatchObject({ requests: 0, p99Ms: null, maxMs: null })
  })

  it('judges the sweep against the time left in its day', () => {
    const midnight = DAY + DAY_MS
    const startedAt = midnight - 30 * MINUTE_MS
    const f = sweepFigures({ result: { checked: 10, created: 4 }, startedAt, endedAt: startedAt + 180_000, ms: 180_000 }, { midnight, rate: 50 })
    expect(f).toMatchObject({ checked: 10, created: 4, seconds: 180, secondsLeftAtStart: 1800, shareOfTimeLeft: 0.1, endedBeforeMidnight: true, metricsPerTick: 15_000 })
    const late = sweepFigures({ result: { checked: 10, created: 10 }, startedAt, endedAt: midnight + 1, ms: 1_800_001 }, { midnight, rate: 50 })
    expect(late.endedBeforeMidnight).toBe(false)
    expect(late.shareOfTimeLeft).toBeGreaterThan(1)
  })

  it('tells a zero-filled day from a written one, and sizes a month\'s day field', () => {
    const full = { minute: Object.fromEntries(Array.from({ length: 24 }, (_, h) => [h, Object.fromEntries(Array.from({ length: 60 }, (_, m) => [m, 0]))])) }
    expect(hasEveryMinute(full)).toBe(true)
    delete full.minute[23][59]
    expect(hasEveryMinute(full)).toBe(false)
    expect(hasEveryMinute({ minute: { 5: { 7: 1 } } })).toBe(false)
    expect(hasEveryMinute({})).toBe(false)
    // "18": int32 → type byte, "18\0", 4 bytes; a double takes 8
    expect(dayFieldBytes({ daily: { 18: 3 } }, '18')).toBe(8)
    expect(dayFieldBytes({ daily: { 18: 2.5 } }, '18')).toBe(12)
    expect(dayFieldBytes({ daily: { 17: 3 } }, '18')).toBe(0)
    const tl = { day: DAY, tomorrow: DAY + DAY_MS }
    expect(classifyDaily({ metric: 'card.svc00.host000.m00', date: new Date(DAY), minute: {} }, shape, tl)).toEqual({ when: 'today', population: 'busy', origin: 'written' })
    expect(classifyDaily({ metric: 'card.svc00.host000.m01', date: new Date(DAY + DAY_MS), minute: {} }, shape, tl)).toMatchObject({ when: 'tomorrow', population: 'sparse' })
    expect(classifyDaily({ metric: 'bench.x', date: new Date(DAY - DAY_MS) }, shape, tl)).toMatchObject({ when: null, population: null })
  })

  it('adds up bytes per sparse metric-day and finds counts that do not add up', () => {
    const small = populationShape({ metrics: 5000, busy: 50 })
    const daily = createTally()
    const monthly = createTally()
    const registry = createTally()
    for (let i = 0; i < small.sparse; i++) daily.add('today.sparse.written', 300, { sum: 2 })
    for (let i = 0; i < small.busy; i++) {
      daily.add('today.busy.written', 2000, { sum: 1800 })
      daily.add('tomorrow.busy.preallocated', 13_000, { sum: 10 })
      registry.add('busy', 110, { busyToday: 1 })
    }
    daily.add('tomorrow.sparse.preallocated', 13_000 * 99, { sum: 0 })
    for (let i = 0; i < small.sparse; i++) {
      monthly.add('sparse', 130, { todayFieldBytes: 8 })
      registry.add('sparse', 95, { busyToday: 0 })
    }
    const stored = storedFigures({ daily, monthly, registry }, small)
    // 300 + 8 + 13,000 × 99 / 4,950 = 568
    expect(stored.bytesPerSparseMetricDay).toBe(568)
    expect(stored.today.sparse).toMatchObject({ documents: 4950, meanBytes: 300, preallocated: 0 })
    expect(stored.tomorrow.busy).toMatchObject({ documents: 50, preallocated: 50 })
    const sweep = { checked: 50, created: 20, tomorrowsBefore: { busy: 30, sparse: 99 }, tomorrowsAfter: { busy: 50, sparse: 99 } }
    const events = 4950 * 2 + 50 * 1810
    const checks = countChecks({ stored, sweep, shape: small, acknowledgedEvents: events, registryEntries: 5000 })
    expect(checks.filter(c => !c.ok)).toEqual([])
    // a sweep that read the registry, made a sparse day, or events missing: each is found
    const bad = countChecks({ stored, sweep: { ...sweep, checked: 5000, tomorrowsAfter: { busy: 50, sparse: 100 } }, shape: small, acknowledgedEvents: events + 1, registryEntries: 5000 })
    expect(bad.filter(c => !c.ok).map(c => c.what)).toEqual(['metrics the sweep checked = busy metrics', 'sparse tomorrows the sweep made', 'events in the daily documents = events acknowledged'])
    // events answered 504 may or may not be there
    expect(countChecks({ stored, sweep, shape: small, acknowledgedEvents: events - 3, unknownEvents: 5, registryEntries: 5000 }).every(c => c.ok)).toBe(true)
  })
})

const QUICK_RUN = 'a quick-scale run against the suite\'s server'
describe.skipIf(serverLacks('scale', QUICK_RUN))(QUICK_RUN, () => {
  it('preallocates the busy metrics only, stores a sparse day in under 1 KB, and every count adds up', async () => {
    const dbName = uniqueDbName('card')
    const scale = { ...SCALES.quick.cardinality, windowSeconds: 6, findSeconds: 0.5 }
    const c = await benchCardinality({ uri: mongodbUri(), dbName, scale })
    expect(c.checks.filter(k => !k.ok)).toEqual([])
    // the sweep read today's busy metrics, not the registry, and gave no sparse metric a tomorrow
    expect(c.sweep.checked).toBe(200)
    expect(c.sweep.tomorrowsAfter).toMatchObject({ busy: 200, sparse: c.sweep.tomorrowsBefore.sparse })
    expect(c.sweep.created).toBe(200 - c.sweep.tomorrowsBefore.busy)
    expect(c.sweep.endedBeforeMidnight).toBe(true)
    expect(c.stored.tomorrow.busy.preallocated).toBe(200)
    // only PREALLOC_PROBABILITY (0.000667 per event, 1–5 events a day) reaches a sparse metric: a few in 19,800
    expect(c.stored.tomorrow.sparse.preallocated).toBeLessThan(200)
    expect(c.stored.today.sparse.preallocated).toBe(0)
    expect(c.stored.today.sparse.meanBytes).toBeLessThan(1024)
    expect(c.stored.bytesPerSparseMetricDay).toBeLessThanOrEqual(1024)
    expect(c.stored.tomorrow.busy.meanBytes).toBeGreaterThan(10_000) // zero-filled: every minute
    expect(c.midnight.before.requests).toBeGreaterThan(0)
    expect(c.midnight.after.requests).toBeGreaterThan(0)
    expect(c.midnight.whole.failed).toBe(0)
    expect(c.find.every(q => q.failed === 0 && q.requests > 0)).toBe(true)
    const judged = Object.fromEntries(evaluateTargets({ cardinality: c }).map(t => [t.key, t.met]))
    expect(judged).toMatchObject({ bytesPerSparseMetricDay: true, sweepCheckedPerBusy: true, sparsePreallocatedBySweep: true, countsAddUp: true })
    expect(renderMarkdown({ env: ENV, cardinality: c, notes: [] })).toMatch(/\*\*Cardinality\*\* — 20,000 registered metrics, 200 busy/)
    // its database is gone
    const client = await new MongoClient(mongodbUri()).connect()
    try {
      const { databases } = await client.db('admin').admin().listDatabases()
      expect(databases.map(d => d.name)).not.toContain(dbName)
    } finally {
      await client.close()
    }
  }, 240_000)
})

const ENV = benchEnv({ date: '2026-11-25T14:00:00Z', command: 'npm run bench -- --only cardinality --scale quick', backend: { description: 'test' }, scale: { description: 'quick' } })
