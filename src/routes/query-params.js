// Query strings arrive as strings (no coercion) and are parsed here, in one place.
import { BadRequestError, withDetails } from '../errors.js'
import { DAY_MS, STEPS, countPoints, epochMsProblem, parseQueryTime, utcParts } from '../bucket/time.js'
import { seriesWindow } from '../bucket/results.js'
import { defaultStep, finestKeptStep, isKept, keptFrom } from '../bucket/detail-kept.js'
import { timeZone } from '../bucket/time-zone.js'
import { isZoneFree, localParts, localYearStart } from '../bucket/local-time.js'
import { planLocalSeries } from '../bucket/local-plans.js'
import { RangeRefusal } from '../bucket/range-plan.js'

function bad (param, message) {
  return withDetails(new BadRequestError(`${param}: ${message}`), { details: [{ path: param, message }] })
}

function time (query, param) {
  if (query[param] === undefined) return undefined
  const unitProblem = /^\d+$/.test(query[param]) ? epochMsProblem(Number(query[param])) : null
  if (unitProblem) throw bad(param, unitProblem)
  const ms = parseQueryTime(query[param])
  if (ms === null) throw bad(param, 'must be epoch milliseconds or an ISO-8601 time with Z or an offset')
  return ms
}

const isoDay = ms => new Date(ms).toISOString().slice(0, 10)

/** The zone named by `tz` (default UTC), or a 400 naming it */
export function parseZone (query) {
  const name = query.tz ?? 'UTC'
  const zone = timeZone(name)
  if (!zone) throw bad('tz', `unknown time zone ${JSON.stringify(name)}: use an IANA name such as UTC, Europe/Berlin or Asia/Kathmandu`)
  return zone
}

/**
 * A point edge of a local series (what: 'step=day', …) or year to date
 * (what: null) finer than the detail kept there (a RangeRefusal) → 400
 */
function localRefusal (err, what, zone) {
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
 * → { step, start, end } for GET …/series in UTC, or at minute and
 * quarter-hour steps (the same in every zone); for hour, day and month points
 * in another zone → { step, start, end, timestamps, plan } (bucket/local-plans.js).
 * horizons: the detail kept for the metric ({ minuteFrom, dailyFrom }, null =
 * forever): a step finer than what is kept for the window is refused, naming
 * the horizon. zone: from parseZone.
 */
export function parseSeriesQuery (query, { now, maxPoints, horizons = { minuteFrom: null, dailyFrom: null }, zone = timeZone('UTC'), metric, layout }) {
  let from = time(query, 'from')
  let to = time(query, 'to')
  if (to === undefined) to = from === undefined ? now : Math.max(now, from + 1)
  if (from === undefined) from = to - DAY_MS
  if (from >= to) throw bad('from', 'must be before to')
  if (query.step !== undefined && (zone.isUtc || isZoneFree(query.step)) && !isKept(query.step, from, horizons)) {
    const horizon = keptFrom(query.step, horizons)
    const what = query.step === 'minute' ? 'minute detail' : 'detail finer than a day'
    throw bad('step', `${what} is kept from ${isoDay(horizon)} on (MINUTE_RETENTION_DAYS / DAILY_RETENTION_DAYS or RETENTION_RULES); this window starts ${new Date(from).toISOString()}: use step=${finestKeptStep(from, horizons)} or coarser, or start the window at ${isoDay(horizon)} or later`)
  }
  if (zone.isUtc || (query.step !== undefined && isZoneFree(query.step))) {
    const step = query.step ?? defaultStep(from, to, maxPoints, horizons)
    const points = step ? countPoints(from, to, step) : Infinity
    if (!step || points > maxPoints) throw tooManyPoints(points, step, maxPoints)
    return { step, ...seriesWindow(from, to, step) }
  }
  const local = (step) => planLocalSeries(metric, zone, from, to, step, { maxPoints, horizons, layout })
  if (query.step !== undefined) {
    let planned
    try {
      planned = local(query.step)
    } catch (err) {
      throw err instanceof RangeRefusal ? localRefusal(err, `step=${query.step}`, zone) : err
    }
    if (planned === null) throw tooManyPoints(Infinity, query.step, maxPoints, zone)
    return { step: query.step, ...planned }
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

/** → { from, to } for GET …/total */
export function parseTotalQuery (query) {
  const from = time(query, 'from')
  const to = time(query, 'to')
  if (from >= to) throw bad('from', 'must be before to')
  return { from, to }
}

/**
 * → { year, asOf } for GET …/ytd; in a zone other than UTC also yearStart,
 * the instant its local year begins. The year is asOf's (or now's) local year.
 */
export function parseYtdQuery (query, { now, zone = timeZone('UTC') }) {
  const asOfGiven = time(query, 'asOf')
  const yearOf = t => (zone.isUtc ? utcParts(t).year : localParts(zone, t).year)
  let year
  if (query.year !== undefined) {
    if (!/^\d{4}$/.test(query.year) || Number(query.year) < 1970) throw bad('year', 'must be a four-digit year from 1970 on')
    year = Number(query.year)
  } else {
    year = yearOf(asOfGiven ?? now)
  }
  const thisYear = yearOf(now)
  if (year > thisYear) throw bad(query.year !== undefined ? 'year' : 'asOf', `must not be after this year (${thisYear})`)
  const yearStart = zone.isUtc ? Date.UTC(year, 0, 1) : localYearStart(zone, year)
  const yearEnd = (zone.isUtc ? Date.UTC(year + 1, 0, 1) : localYearStart(zone, year + 1)) - 1
  let asOf = asOfGiven
  if (asOf === undefined) asOf = now <= yearEnd && now >= yearStart ? now : yearEnd
  if (yearOf(asOf) !== year) throw bad('asOf', `must fall within the year ${year}${zone.isUtc ? '' : ` in ${zone.name}`}`)
  return zone.isUtc ? { year, asOf } : { year, asOf, yearStart }
}

/** A local year to date that needs detail no longer kept → 400 */
export function ytdRefusal (err, zone) {
  return localRefusal(err, null, zone)
}
