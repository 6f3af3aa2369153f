// From schema-valid JSON event bodies to events { metric, value, time, kind? }:
// a counter's default value (a distribution's and a gauge's value is
// required), the time of receipt, and the parsing of `ts`. Pure; the rules
// every event must meet are the ingest service's (src/bucket/event-rules.js).
import { epochMsProblem, parseEventTime } from '../bucket/time.js'
import { DISTRIBUTION_KIND, GAUGE_KIND } from '../bucket/metric-kinds.js'

/** How a message names a field of the i-th event of a body of `count` */
export function eventPath (count) {
  return (index, field) => (count === 1 ? `event.${field}` : `events[${index}].${field}`)
}

/** list: schema-valid events. → { events } or { error: { path, message } } */
export function toEvents (list, now) {
  const path = eventPath(list.length)
  const events = new Array(list.length)
  for (let i = 0; i < list.length; i++) {
    const { metric, value, ts, kind } = list[i]
    if (kind === DISTRIBUTION_KIND && value === undefined) return { error: { path: path(i, 'value'), message: 'a distribution\'s event needs its value (the observation, e.g. a latency in ms)' } }
    if (kind === GAUGE_KIND && value === undefined) return { error: { path: path(i, 'value'), message: 'a gauge\'s event needs its value (the level at ts, e.g. a queue depth)' } }
    let time = now
    if (ts !== undefined) {
      const unitProblem = typeof ts === 'number' ? epochMsProblem(ts) : null
      if (unitProblem) return { error: { path: path(i, 'ts'), message: unitProblem } }
      time = parseEventTime(ts)
      if (time === null) return { error: { path: path(i, 'ts'), message: `${JSON.stringify(ts)} is not a valid time (ISO-8601 with Z or an offset, or epoch milliseconds from 1970 on)` } }
    }
    events[i] = kind === DISTRIBUTION_KIND || kind === GAUGE_KIND ? { metric, value, time, kind } : { metric, value: value ?? 1, time }
  }
  return { events }
}
