// What distribution values add to their day and month documents: pure maps
// of $inc, $min and $max fields, pre-aggregated so that a flush makes one
// update per document however many values it holds. The documents have the
// counters' shape (increments.js; docs/adr/0037-distributions-ddsketch-histograms.md), with every tier an object instead of a number:
//   daily:   daily, hourly.H, quarterHourly.H.Q → { count, sum, min, max, zero, positive, negative }
//            minute.H.M (while the day keeps minutes) → { count, sum, min, max }
//   monthly: monthly, daily.D                   → { count, sum, min, max, zero, positive, negative }
//   minutes: minute.M (one document per metric-hour, while its day keeps minutes) → { count, sum, zero, positive, negative }
// The histogram parts are distribution-sketch.js's. A minute's histogram has
// its own document per hour (a collection of their own, kinds/distribution.js; hourId in
// time.js): 1,440 histograms would make a busy day document many times
// larger and could pass BSON's limit, where 60 stay under the day's
// (largestMinuteHourDocumentBytes). The minute's count, sum, min and max stay
// in the day document, so every read but a minute's percentile needs none of
// it; the hour's document repeats the minute's count and sum so that a read
// can tell its histogram holds the very values the day counts (the two
// documents are written apart: reader/minute-histograms.js).
import { bucketFields } from './bucket-fields.js'
import { minuteField } from './minute-fields.js'
import { bucketField } from './distribution-sketch.js'
import { QUARTER_HOUR_DETAIL, mergeUnitsWith, slotOf, widenSeen } from './increments.js'
import { TieredDocument, addStatsToTier, addThresholdsTo, tierOf, updateOfTiers } from './tiered-document.js'
import { firstAtLeast } from './distribution-thresholds.js'
import { DAILY_TIER, DAY_OF_MONTH_TIERS, HOURLY_TIERS, MINUTE_HISTOGRAM_TIERS, MONTHLY_TIER, QUARTER_HOURLY_TIERS, tierPaths } from './tier-paths.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, bucketId, hourId } from './time.js'

const DAY_MINUTES = DAY_MS / MINUTE_MS

/** { inc, min, max } of one value at tiers with a histogram and tiers without; le: the threshold fields it counts at */
function valueUpdate (histogramTiers, plainTiers, value, weight, field, { sum = value * weight, min = value, max = value, bucketError = 0 } = {}, le = []) {
  const update = { inc: {}, min: {}, max: {} }
  for (const tier of [...histogramTiers, ...plainTiers]) {
    update.inc[`${tier}.count`] = weight
    update.inc[`${tier}.sum`] = sum
    update.min[`${tier}.min`] = min
    update.max[`${tier}.max`] = max
    if (bucketError > 0) update.max[`${tier}.bucketError`] = bucketError
  }
  for (const tier of histogramTiers) update.inc[`${tier}.${field}`] = weight
  for (const tier of [...histogramTiers, ...plainTiers]) for (const f of le) update.inc[`${tier}.${f}`] = weight
  return update
}

/** The threshold fields ('le.<key>') value counts at, of `thresholds` (distribution-thresholds.js createThresholds' of(metric), or null) */
const thresholdFields = (thresholds, value) => (thresholds === null ? [] : thresholds.fields.slice(firstAtLeast(thresholds.values, value)))

/**
 * The update of one value: its daily document (day, hour and quarter-hour
 * with their histograms; the minute's count, sum, min and max while its day
 * keeps minute detail) and its monthly document (month and day of month,
 * with their histograms), each { id, date, inc, min, max, detail? } for
 * $inc, $min and $max. The simple form buildDistributionUnit is tested
 * against. keepsMinutes as in increments.js's eventIncrements;
 * keepsMinuteHistograms(metric, dayStart) likewise for the minute's histogram
 * (MINUTE_HISTOGRAM_DAYS; never where the minute itself is not kept). Throws
 * RangeError for a value a distribution may not hold (bucketField).
 * thresholdsOf(metric): its declared thresholds (distribution-thresholds.js), each tier's `le.<key>`.
 */
export function distributionEventUpdates ({ metric, value, time, weight = 1, summary }, mapping, { keepsMinutes, keepsMinuteHistograms, thresholdsOf } = {}) {
  const field = bucketField(mapping, value)
  const v = value === 0 ? 0 : value // −0 is stored as 0
  const stats = summary ?? { sum: v * weight, min: v, max: v }
  const { dayStart, day, hour, minute } = slotOf(time)
  const minutes = !keepsMinutes || keepsMinutes(metric, dayStart)
  const histograms = minutes && (!keepsMinuteHistograms || keepsMinuteHistograms(metric, dayStart))
  const dayTiers = ['daily', `hourly.${hour}`, `quarterHourly.${hour}.${Math.floor(minute / 15)}`]
  const le = thresholdFields(thresholdsOf?.(metric) ?? null, v)
  return {
    daily: {
      id: bucketId(metric, day.dayKey),
      date: dayStart,
      ...valueUpdate(dayTiers, minutes ? [minuteField(hour, minute)] : [], v, weight, field, stats, le),
      // a day written without its minute says so, as for counters
      ...(minutes ? {} : { detail: QUARTER_HOUR_DETAIL })
    },
    monthly: { id: bucketId(metric, day.monthKey), date: day.monthStart, ...valueUpdate(['monthly', `daily.${day.dayOfMonth}`], [], v, weight, field, stats, le) },
    // the minute's histogram, in its hour's document, while the day keeps minutes
    minutes: histograms ? { id: hourId(metric, time), date: dayStart + hour * HOUR_MS, inc: { [`minute.${minute}.count`]: weight, [`minute.${minute}.sum`]: stats.sum, [`minute.${minute}.${field}`]: weight } } : null
  }
}

// The tiers of one document while a batch is added up (tiered-document.js)
function documentIn (docs, id, metric, date) {
  let doc = docs.get(id)
  if (!doc) {
    doc = new TieredDocument(metric, date)
    docs.set(id, doc)
  }
  return doc
}

const updatesOf = (docs) => new Map([...docs].map(([id, doc]) => [id, updateOfTiers(doc)]))

// the minutes' histograms of one metric-hour while a batch is added up: 'minute.M.<bucket field>' → count
function minuteHourIn (docs, metric, time, dayStart, hour) {
  const id = hourId(metric, time)
  let doc = docs.get(id)
  if (!doc) {
    doc = { metric, date: dayStart + hour * HOUR_MS, inc: {} }
    docs.set(id, doc)
  }
  return doc
}

/**
 * A request's distribution values, held as columns of numbers until a flush
 * builds their tiers (DistributionTiers): V8 keeps a column of numbers as
 * unboxed doubles, so a queued value is ~64 bytes, not an event object nor
 * its share of a request's tiers (docs/adr/0091-tiers-built-at-the-flush.md).
 * sum, lo, hi: what a value adds to the sum and narrows min and max to (its
 * own; an OTLP histogram's bucket carries the point's exact ones and its
 * error, docs/adr/0063-otlp-mapping.md).
 */
export class DistributionValues {
  /** mapping: the metrics' (one accuracy α); a value's bucket is named as it is held (bucket-fields.js) */
  constructor (mapping) {
    this.fieldOf = bucketFields(mapping).fieldOf
    this.metric = []
    this.value = []
    this.field = []
    this.time = []
    this.weight = []
    this.sum = []
    this.lo = []
    this.hi = []
    this.error = []
  }

  get length () { return this.metric.length }

  /** Adds an event { metric, value, time, weight?, summary? }; a RangeError for a value a distribution may not hold, nothing added */
  push ({ metric, value, time, weight = 1, summary }) {
    const field = this.fieldOf(value)
    const v = value === 0 ? 0 : value // −0 is stored as 0
    this.metric.push(metric)
    this.value.push(v)
    this.field.push(field)
    this.time.push(time)
    this.weight.push(weight)
    this.sum.push(summary === undefined ? v * weight : summary.sum)
    this.lo.push(summary === undefined ? v : summary.min)
    this.hi.push(summary === undefined ? v : summary.max)
    this.error.push(summary?.bucketError ?? 0)
  }
}

const NO_OPTIONS = Object.freeze({})

/**
 * Whether a metric's day keeps its minutes' histograms (in the minute-hour
 * documents): its minutes kept and its histograms' horizon not passed. One
 * answer for the ids a unit holds (kinds/distribution.js) and the documents
 * the flush builds (DistributionTiers), which must be the same documents
 */
export const keepsMinuteHistogram = ({ keepsMinutes, keepsMinuteHistograms }, metric, dayStart) =>
  (!keepsMinutes || keepsMinutes(metric, dayStart)) && (!keepsMinuteHistograms || keepsMinuteHistograms(metric, dayStart))

/**
 * A minute's values of one metric while a flush adds them up: their buckets
 * counted once here, not at each of the five tiers holding a histogram, which
 * get them when the documents are made (DistributionTiers.documents): a busy
 * metric's values of a minute share far fewer buckets than they are. Its
 * first bucket is two numbers, a Map only past it (a quiet metric's minute
 * holds one value). Its count and sum go to its minute-hour document, where
 * its histogram is kept, added in the order the values came.
 */
class MinuteValues {
  constructor (hourTier, quarterTier, minuteHour, minute) {
    this.hourTier = hourTier
    this.quarterTier = quarterTier
    this.field = null // its first bucket's field and weight
    this.weight = 0
    this.buckets = null // bucket field → weight, of its other buckets
    this.minuteHour = minuteHour // { metric, date, inc } or null: its histogram not kept
    this.histogram = minuteHour === null ? null : MINUTE_HISTOGRAM_TIERS[minute]
    this.count = 0
    this.sum = 0
  }

  /** Adds a value's bucket */
  add (field, weight) {
    if (field === this.field) this.weight += weight
    else if (this.field === null) {
      this.field = field
      this.weight = weight
    } else {
      const buckets = (this.buckets ??= new Map())
      buckets.set(field, (buckets.get(field) ?? 0) + weight)
    }
  }
}

/** Adds a minute's buckets (its first, field and weight, and the others) to a tier's histogram */
function addBuckets ({ buckets: histogram }, field, weight, others) {
  histogram.set(field, (histogram.get(field) ?? 0) + weight)
  if (others !== null) for (const [f, n] of others) histogram.set(f, (histogram.get(f) ?? 0) + n)
}

/** Adds a minute's buckets likewise to its histogram's paths in `inc` (a minute-hour document's) */
function addBucketPaths (inc, histogram, field, weight, others) {
  const path = histogram.bucketPath(field)
  inc[path] = (inc[path] ?? 0) + weight
  if (others !== null) {
    for (const [f, n] of others) {
      const p = histogram.bucketPath(f)
      inc[p] = (inc[p] ?? 0) + n
    }
  }
}

/** Adds a minute's buckets to the tiers of its day (docs), and its histogram to its minute-hour document (count, sum, then its buckets) */
function addMinuteValues ({ dailyTier, monthlyTier, dayOfMonthTier }, { hourTier, quarterTier, field, weight, buckets, minuteHour, histogram, count, sum }) {
  addBuckets(dailyTier, field, weight, buckets)
  addBuckets(hourTier, field, weight, buckets)
  addBuckets(quarterTier, field, weight, buckets)
  addBuckets(monthlyTier, field, weight, buckets)
  addBuckets(dayOfMonthTier, field, weight, buckets)
  if (minuteHour === null) return
  const { inc } = minuteHour
  inc[histogram.count] = (inc[histogram.count] ?? 0) + count
  inc[histogram.sum] = (inc[histogram.sum] ?? 0) + sum
  addBucketPaths(inc, histogram, field, weight, buckets)
}

/**
 * The daily, monthly and minute-hour documents of distribution values while
 * they are added up: the daily and monthly ones as TieredDocuments
 * (tiered-document.js), the minute-hours' as { metric, date, inc }. A flush
 * adds each of its requests' values in queue order (add), each with its
 * request's options: a tier's count, sum, min and max as each value comes,
 * its buckets by the minute (MinuteValues), when the documents are made.
 * Whole weights add up the same in any order while their sums stay below
 * 2^53; past that, or fractional (a sample rate's), a bucket's count may
 * differ in its last bits from adding each value in turn.
 */
export class DistributionTiers {
  constructor () {
    this.daily = new Map()
    this.monthly = new Map()
    this.minutes = new Map()
    this.last = new Map() // metric → the documents and tiers of its day seen last (its daily document's `adding`)
    this.made = false
  }

  /**
   * Adds `values` (DistributionValues). options: keepsMinutes(metric,
   * dayStart) → false past the metric's minute horizon (increments.js),
   * keepsMinuteHistograms likewise for the minute's histogram
   * (MINUTE_HISTOGRAM_DAYS), thresholdsOf(metric) → its declared thresholds
   * or null; asked again for a metric whose values come with other options
   * (another request's)
   */
  add (values, options = NO_OPTIONS) {
    if (this.made) throw new Error('DistributionTiers: values added after its documents were made')
    const { keepsMinutes, thresholdsOf } = options
    const { daily, monthly, minutes: minuteHours, last } = this
    // where the last value's time falls: a request's values sent without `ts` share their time of receipt
    let lastTime = NaN
    let dayStart, day, hour, minute
    for (let i = 0; i < values.length; i++) {
      const metric = values.metric[i]
      const v = values.value[i]
      const time = values.time[i]
      const weight = values.weight[i]
      const sum = values.sum[i]
      const lo = values.lo[i]
      const hi = values.hi[i]
      const error = values.error[i]
      const field = values.field[i]
      if (time !== lastTime) {
        lastTime = time
        ;({ dayStart, day, hour, minute } = slotOf(time))
      }
      let docs = last.get(metric)
      if (docs?.dayStart !== dayStart) {
        const dayId = bucketId(metric, day.dayKey)
        const dayDoc = documentIn(daily, dayId, metric, dayStart)
        docs = dayDoc.adding
        if (docs === null) {
          const monthDoc = documentIn(monthly, bucketId(metric, day.monthKey), metric, day.monthStart)
          // the tiers its values go to, looked up once (tiered-document.js tierOf), made in the order a value meets them
          const dailyTier = tierOf(dayDoc, DAILY_TIER, lo, hi, true)
          const monthlyTier = tierOf(monthDoc, MONTHLY_TIER, lo, hi, true)
          const dayOfMonthTier = tierOf(monthDoc, DAY_OF_MONTH_TIERS[day.dayOfMonth], lo, hi, true)
          // its minutes (MinuteValues) by key (slot, + DAY_MINUTES where its histogram is not kept): the first met,
          // then byMinute, a Map only for a day of more than one minute; minuteValues: the current slot's
          docs = { dayStart, options: null, minutes: false, histograms: false, thresholds: null, daily: dayDoc, dailyTier, monthlyTier, dayOfMonthTier, firstKey: -1, first: null, byMinute: null, slot: -1, hourTier: null, quarterTier: null, minuteTier: null, minuteValues: null, hour: -1, minuteHour: null }
          dayDoc.adding = docs
        }
        last.set(metric, docs)
      }
      if (docs.options !== options) {
        // this request's answers for the metric's day (the same as the request before's but at a horizon's edge)
        docs.options = options
        const minutes = !keepsMinutes || keepsMinutes(metric, dayStart)
        const histograms = minutes && keepsMinuteHistogram(options, metric, dayStart)
        if (!minutes) docs.daily.detail = QUARTER_HOUR_DETAIL
        if (minutes !== docs.minutes || histograms !== docs.histograms) docs.slot = -1
        docs.minutes = minutes
        docs.histograms = histograms
        docs.thresholds = thresholdsOf?.(metric) ?? null
      }
      const slot = hour * 60 + minute
      if (docs.slot !== slot) {
        // a new minute of the day: its hour's, quarter-hour's and minute's tiers, and its values (MinuteValues)
        docs.slot = slot
        docs.hourTier = tierOf(docs.daily, HOURLY_TIERS[hour], lo, hi, true)
        docs.quarterTier = tierOf(docs.daily, QUARTER_HOURLY_TIERS[hour * 4 + Math.floor(minute / 15)], lo, hi, true)
        docs.minuteTier = docs.minutes ? tierOf(docs.daily, tierPaths(minuteField(hour, minute)), lo, hi, false) : null
        // a minute whose histogram is kept and one whose is not (a horizon passed between two requests) are apart
        const key = docs.histograms ? slot : slot + DAY_MINUTES
        let minuteValues = docs.firstKey === key ? docs.first : docs.byMinute?.get(key)
        if (minuteValues === undefined) {
          if (docs.histograms && docs.hour !== hour) {
            // its hour's minute-hour document, looked up once an hour of the day
            docs.hour = hour
            docs.minuteHour = minuteHourIn(minuteHours, metric, time, dayStart, hour)
          }
          minuteValues = new MinuteValues(docs.hourTier, docs.quarterTier, docs.histograms ? docs.minuteHour : null, minute)
          if (docs.first === null) {
            docs.first = minuteValues
            docs.firstKey = key
          } else (docs.byMinute ??= new Map()).set(key, minuteValues)
        }
        docs.minuteValues = minuteValues
      }
      const { minuteTier, minuteValues } = docs
      addStatsToTier(docs.dailyTier, weight, sum, lo, hi, error)
      addStatsToTier(docs.hourTier, weight, sum, lo, hi, error)
      addStatsToTier(docs.quarterTier, weight, sum, lo, hi, error)
      if (minuteTier !== null) addStatsToTier(minuteTier, weight, sum, lo, hi, error)
      addStatsToTier(docs.monthlyTier, weight, sum, lo, hi, error)
      addStatsToTier(docs.dayOfMonthTier, weight, sum, lo, hi, error)
      minuteValues.add(field, weight)
      minuteValues.count += weight
      minuteValues.sum += sum
      // the thresholds v is at most, at every tier it counts in (docs/kinds/distribution.md#thresholds)
      const { thresholds } = docs
      if (thresholds !== null) {
        const from = firstAtLeast(thresholds.values, v)
        if (from < thresholds.values.length) {
          for (const tier of [docs.dailyTier, docs.hourTier, docs.quarterTier, docs.monthlyTier, docs.dayOfMonthTier]) addThresholdsTo(tier, thresholds.fields, from, weight)
          if (minuteTier !== null) addThresholdsTo(minuteTier, thresholds.fields, from, weight)
        }
      }
    }
    return this
  }

  /** The documents of every value added: { daily, monthly, minutes }; made once, after the last add */
  documents () {
    if (!this.made) {
      this.made = true
      for (const { adding: docs } of this.daily.values()) {
        if (docs.first !== null) addMinuteValues(docs, docs.first)
        if (docs.byMinute !== null) for (const minuteValues of docs.byMinute.values()) addMinuteValues(docs, minuteValues)
      }
    }
    return { daily: this.daily, monthly: this.monthly, minutes: this.minutes }
  }
}

/** events ([{ metric, value, time, weight?, summary? }]) of `mapping`'s metrics as DistributionValues */
export function distributionValuesOf (events, mapping) {
  const values = new DistributionValues(mapping)
  for (const e of events) values.push(e)
  return values
}

/**
 * buildDistributionUnit's documents before they are updates: the daily and
 * monthly ones as TieredDocuments (tiered-document.js), as a flush builds
 * them (DistributionTiers) from one request's values.
 */
export function buildDistributionTiers (events, mapping, options = {}) {
  const { daily, monthly, minutes } = new DistributionTiers().add(distributionValuesOf(events, mapping), options).documents()
  const metrics = new Map()
  for (const { metric, time } of events) widenSeen(metrics, metric, time, time)
  return { daily, monthly, minutes, metrics, events: events.length }
}

/**
 * A batch of distribution values merged per document: one update for each
 * daily, monthly and minute-hour document, whatever the number of values.
 * events: [{ metric, value, time, weight? }] (time in epoch ms; weight: how
 * many observations of value the event stands for, default 1 — a StatsD
 * sample rate of 0.1 makes it 10), any metrics and days.
 * → { daily: Map<id, {metric, date, inc, min, max, detail?}>, monthly: Map<…>,
 *     minutes: Map<hourId, {metric, date, inc}> (the minutes' histograms: $inc only),
 *     metrics: Map<name, {firstSeen, lastSeen}>, events: n }
 * Throws RangeError for a value a distribution may not hold: the doors refuse those first.
 */
export function buildDistributionUnit (events, mapping, options) {
  const unit = buildDistributionTiers(events, mapping, options)
  return { ...unit, daily: updatesOf(unit.daily), monthly: updatesOf(unit.monthly) }
}

/** Adds one minute-hour document's update ({ metric, date, inc }) into `docs` */
export function addMinuteHistogramUpdate (docs, id, { metric, date, inc }) {
  let doc = docs.get(id)
  if (!doc) {
    doc = { metric, date, inc: {} }
    docs.set(id, doc)
  }
  for (const path in inc) doc.inc[path] = (doc.inc[path] ?? 0) + inc[path]
}

/** Adds one document's distribution update into `docs` (a Map id → { metric, date, inc, min, max, detail? }) */
export function addDistributionUpdate (docs, id, { metric, date, inc, min, max, detail }) {
  let doc = docs.get(id)
  if (!doc) {
    doc = { metric, date, inc: {}, min: {}, max: {} }
    docs.set(id, doc)
  }
  for (const path in inc) doc.inc[path] = (doc.inc[path] ?? 0) + inc[path]
  for (const path in min) doc.min[path] = Math.min(doc.min[path] ?? Infinity, min[path])
  for (const path in max) doc.max[path] = Math.max(doc.max[path] ?? -Infinity, max[path])
  if (detail) doc.detail = detail
}

/** Merges units into one (a flush): $inc fields added, $min/$max fields narrowed; the inputs are not changed */
export const mergeDistributionUnits = (units) => mergeUnitsWith(units, [['daily', addDistributionUpdate], ['monthly', addDistributionUpdate], ['minutes', addMinuteHistogramUpdate]])

// The largest a distribution document can grow (docs/adr/0037-distributions-ddsketch-histograms.md): every histogram tier
// with every bucket of the mapping's index range on both sides, every count a
// double. BSON sizes, counted as the encoder writes them: an element is its
// type byte, its name and a NUL, then its value; a document is a 4-byte
// length, its elements and a NUL.
export const MAX_BSON_DOCUMENT_BYTES = 16 * 1024 * 1024
const elementBytes = (name, valueBytes) => 1 + name.length + 1 + valueBytes
const DOUBLE = 8
const STATS = ['count', 'sum', 'min', 'max']

function sideBytes (mapping) {
  let bytes = 4 + 1
  for (let i = mapping.minIndex; i <= mapping.maxIndex; i++) bytes += elementBytes(String(i), DOUBLE)
  return bytes
}

/** The BSON size of a tier holding every bucket of `mapping` (name: the tier's key in its parent), and `le` bytes of threshold counts */
function fullTierBytes (name, side, le = 0) {
  let bytes = 4 + 1 + le
  for (const stat of [...STATS, 'zero']) bytes += elementBytes(stat, DOUBLE)
  bytes += elementBytes('positive', side) + elementBytes('negative', side)
  return elementBytes(name, bytes)
}

/** A tier's `le` object holding every threshold key (none: no field) */
const thresholdBytes = (keys) => (keys.length === 0 ? 0 : elementBytes('le', 4 + 1 + keys.reduce((n, k) => n + elementBytes(k, DOUBLE), 0)))
const statsTierBytes = (name, le = 0) => elementBytes(name, 4 + 1 + STATS.reduce((n, s) => n + elementBytes(s, DOUBLE), 0) + le)
const parentBytes = (name, children) => elementBytes(name, 4 + 1 + children)
const range = (n) => Array.from({ length: n }, (_, i) => String(i))

/**
 * The largest BSON size a daily distribution document of `mapping` reaches,
 * whatever is written to it: all 121 histogram tiers full on both sides, all
 * 1,440 minutes, the longest metric name in `_id` and `metric`, `date` and
 * `detail`; every tier with the threshold counts of thresholdKeys
 * (distribution-thresholds.js). (The monthly document has 32 histogram tiers: always smaller.)
 */
export function largestDailyDocumentBytes (mapping, { maxNameLength = 200, thresholdKeys = [] } = {}) {
  const side = sideBytes(mapping)
  const le = thresholdBytes(thresholdKeys)
  const tier = (name) => fullTierBytes(name, side, le)
  const hourly = parentBytes('hourly', range(24).reduce((n, h) => n + tier(h), 0))
  const quarterHourly = parentBytes('quarterHourly', range(24).reduce((n, h) => n + parentBytes(h, range(4).reduce((m, q) => m + tier(q), 0)), 0))
  const minute = parentBytes('minute', range(24).reduce((n, h) => n + parentBytes(h, range(60).reduce((m, q) => m + statsTierBytes(q, le), 0)), 0))
  const id = elementBytes('_id', 4 + maxNameLength + ':YYYYMMDD'.length + 1)
  const metric = elementBytes('metric', 4 + maxNameLength + 1)
  const date = elementBytes('date', 8)
  const detail = elementBytes('detail', 4 + QUARTER_HOUR_DETAIL.length + 1)
  return 4 + id + metric + date + detail + tier('daily') + hourly + quarterHourly + minute + 1
}

/**
 * The largest BSON size a minute-hour document of `mapping` reaches: 60
 * minutes, each with its count and sum and its histogram full on both sides, the longest metric name in
 * `_id` and `metric`, and `date`. Always under largestDailyDocumentBytes (60
 * histograms without min and max against the day's 121 with them), so the
 * accuracy the day's bound allows bounds this one too.
 */
export function largestMinuteHourDocumentBytes (mapping, { maxNameLength = 200 } = {}) {
  const side = sideBytes(mapping)
  const histogram = (name) => elementBytes(name, 4 + 1 + elementBytes('count', DOUBLE) + elementBytes('sum', DOUBLE) + elementBytes('zero', DOUBLE) + elementBytes('positive', side) + elementBytes('negative', side))
  const minute = parentBytes('minute', range(60).reduce((n, m) => n + histogram(m), 0))
  const id = elementBytes('_id', 4 + maxNameLength + '/YYYYMMDDHH'.length + 1)
  const metric = elementBytes('metric', 4 + maxNameLength + 1)
  const date = elementBytes('date', 8)
  return 4 + id + metric + date + minute + 1
}
