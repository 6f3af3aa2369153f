// The plan of a series read, in UTC or in any zone: which step (the one asked
// for, or the finest whose points fit in MAX_POINTS and whose detail is kept
// for the whole window), the rounded window, and for local hour, day and month
// points the range plan of each point (bucket/local-plans.js). Pure; a window
// it cannot answer is a BadRequestError that names what to change.
import { BadRequestError, withDetails } from '../errors.js'
import { STEPS, countPoints, nextStep } from '../bucket/time.js'
import { seriesWindow } from '../bucket/results.js'
import { defaultStep, finestKeptStep, isKept, keptFrom } from '../bucket/detail-kept.js'
import { timeZone } from '../bucket/time-zone.js'
import { isZoneFree } from '../bucket/local-time.js'
import { planLocalSeries, planLocalYtd } from '../bucket/local-plans.js'
import { RangeRefusal, planRanges } from '../bucket/range-plan.js'

const UTC = timeZone('UTC')

function bad (param, message) {
  return withDetails(new BadRequestError(`${param}: ${message}`), { details: [{ path: param, message }] })
}

const isoDay = ms => new Date(ms).toISOString().slice(0, 10)

/**
 * A point edge of a local series (what: 'step=day', …) or year to date
 * (what: null) finer than the detail kept there (a RangeRefusal) → 400
 */
export function localRefusal (err, what, zone) {
  const edge = new Date(err.edge).toISOString()
  const message = err.horizon
    ? `${what ? `${what} points` : 'the local months'} in ${zone.name} need the hours at their edges (one at ${edge}), and ${err.horizon}: ${what ? 'start the window there or later, or ' : ''}ask in UTC (tz=UTC), whose days the monthly documents keep`
    : `${zone.name} was offset from UTC by a fraction of a minute at ${edge} (local mean time), finer than the minutes kept: ask in UTC (tz=UTC)`
  return withDetails(new BadRequestError(`tz: ${message}`), { details: [{ path: 'tz', message, edge: err.edge }] })
}

function tooManyPoints (points, step, maxPoints, zone) {
  return bad(step ? 'step' : 'from', `the range holds ${Number.isFinite(points) ? points : 'too many'} points at step ${step ?? 'month'}${zone && !zone.isUtc ? ` in ${zone.name}` : ''}, over the limit MAX_POINTS = ${maxPoints}; narrow the range or use a coarser step`)
}

/**
 * [from, to) at `step` (undefined: the default) in `zone` →
 * { step, start, end } in UTC or at minute and quarter-hour steps (the same in
 * every zone); { step, start, end, timestamps, plan } for local hour, day and
 * month points. horizons: the detail kept for the metric ({ minuteFrom,
 * dailyFrom }, null = forever); a step finer than what is kept for the window
 * is refused, naming the horizon.
 */
export function planSeries ({ from, to, step: asked, zone = UTC, maxPoints, horizons = { minuteFrom: null, dailyFrom: null }, metric }) {
  if (asked !== undefined && (zone.isUtc || isZoneFree(asked)) && !isKept(asked, from, horizons)) {
    const horizon = keptFrom(asked, horizons)
    const what = asked === 'minute' ? 'minute detail' : 'detail finer than a day'
    throw bad('step', `${what} is kept from ${isoDay(horizon)} on (MINUTE_RETENTION_DAYS / DAILY_RETENTION_DAYS or RETENTION_RULES); this window starts ${new Date(from).toISOString()}: use step=${finestKeptStep(from, horizons)} or coarser, or start the window at ${isoDay(horizon)} or later`)
  }
  if (zone.isUtc || (asked !== undefined && isZoneFree(asked))) {
    const step = asked ?? defaultStep(from, to, maxPoints, horizons)
    const points = step ? countPoints(from, to, step) : Infinity
    if (!step || points > maxPoints) throw tooManyPoints(points, step, maxPoints)
    return { step, ...seriesWindow(from, to, step) }
  }
  const local = (step) => planLocalSeries(metric, zone, from, to, step, { maxPoints, horizons })
  if (asked !== undefined) {
    let planned
    try {
      planned = local(asked)
    } catch (err) {
      throw err instanceof RangeRefusal ? localRefusal(err, `step=${asked}`, zone) : err
    }
    if (planned === null) throw tooManyPoints(Infinity, asked, maxPoints, zone)
    return { step: asked, ...planned }
  }
  // the finest step with at most maxPoints points whose detail is kept for the whole window
  let refusal = null
  for (const step of STEPS) {
    if (isZoneFree(step)) {
      if (isKept(step, from, horizons) && countPoints(from, to, step) <= maxPoints) return { step, ...seriesWindow(from, to, step) }
      continue
    }
    try {
      const planned = local(step)
      if (planned !== null) return { step, ...planned }
    } catch (err) {
      if (!(err instanceof RangeRefusal)) throw err
      refusal = { err, step } // the coarsest step refused says what is kept
    }
  }
  if (refusal) throw localRefusal(refusal.err, `step=${refusal.step}`, zone)
  throw tooManyPoints(Infinity, null, maxPoints, zone)
}

/**
 * planSeries with every point a planned range, in UTC as in any zone (the
 * reads that merge tiers: distributions, gauges) →
 * { step, start, end, timestamps, plan }
 */
export function planSeriesRanges (options) {
  const planned = planSeries(options)
  if (planned.plan) return planned
  // UTC (or minute and quarter-hour points): one range per point
  const timestamps = []
  const ranges = []
  for (let t = planned.start; t < planned.end; t = nextStep(t, planned.step)) {
    timestamps.push(t)
    ranges.push({ from: t, to: nextStep(t, planned.step) })
  }
  return { ...planned, timestamps, plan: planRanges(options.metric, ranges, options.horizons) }
}

/**
 * A year to date in `zone` (UTC included) planned: one range per local
 * month (bucket/local-plans.js planLocalYtd), a month edge finer than the
 * detail kept there a 400 → { months, plan }
 */
export function planYtd (metric, { asOf, yearStart, zone, horizons }) {
  try {
    return planLocalYtd(metric, zone, yearStart, asOf, { horizons })
  } catch (err) {
    throw err instanceof RangeRefusal ? localRefusal(err, null, zone) : err
  }
}
