// From schema-valid JSON event bodies to events { metric, value, time, kind? }:
// a kind's default value, or the message of its missing value (kinds/*.js json), the time of receipt, and the parsing of `ts`. Pure; the rules
// every event must meet are the ingest service's (src/bucket/event-rules.js).
import { epochMsProblem, parseEventTime } from '../bucket/time.js'
import { counter } from '../kinds/counter.js'
import { kindNamed } from '../kinds/index.js'
import { seriesOfEvent } from '../tags/series-name.js'

/** How a message names a field of the i-th event of a body of `count` */
export function eventPath (count) {
  return (index, field) => (count === 1 ? `event.${field}` : `events[${index}].${field}`)
}

/**
 * list: schema-valid events; seriesNames: whose seriesOfEvent judges a
 * metric and its tags (../tags/series-name-cache.js remembers its answers)
 * → { events } or { error: { path, message } }
 */
export function toEvents (list, now, seriesNames = { seriesOfEvent }) {
  const path = eventPath(list.length)
  const events = new Array(list.length)
  for (let i = 0; i < list.length; i++) {
    const { value, ts, kind } = list[i]
    // a tagged event's metric is its canonical series name (src/tags/series-name.js)
    const { series: metric, problem } = seriesNames.seriesOfEvent(list[i].metric, list[i].tags)
    if (problem) return { error: { path: path(i, list[i].tags === undefined ? 'metric' : 'tags'), message: problem } }
    // the schema admits only the kinds' names (schemas/events.js)
    const { json } = kind === undefined ? counter : kindNamed(kind)
    if (value === undefined && json.defaultValue === null) return { error: { path: path(i, 'value'), message: json.valueMissing } }
    let time = now
    if (ts !== undefined) {
      const unitProblem = typeof ts === 'number' ? epochMsProblem(ts) : null
      if (unitProblem) return { error: { path: path(i, 'ts'), message: unitProblem } }
      time = parseEventTime(ts)
      if (time === null) return { error: { path: path(i, 'ts'), message: `${JSON.stringify(ts)} is not a valid time (ISO-8601 with Z or an offset, or epoch milliseconds from 1970 on)` } }
    }
    // a counter's event carries no kind (the common event: the writer's fast path)
    events[i] = kind === undefined || kind === counter.name ? { metric, value: value ?? json.defaultValue, time } : { metric, value, time, kind }
  }
  return { events }
}
