// From validated event bodies to { metric, value, time }: defaults, time
// parsing and the accepted time window. Pure; the clock's reading comes in.
import { DAY_MS, parseEventTime } from '../bucket/time.js'

/**
 * list: schema-valid events. → { events } or { error: { path, message } }
 */
export function toEvents (list, now, { maxFutureMs, maxAgeDays }) {
  const oldest = now - maxAgeDays * DAY_MS
  const newest = now + maxFutureMs
  const events = new Array(list.length)
  const path = i => (list.length === 1 ? 'event.ts' : `events[${i}].ts`)
  for (let i = 0; i < list.length; i++) {
    const { metric, value = 1, ts } = list[i]
    let time = now
    if (ts !== undefined) {
      time = parseEventTime(ts)
      if (time === null) return { error: { path: path(i), message: `${JSON.stringify(ts)} is not a valid time (ISO-8601 with Z or an offset, or epoch milliseconds from 1970 on)` } }
      if (time > newest) return { error: { path: path(i), message: `is more than MAX_FUTURE_MS (${maxFutureMs} ms) ahead of the server's clock` } }
      if (time < oldest) return { error: { path: path(i), message: `is older than MAX_AGE_DAYS (${maxAgeDays} days)` } }
    }
    events[i] = { metric, value, time }
  }
  return { events }
}
