// Read figures: series and ytd over sparse seeded data, through HTTP.
import { eventIncrements } from '../../src/bucket/increments.js'
import { COUNTER } from '../../src/bucket/metric-kinds.js'
import { DAY_MS, startOfDay, utcParts } from '../../src/bucket/time.js'
import { localYearStart } from '../../src/bucket/local-time.js'
import { horizonsFor } from '../../src/bucket/retention-horizons.js'
import { timeZone } from '../../src/bucket/time-zone.js'
import { loadConfig } from '../../src/config.js'
import { createReader } from '../../src/reader/reader.js'
import { metricNames, seededRandom } from '../shared/workload.js'
import { cannon } from './bench-ingest.js'

/** The zone of the local-time reads: +05:45, so every local day and month edge needs hours and quarter-hours */
export const LOCAL_TZ = 'Asia/Kathmandu'

// the service's defaults (retention, MAX_POINTS): the benchmark's server runs with them
const config = loadConfig({})
const horizons = horizonsFor(config)

/** A document from a dotted $inc map: { 'minute.3.7': 2 } → { minute: { 3: { 7: 2 } } } */
export function nestIncrements (inc) {
  const doc = {}
  for (const [path, v] of Object.entries(inc)) {
    const parts = path.split('.')
    let o = doc
    for (let i = 0; i < parts.length - 1; i++) o = o[parts[i]] ??= {}
    const last = parts[parts.length - 1]
    o[last] = (o[last] ?? 0) + v
  }
  return doc
}

/**
 * Seeds `metrics` metrics × `days` days ending yesterday (UTC), `perDay`
 * events per metric per day spread over the hours, as the writer would
 * have left them: daily, monthly and registry documents.
 */
export async function seedReads (db, { prefix = 'bench.read.', metrics: count, days, perDay = 24, now = Date.now() }) {
  const metrics = metricNames(prefix, count)
  const lastDay = startOfDay(now) - DAY_MS
  const firstDay = lastDay - (days - 1) * DAY_MS
  const daily = db.collection('daily')
  let batch = []
  let dailyDocs = 0
  const monthlyDocs = []
  const flush = async () => {
    if (batch.length) await daily.insertMany(batch, { ordered: false })
    dailyDocs += batch.length
    batch = []
  }
  for (let m = 0; m < metrics.length; m++) {
    const metric = metrics[m]
    const months = new Map()
    for (let d = 0; d < days; d++) {
      const day = firstDay + d * DAY_MS
      const inc = {}
      let ids = null
      for (let k = 0; k < perDay; k++) {
        const time = day + Math.floor((k * DAY_MS) / perDay) + (((m * 7 + k * 13 + d) % 60) * 60_000) % Math.floor(DAY_MS / perDay)
        const e = eventIncrements({ metric, value: 1 + ((k + d + m) % 5), time })
        ids = e
        for (const [f, v] of Object.entries(e.daily.inc)) inc[f] = (inc[f] ?? 0) + v
        const mo = months.get(e.monthly.id) ?? { _id: e.monthly.id, metric, date: new Date(e.monthly.date), inc: {} }
        for (const [f, v] of Object.entries(e.monthly.inc)) mo.inc[f] = (mo.inc[f] ?? 0) + v
        months.set(e.monthly.id, mo)
      }
      batch.push({ _id: ids.daily.id, metric, date: new Date(ids.daily.date), ...nestIncrements(inc) })
      if (batch.length >= 1000) await flush()
    }
    for (const mo of months.values()) monthlyDocs.push({ _id: mo._id, metric, date: mo.date, ...nestIncrements(mo.inc) })
  }
  await flush()
  for (let i = 0; i < monthlyDocs.length; i += 1000) await db.collection('monthly').insertMany(monthlyDocs.slice(i, i + 1000), { ordered: false })
  await db.collection('metrics').insertMany(metrics.map(name => ({ _id: name, firstSeen: new Date(firstDay), lastSeen: new Date(lastDay + DAY_MS - 1), added: new Date(now) })))
  return { metrics, firstDay, lastDay, days, perDay, dailyDocs, monthlyDocs: monthlyDocs.length }
}

/** The four read queries: random metric and window inside the seeded range */
export function readQueries (seed, random) {
  const { metrics, firstDay, lastDay } = seed
  const pick = () => metrics[Math.floor(random() * metrics.length)]
  const dayIn = (lastStart) => firstDay + Math.floor(random() * ((lastStart - firstDay) / DAY_MS + 1)) * DAY_MS
  const years = [...new Set([utcParts(firstDay).year, utcParts(lastDay).year])]
  return [
    // minute detail is kept 90 days (MINUTE_RETENTION_DAYS): a minute series starts inside it
    { name: 'series-1d-minute', label: 'series, 1 day at minute step (1,440 points), within the minute retention', make: () => { const f = lastDay - Math.floor(random() * 89) * DAY_MS; return { metric: pick(), from: f, to: f + DAY_MS, step: 'minute' } } },
    { name: 'series-30d-hour', label: 'series, 30 days at hour step (720 points)', make: () => { const f = dayIn(lastDay - 29 * DAY_MS); return { metric: pick(), from: f, to: f + 30 * DAY_MS, step: 'hour' } } },
    { name: 'series-1y-day', label: 'series, 1 year at day step (365 points; ≤ 13 monthly documents)', make: () => { const f = dayIn(lastDay - 364 * DAY_MS); return { metric: pick(), from: f, to: f + 365 * DAY_MS, step: 'day' } } },
    { name: 'series-30d-day', label: 'series, 30 days at day step, UTC', make: () => { const f = dayIn(lastDay - 29 * DAY_MS); return { metric: pick(), from: f, to: f + 30 * DAY_MS, step: 'day' } } },
    { name: 'series-30d-day-local', label: `series, 30 days at day step, tz=${LOCAL_TZ} (planned ranges)`, make: () => { const f = dayIn(lastDay - 29 * DAY_MS); return { metric: pick(), from: f, to: f + 30 * DAY_MS, step: 'day', tz: LOCAL_TZ } } },
    { name: 'ytd', label: 'ytd, UTC (≤ 12 monthly documents)', make: () => ({ metric: pick(), year: years[Math.floor(random() * years.length)] }) },
    { name: 'ytd-local', label: `ytd, tz=${LOCAL_TZ} (≤ 12 monthly + ~13 daily documents)`, make: () => ({ metric: pick(), year: years[Math.floor(random() * years.length)], tz: LOCAL_TZ }) },
    // one year ending at a random minute inside the minute retention, starting at the same minute a year back (a quarter-hour edge there)
    {
      name: 'total-1y',
      label: 'total over one year (edges at a minute and a quarter-hour)',
      make: () => {
        const to = lastDay - Math.floor(random() * 80) * DAY_MS + Math.floor(random() * 96) * 900_000 + 60_000
        return { metric: pick(), total: true, from: to - 365 * DAY_MS - 60_000, to }
      }
    }
  ]
}

export function queryPath (q) {
  const tz = q.tz ? `&tz=${encodeURIComponent(q.tz)}` : ''
  if (q.year !== undefined) return `/v1/metrics/${q.metric}/ytd?year=${q.year}${tz}`
  if (q.total) return `/v1/metrics/${q.metric}/total?from=${q.from}&to=${q.to}`
  return `/v1/metrics/${q.metric}/series?from=${q.from}&to=${q.to}&step=${q.step}${tz}`
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

/** One query read through the service's reader, as its route reads it */
function read (reader, q, now) {
  const zone = timeZone(q.tz ?? 'UTC')
  if (q.year !== undefined) {
    const yearStart = zone.isUtc ? Date.UTC(q.year, 0, 1) : localYearStart(zone, q.year)
    const yearEnd = (zone.isUtc ? Date.UTC(q.year + 1, 0, 1) : localYearStart(zone, q.year + 1)) - 1
    return reader.ytd(q.metric, { year: q.year, asOf: Math.min(now, yearEnd), yearStart, zone })
  }
  if (q.total) return reader.total(q.metric, { from: q.from, to: q.to })
  return reader.series(q.metric, { from: q.from, to: q.to, step: q.step, zone }, { known: true })
}

/** Documents the reader fetches for a query (its own plan), averaged over `samples` */
async function docsPerQuery (reader, counter, query, samples) {
  const before = counter.documents
  for (let i = 0; i < samples; i++) await read(reader, query.make(), Date.now())
  return (counter.documents - before) / samples
}

export async function benchReads ({ server, db, seed, seconds, connections = 4, warmupSeconds = 1, random = seededRandom(7) }) {
  const counter = { documents: 0 }
  const reader = createReader({
    collections: { daily: counting(db.collection('daily'), counter), monthly: counting(db.collection('monthly'), counter) },
    registry: { describe: async () => COUNTER }, // the seeded metrics: counters
    horizonsOf: metric => horizons(metric, Date.now()),
    maxPoints: config.maxPoints
  })
  const queries = readQueries(seed, random)
  const results = []
  let rssPeak = 0
  for (const q of queries) {
    const opts = { url: server.url, connections, requests: [{ method: 'GET', setupRequest: req => ({ ...req, path: queryPath(q.make()) }) }] }
    if (warmupSeconds) await cannon({ ...opts, duration: warmupSeconds })
    await server.resetPeak()
    const r = await cannon({ ...opts, duration: seconds })
    rssPeak = Math.max(rssPeak, (await server.stats()).rssPeak)
    const ok = r.statusCodeStats?.[200]?.count ?? 0
    results.push({
      name: q.name,
      label: q.label,
      requestsPerS: ok / r.duration,
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      docsPerQuery: await docsPerQuery(reader, counter, q, 20)
    })
  }
  return { queries: results, connections, seconds, rssPeakBytes: rssPeak }
}
