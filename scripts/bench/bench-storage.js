// The seeds' comparison (the Allegro and Percona articles): the same events
// stored as statbucket's buckets, as one document per event with an index
// on { metric, ts }, and as a time series collection; insert time, sizes,
// and the time of random 6-hour-window averages and of a month of daily
// averages. Figures the server cannot give are null with the reason.
import { assembleSeries } from '../../src/bucket/results.js'
import { buildWriteUnit } from '../../src/kinds/write-unit.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, addMonths, daysInMonth, startOfMonth, utcParts } from '../../src/bucket/time.js'
import { metricNames, percentile, seededRandom } from '../shared/workload.js'
import { systemClock } from '../../src/clock.js'
import { createWriter } from '../../src/writer/writer.js'
import { createDocumentReader as createReader } from '../../src/reader/documents.js'

const noop = () => {}
const quiet = { debug: noop, info: noop, warn: noop, error: noop }
const WINDOW_MS = 6 * HOUR_MS

/** The latest whole month of 31 days before `now` */
export function comparisonMonth (now) {
  let m = addMonths(startOfMonth(now), -1)
  for (;;) {
    const { year, month } = utcParts(m)
    if (daysInMonth(year, month) === 31) return m
    m = addMonths(m, -1)
  }
}

/** The events, in time order: `perDay` per metric per day at random seconds of equal slots, integer values 1..100 */
export function comparisonEvents ({ metrics, monthStart, days, perDay, seed = 11 }) {
  const random = seededRandom(seed)
  const slot = DAY_MS / perDay
  const events = []
  for (let d = 0; d < days; d++) {
    for (let k = 0; k < perDay; k++) {
      for (const metric of metrics) {
        events.push({ metric, value: 1 + Math.floor(random() * 100), time: monthStart + d * DAY_MS + k * slot + Math.floor(random() * (slot / 1000)) * 1000 })
      }
    }
  }
  return events
}

/** { storageBytes, indexBytes, note } from $collStats or collStats; null sizes when the server gives none */
export async function collectionSizes (db, names) {
  let storage = 0; let index = 0
  for (const name of names) {
    let s = null
    try {
      const [r] = await db.collection(name).aggregate([{ $collStats: { storageStats: {} } }]).toArray()
      s = r?.storageStats ?? null
    } catch {}
    if (!s) {
      try { s = await db.command({ collStats: name }) } catch { s = null }
    }
    if (!s || !(s.storageSize > 0) || typeof s.totalIndexSize !== 'number') {
      return { storageBytes: null, indexBytes: null, sizeNote: 'backend reports no storage or index sizes' }
    }
    storage += s.storageSize
    index += s.totalIndexSize
  }
  return { storageBytes: storage, indexBytes: index, sizeNote: null }
}

/** Whether `name` is a real time series collection (listCollections type), told by behaviour */
export async function createTimeSeries (db, name) {
  try {
    await db.createCollection(name, { timeseries: { timeField: 'ts', metaField: 'metric', granularity: 'minutes' } })
  } catch (err) {
    return { ok: false, note: `backend lacks time series collections (${err.codeName ?? err.message})` }
  }
  const [info] = await db.listCollections({ name }).toArray()
  if (info?.type !== 'timeseries') {
    await db.collection(name).drop().catch(noop)
    return { ok: false, note: `backend lacks time series collections (it made a plain ${info?.type ?? 'collection'} of one)` }
  }
  return { ok: true }
}

async function inParallel (items, concurrency, fn) {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await fn(items[next++])
  }))
}

function chunks (list, size) {
  const out = []
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size))
  return out
}

// The same pipelines run on the per-event and the time series collection.
const windowSumPipeline = (metric, from, to) => [
  { $match: { metric, ts: { $gte: new Date(from), $lt: new Date(to) } } },
  { $group: { _id: null, sum: { $sum: '$value' } } }
]
const dailySumsPipeline = (metric, from, to) => [
  { $match: { metric, ts: { $gte: new Date(from), $lt: new Date(to) } } },
  { $group: { _id: { $subtract: [{ $toLong: '$ts' }, { $mod: [{ $toLong: '$ts' }, DAY_MS] }] }, sum: { $sum: '$value' } } },
  { $sort: { _id: 1 } }
]

/**
 * scale: { metrics, days (≤ 31), perDay, k }. → figures of the three stores.
 * Writes the collections cmp_* of `db` and leaves them for the caller to drop.
 */
export async function benchStorage (db, { metrics: metricCount, days = 31, perDay, k, now = Date.now(), log = noop }) {
  const monthStart = comparisonMonth(now)
  const metrics = metricNames('cmp.m', metricCount)
  const events = comparisonEvents({ metrics, monthStart, days, perDay })
  const stores = []
  const names = { bucketsDaily: 'cmp_daily', bucketsMonthly: 'cmp_monthly', bucketsMetrics: 'cmp_metrics', events: 'cmp_events', ts: 'cmp_ts' }

  // 1. statbucket's buckets, through the coalescing writer (1,000-event units, 4 at a time)
  log('storage: buckets')
  const collections = { daily: db.collection(names.bucketsDaily), monthly: db.collection(names.bucketsMonthly), metrics: db.collection(names.bucketsMetrics) }
  const writer = createWriter(collections, { flushIntervalMs: 10, flushMaxDocs: 1000, maxPendingEvents: 100_000, writeTimeoutMs: 60_000, clock: systemClock, logger: quiet })
  let t0 = performance.now()
  let failed = 0
  await inParallel(chunks(events, 1000), 4, async (chunk) => {
    const answer = await writer.submit(buildWriteUnit(chunk))
    if (answer.outcome !== 'applied') failed += chunk.length
  })
  await writer.close()
  const bucketSeconds = (performance.now() - t0) / 1000
  if (failed) throw new Error(`${failed} events were not written to the buckets`)
  const reader = createReader({ collections })
  stores.push({
    name: 'buckets',
    label: 'statbucket buckets (`daily` + `monthly` documents)',
    available: true,
    insertSeconds: bucketSeconds,
    eventsPerS: events.length / bucketSeconds,
    documents: (await collections.daily.countDocuments()) + (await collections.monthly.countDocuments()),
    ...(await collectionSizes(db, [names.bucketsDaily, names.bucketsMonthly])),
    windowSum: async (metric, from, to) => {
      const { docs } = await reader.seriesDocs(metric, 'minute', from, to)
      return assembleSeries({ step: 'minute', start: from, end: to, docs }).values.reduce((s, v) => s + (v ?? 0), 0)
    },
    dailySums: async (metric, from, to) => {
      const { docs, monthlyDocs } = await reader.seriesDocs(metric, 'day', from, to)
      return assembleSeries({ step: 'day', start: from, end: to, docs, monthlyDocs }).values.map(v => v ?? 0)
    }
  })

  // 2 and 3: one document per event, plain and time series
  const asDocs = events.map(e => ({ metric: e.metric, ts: new Date(e.time), value: e.value }))
  async function perEventStore (name, label, prepare) {
    log(`storage: ${name}`)
    const prepared = await prepare()
    if (!prepared.ok) return { name, label, available: false, note: prepared.note }
    const coll = db.collection(name)
    t0 = performance.now()
    await inParallel(chunks(asDocs, 1000), 4, async (chunk) => { await coll.insertMany(chunk.map(d => ({ ...d })), { ordered: false }) })
    const seconds = (performance.now() - t0) / 1000
    const sumOf = async (pipeline) => coll.aggregate(pipeline).toArray()
    return {
      name,
      label,
      available: true,
      insertSeconds: seconds,
      eventsPerS: events.length / seconds,
      documents: await coll.countDocuments(),
      ...(await collectionSizes(db, [name])),
      windowSum: async (metric, from, to) => (await sumOf(windowSumPipeline(metric, from, to)))[0]?.sum ?? 0,
      dailySums: async (metric, from, to) => {
        const byDay = new Map((await sumOf(dailySumsPipeline(metric, from, to))).map(r => [Number(r._id), r.sum]))
        const out = []
        for (let d = from; d < to; d += DAY_MS) out.push(byDay.get(d) ?? 0)
        return out
      }
    }
  }
  stores.push(await perEventStore(names.events, 'one document per event, index `{ metric: 1, ts: 1 }`', async () => {
    await db.collection(names.events).createIndex({ metric: 1, ts: 1 })
    return { ok: true }
  }))
  stores.push(await perEventStore(names.ts, 'time series collection (`timeField: ts`, `metaField: metric`)', () => createTimeSeries(db, names.ts)))

  // Queries: the same K random ones on every store; answers compared.
  log('storage: queries')
  const random = seededRandom(5)
  const windowMinutes = WINDOW_MS / MINUTE_MS
  const windows = Array.from({ length: k }, () => {
    const from = monthStart + Math.floor(random() * ((days * DAY_MS - WINDOW_MS) / MINUTE_MS)) * MINUTE_MS
    return { metric: metrics[Math.floor(random() * metrics.length)], from, to: from + WINDOW_MS }
  })
  const months = Array.from({ length: k }, () => ({ metric: metrics[Math.floor(random() * metrics.length)], from: monthStart, to: monthStart + days * DAY_MS }))
  const answers = new Map()
  for (const store of stores.filter(s => s.available)) {
    const timed = async (list, fn) => {
      const times = []
      const values = []
      for (const q of list) {
        const t = performance.now()
        values.push(await fn(q))
        times.push(performance.now() - t)
      }
      return { times, values }
    }
    const w = await timed(windows, q => store.windowSum(q.metric, q.from, q.to).then(sum => sum / windowMinutes))
    const m = await timed(months, q => store.dailySums(q.metric, q.from, q.to).then(sums => sums.map(s => s / (DAY_MS / MINUTE_MS))))
    const stat = times => ({ totalMs: times.reduce((a, b) => a + b, 0), meanMs: times.reduce((a, b) => a + b, 0) / times.length, p99Ms: percentile(times, 99) })
    store.window = stat(w.times)
    store.month = stat(m.times)
    answers.set(store.name, [...w.values, ...m.values.map(v => v.join(','))])
    delete store.windowSum
    delete store.dailySums
  }
  const lists = [...answers.values()]
  let agreed = 0
  for (let i = 0; i < 2 * k; i++) if (lists.every(l => l[i] === lists[0][i])) agreed++
  return { events: events.length, metrics: metricCount, days, perDay, k, month: new Date(monthStart).toISOString().slice(0, 7), stores, agreed, compared: 2 * k, collections: Object.values(names) }
}
