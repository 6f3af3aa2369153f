// What `npm run check` verifies, as pure functions over stored
// documents: every coarser tier of a daily document equals the sum of the
// finest tier it keeps (minute, else quarterHourly once downsampled), a
// monthly document's total equals the sum of its days, and a day of a
// monthly document exists exactly when its daily document does and equals
// its total. Each finding is a
// violation { id, field, expected, found } plus the repair: an `$inc` of the
// difference, conditioned on the exact values it was computed from, so a
// concurrent increment (which moves every tier of a document at once) makes
// the repair miss and be recomputed instead of being lost or doubled.
import { QUARTER_HOUR_DETAIL } from '../../bucket/increments.js'

/** Sums of many doubles differ in the last bits with the order of additions. */
export function sameTotal (a, b, magnitude = 0) {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b), magnitude)
}

const num = v => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** A daily document's minutes summed per hour and quarter (0..3), with magnitudes; null without a minute tier */
function minuteQuarters (doc) {
  if (!doc.minute || typeof doc.minute !== 'object') return null
  const quarters = Array.from({ length: 24 }, () => [0, 0, 0, 0])
  const magnitude = Array.from({ length: 24 }, () => [0, 0, 0, 0])
  for (const h in doc.minute) {
    for (const m in doc.minute[h]) {
      const v = num(doc.minute[h][m]) ?? 0
      const q = Math.floor(Number(m) / 15)
      quarters[h][q] += v
      magnitude[h][q] += Math.abs(v)
    }
  }
  return { quarters, magnitude }
}

/**
 * The finest detail a daily document vouches for: per hour, per quarter
 * (0..3) sums and magnitudes. Its minutes only while they hold every event
 * of the day (minutesComplete); else its quarter-hours.
 */
function finestOf (doc, minutesComplete) {
  const minutes = minutesComplete ? minuteQuarters(doc) : null
  if (minutes) return { source: 'minute', ...minutes }
  const quarters = Array.from({ length: 24 }, () => [0, 0, 0, 0])
  const magnitude = Array.from({ length: 24 }, () => [0, 0, 0, 0])
  for (const h in doc.quarterHourly) {
    for (const q in doc.quarterHourly[h]) {
      const v = num(doc.quarterHourly[h][q]) ?? 0
      quarters[h][q] += v
      magnitude[h][q] += Math.abs(v)
    }
  }
  return { source: 'quarterHourly', quarters, magnitude }
}

/**
 * Verifies the tiers inside one daily document. → { violations, repair }
 * where repair = { filter, update } (null when nothing to do or nothing finer
 * to restore from).
 *
 * Ingest moves every tier of a document in one `$inc`, except that a day
 * written past its minute horizon gets no minute (and says so with
 * `detail: 'quarterHour'`): a finer tier can lack increments, never hold
 * extra ones. So minutes are the truth only while they are complete
 * (minutesComplete: no `detail`, and the day inside the metric's minute
 * horizon — the caller knows the horizon). Otherwise the quarter-hours are,
 * and the minutes are no evidence at all: they may lack increments of either
 * sign (values may be negative corrections), so a repair never moves a tier
 * on what they say (docs/adr/0023-the-lifecycle-never-destroys-counts.md).
 * A document without `quarterHourly`, which no release writes, is reported
 * and left alone.
 */
export function verifyDaily (doc, { minutesComplete = doc.detail !== QUARTER_HOUR_DETAIL } = {}) {
  const violations = []
  const inc = {}
  const filter = { _id: doc._id }
  const note = (field, expected, foundRaw, magnitude) => {
    const found = num(foundRaw)
    if (found !== null && sameTotal(expected, found, magnitude)) return
    violations.push({ id: doc._id, field, expected, found: foundRaw === undefined ? 'missing' : foundRaw })
    if (found === null && foundRaw !== undefined) return // not a number: left for a person to look at
    inc[field] = expected - (found ?? 0)
    filter[field] = foundRaw === undefined ? { $exists: false } : foundRaw
  }
  if (doc.quarterHourly === null || typeof doc.quarterHourly !== 'object') {
    // a document without the quarter-hour tier: a shape no release writes (docs/adr/0048-no-upgrade-paths-before-the-first-release.md)
    violations.push({ id: doc._id, field: 'quarterHourly', expected: 'present', found: doc.quarterHourly === undefined ? 'missing' : doc.quarterHourly, note: 'a daily document no release writes: left alone', repairable: false })
    return { violations, repair: null }
  }
  const { source, quarters, magnitude } = finestOf(doc, minutesComplete)
  if (source === 'minute') {
    for (let h = 0; h < 24; h++) {
      for (let q = 0; q < 4; q++) note(`quarterHourly.${h}.${q}`, quarters[h][q], doc.quarterHourly[h]?.[q] ?? absentZero(quarters[h][q]), magnitude[h][q])
    }
  }
  let day = 0; let dayMagnitude = 0
  for (let h = 0; h < 24; h++) {
    const hour = quarters[h].reduce((a, b) => a + b, 0)
    const hourMagnitude = magnitude[h].reduce((a, b) => a + b, 0)
    day += hour; dayMagnitude += hourMagnitude
    note(`hourly.${h}`, hour, doc.hourly?.[h] ?? absentZero(hour), hourMagnitude)
  }
  note('daily', day, doc.daily, dayMagnitude)
  return finish(doc, violations, inc, filter)
}

// A counter never written is absent (only preallocated documents hold zeros): absent = 0 is no violation.
const absentZero = expected => (expected === 0 ? 0 : undefined)

function finish (doc, violations, inc, filter) {
  const update = {}
  if (Object.keys(inc).length > 0) update.$inc = inc
  return { violations, repair: Object.keys(update).length > 0 ? { filter, update } : null }
}

/** Verifies monthly = Σ daily.D inside one monthly document. → { violations, repair } */
export function verifyMonthlyTotal (doc) {
  let sum = 0; let magnitude = 0
  for (const d in doc.daily ?? {}) { const v = num(doc.daily[d]) ?? 0; sum += v; magnitude += Math.abs(v) }
  const found = num(doc.monthly)
  if (found !== null && sameTotal(sum, found, magnitude)) return { violations: [], repair: null }
  const violations = [{ id: doc._id, field: 'monthly', expected: sum, found: doc.monthly === undefined ? 'missing' : doc.monthly }]
  if (found === null && doc.monthly !== undefined) return { violations, repair: null }
  return {
    violations,
    repair: { filter: { _id: doc._id, monthly: doc.monthly === undefined ? { $exists: false } : doc.monthly }, update: { $inc: { monthly: sum - (found ?? 0) } } }
  }
}

/**
 * One day of a month across documents: `monthly.daily.D` against the daily
 * document's `daily` (the finer, hence the truth). dailyTotal null = no daily
 * document. `daily.D` exists exactly when the day has a daily document
 * (docs/adr/0036-a-monthly-day-exists-when-its-daily-document-does.md): a daily document without it is a violation even at 0,
 * and so is a `daily.D` without a daily document (`unset`: a flush whose
 * daily write did not apply, of any value, 0 included).
 * → null when they agree, else { violation, difference, monthlyFound, unset }.
 */
export function compareDay ({ monthlyId, day, dailyId, dailyTotal, monthlyValue }) {
  const field = `daily.${day}`
  const found = num(monthlyValue)
  if (dailyTotal === null) {
    if (monthlyValue === undefined) return null
    return {
      violation: { id: monthlyId, field, expected: 'missing', found: monthlyValue, against: dailyId, note: 'no daily document that day' },
      difference: found === null ? null : -found,
      unset: true
    }
  }
  const expected = dailyTotal
  if (found !== null && sameTotal(expected, found)) return null
  return {
    violation: { id: monthlyId, field, expected, found: monthlyValue === undefined ? 'missing' : monthlyValue, against: dailyId },
    difference: monthlyValue === undefined ? expected : found === null ? null : expected - found
  }
}

/** The cross-document repair: the difference into the day and the month's total, conditioned on the day's value seen. */
export function monthlyDayRepair ({ monthlyId, day, metric, monthStart, monthlyValue, difference }) {
  return {
    filter: { _id: monthlyId, [`daily.${day}`]: monthlyValue === undefined ? { $exists: false } : monthlyValue },
    update: { $inc: { [`daily.${day}`]: difference, monthly: difference }, $setOnInsert: { metric, date: new Date(monthStart) } }
  }
}

/**
 * The repair of a day field with no daily document: `$unset` it, conditioned
 * on the value seen (and the month's total moved by as much: a 0 moves no
 * count). The caller checks the daily document is still absent before, and
 * after it restores the field by `$inc` 0 if one appeared.
 */
export function monthlyDayUnset ({ monthlyId, day, monthlyValue }) {
  const update = { $unset: { [`daily.${day}`]: '' } }
  if (monthlyValue !== 0) update.$inc = { monthly: -monthlyValue }
  return { filter: { _id: monthlyId, [`daily.${day}`]: monthlyValue }, update }
}
