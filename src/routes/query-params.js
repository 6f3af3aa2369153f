// Query strings arrive as strings (no coercion) and are parsed here, in one place.
import { BadRequestError, withDetails } from '../errors.js'
import { DAY_MS, countPoints, parseQueryTime, utcParts } from '../bucket/time.js'
import { seriesWindow } from '../bucket/results.js'
import { defaultStep, finestKeptStep, isKept, keptFrom } from '../bucket/detail-kept.js'

function bad (param, message) {
  return withDetails(new BadRequestError(`${param}: ${message}`), { details: [{ path: param, message }] })
}

function time (query, param) {
  if (query[param] === undefined) return undefined
  const ms = parseQueryTime(query[param])
  if (ms === null) throw bad(param, 'must be epoch milliseconds or an ISO-8601 time with Z or an offset')
  return ms
}

const isoDay = ms => new Date(ms).toISOString().slice(0, 10)

/**
 * → { step, start, end, points } for GET …/series. horizons: the detail kept
 * for the metric ({ minuteFrom, dailyFrom }, null = forever): a step finer
 * than what is kept for the window is refused, naming the horizon.
 */
export function parseSeriesQuery (query, { now, maxPoints, horizons = { minuteFrom: null, dailyFrom: null } }) {
  let from = time(query, 'from')
  let to = time(query, 'to')
  if (to === undefined) to = from === undefined ? now : Math.max(now, from + 1)
  if (from === undefined) from = to - DAY_MS
  if (from >= to) throw bad('from', 'must be before to')
  if (query.step !== undefined && !isKept(query.step, from, horizons)) {
    const horizon = keptFrom(query.step, horizons)
    const what = query.step === 'minute' ? 'minute detail' : 'detail finer than a day'
    throw bad('step', `${what} is kept from ${isoDay(horizon)} on (MINUTE_RETENTION_DAYS / DAILY_RETENTION_DAYS or RETENTION_RULES); this window starts ${new Date(from).toISOString()}: use step=${finestKeptStep(from, horizons)} or coarser, or start the window at ${isoDay(horizon)} or later`)
  }
  const step = query.step ?? defaultStep(from, to, maxPoints, horizons)
  const points = step ? countPoints(from, to, step) : Infinity
  if (!step || points > maxPoints) {
    throw bad(step ? 'step' : 'from', `the range holds ${Number.isFinite(points) ? points : 'too many'} points at step ${step ?? 'month'}, over the limit MAX_POINTS = ${maxPoints}; narrow the range or use a coarser step`)
  }
  return { step, ...seriesWindow(from, to, step) }
}

/** → { from, to } for GET …/total */
export function parseTotalQuery (query) {
  const from = time(query, 'from')
  const to = time(query, 'to')
  if (from >= to) throw bad('from', 'must be before to')
  return { from, to }
}

/** → { year, asOf } for GET …/ytd */
export function parseYtdQuery (query, { now }) {
  const asOfGiven = time(query, 'asOf')
  let year
  if (query.year !== undefined) {
    if (!/^\d{4}$/.test(query.year) || Number(query.year) < 1970) throw bad('year', 'must be a four-digit year from 1970 on')
    year = Number(query.year)
  } else {
    year = utcParts(asOfGiven ?? now).year
  }
  if (year > utcParts(now).year) throw bad(query.year !== undefined ? 'year' : 'asOf', `must not be after this year (${utcParts(now).year})`)
  const yearEnd = Date.UTC(year + 1, 0, 1) - 1
  let asOf = asOfGiven
  if (asOf === undefined) asOf = now <= yearEnd && now >= Date.UTC(year, 0, 1) ? now : yearEnd
  if (utcParts(asOf).year !== year) throw bad('asOf', `must fall within the year ${year}`)
  return { year, asOf }
}
