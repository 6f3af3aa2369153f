// Timers beside counters in the benchmark (docs/benchmarks.md#timers-beside-counters): the latencies and documents it generates (pure), and a tiny run
// of its timer phases against the suite's server: HTTP batches of timer
// values, and the 30-day p99 reads over seeded timers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MongoClient } from 'mongodb'
import { mongodbUri, uniqueDbName } from '../../helpers/test-app.js'
import { benchEnv } from '../../helpers/bench-env.js'
import { buildDistributionUnit } from '../../../src/bucket/distribution-increments.js'
import { mergeTiers, statValue } from '../../../src/bucket/distribution-stats.js'
import { DAY_MS, QUARTER_HOUR_MS, startOfDay } from '../../../src/bucket/time.js'
import { seededRandom } from '../../../scripts/shared/workload.js'
import { benchHttpBatched, timerBodies } from '../../../scripts/bench/bench-ingest.js'
import { benchTimerReads, distributionCount, seedTimerReads, timerReadQueries } from '../../../scripts/bench/bench-timers.js'
import { evaluateTargets, renderMarkdown } from '../../../scripts/bench/bench-report.js'
import { startServerProcess } from '../../../scripts/bench/server-process.js'
import { LATENCY, TIMER_KIND, documentOf, latencies, monthlyUpdate, timerDay, timerDocumentSizes, timerEvents } from '../../../scripts/bench/timer-workload.js'

const DAY = Date.UTC(2026, 10, 21)

describe('the latencies', () => {
  it('are log-normal around 20 ms, in tenths of a ms, the same for a seed', () => {
    const values = latencies(20_000, 3)
    expect(latencies(20_000, 3)).toEqual(values)
    expect(latencies(5, 4)).not.toEqual(values.slice(0, 5))
    const sorted = values.slice().sort((a, b) => a - b)
    const at = q => sorted[Math.floor(q * (sorted.length - 1))]
    // median e^0 · 20 ms; p99 20 · e^(2.326 · 0.6) ≈ 80.7 ms
    expect(at(0.5)).toBeGreaterThan(19)
    expect(at(0.5)).toBeLessThan(21)
    expect(at(0.99)).toBeGreaterThan(72)
    expect(at(0.99)).toBeLessThan(90)
    expect(values.every(v => v > 0 && Math.abs(v * 10 - Math.round(v * 10)) < 1e-9)).toBe(true)
    // as a StatsD line carries them: one decimal at most
    expect(values.every(v => /^\d+(\.\d)?$/.test(String(v)))).toBe(true)
    expect(LATENCY).toEqual({ medianMs: 20, sigma: 0.6, resolutionMs: 0.1 })
  })

  it('make HTTP bodies of timer values over the names, different from body to body', () => {
    const bodies = timerBodies(['a', 'b'], 4, 3).map(b => JSON.parse(b))
    expect(bodies).toHaveLength(3)
    expect(bodies[0].map(e => e.metric)).toEqual(['a', 'b', 'a', 'b'])
    expect(bodies[0].every(e => e.kind === 'distribution' && e.value > 0)).toBe(true)
    expect(bodies[1]).not.toEqual(bodies[0])
  })
})

describe('a busy timer\'s documents', () => {
  it('a day: every value in every tier, the day tier as the monthly document holds it', () => {
    const day = timerDay({ metric: 't', dayStart: DAY, perSecond: 1 / 60, seed: 2 })
    expect(day.values).toBe(1440)
    const doc = documentOf(day.daily.id, day.daily.update)
    expect(doc).toMatchObject({ _id: 't/20261121', metric: 't', date: new Date(DAY) })
    expect(doc.daily.count).toBe(1440)
    expect(Object.keys(doc.hourly)).toHaveLength(24)
    expect(Object.values(doc.minute).flatMap(Object.values)).toHaveLength(1440)
    const events = timerEvents({ metric: 't', from: DAY, until: DAY + DAY_MS, perSecond: 1 / 60, random: seededRandom(2) })
    expect(doc.daily.max).toBe(Math.max(...events.map(e => e.value)))
    expect(day.dayTier.inc.count).toBe(1440)
    expect(day.dayTier.max.max).toBe(doc.daily.max)
    // stopped at `until`
    expect(timerDay({ metric: 't', dayStart: DAY, until: DAY + 6 * 3_600_000, perSecond: 1 / 60 }).values).toBe(360)
  })

  it('a month: its days as the writer\'s upserts add them up', () => {
    const month = Date.UTC(2026, 10, 1)
    const days = [1, 2].map(d => timerDay({ metric: 't', dayStart: month + (d - 1) * DAY_MS, perSecond: 1 / 600, seed: d }))
    const doc = documentOf('t/202611', monthlyUpdate('t', month, days.map((d, i) => ({ dayOfMonth: i + 1, dayTier: d.dayTier }))))
    // the writer's own monthly updates of the same values, in one unit
    const events = [1, 2].flatMap(d => timerEvents({ metric: 't', from: month + (d - 1) * DAY_MS, until: month + d * DAY_MS, perSecond: 1 / 600, random: seededRandom(d) }))
    const unit = buildDistributionUnit(events, TIMER_KIND.mapping)
    const written = documentOf('t/202611', unit.monthly.get('t/202611'))
    const { sum, ...rest } = doc.monthly
    const { sum: writtenSum, ...writtenRest } = written.monthly
    expect(rest).toEqual(writtenRest)
    expect(sum).toBeCloseTo(writtenSum, 6)
    expect(doc.daily[2].count).toBe(144)
    expect(statValue(mergeTiers(doc.daily[1], doc.daily[2]), { kind: 'percentile', q: 0.99 }, TIMER_KIND.mapping))
      .toBe(statValue(doc.monthly, { kind: 'percentile', q: 0.99 }, TIMER_KIND.mapping))
  })

  it('sizes: a busy timer\'s day is many times a counter\'s, its monthly share small', () => {
    const z = timerDocumentSizes({ perSecond: 1 / 10, templates: 1 })
    expect(z.valuesPerDay).toBe(8640)
    expect(z.dailyBytes).toBeGreaterThan(z.downsampledBytes)
    expect(z.downsampledBytes).toBeGreaterThan(50_000) // 121 histogram tiers
    expect(z.monthlySharePerDay).toBe(z.monthlyBytes / 30)
    expect(z.monthlySharePerDay).toBeLessThan(z.dailyBytes / 20)
    expect(z.dayBuckets).toBeGreaterThan(100)
  })
})

describe('the 30-day reads', () => {
  it('quantiles up to the quarter-hour, a day series with today', () => {
    const now = DAY + 10 * 3_600_000 + 7 * 60_000
    const [quantiles, series] = timerReadQueries({ metrics: ['a'] }, seededRandom(1))
    expect(quantiles.make(now)).toEqual({ metric: 'a', quantiles: true, from: DAY + 10 * 3_600_000 - 30 * DAY_MS, to: DAY + 10 * 3_600_000, qs: [0.99] })
    expect(series.make(now)).toEqual({ metric: 'a', from: DAY + DAY_MS - 30 * DAY_MS, to: DAY + DAY_MS, step: 'day' })
  })
})

describe('a tiny run against the suite\'s server', () => {
  const dbName = uniqueDbName('timers')
  let client
  let db
  let server
  beforeAll(async () => {
    client = await new MongoClient(mongodbUri()).connect()
    db = client.db(dbName)
    server = await startServerProcess({ MONGODB_URI: mongodbUri(), MONGODB_DB: dbName, LOG_LEVEL: 'warn' })
  })
  afterAll(async () => {
    await server?.stop()
    await db?.dropDatabase().catch(() => {})
    await client?.close()
  })

  it('ingests batches of timer values beside counter increments, every acknowledged value stored', async () => {
    const counters = await benchHttpBatched({ server, seconds: 1, warmupSeconds: 0, connections: 2, batch: 100 })
    const timers = await benchHttpBatched({ server, seconds: 1, warmupSeconds: 0, connections: 2, batch: 100, prefix: 'bench.timer.http.', timers: true })
    expect(timers.kind).toBe('distribution')
    expect(timers.acknowledgedEvents).toBeGreaterThan(0)
    expect(timers.non2xx).toBe(0)
    const stored = await distributionCount(db, 'bench.timer.http.')
    expect(stored).toBeGreaterThanOrEqual(timers.acknowledgedEvents)
    expect(stored).toBeLessThanOrEqual(timers.sentEvents)
    const judged = evaluateTargets({ ingest: { http: counters, httpTimer: timers } }).find(t => t.key === 'timerIngestRatio')
    expect(judged.value).toBeCloseTo(timers.eventsPerS / counters.eventsPerS, 12)
  }, 20_000)

  it('reads a 30-day p99 of seeded timers from a few documents, counting every value', async () => {
    const now = Date.now()
    const seed = await seedTimerReads(db, { metrics: 2, days: 30, perSecond: 1 / 600, templates: 2, now })
    expect(seed).toMatchObject({ dailyDocs: 62, days: 30 })
    expect(seed.monthlyDocs).toBeGreaterThanOrEqual(4)
    const r = await benchTimerReads({ server, db, seed, seconds: 0.5, connections: 1, warmupSeconds: 0 })
    expect(r.check.ok).toBe(true)
    expect(r.check.count).toBeGreaterThan(4000) // 144 a day
    expect(r.check.p99).toBeGreaterThan(40)
    for (const q of r.queries) {
      expect(q.requests).toBeGreaterThan(0)
      expect(q.non2xx).toBe(0)
      expect(q.errors).toBe(0)
    }
    const byName = Object.fromEntries(r.queries.map(q => [q.name, q]))
    // the edge days' documents and the months between: a few, never the 31 days
    expect(byName['quantiles-30d-p99'].docsPerQuery).toBeLessThanOrEqual(5)
    expect(byName['series-30d-p99-day'].docsPerQuery).toBeLessThanOrEqual(2)
    const to = now - (now % QUARTER_HOUR_MS)
    expect(startOfDay(to - 30 * DAY_MS)).toBe(startOfDay(now) - 30 * DAY_MS) // the first seeded day holds the window's start
    const md = renderMarkdown({ env: benchEnv(), timerReads: { ...r, seed: { ...seed, metrics: seed.metrics.length } } })
    expect(md).toMatch(/\*\*30-day p99 over busy timers\*\*: 2 timers × 30 days/)
    expect(md).toMatch(/\| `quantiles\?from=<30 days ago>&to=<now>&q=0\.99` \(edges at the quarter-hour\) \| [\d,]+ \| \d+ ms \| \d+ ms \| [\d.]+ \|/)
    expect(md).toMatch(/values where [\d,]+ were seeded in its window \(yes\)/)
  }, 30_000)
})
