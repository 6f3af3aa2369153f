// graphite-web's aggregation functions (functions/aggfuncs.py, the ones
// statbucket supports) and its aggregate(): series normalized to their
// least common step, combined point by point. Pure.
import { makeSeries, tagsOf, valuesOf } from './series.js'

export class TargetValueError extends Error {
  constructor (message) {
    super(message)
    this.name = 'TargetValueError'
  }
}

const nonNull = values => values.filter(v => v !== null)
export const safeSum = values => { const v = nonNull(values); return v.length ? v.reduce((a, b) => a + b, 0) : null }
const safeAvg = values => { const v = nonNull(values); return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null }
const safeMax = values => { const v = nonNull(values); return v.length ? Math.max(...v) : null }
const safeMin = values => { const v = nonNull(values); return v.length ? Math.min(...v) : null }
const safeLast = values => { const v = nonNull(values); return v.length ? v[v.length - 1] : null }
const safeCount = values => { const v = nonNull(values); return v.length ? v.length : null }

// render/functions.py getAggFunc, the ones statbucket supports
const AGGREGATIONS = {
  sum: safeSum, total: safeSum, average: safeAvg, avg: safeAvg, max: safeMax, min: safeMin, last: safeLast, current: safeLast, count: safeCount
}
export const AGGREGATION_NAMES = Object.keys(AGGREGATIONS)

/** An aggregation by name; an unknown one is a 400 naming those there are */
export function aggregation (name) {
  // own properties only: "__proto__" or "constructor" name no aggregation
  const fn = Object.hasOwn(AGGREGATIONS, name) ? AGGREGATIONS[name] : null
  if (!fn) throw new TargetValueError(`unsupported aggregation ${JSON.stringify(name)}; use one of ${AGGREGATION_NAMES.join(', ')}`)
  return fn
}

const gcd = (a, b) => b === 0 ? a : gcd(b, a % b)
const lcm = (a, b) => a === b ? a : (Math.max(a, b) / gcd(Math.max(a, b), Math.min(a, b))) * Math.min(a, b)

/**
 * functions.py aggregate's tags: those every series of the list has with the
 * same value (in the first series' order), `name` the aggregate's name where
 * they do not share one, and `aggregatedBy` the function (sum for sumSeries)
 */
export function aggregatedTags (seriesList, name, aggregatedBy) {
  const shared = seriesList.map(tagsOf)
  const tags = Object.fromEntries(Object.entries(shared[0]).filter(([tag, value]) => shared.every(t => Object.hasOwn(t, tag) && t[tag] === value)))
  if (!Object.hasOwn(tags, 'name')) tags.name = name
  tags.aggregatedBy = aggregatedBy
  return tags
}

/**
 * functions.py aggregate over a non-empty series list (xFilesFactor 0): each
 * series consolidated to the least common step, then one point per row of
 * `aggregate` over the non-null values (null where all are null); tagged as
 * aggregatedTags makes them (aggregatedBy: the function's name, e.g. sum).
 */
export function aggregateSeries (seriesList, aggregate, { name, consolidationFunc, aggregatedBy }) {
  const step = seriesList.map(s => s.step).reduce(lcm)
  const normalized = seriesList.map(s => ({ ...s, valuesPerPoint: step / s.step }))
  const start = Math.min(...normalized.map(s => s.start))
  let end = Math.max(...normalized.map(s => s.end))
  end -= (end - start) % step
  const columns = normalized.map(valuesOf)
  const length = Math.max(...columns.map(c => c.length))
  const values = []
  for (let i = 0; i < length; i++) values.push(aggregate(columns.map(c => c[i] ?? null)))
  return makeSeries({ name, start, end, step, values, consolidationFunc, tags: aggregatedTags(seriesList, name, aggregatedBy) })
}
