// What one event adds, and what a request adds: pure maps of $inc fields.
import { minuteField } from './minute-fields.js'
import { HOUR_MS, MINUTE_MS, bucketId, describeDay, startOfDay, utcParts } from './time.js'

/**
 * The `detail` of a daily document whose minute tier does not hold every
 * event of the day: written past the minute horizon (a backfill), or
 * downsampled. Such a document vouches for its quarter-hours and coarser
 * tiers only (docs/kinds/counter.md#retention-and-the-check).
 */
export const QUARTER_HOUR_DETAIL = 'quarterHour'

/** Where an event's time falls: its day (describeDay, which keeps the days described last), hour and minute. */
export function slotOf (time) {
  const dayStart = startOfDay(time)
  const day = describeDay(dayStart)
  const sinceMidnight = time - dayStart
  const hour = Math.floor(sinceMidnight / HOUR_MS)
  const minute = Math.floor((sinceMidnight - hour * HOUR_MS) / MINUTE_MS)
  return { dayStart, day, hour, minute }
}

/**
 * The increments of one event: its daily document (day total, hour,
 * quarter-hour and — while its day keeps minute detail — minute) and its
 * monthly document (month total, day of month).
 * keepsMinutes(metric, dayStart) → false where the day is past the metric's
 * minute retention (default: every day keeps minutes).
 */
export function eventIncrements ({ metric, value, time }, { keepsMinutes } = {}) {
  const { dayStart, day, hour, minute } = slotOf(time)
  const inc = { daily: value, [`hourly.${hour}`]: value, [`quarterHourly.${hour}.${Math.floor(minute / 15)}`]: value }
  const minutes = !keepsMinutes || keepsMinutes(metric, dayStart)
  if (minutes) inc[minuteField(hour, minute)] = value
  return {
    // a day written without its minute (past the horizon) says so: its minutes no longer hold every event
    daily: { id: bucketId(metric, day.dayKey), date: dayStart, inc, ...(minutes ? {} : { detail: QUARTER_HOUR_DETAIL }) },
    monthly: {
      id: bucketId(metric, day.monthKey),
      date: day.monthStart,
      inc: { monthly: value, [`daily.${day.dayOfMonth}`]: value }
    }
  }
}

/**
 * $inc map of a preallocated monthly document: its total only. A day field
 * `daily.D` exists exactly when that day has (or had, before daily retention
 * deleted it) a daily document, so preallocation writes no day field for a
 * day it does not preallocate (docs/adr/0036-a-monthly-day-exists-when-its-daily-document-does.md).
 */
export function monthlyZeroIncrements () {
  return { monthly: 0 }
}

/**
 * $inc map of the monthly document when the day starting at dayStart is
 * preallocated: the day's field (and the total, so the upsert creates a
 * whole document) by 0, as the day's first write would create it.
 */
export function monthDayZeroIncrements (dayStart) {
  return { monthly: 0, [`daily.${utcParts(dayStart).day}`]: 0 }
}

function documentIn (docs, id, metric, date) {
  let doc = docs.get(id)
  if (!doc) {
    doc = { metric, date, inc: {} }
    docs.set(id, doc)
  }
  return doc.inc
}

/** Adds one document's counter increments into `docs` (a Map id → { metric, date, inc, detail? }) */
export function addCounterIncrements (docs, id, { metric, date, inc, detail }) {
  const target = documentIn(docs, id, metric, date)
  for (const field in inc) target[field] = (target[field] ?? 0) + inc[field]
  if (detail) docs.get(id).detail = detail
}

/**
 * A request's counter increments merged per document (kinds/write-unit.js adds
 * its distributions' part: the unit the writer queues).
 * events: [{ metric, value, time }] with time in epoch ms.
 * options.keepsMinutes: as in eventIncrements.
 * options.zonedOf(metric) → null or the zoned fields of an event of it
 * (zoned-days.js): its month document's local days of declared zones.
 * options.writtenTo(metric) → the metrics an event of `metric` counts in,
 * itself first (tags/rollups.js: a tagged series', its name and rollups):
 * each event counts in each of them, as if sent to each (`events` counts
 * them all). A series' documents are added into the others' once, after its
 * events: the same fields, summed once per document, not once per event.
 * options.ids: ingest/document-ids.js's (a service's remembered ids), or none: built here.
 * → { daily: Map<id, {metric, date, inc}>, monthly: Map<…>,
 *     metrics: Map<name, {firstSeen, lastSeen}>, events: n }
 */
export function buildCounterUnit (events, { keepsMinutes, writtenTo, zonedOf, ids } = {}) {
  const unit = { daily: new Map(), monthly: new Map(), metrics: new Map(), events: events.length }
  const last = new Map() // metric → its documents of the day it was last seen on in this request
  const folds = writtenTo === undefined ? null : new Map() // a series' document's inc → the others' incs it is added into
  const others = new Map() // a series → the metrics its events count in
  let counted = 0
  for (const { metric, value, time } of events) {
    // the same fields as eventIncrements, added in place: this loop is the hot path of ingest
    const { dayStart, day, hour, minute } = slotOf(time)
    let docs = last.get(metric)
    if (docs?.dayStart !== dayStart) {
      widenSeen(unit.metrics, metric, time, time)
      docs = documentsOf(unit, metric, dayStart, day, keepsMinutes, ids)
      docs.seen = unit.metrics.get(metric)
      if (zonedOf !== undefined) docs.zoned = zonedOf(metric)
      if (folds !== null) foldsOf({ unit, folds, others }, docs, writtenTo(metric), time, day, keepsMinutes, ids)
      last.set(metric, docs)
    } else {
      // widenSeen, its entry at hand
      if (time < docs.seen.firstSeen) docs.seen.firstSeen = time
      if (time > docs.seen.lastSeen) docs.seen.lastSeen = time
    }
    counted += docs.counts
    addToDay(docs, value, hour, minute)
    docs.monthly.monthly = (docs.monthly.monthly ?? 0) + value
    docs.monthly[docs.dayField] = (docs.monthly[docs.dayField] ?? 0) + value
    if (docs.zoned !== null) for (const field of docs.zoned(dayStart, time)) docs.monthly[field] = (docs.monthly[field] ?? 0) + value
    for (let i = 0; i < docs.direct.length; i++) addToDay(docs.direct[i], value, hour, minute)
  }
  if (folds === null) return unit
  for (const [from, into] of folds) {
    for (const to of into) for (const field in from) to[field] = (to[field] ?? 0) + from[field]
  }
  for (const [metric, targets] of others) {
    const { firstSeen, lastSeen } = unit.metrics.get(metric)
    for (let i = 1; i < targets.length; i++) widenSeen(unit.metrics, targets[i], firstSeen, lastSeen)
  }
  unit.events = counted
  return unit
}

/** A metric's daily and monthly incs of a day in `unit` (made when new), and what it adds to */
function documentsOf (unit, metric, dayStart, day, keepsMinutes, ids) {
  const known = ids === undefined ? null : ids.of(metric, day)
  const dailyId = known === null ? bucketId(metric, day.dayKey) : known.daily
  const minutes = !keepsMinutes || keepsMinutes(metric, dayStart)
  const docs = {
    dayStart,
    seen: null, // its registry entry in unit.metrics
    daily: documentIn(unit.daily, dailyId, metric, dayStart),
    monthly: documentIn(unit.monthly, known === null ? bucketId(metric, day.monthKey) : known.monthly, metric, day.monthStart),
    dayField: `daily.${day.dayOfMonth}`,
    minutes,
    zoned: null, // its zoned fields at a time (zoned-days.js), or null
    counts: 1, // the metrics an event of it counts in
    direct: NO_DOCUMENTS // the others' day documents each event adds to (a fold would not give them the same fields)
  }
  if (!minutes) unit.daily.get(dailyId).detail = QUARTER_HOUR_DETAIL
  return docs
}

const NO_DOCUMENTS = Object.freeze([])

/**
 * The other metrics an event counts in (targets[1…]): their documents made
 * now (in the order the events would make them), and the metric's documents
 * set to be added into theirs once (`folds`); a day document where one
 * keeps minutes and the other not, added to event by event instead (`docs.direct`)
 */
function foldsOf ({ unit, folds, others }, docs, targets, time, day, keepsMinutes, ids) {
  docs.counts = targets.length
  if (targets.length === 1) return
  others.set(targets[0], targets)
  const direct = []
  for (let i = 1; i < targets.length; i++) {
    const other = documentsOf(unit, targets[i], docs.dayStart, day, keepsMinutes, ids)
    widenSeen(unit.metrics, targets[i], time, time) // in the order the events would add it; widened to the series' seen at the end
    foldInto(folds, docs.monthly, other.monthly)
    if (other.minutes === docs.minutes) foldInto(folds, docs.daily, other.daily)
    else direct.push(other)
  }
  if (direct.length > 0) docs.direct = direct
}

/** Sets `from` to be added into `to` once (a metric seen again on a day it left keeps one fold) */
function foldInto (folds, from, to) {
  let into = folds.get(from)
  if (into === undefined) folds.set(from, (into = []))
  if (!into.includes(to)) into.push(to)
}

/** Adds one counter event into a metric's day document (./buildCounterUnit) */
function addToDay (docs, value, hour, minute) {
  const { daily } = docs
  const hourField = HOURLY_FIELDS[hour]
  const quarterField = QUARTER_HOURLY_FIELDS[hour * 4 + Math.floor(minute / 15)]
  daily.daily = (daily.daily ?? 0) + value
  daily[hourField] = (daily[hourField] ?? 0) + value
  daily[quarterField] = (daily[quarterField] ?? 0) + value
  if (docs.minutes) {
    const field = minuteField(hour, minute)
    daily[field] = (daily[field] ?? 0) + value
  }
}

const HOURLY_FIELDS = Array.from({ length: 24 }, (_, h) => `hourly.${h}`)
const QUARTER_HOURLY_FIELDS = Array.from({ length: 96 }, (_, i) => `quarterHourly.${Math.floor(i / 4)}.${i % 4}`)

/** Widens a metric's { firstSeen, lastSeen } in `seen` (a Map) to take in [first, last]. */
export function widenSeen (seen, metric, first, last) {
  const s = seen.get(metric)
  if (!s) seen.set(metric, { firstSeen: first, lastSeen: last })
  else {
    if (first < s.firstSeen) s.firstSeen = first
    if (last > s.lastSeen) s.lastSeen = last
  }
}

/**
 * Merges units into one (a flush): for each [field, addDoc] of `parts`,
 * addDoc(docs, id, doc) adds one document's update of that field's Map;
 * registry entries are widened and keep their `kind`. The inputs are not
 * changed (one unit is returned as it is).
 */
export function mergeUnitsWith (units, parts) {
  if (units.length === 1) return units[0] // nothing to merge: read as it is
  const merged = { metrics: new Map(), events: 0 }
  for (const [field] of parts) merged[field] = new Map()
  for (const unit of units) {
    merged.events += unit.events
    for (const [field, addDoc] of parts) {
      for (const [id, doc] of unit[field]) addDoc(merged[field], id, doc)
    }
    for (const [name, s] of unit.metrics) {
      widenSeen(merged.metrics, name, s.firstSeen, s.lastSeen)
      if (s.kind !== undefined) merged.metrics.get(name).kind = s.kind
    }
  }
  return merged
}
