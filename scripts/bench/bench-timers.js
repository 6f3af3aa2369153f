// Timer (distribution) figures beside the counters' (docs/benchmarks.md#timers-beside-counters): what a timer's values stored add up to, and the
// 30-day p99 reads over seeded busy timers, through HTTP. The ingest figures
// are bench-ingest.js's benchHttpBatched({ timers: true }) and
// bench-statsd.js's timer runs; the document sizes timer-workload.js's.
import { BSON } from 'mongodb'
import { parseStat } from '../../src/bucket/distribution-stats.js'
import { DAY_MS, QUARTER_HOUR_MS, bucketId, describeDay, startOfDay } from '../../src/bucket/time.js'
import { timeZone } from '../../src/bucket/time-zone.js'
import { kindFields } from '../../src/bucket/metric-kinds.js'
import { horizonsFor } from '../../src/bucket/retention-horizons.js'
import { loadConfig } from '../../src/config.js'
import { createReader } from '../../src/reader/reader.js'
import { metricNames, seededRandom } from '../shared/workload.js'
import { cannon } from './bench-ingest.js'
import { BUSY_PER_SECOND, TIMER_KIND, bucketsOf, documentOf, monthlyUpdate, timerDay } from './timer-workload.js'

const config = loadConfig({})
const horizons = horizonsFor(config)
const UTC = timeZone('UTC')
const P99 = parseStat('p99').stat

/** Values stored for the timers whose names start with prefix: the sum of their day documents' daily.count */
export async function distributionCount (db, prefix) {
  const docs = await db.collection('distributionDaily').find({ _id: { $gte: prefix, $lt: prefix + '\uffff' } }, { projection: { 'daily.count': 1 } }).toArray()
  return docs.reduce((s, d) => s + (d.daily?.count ?? 0), 0)
}

/**
 * Seeds `metrics` busy timers (perSecond latencies a second) over the `days`
 * days before today and today up to `now` (UTC), as the writer leaves them:
 * day documents with every tier and the minutes, monthly documents with the
 * month and each day, registry entries of kind distribution (α = 1 %).
 * `templates` distinct days are generated and repeated over the metric-days
 * (a day's values are generated once: 86,400 a busy day).
 * → { metrics, days, perSecond, firstDay, now, dailyDocs, monthlyDocs, dailyBytes (BSON, all day documents), values: n stored }
 */
export async function seedTimerReads (db, { prefix = 'bench.timer.read.', metrics: count, days, perSecond = BUSY_PER_SECOND, now = Date.now(), templates = 4, log = () => {} }) {
  const metrics = metricNames(prefix, count)
  const today = startOfDay(now)
  const firstDay = today - days * DAY_MS
  // the templates' values are a day's; the metric and day they are stored under change
  const full = Array.from({ length: templates }, (_, i) => timerDay({ metric: 'template', dayStart: today, perSecond, seed: 11 + i }))
  const partial = timerDay({ metric: 'template', dayStart: today, until: now, perSecond, seed: 10 })
  for (const t of [...full, partial]) t.bytes = BSON.calculateObjectSize(documentOf('template', t.daily.update))
  const daily = db.collection('distributionDaily')
  const monthly = db.collection('distributionMonthly')
  let dailyDocs = 0
  let monthlyDocs = 0
  let dailyBytes = 0
  let values = 0
  let batch = []
  const flush = async () => {
    if (batch.length) await daily.insertMany(batch, { ordered: false })
    batch = []
  }
  for (let m = 0; m < metrics.length; m++) {
    const metric = metrics[m]
    const months = new Map() // monthStart → [{ dayOfMonth, dayTier }]
    for (let d = 0; d <= days; d++) {
      const dayStart = firstDay + d * DAY_MS
      const template = dayStart === today ? partial : full[(m + d) % templates]
      const day = describeDay(dayStart)
      const doc = documentOf(bucketId(metric, day.dayKey), { ...template.daily.update, metric, date: dayStart })
      batch.push(doc)
      dailyDocs++
      values += template.values
      dailyBytes += template.bytes - BSON.calculateObjectSize({ _id: 'template', metric: 'template' }) + BSON.calculateObjectSize({ _id: doc._id, metric })
      if (!months.has(day.monthStart)) months.set(day.monthStart, [])
      months.get(day.monthStart).push({ dayOfMonth: day.dayOfMonth, dayTier: template.dayTier })
      if (batch.length >= 20) await flush() // ~250 KB each
    }
    for (const [monthStart, monthDays] of months) {
      await monthly.insertOne(documentOf(bucketId(metric, describeDay(monthStart).monthKey), monthlyUpdate(metric, monthStart, monthDays)))
      monthlyDocs++
    }
    if ((m + 1) % 10 === 0) log(`  ${m + 1} of ${metrics.length} timers seeded`)
  }
  await flush()
  await db.collection('metrics').insertMany(metrics.map(name => ({ _id: name, firstSeen: new Date(firstDay), lastSeen: new Date(now), added: new Date(now), ...kindFields(TIMER_KIND) })))
  return { prefix, metrics, days, perSecond, firstDay, now, dailyDocs, monthlyDocs, dailyBytes, values, dayBuckets: bucketsOf(documentOf('template', full[0].daily.update).daily) }
}

/**
 * The two 30-day reads of a random seeded timer: quantiles over the last 30
 * days up to the quarter-hour (a percentile's edges fall on quarter-hours)
 * and a series of the daily p99 over the last 30 days, today included.
 */
export function timerReadQueries (seed, random, { days = 30 } = {}) {
  const pick = () => seed.metrics[Math.floor(random() * seed.metrics.length)]
  return [
    {
      name: 'quantiles-30d-p99',
      label: `\`quantiles?from=<${days} days ago>&to=<now>&q=0.99\` (edges at the quarter-hour)`,
      make: (now = Date.now()) => {
        const to = now - (now % QUARTER_HOUR_MS)
        return { metric: pick(), quantiles: true, from: to - days * DAY_MS, to, qs: [0.99] }
      }
    },
    {
      name: 'series-30d-p99-day',
      label: `\`series?stat=p99&step=day\` over ${days} days, today included`,
      make: (now = Date.now()) => {
        const to = startOfDay(now) + DAY_MS
        return { metric: pick(), from: to - days * DAY_MS, to, step: 'day' }
      }
    }
  ]
}

export function timerQueryPath (q) {
  if (q.quantiles) return `/v1/metrics/${q.metric}/quantiles?from=${q.from}&to=${q.to}&q=${q.qs.join(',')}`
  return `/v1/metrics/${q.metric}/series?from=${q.from}&to=${q.to}&step=${q.step}&stat=p99`
}

/** collection whose find(…).toArray() adds the documents it returns to counter.documents */
function counting (collection, counter) {
  return {
    find (...args) {
      const cursor = collection.find(...args)
      return {
        async toArray () {
          const docs = await cursor.toArray()
          counter.documents += docs.length
          return docs
        }
      }
    }
  }
}

/**
 * The reads, through HTTP (autocannon, `connections`, `seconds` each after a
 * warm-up), and the documents the service's reader fetches for the same
 * queries (its own plan, counted). A first answer is checked against the
 * seeded values' count. → { queries: [{ name, label, requestsPerS, p50Ms, p99Ms, non2xx, errors, docsPerQuery }], check, connections, seconds, rssPeakBytes }
 */
export async function benchTimerReads ({ server, db, seed, seconds, connections = 4, warmupSeconds = 1, random = seededRandom(17) }) {
  const counter = { documents: 0 }
  const reader = createReader({
    collections: { distributionDaily: counting(db.collection('distributionDaily'), counter), distributionMonthly: counting(db.collection('distributionMonthly'), counter) },
    registry: { describe: async () => TIMER_KIND },
    horizonsOf: metric => horizons(metric, Date.now()),
    maxPoints: config.maxPoints
  })
  const queries = timerReadQueries(seed, random)
  // a first answer: every value seeded in the window is counted (the seed ends at seed.now)
  const first = queries[0].make()
  const answer = await (await fetch(server.url + timerQueryPath(first))).json()
  const expected = Math.round((Math.min(first.to, seed.now) - first.from) / 1000 * seed.perSecond)
  const check = {
    expectedCount: expected,
    count: answer.count,
    p99: answer.quantiles?.[0]?.value ?? null,
    // evenly spaced values: the window's count is exact to a value at each edge
    ok: Math.abs(answer.count - expected) <= 2 * seed.perSecond + 1
  }
  const results = []
  let rssPeak = 0
  for (const q of queries) {
    const opts = { url: server.url, connections, requests: [{ method: 'GET', setupRequest: req => ({ ...req, path: timerQueryPath(q.make()) }) }] }
    if (warmupSeconds) await cannon({ ...opts, duration: warmupSeconds })
    await server.resetPeak()
    const r = await cannon({ ...opts, duration: seconds })
    rssPeak = Math.max(rssPeak, (await server.stats()).rssPeak)
    const ok = r.statusCodeStats?.[200]?.count ?? 0
    const before = counter.documents
    const samples = 10
    for (let i = 0; i < samples; i++) {
      const w = q.make()
      if (w.quantiles) await reader.quantiles(w.metric, { from: w.from, to: w.to, qs: w.qs })
      else await reader.series(w.metric, { from: w.from, to: w.to, step: w.step, zone: UTC, stat: P99 })
    }
    results.push({
      name: q.name,
      label: q.label,
      requests: ok,
      requestsPerS: ok / r.duration,
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      docsPerQuery: (counter.documents - before) / samples
    })
  }
  return { queries: results, check, connections, seconds, rssPeakBytes: rssPeak }
}
