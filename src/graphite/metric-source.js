// Where /render and /metrics/find get metric names and series: the registry
// (glob expansion over its prefix range, bounded) and the reader, at the
// finest tier kept for the whole range (docs/decisions.md, "Graphite: the
// native resolution").
import { isKept } from '../bucket/detail-kept.js'
import { MAX_TIME_MS, MIN_TIME_MS } from '../bucket/time.js'
import { BadRequestError } from '../errors.js'
import { globParts, isGlob } from './glob.js'
import { minuteWindow } from './minute-window.js'
import { makeSeries } from './series.js'

// trie nodes one glob may look at: a few times the largest answer it may give
const DEFAULT_MAX_VISITS = 100_000

/** The tiers a series is read at, finest first, as whisper archives: the series step and its seconds */
const TIERS = Object.freeze([
  { step: 'minute', seconds: 60, what: 'one-minute' },
  { step: 'quarter-hour', seconds: 900, what: 'quarter-hour' },
  { step: 'day', seconds: 86_400, what: 'one-day' }
])

/**
 * The tier of a fetch: the finest whose detail every metric keeps for the
 * whole window (horizons, bucket/retention-horizons.js) and whose points fit
 * in maxPoints. → { tier, start, end, points } or null
 */
function nativeTier (startTime, endTime, horizonsList, maxPoints) {
  for (const tier of TIERS) {
    const window = minuteWindow(startTime, endTime, tier.seconds)
    if (window.points > maxPoints) continue
    // kept from `from` itself, as whisper picks an archive whose retention reaches back to `from`
    if (horizonsList.every(h => isKept(tier.step, startTime * 1000, h))) return { tier, ...window }
  }
  return null
}

/**
 * horizons(metric) → { minuteFrom, dailyFrom }: the first UTC day that keeps
 * minute detail and the first with a daily document (null: forever). A range
 * is read at the finest tier kept for all of it, never as zeros for detail
 * that was deleted.
 */
export function createMetricSource ({ registry, names, reader, maxGlobMetrics, maxPoints, maxSeries, maxReadPoints, maxVisits = DEFAULT_MAX_VISITS, horizons = () => ({ minuteFrom: null, dailyFrom: null }) }) {
  const tooMany = pattern => new BadRequestError(`${JSON.stringify(pattern)} matches more than GRAPHITE_MAX_GLOB_METRICS = ${maxGlobMetrics} metrics; narrow the pattern`)

  /** The name index's nodes under a glob (a bounded walk of the trie, ./name-index.js) */
  const nodesOf = pattern => names.match(pattern, globParts(pattern), { maxVisits })

  /** Metric names a path expression matches, sorted; 400 past maxGlobMetrics */
  async function expand (pattern) {
    if (!isGlob(pattern)) return (await registry.exists(pattern)) ? [pattern] : []
    const found = nodesOf(pattern).filter(n => n.leaf).map(n => n.path)
    if (found.length > maxGlobMetrics) throw tooMany(pattern)
    return found
  }

  /** The nodes one level below what the query matches (for /metrics/find and /metrics/expand); 400 past maxGlobMetrics */
  function findNodes (query) {
    const found = nodesOf(query)
    if (found.length > maxGlobMetrics) throw tooMany(query)
    return found
  }

  /** graphite-web fetchData for one path expression: a series per metric, sorted by name */
  async function fetch (pathExpression, { startTime, endTime, defaultConsolidation, spent }) {
    const names = await expand(pathExpression)
    const minutes = minuteWindow(startTime, endTime)
    if (!(minutes.start * 1000 >= MIN_TIME_MS && minutes.end * 1000 <= MAX_TIME_MS)) {
      throw new BadRequestError(`${JSON.stringify(pathExpression)}: the range ${startTime}..${endTime} (epoch seconds) lies outside the years 1970..9999`)
    }
    const kept = names.map(metric => horizons(metric))
    const native = nativeTier(startTime, endTime, kept, maxPoints)
    if (native === null) {
      const days = minuteWindow(startTime, endTime, TIERS.at(-1).seconds).points
      throw new BadRequestError(`${JSON.stringify(pathExpression)} over this range is ${days} one-day points per series, more than MAX_POINTS = ${maxPoints}; shorten the range`)
    }
    const { tier, start, end, points } = native
    // the request's budget, spent before anything is read: series and points across all its fetches
    if (spent) {
      spent.series += names.length
      spent.points += names.length * points
      if (spent.series > maxSeries) throw new BadRequestError(`this request reads more than MAX_SERIES = ${maxSeries} series (${JSON.stringify(pathExpression)} alone matches ${names.length}); narrow the targets`)
      if (spent.points > maxReadPoints) throw new BadRequestError(`this request reads more than MAX_READ_POINTS = ${maxReadPoints} points (${JSON.stringify(pathExpression)}: ${names.length} series × ${points} points); shorten the range or narrow the targets`)
    }
    const series = await Promise.all(names.map(async (metric, i) => {
      const { values } = await reader.series(metric, { from: start * 1000, to: end * 1000, step: tier.step }, { known: true })
      return makeSeries({ name: metric, start, end, step: tier.seconds, values, consolidationFunc: defaultConsolidation, pathExpression })
    }))
    return series.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  }

  return { expand, findNodes, fetch }
}
