// Query strings arrive as strings (no coercion) and are parsed here, in one
// place; what a read plans from them is the reader's (src/reader/).
import { BadRequestError, withDetails } from '../errors.js'
import { DAY_MS, QUARTER_HOUR_MS, epochMsProblem, parseQueryTime, utcParts } from '../bucket/time.js'
import { timeZone } from '../bucket/time-zone.js'
import { localParts, localYearStart } from '../bucket/local-time.js'
import { parseStat } from '../bucket/distribution-stats.js'
import { MAX_QUANTILES } from '../schemas/queries.js'
import { parseGroupBy, parseTagFilters } from '../tags/tag-filter.js'

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

/** The zone named by `tz` (default UTC), or a 400 naming it */
export function parseZone (query) {
  const name = query.tz ?? 'UTC'
  const zone = timeZone(name)
  if (!zone) throw bad('tz', `unknown time zone ${JSON.stringify(name)}: use an IANA name such as UTC, Europe/Berlin or Asia/Kathmandu`)
  return zone
}

/**
 * → { from, to, step } for GET …/series: the window (default the last 24 h),
 * the step asked for (undefined: the reader picks it, reader/series-plan.js).
 */
export function parseSeriesQuery (query, { now }) {
  let from = time(query, 'from')
  let to = time(query, 'to')
  if (to === undefined) to = from === undefined ? now : Math.max(now, from + 1)
  if (from === undefined) from = to - DAY_MS
  if (from >= to) throw bad('from', 'must be before to')
  if (query.stat === undefined) return { from, to, step: query.step }
  const { stat, problem } = parseStat(query.stat)
  if (problem) throw bad('stat', problem)
  return { from, to, step: query.step, stat }
}

const QUANTILE = /^(?:0(?:\.\d{1,12})?|1(?:\.0{1,12})?|\.\d{1,12})$/

/**
 * → { from, to, qs } for GET …/quantiles: the range (default the last 24 h,
 * a default edge rounded out to the quarter-hour: an edge every metric's
 * documents can plan), qs (default 0.5, 0.9, 0.99)
 */
export function parseQuantilesQuery (query, { now }) {
  let from = time(query, 'from')
  let to = time(query, 'to')
  if (to === undefined) to = Math.ceil((from === undefined ? now : Math.max(now, from + 1)) / QUARTER_HOUR_MS) * QUARTER_HOUR_MS
  if (from === undefined) from = to - DAY_MS
  if (from >= to) throw bad('from', 'must be before to')
  const texts = (query.q ?? '0.5,0.9,0.99').split(',')
  if (texts.length > MAX_QUANTILES) throw bad('q', `at most ${MAX_QUANTILES} quantiles, got ${texts.length}`)
  const qs = []
  for (const text of texts) {
    if (!QUANTILE.test(text.trim())) throw bad('q', `${JSON.stringify(text.length > 20 ? text.slice(0, 20) + '…' : text)} is not a quantile: a decimal from 0 to 1 (0.99 is the 99th percentile), comma-separated`)
    qs.push(Number(text))
  }
  return { from, to, qs }
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

/**
 * → null (no `tag=` and no `by=`: the name's own read), or { filters, by }
 * (by: null, one sum; else the keys to group by) for a read by tag
 */
export function parseTagSelection (query) {
  if (query.tag === undefined && query.by === undefined) return null
  const { filters, problem } = parseTagFilters(query.tag)
  if (problem) throw bad('tag', problem)
  const { keys, problem: byProblem } = parseGroupBy(query.by)
  if (byProblem) throw bad('by', byProblem)
  return { filters, by: keys }
}
