// The rules every event must meet, whatever door it came through: its
// metric name, its value, and the window of accepted times. Pure; the
// clock's reading comes in.
import { DAY_MS } from '../bucket/time.js'
import { MAX_ABS_VALUE, METRIC_NAME_RE } from '../schemas/common.js'

/**
 * events: [{ metric, value, time }]. → null, or the first broken rule:
 * { index, field: 'metric'|'value'|'ts', message }
 */
export function findInvalidEvent (events, now, { maxFutureMs, maxAgeDays }) {
  const oldest = now - maxAgeDays * DAY_MS
  const newest = now + maxFutureMs
  for (let i = 0; i < events.length; i++) {
    const { metric, value, time } = events[i]
    if (typeof metric !== 'string' || !METRIC_NAME_RE.test(metric)) {
      return { index: i, field: 'metric', message: `${JSON.stringify(metric)} is not a metric name (letters, digits, _ . : -; at most 200 characters; starting with a letter or digit)` }
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > MAX_ABS_VALUE) {
      return { index: i, field: 'value', message: `must be a finite number with |value| ≤ ${MAX_ABS_VALUE}` }
    }
    if (time > newest) return { index: i, field: 'ts', message: `is more than MAX_FUTURE_MS (${maxFutureMs} ms) ahead of the server's clock` }
    if (time < oldest) return { index: i, field: 'ts', message: `is older than MAX_AGE_DAYS (${maxAgeDays} days)` }
  }
  return null
}
