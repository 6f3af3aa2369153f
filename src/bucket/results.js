// Shaping of query answers from the documents read. Pure.
import { minuteHoursProjection, minuteOfDay } from './minute-fields.js'
import { DAY_MS, MINUTE_MS, QUARTER_HOUR_MS, HOUR_MS, ceilToStep, countPoints, floorToStep, monthLabel, nextStep, parseBucketId, startOfDay, startOfMonth, utcParts, addMonths } from './time.js'

/** The rounded window of a series query: from down, to up to the step */
export function seriesWindow (from, to, step) {
  const start = floorToStep(from, step)
  const end = ceilToStep(to, step)
  return { start, end, points: countPoints(from, to, step) }
}

/**
 * Which documents a series reads: per collection, id bounds (inclusive) and
 * a projection. Day points come from the monthly documents' `daily.D` (one
 * document per month, ≤ 13 for a year): the field exists exactly when the
 * day has (or had, before daily retention) a daily document, so it answers
 * null and 0 as the daily documents would (docs/adr/0036-a-monthly-day-exists-when-its-daily-document-does.md).
 * → { daily: { first, last, projection } | null, monthly: { first, last, projection } | null }
 */
export function seriesReadPlan (step, start, end) {
  if (step === 'month') {
    return { daily: null, monthly: { first: start, last: addMonths(end, -1), projection: { monthly: 1 } } }
  }
  if (step === 'day') {
    return { daily: null, monthly: { first: startOfMonth(start), last: startOfMonth(end - 1), projection: { daily: 1 } } }
  }
  const field = { minute: 'minute', 'quarter-hour': 'quarterHourly', hour: 'hourly' }[step]
  // minutes of less than a day: only the hours they cover (a day document holds 1,440)
  const projection = step === 'minute' && end - start < DAY_MS ? minuteHoursProjection(start, end) : { [field]: 1 }
  return { monthly: null, daily: { first: startOfDay(start), last: startOfDay(end - 1), projection } }
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
 * timestamps/values for [start, end) at step from the documents read (daily
 * documents; monthly ones for day and month points). A point is null where
 * no document holds its time (no day or month document; for a day, no
 * `daily.D` in its month), and 0 where one exists and the slot is zero or
 * absent.
 */
export function assembleSeries ({ step, start, end, docs, monthlyDocs = [] }) {
  const docsByDate = byDate(docs)
  const monthsByDate = byDate(monthlyDocs)
  const timestamps = []
  const values = []
  for (let t = start; t < end; t = nextStep(t, step)) {
    timestamps.push(t)
    if (step === 'month') {
      const doc = docsByDate.get(t)
      values.push(doc ? (doc.monthly ?? 0) : null)
      continue
    }
    if (step === 'day') {
      values.push(dayFromMonthly(monthsByDate, t))
      continue
    }
    const day = startOfDay(t)
    const doc = docsByDate.get(day)
    if (!doc) {
      values.push(null)
      continue
    }
    if (step === 'hour') values.push(doc.hourly?.[(t - day) / HOUR_MS] ?? 0)
    else if (step === 'quarter-hour') {
      const i = (t - day) / QUARTER_HOUR_MS
      values.push(doc.quarterHourly?.[Math.floor(i / 4)]?.[i % 4] ?? 0)
    } else {
      values.push(minuteOfDay(doc, (t - day) / MINUTE_MS))
    }
  }
  return { timestamps, values }
}

function dayFromMonthly (monthsByDate, dayStart) {
  const month = monthsByDate.get(startOfMonth(dayStart))
  const value = month?.daily?.[utcParts(dayStart).day]
  return value === undefined ? null : value
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
