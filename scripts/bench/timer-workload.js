// Timers for the benchmark (docs/benchmarks.md#timers-beside-counters):
// realistic latencies (log-normal, in ms to a tenth), a busy timer's day and
// month documents as the writer leaves them, and their BSON sizes. Pure.
import { BSON } from 'mongodb'
import { addDistributionUpdate, buildDistributionUnit } from '../../src/bucket/distribution-increments.js'
import { distributionKind } from '../../src/bucket/metric-kinds.js'
import { QUARTER_HOUR_DETAIL } from '../../src/bucket/increments.js'
import { DAY_MS, bucketId, describeDay } from '../../src/bucket/time.js'
import { seededRandom } from '../shared/workload.js'

/** The accuracy the service gives a new distribution by default (DISTRIBUTION_ACCURACY) */
export const TIMER_ACCURACY = 0.01
export const TIMER_KIND = distributionKind(TIMER_ACCURACY)
/**
 * Request latencies: log-normal, median 20 ms, σ = 0.6 (p90 ≈ 43 ms, p99 ≈ 81 ms,
 * p99.9 ≈ 128 ms), sent in ms with one decimal as a client timing with
 * performance.now() would round them (hot-shots sends the number as given).
 */
export const LATENCY = Object.freeze({ medianMs: 20, sigma: 0.6, resolutionMs: 0.1 })
/** A busy timer: one value a second all day */
export const BUSY_PER_SECOND = 1

/** → () => a latency in ms (LATENCY's distribution), from random: () => [0, 1) */
export function latencySampler (random, { medianMs, sigma, resolutionMs } = LATENCY) {
  const steps = 1 / resolutionMs
  return function latency () {
    // Box–Muller: one standard normal from two uniforms (1 − u: never log 0)
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
    const v = Math.round(medianMs * Math.exp(sigma * z) * steps) / steps
    return v > 0 ? v : resolutionMs
  }
}

/** n latencies, the same for a seed */
export function latencies (n, seed) {
  const next = latencySampler(seededRandom(seed))
  return Array.from({ length: n }, next)
}

/**
 * A timer's values over [from, until): perSecond a second, evenly spaced, each
 * a latency → [{ metric, value, time, kind: 'distribution' }]
 */
export function timerEvents ({ metric, from, until, perSecond = BUSY_PER_SECOND, random }) {
  const next = latencySampler(random)
  const gap = 1000 / perSecond
  const events = []
  for (let t = from; t < until; t += gap) events.push({ metric, value: next(), time: Math.floor(t), kind: 'distribution' })
  return events
}

/** A document from a distribution update ({ inc, min, max, date, metric, detail? }), as the upserts leave it */
export function documentOf (id, { metric, date, inc, min, max, detail }) {
  const doc = { _id: id, metric, date: new Date(date) }
  for (const fields of [inc, min, max]) {
    for (const [path, v] of Object.entries(fields)) {
      const parts = path.split('.')
      let o = doc
      for (let i = 0; i < parts.length - 1; i++) o = o[parts[i]] ??= {}
      o[parts[parts.length - 1]] = v
    }
  }
  if (detail) doc.detail = detail
  return doc
}

/**
 * One metric-day of a timer, as one unit: its daily update and its `daily`
 * tier alone (what the monthly document's daily.D holds: the same values).
 * until: the values stop there (today's day, seeded up to now).
 * → { values, daily: { id, update }, dayTier: { inc, min, max } (paths under the tier),
 *     minuteHours: [the day's minute-hour documents] }
 */
export function timerDay ({ metric, dayStart, until = dayStart + DAY_MS, perSecond = BUSY_PER_SECOND, seed = 1, keepsMinutes = true }) {
  const events = timerEvents({ metric, from: dayStart, until, perSecond, random: seededRandom(seed) })
  const unit = buildDistributionUnit(events, TIMER_KIND.mapping, { keepsMinutes: () => keepsMinutes })
  const id = bucketId(metric, describeDay(dayStart).dayKey)
  const update = unit.daily.get(id) ?? { metric, date: dayStart, inc: {}, min: {}, max: {} }
  // the minutes' histograms: a document per hour (distributionMinutes)
  const minuteHours = [...unit.minutes].map(([hourId, u]) => documentOf(hourId, { ...u, min: {}, max: {} }))
  return { values: events.length, daily: { id, update }, dayTier: tierPart(update, 'daily'), minuteHours }
}

/** The fields of one tier of an update, their paths under it: tierPart(u, 'daily') → { inc: { count, sum, 'positive.12', … }, min, max } */
export function tierPart (update, tier) {
  const prefix = tier + '.'
  const part = { inc: {}, min: {}, max: {} }
  for (const op of ['inc', 'min', 'max']) {
    for (const [path, v] of Object.entries(update[op])) if (path.startsWith(prefix)) part[op][path.slice(prefix.length)] = v
  }
  return part
}

/**
 * The monthly document's update for a timer whose days are given:
 * days: [{ dayOfMonth, dayTier }] → { metric, date, inc, min, max } with
 * monthly (every day merged) and daily.D (each day's tier), as each day's
 * upserts would have added them.
 */
export function monthlyUpdate (metric, monthStart, days) {
  const docs = new Map()
  for (const { dayOfMonth, dayTier } of days) {
    const update = { metric, date: monthStart, inc: {}, min: {}, max: {} }
    for (const op of ['inc', 'min', 'max']) {
      for (const [path, v] of Object.entries(dayTier[op])) {
        update[op][`monthly.${path}`] = v
        update[op][`daily.${dayOfMonth}.${path}`] = v
      }
    }
    addDistributionUpdate(docs, 'month', update)
  }
  return docs.get('month') ?? { metric, date: monthStart, inc: {}, min: {}, max: {} }
}

/** Histogram buckets of a tier as stored (both sides and zero) */
export function bucketsOf (tier) {
  return Object.keys(tier?.positive ?? {}).length + Object.keys(tier?.negative ?? {}).length + (tier?.zero ? 1 : 0)
}

const METRIC = 'app.requests.latency' // 20 characters, as the counters' 18-character app.requests.total

/**
 * BSON sizes of a busy timer's documents (bench-sizes.js's are the counters'):
 * a day of perSecond latencies a second with its minute tier, the same day
 * downsampled (minute tier removed, MINUTE_RETENTION_DAYS), and a monthly
 * document of a 30-day month of such days (`templates` distinct days,
 * repeated), whose share per day is monthlyBytes / 30.
 * and its day's minute histograms (24 minute-hour documents, kept MINUTE_HISTOGRAM_DAYS).
 * → { accuracy, perSecond, latency, valuesPerDay, dailyBytes, minuteHistogramBytes, downsampledBytes, monthlyBytes, monthDays, monthlySharePerDay, dayBuckets }
 */
export function timerDocumentSizes ({ perSecond = BUSY_PER_SECOND, templates = 3 } = {}) {
  const monthStart = Date.UTC(2026, 10, 1)
  const monthDays = 30
  const days = Array.from({ length: templates }, (_, i) => timerDay({ metric: METRIC, dayStart: monthStart + (20 + i) * DAY_MS, perSecond, seed: 1 + i }))
  const { id, update } = days[0].daily
  const daily = documentOf(id, update)
  const downsampled = { ...daily, detail: QUARTER_HOUR_DETAIL }
  delete downsampled.minute
  const month = monthlyUpdate(METRIC, monthStart, Array.from({ length: monthDays }, (_, d) => ({ dayOfMonth: d + 1, dayTier: days[d % templates].dayTier })))
  const monthlyBytes = BSON.calculateObjectSize(documentOf(bucketId(METRIC, describeDay(monthStart).monthKey), month))
  return {
    accuracy: TIMER_ACCURACY,
    perSecond,
    latency: LATENCY,
    valuesPerDay: days[0].values,
    dailyBytes: BSON.calculateObjectSize(daily),
    minuteHistogramBytes: days[0].minuteHours.reduce((n, doc) => n + BSON.calculateObjectSize(doc), 0),
    downsampledBytes: BSON.calculateObjectSize(downsampled),
    monthlyBytes,
    monthDays,
    monthlySharePerDay: monthlyBytes / monthDays,
    dayBuckets: bucketsOf(daily.daily)
  }
}
