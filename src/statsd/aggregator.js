// Merges StatsD samples before they reach the ingest service, so that a
// flood of tiny packets becomes a few events (docs/decisions.md, "StatsD
// lines are summed per metric per minute", "StatsD: timers are
// distributions"): a counter's samples are summed per (minute, metric); a
// distribution's samples are merged per (minute, metric, value), their
// weights added, so nothing the ingest service derives from them (count,
// sum, min, max, histogram) changes. Pure: the caller passes each sample's time.
import { MAX_ABS_VALUE } from '../bucket/event-rules.js'
import { MINUTE_MS } from '../bucket/time.js'

export const DISTRIBUTION = 'distribution'

/**
 * The ingest service's events of taken events (their `values` counts stay with
 * the door): { metric, value, time } for a counter, and
 * { metric, value, time, kind: 'distribution', weight } for a distribution.
 */
export const ingestEvents = (events) => events.map(({ metric, value, time, kind, weight }) =>
  kind === DISTRIBUTION ? { metric, value, time, kind, weight } : { metric, value, time })

const minuteOf = (time) => time - (time % MINUTE_MS)

/**
 * The key of the event a sample merges into. A distribution's value is in it
 * as String(value), one string per number (the parser gives 0 for −0, which
 * String() would merge with 0 anyway).
 */
function keyOf ({ metric, value, kind }, minute) {
  return kind === DISTRIBUTION ? `d\n${minute}\n${metric}\n${value}` : `c\n${minute}\n${metric}`
}

export function createAggregator () {
  let held = new Map() // keyOf(sample, minute) → event
  let full = [] // events whose sum (counter) or weight (distribution) would pass MAX_ABS_VALUE: sent as they are
  let values = 0

  return {
    /** Distinct events held: (minute, metric) of a counter, (minute, metric, value) of a distribution */
    get size () { return held.size + full.length },
    /** StatsD values (one per sample) merged since the last take() */
    get values () { return values },
    /** Whether `sample` ({ metric, value, kind? }) at time would add an event */
    adds (sample, time) { return !held.has(keyOf(sample, minuteOf(time))) },
    /**
     * samples: [{ metric, value }] (counters) or [{ metric, value, kind: 'distribution', weight }],
     * each one StatsD value (line-parser.js); time: epoch ms
     */
    add (samples, time) {
      const minute = minuteOf(time)
      for (const sample of samples) {
        const key = keyOf(sample, minute)
        const event = held.get(key)
        if (sample.kind === DISTRIBUTION) {
          if (event && event.weight + sample.weight <= MAX_ABS_VALUE) {
            event.weight += sample.weight
            event.values++
            continue
          }
          if (event) full.push(event)
          held.set(key, { metric: sample.metric, value: sample.value, time: minute, kind: DISTRIBUTION, weight: sample.weight, values: 1 })
          continue
        }
        if (event && Math.abs(event.value + sample.value) <= MAX_ABS_VALUE) {
          event.value += sample.value
          event.values++
          continue
        }
        if (event) full.push(event)
        held.set(key, { metric: sample.metric, value: sample.value, time: minute, values: 1 })
      }
      values += samples.length
    },
    /**
     * → { events, values } held so far, and starts empty. Each event is
     * { metric, value, time, values } (a counter's sum) or
     * { metric, value, time, kind: 'distribution', weight, values } (one value
     * of a distribution, seen weight times): values = the StatsD values merged
     * into it (the events' values add up to the total), to count what a lost
     * event loses.
     */
    take () {
      const taken = { events: [...full, ...held.values()], values }
      held = new Map()
      full = []
      values = 0
      return taken
    }
  }
}
