// Where /render and /metrics/find get metric names and minute series:
// the registry (glob expansion over its prefix range, bounded) and the reader.
import { assembleSeries } from '../bucket/results.js'
import { MAX_TIME_MS, MIN_TIME_MS } from '../bucket/time.js'
import { BadRequestError } from '../errors.js'
import { globMatcher, isGlob, literalPrefix } from './glob.js'
import { minuteWindow } from './minute-window.js'
import { makeSeries } from './series.js'

const PAGE = 1000

/**
 * minuteFrom(metric) → epoch ms of the first UTC day that still keeps minute
 * detail (null: forever). /render reads minutes only: a range reaching before
 * that is refused (400) rather than answered with zeros for detail deleted.
 */
export function createMetricSource ({ registry, reader, layout, maxGlobMetrics, maxPoints, minuteFrom = () => null }) {
  const tooMany = pattern => new BadRequestError(`${JSON.stringify(pattern)} matches more than GRAPHITE_MAX_GLOB_METRICS = ${maxGlobMetrics} metrics; narrow the pattern`)

  /** Every registry name under the pattern's literal prefix, page by page */
  async function * scan (pattern) {
    const prefix = literalPrefix(pattern)
    let after
    for (;;) {
      const page = await registry.list({ prefix, limit: PAGE, after })
      for (const { name } of page.metrics) yield name
      if (!page.next) return
      after = page.next
    }
  }

  /** Metric names a path expression matches, sorted; 400 past maxGlobMetrics */
  async function expand (pattern) {
    if (!isGlob(pattern)) return (await registry.exists(pattern)) ? [pattern] : []
    const matches = globMatcher(pattern)
    const found = []
    for await (const name of scan(pattern)) {
      if (!matches(name)) continue
      found.push(name)
      if (found.length > maxGlobMetrics) throw tooMany(pattern)
    }
    return found
  }

  /** Names whose first parts match the query (for /metrics/find); 400 past maxGlobMetrics distinct nodes */
  async function namesUnder (query) {
    const parts = query.split('.').length
    const matches = globMatcher(query)
    const heads = new Set()
    const found = []
    for await (const name of scan(query)) {
      const head = name.split('.').slice(0, parts).join('.')
      if (!matches(head)) continue
      heads.add(head)
      if (heads.size > maxGlobMetrics) throw tooMany(query)
      found.push(name)
    }
    return found
  }

  /** graphite-web fetchData for one path expression: a series per metric, sorted by name */
  async function fetch (pathExpression, { startTime, endTime, defaultConsolidation }) {
    const names = await expand(pathExpression)
    const { start, end, points } = minuteWindow(startTime, endTime)
    if (!(start * 1000 >= MIN_TIME_MS && end * 1000 <= MAX_TIME_MS)) {
      throw new BadRequestError(`${JSON.stringify(pathExpression)}: the range ${startTime}..${endTime} (epoch seconds) lies outside the years 1970..9999`)
    }
    if (points > maxPoints) {
      throw new BadRequestError(`${JSON.stringify(pathExpression)} over this range is ${points} one-minute points per series, more than MAX_POINTS = ${maxPoints}; shorten the range`)
    }
    for (const metric of names) {
      const horizon = minuteFrom(metric)
      if (horizon !== null && start * 1000 < horizon) {
        throw new BadRequestError(`${metric} keeps one-minute detail from ${new Date(horizon).toISOString()} on (MINUTE_RETENTION_DAYS or its retention rule); /render answers minutes only: start the range there or later`)
      }
    }
    const series = await Promise.all(names.map(async metric => {
      const { docs } = await reader.seriesDocs(metric, 'minute', start * 1000, end * 1000)
      const { values } = assembleSeries({ step: 'minute', start: start * 1000, end: end * 1000, docs, layout })
      return makeSeries({ name: metric, start, end, step: 60, values, consolidationFunc: defaultConsolidation, pathExpression })
    }))
    return series.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  }

  return { expand, namesUnder, fetch }
}
