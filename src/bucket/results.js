// Shaping of query answers from the documents read. Pure.
import { MINUTE_MS, HOUR_MS, STEPS, ceilToStep, countPoints, floorToStep, monthLabel, nextStep, parseBucketId, startOfDay, utcParts, addMonths } from './time.js'

/** The finest step whose point count for [from, to) stays ≤ maxPoints, or null */
export function defaultStep (from, to, maxPoints) {
  for (const step of STEPS) {
    if (countPoints(from, to, step) <= maxPoints) return step
  }
  return null
}

/** The rounded window of a series query: from down, to up to the step */
export function seriesWindow (from, to, step) {
  const start = floorToStep(from, step)
  const end = ceilToStep(to, step)
  return { start, end, points: countPoints(from, to, step) }
}

/** Which documents a series reads: collection kind, id bounds (inclusive), projection */
export function seriesReadPlan (step, start, end) {
  if (step === 'month') {
    return { kind: 'monthly', first: start, last: addMonths(end, -1), projection: { monthly: 1 } }
  }
  const field = { minute: 'minute', hour: 'hourly', day: 'daily' }[step]
  return { kind: 'daily', first: startOfDay(start), last: startOfDay(end - 1), projection: { [field]: 1 } }
}

function byDate (docs) {
  const map = new Map()
  for (const doc of docs) {
    const parsed = parseBucketId(doc._id)
    if (parsed) map.set(parsed.date, doc)
  }
  return map
}

/**
 * timestamps/values for [start, end) at step from the documents read.
 * A point is null where its day's (month's) document does not exist, and 0
 * where it exists but the slot is zero or absent.
 */
export function assembleSeries ({ step, start, end, docs, layout }) {
  const docsByDate = byDate(docs)
  const timestamps = []
  const values = []
  let minutesDay = null
  let minutes = null
  for (let t = start; t < end; t = nextStep(t, step)) {
    timestamps.push(t)
    if (step === 'month') {
      const doc = docsByDate.get(t)
      values.push(doc ? (doc.monthly ?? 0) : null)
      continue
    }
    const day = startOfDay(t)
    const doc = docsByDate.get(day)
    if (!doc) { values.push(null); continue }
    if (step === 'day') values.push(doc.daily ?? 0)
    else if (step === 'hour') values.push(doc.hourly?.[(t - day) / HOUR_MS] ?? 0)
    else {
      if (minutesDay !== day) { minutes = layout.minutesOfDay(doc); minutesDay = day }
      values.push(minutes[(t - day) / MINUTE_MS])
    }
  }
  return { timestamps, values }
}

/**
 * Year to date from the year's monthly documents: every month from January
 * to asOf's month, the asOf month counting days 1..asOf's day only.
 * A month without a document has total null (no data); `total` sums the rest.
 */
export function assembleYtd ({ year, asOf, docs }) {
  const docsByDate = byDate(docs)
  const last = utcParts(asOf)
  const months = []
  let total = 0
  for (let m = 1; m <= last.month; m++) {
    const monthStart = Date.UTC(year, m - 1, 1)
    const doc = docsByDate.get(monthStart)
    let value = null
    if (doc && m < last.month) value = doc.monthly ?? 0
    else if (doc) {
      value = 0
      for (let d = 1; d <= last.day; d++) value += doc.daily?.[d] ?? 0
    }
    if (value !== null) total += value
    months.push({ month: monthLabel(monthStart), total: value })
  }
  return { total, months }
}
