// The rules every event must meet, whatever door it came through: its
// metric name, its value, and the window of accepted times; the one home of
// these rules (the JSON schemas, the StatsD parser and the ingest service all
// read them here). Pure; the clock's reading comes in.
import { DAY_MS } from './time.js'

export const METRIC_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$'
export const METRIC_NAME_RE = new RegExp(METRIC_NAME_PATTERN)
// a metric name, then any `;…`: a tagged series' name (src/tags/series-name.js judges its tags, with messages naming the rules)
// (a `;~` after the name is a declared rollup's series, tags/rollups.js: the service's own, never a client's)
export const SERIES_NAME_PATTERN = `${METRIC_NAME_PATTERN.slice(0, -1)}(?:;(?:[^~].*)?)?$`
// |value| of one event at most: sums stay exact integers up to 2^53 for a long while
export const MAX_ABS_VALUE = 1e15

/** Whether `metric` is a metric name (the one test every door applies) */
export const isMetricName = (metric) => typeof metric === 'string' && METRIC_NAME_RE.test(metric)

/** Whether `value` is a value one event may carry */
export const isEventValue = (value) => typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_ABS_VALUE

/**
 * The metric name of a series name: its text before the first `;` (the tags
 * after it are src/tags/series-name.js's to judge)
 */
export const nameOfSeries = (series) => {
  if (typeof series !== 'string') return series
  const at = series.indexOf(';')
  return at === -1 ? series : series.slice(0, at)
}

/**
 * events: [{ metric, value, time }] (metric: a name or a series name, whose
 * name is judged here). → null, or the first broken rule:
 * { index, field: 'metric'|'value'|'ts', message }
 */
export function findInvalidEvent (events, now, { maxFutureMs, maxAgeDays }) {
  const oldest = now - maxAgeDays * DAY_MS
  const newest = now + maxFutureMs
  for (let i = 0; i < events.length; i++) {
    const { metric, value, time } = events[i]
    if (!isMetricName(nameOfSeries(metric))) {
      return { index: i, field: 'metric', message: `${JSON.stringify(nameOfSeries(metric))} is not a metric name (letters, digits, _ . : -; at most 200 characters; starting with a letter or digit)` }
    }
    if (!isEventValue(value)) {
      return { index: i, field: 'value', message: `must be a finite number with |value| ≤ ${MAX_ABS_VALUE}` }
    }
    if (time > newest) return { index: i, field: 'ts', message: `is more than MAX_FUTURE_MS (${maxFutureMs} ms) ahead of the server's clock` }
    if (time < oldest) return { index: i, field: 'ts', message: `is older than MAX_AGE_DAYS (${maxAgeDays} days)` }
  }
  return null
}
