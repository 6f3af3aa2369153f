// What gauge values add to their day and month documents: pure maps of
// $inc, $min and $max fields, pre-aggregated so that a flush makes one update
// per document however many values it holds (docs/adr/0044-gauges-last-by-event-time.md). The documents have the counters' shape
// (increments.js), every tier an object:
//   daily:   daily, hourly.H, quarterHourly.H.Q, minute.H.M (while the day keeps minutes)
//   monthly: monthly, daily.D
//   each → { count, sum, min, max, last: { t: Date, v } }
// count and sum by $inc, min by $min, max and last by $max: `last` is the
// value of the latest event time, a subdocument { t, v } that BSON compares
// field by field, so the largest t wins and equal times keep the larger v,
// whatever order the writes arrive in.
import { QUARTER_HOUR_DETAIL, mergeUnitsWith, slotOf, widenSeen } from './increments.js'
import { minuteField } from './minute-fields.js'
import { bucketId } from './time.js'

const HOURLY_TIERS = Array.from({ length: 24 }, (_, h) => `hourly.${h}`)
const QUARTER_HOURLY_TIERS = Array.from({ length: 96 }, (_, i) => `quarterHourly.${Math.floor(i / 4)}.${i % 4}`)

/** −0 as 0: BSON compares them equal, and a stored min, max or last is never −0 */
const plain = (v) => (v === 0 ? 0 : v)

/** Whether last value a ({ t, v }) is later than b, as BSON orders { t, v }: t first, then v */
export const isLater = (a, b) => a.t > b.t || (a.t === b.t && a.v > b.v)

/** The later of two last values (either may be undefined) */
export const laterLast = (a, b) => (a === undefined ? b : b === undefined ? a : isLater(b, a) ? b : a)

/**
 * An event's statistics: one value { count: 1, sum: v, min: v, max: v }, or
 * the door's summary of several (a StatsD minute: { count, sum, min, max },
 * value the last of them, at `time`), and its last value { t: time, v }.
 */
function statsOf ({ value, time, summary }) {
  const v = plain(value)
  if (summary === undefined) return { count: 1, sum: v, min: v, max: v, last: { t: time, v } }
  return { count: summary.count, sum: summary.sum, min: plain(summary.min), max: plain(summary.max), last: { t: time, v } }
}

function tiersUpdate (tiers, stats) {
  const update = { inc: {}, min: {}, max: {}, last: {} }
  for (const tier of tiers) {
    update.inc[`${tier}.count`] = stats.count
    update.inc[`${tier}.sum`] = stats.sum
    update.min[`${tier}.min`] = stats.min
    update.max[`${tier}.max`] = stats.max
    update.last[`${tier}.last`] = stats.last
  }
  return update
}

/**
 * The update of one gauge event: its daily document (day, hour, quarter-hour
 * and, while its day keeps minute detail, minute) and its monthly document
 * (month and day of month), each { id, date, inc, min, max, last, detail? }
 * (last: path → { t: epoch ms, v }, for $max). The simple form buildGaugeUnit
 * is tested against. keepsMinutes as in increments.js's eventIncrements.
 */
export function gaugeEventUpdates (event, { keepsMinutes } = {}) {
  const { metric, time } = event
  const stats = statsOf(event)
  const { dayStart, day, hour, minute } = slotOf(time)
  const minutes = !keepsMinutes || keepsMinutes(metric, dayStart)
  const dayTiers = ['daily', HOURLY_TIERS[hour], QUARTER_HOURLY_TIERS[hour * 4 + Math.floor(minute / 15)]]
  if (minutes) dayTiers.push(minuteField(hour, minute))
  return {
    daily: { id: bucketId(metric, day.dayKey), date: dayStart, ...tiersUpdate(dayTiers, stats), ...(minutes ? {} : { detail: QUARTER_HOUR_DETAIL }) },
    monthly: { id: bucketId(metric, day.monthKey), date: day.monthStart, ...tiersUpdate(['monthly', `daily.${day.dayOfMonth}`], stats) }
  }
}

function documentIn (docs, id, metric, date) {
  let doc = docs.get(id)
  if (!doc) {
    doc = { metric, date, tiers: new Map() }
    docs.set(id, doc)
  }
  return doc
}

function addAt (tiers, path, stats) {
  const tier = tiers.get(path)
  if (!tier) {
    tiers.set(path, { ...stats })
    return
  }
  tier.count += stats.count
  tier.sum += stats.sum
  if (stats.min < tier.min) tier.min = stats.min
  if (stats.max > tier.max) tier.max = stats.max
  if (isLater(stats.last, tier.last)) tier.last = stats.last
}

function updateOf ({ metric, date, tiers, detail }) {
  const update = { metric, date, inc: {}, min: {}, max: {}, last: {} }
  for (const [path, tier] of tiers) {
    update.inc[`${path}.count`] = tier.count
    update.inc[`${path}.sum`] = tier.sum
    update.min[`${path}.min`] = tier.min
    update.max[`${path}.max`] = tier.max
    update.last[`${path}.last`] = tier.last
  }
  if (detail) update.detail = detail
  return update
}

const updatesOf = (docs) => new Map([...docs].map(([id, doc]) => [id, updateOf(doc)]))

/**
 * A batch of gauge events merged per document: one update for each daily
 * and monthly document, whatever the number of events.
 * events: [{ metric, value, time, summary? }] (time in epoch ms; summary:
 * { count, sum, min, max } of the values a door merged, value the last).
 * → { daily: Map<id, {metric, date, inc, min, max, last, detail?}>, monthly: Map<…>,
 *     metrics: Map<name, {firstSeen, lastSeen}>, events: n }
 */
export function buildGaugeUnit (events, { keepsMinutes } = {}) {
  const daily = new Map()
  const monthly = new Map()
  const metrics = new Map()
  const last = new Map() // metric → its documents of the day it was last seen on in this batch
  for (const event of events) {
    const { metric, time } = event
    const stats = statsOf(event)
    const { dayStart, day, hour, minute } = slotOf(time)
    let docs = last.get(metric)
    if (docs?.dayStart !== dayStart) {
      const minutes = !keepsMinutes || keepsMinutes(metric, dayStart)
      const dayDoc = documentIn(daily, bucketId(metric, day.dayKey), metric, dayStart)
      if (!minutes) dayDoc.detail = QUARTER_HOUR_DETAIL
      docs = { dayStart, minutes, daily: dayDoc.tiers, monthly: documentIn(monthly, bucketId(metric, day.monthKey), metric, day.monthStart).tiers, dayTier: `daily.${day.dayOfMonth}` }
      last.set(metric, docs)
    }
    addAt(docs.daily, 'daily', stats)
    addAt(docs.daily, HOURLY_TIERS[hour], stats)
    addAt(docs.daily, QUARTER_HOURLY_TIERS[hour * 4 + Math.floor(minute / 15)], stats)
    if (docs.minutes) addAt(docs.daily, minuteField(hour, minute), stats)
    addAt(docs.monthly, 'monthly', stats)
    addAt(docs.monthly, docs.dayTier, stats)
    widenSeen(metrics, metric, time, time)
  }
  return { daily: updatesOf(daily), monthly: updatesOf(monthly), metrics, events: events.length }
}

/** Adds one document's gauge update into `docs` (a Map id → { metric, date, inc, min, max, last, detail? }) */
export function addGaugeUpdate (docs, id, { metric, date, inc, min, max, last, detail }) {
  let doc = docs.get(id)
  if (!doc) {
    doc = { metric, date, inc: {}, min: {}, max: {}, last: {} }
    docs.set(id, doc)
  }
  for (const path in inc) doc.inc[path] = (doc.inc[path] ?? 0) + inc[path]
  for (const path in min) doc.min[path] = Math.min(doc.min[path] ?? Infinity, min[path])
  for (const path in max) doc.max[path] = Math.max(doc.max[path] ?? -Infinity, max[path])
  for (const path in last) doc.last[path] = laterLast(doc.last[path], last[path])
  if (detail) doc.detail = detail
}

/** Merges units into one (a flush): $inc fields added, $min/$max narrowed, the later last kept; the inputs are not changed */
export const mergeGaugeUnits = (units) => mergeUnitsWith(units, [['daily', addGaugeUpdate], ['monthly', addGaugeUpdate]])
