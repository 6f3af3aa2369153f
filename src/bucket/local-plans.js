// Local-time series and year to date as range plans (docs/adr/0017-local-time.md): each point is the range between two local boundaries
// (local-time.js), covered by the range planner with the coarsest pieces and
// read with one projected request per collection. Pure.
import { evaluatePlan, planRanges } from './range-plan.js'
import { localBoundaries, localMonthLabel, nextLocalBoundary } from './local-time.js'

const rangesOf = (boundaries) => boundaries.slice(0, -1).map((from, i) => ({ from, to: boundaries[i + 1] }))

/**
 * A series of [from, to) at step hour, day or month in zone.
 * → { start, end, timestamps, plan }, or null when it would hold more than
 * maxPoints points. Throws RangeRefusal when a point's edge falls inside the
 * finest detail kept there (e.g. local days where only UTC days are kept).
 */
// longer than a local hour, day or month ever lasts (Lord Howe's autumn hour is 90 minutes), for counting cheaply
const LONGEST_MS = { hour: 2 * 3_600_000, day: 26 * 3_600_000, month: 32 * 86_400_000 }

export function planLocalSeries (metric, zone, from, to, step, { maxPoints, horizons }) {
  // far more points than allowed even at the longest a point lasts: no need to list them
  if ((to - from) / LONGEST_MS[step] > maxPoints + 2) return null
  const boundaries = localBoundaries(zone, from, to, step, maxPoints)
  if (boundaries === null) return null
  const timestamps = boundaries.slice(0, -1)
  // whole UTC days from monthly.daily.D, as a UTC day series reads them (null and 0 alike, with strictDays)
  const plan = planRanges(metric, rangesOf(boundaries), horizons)
  return { start: boundaries[0], end: boundaries.at(-1), timestamps, plan, step }
}

/**
 * The values of a planned local series from the documents read, null and 0
 * as a UTC series of the same step answers them: a whole UTC day counts
 * only where its month holds `daily.D` (it had a daily document); a month
 * whose document exists is 0 at least.
 */
export function localSeriesValues ({ plan, step }, docs) {
  return evaluatePlan(plan, docs, { strictDays: step === 'day' }).map(point => point.value)
}

/**
 * Year to date in zone: every local month from the year's start to asOf's
 * month, the last one ending with asOf's local day. yearStart: the instant
 * the local year begins (local-time.js localYearStart).
 * → { months: ['YYYY-MM'], plan } (one planned range per month)
 */
export function planLocalYtd (metric, zone, yearStart, asOf, { horizons }) {
  const end = nextLocalBoundary(zone, asOf, 'day')
  const boundaries = [yearStart]
  for (let b = yearStart; b < end;) {
    b = Math.min(nextLocalBoundary(zone, b, 'month'), end)
    boundaries.push(b)
  }
  const months = boundaries.slice(0, -1).map(b => localMonthLabel(zone, b))
  return { months, plan: planRanges(metric, rangesOf(boundaries), horizons) }
}
