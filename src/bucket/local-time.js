// Local boundaries of steps in a time zone (docs/adr/0017-local-time.md). An hour boundary is an instant where the local wall clock enters a
// new hour or reads exactly the start of one, so New York's repeated 01:00
// is two hour points and the hour points of a +05:45 zone fall at :15 UTC.
// A day (month) boundary is an instant where the wall clock enters a date
// (month) later than any it has read: a 23- or 25-hour day is one point,
// also where the clock falls back to exactly midnight (the Azores, Havana).
// Minute and quarter-hour boundaries are the UTC ones in every zone (every
// offset in use since 1979 is a whole number of quarter-hours). The zone
// (time-zone.js) supplies offsets and transitions; the rest is arithmetic
// on a constant offset between transitions. Pure.
import { DAY_MS, HOUR_MS, MINUTE_MS, addMonths, floorToStep, monthLabel, nextStep, startOfDay, startOfMonth } from './time.js'

/** Steps whose boundaries are the UTC ones in every zone */
export const isZoneFree = step => step === 'minute' || step === 'quarter-hour'

/** Longer than any point of the step can be, for looking back to a boundary */
const LOOKBACK_MS = { hour: 3 * HOUR_MS, day: 3 * DAY_MS, month: 63 * DAY_MS }

/** The local wall clock as UTC-like epoch ms */
const wall = (t, offsetMinutes) => t + offsetMinutes * MINUTE_MS

/** The wall-clock start of the step containing local time w */
function wallFloor (w, step) {
  if (step === 'hour') return Math.floor(w / HOUR_MS) * HOUR_MS
  if (step === 'day') return startOfDay(w)
  return startOfMonth(w)
}

function wallNext (w, step) {
  if (step === 'hour') return wallFloor(w, step) + HOUR_MS
  if (step === 'day') return startOfDay(w) + DAY_MS
  return addMonths(startOfMonth(w), 1)
}

/** Longer than the wall clock ever runs back at a change (a few hours): where to look for a date already read */
const REPEAT_LOOKBACK_MS = 3 * DAY_MS

/** The latest wall-clock day (month) start the clock has read at or before t: later than now's while a fall-back repeats time */
function enteredBy (zone, t, step) {
  let entered = wallFloor(wall(t, zone.offsetAt(t)), step)
  for (let from = t - REPEAT_LOOKBACK_MS, change; (change = zone.transitionAfter(from)) !== null && change <= t; from = change) {
    entered = Math.max(entered, wallFloor(wall(change - 1, zone.offsetAt(change - 1)), step))
  }
  return entered
}

/** The first boundary of `step` in `zone` after t (strictly) */
export function nextLocalBoundary (zone, t, step) {
  if (isZoneFree(step) || zone.isUtc) return nextStep(floorToStep(t, step), step)
  const hourly = step === 'hour'
  let entered = hourly ? null : enteredBy(zone, t, step)
  let at = t
  for (;;) {
    const offset = zone.offsetAt(at)
    const candidate = wallNext(wall(at, offset), step) - offset * MINUTE_MS
    const change = zone.transitionAfter(at)
    if (change === null || change > candidate) {
      // the wall clock reaches the next hour (date, month) at `candidate`
      if (hourly || wallFloor(wall(candidate, offset), step) > entered) return candidate
      at = candidate // a date read before the clock fell back: not a new day
      continue
    }
    const before = wallFloor(wall(change - 1, offset), step)
    const now = wall(change, zone.offsetAt(change))
    if (hourly) {
      if (wallFloor(now, step) !== before || wallFloor(now, step) === now) return change
    } else {
      if (wallFloor(now, step) > entered) return change
      entered = Math.max(entered, before)
    }
    at = change
  }
}

/** The last boundary of `step` in `zone` at or before t */
function floorLocalBoundary (zone, t, step) {
  if (isZoneFree(step) || zone.isUtc) return floorToStep(t, step)
  let last = nextLocalBoundary(zone, t - LOOKBACK_MS[step], step)
  for (let b = nextLocalBoundary(zone, last, step); b <= t; b = nextLocalBoundary(zone, b, step)) last = b
  return last
}

/**
 * The points of [from, to) at `step` in `zone`, rounded out to local
 * boundaries: → [b0, b1, …, bn] with b0 ≤ from, bn ≥ to; point i is
 * [b(i), b(i+1)). null when there would be more than maxPoints points.
 */
export function localBoundaries (zone, from, to, step, maxPoints = Infinity) {
  const boundaries = [floorLocalBoundary(zone, from, step)]
  let b = boundaries[0]
  while (b < to) {
    if (boundaries.length > maxPoints) return null
    b = nextLocalBoundary(zone, b, step)
    boundaries.push(b)
  }
  return boundaries
}

/** The local date and time of t: { year, month (1–12), day, hour, minute, offsetMinutes } */
export function localParts (zone, t) {
  const offsetMinutes = zone.offsetAt(t)
  const d = new Date(wall(t, offsetMinutes))
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), offsetMinutes }
}

/** "YYYY-MM" of the local month that starts at boundary b */
export const localMonthLabel = (zone, b) => monthLabel(wall(b, zone.offsetAt(b)))

/** The instant the local year `year` begins in `zone` */
export function localYearStart (zone, year) {
  // local 1 January falls within 14 hours of UTC's: the first month boundary after 30 December (UTC)
  return nextLocalBoundary(zone, Date.UTC(year, 0, 1) - 2 * DAY_MS, 'month')
}
