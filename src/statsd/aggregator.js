// Merges StatsD samples before they reach the ingest service, so that a
// flood of tiny packets becomes a few events (docs/adr/0013-statsd-daemon-format-summed-per-minute.md, docs/adr/0031-statsd-timers-are-distributions.md): a counter's samples are summed per (minute, metric); a
// distribution's samples are merged per (minute, metric, value), their
// weights added, so nothing the ingest service derives from them (count,
// sum, min, max, histogram) changes; a gauge's levels are summarised per
// (minute, metric) as { count, sum, min, max } and the last level by arrival,
// at the time it arrived (docs/adr/0045-gauges-statsd-levels-and-deltas.md). Pure: the caller passes each sample's time.
import { MAX_ABS_VALUE } from '../bucket/event-rules.js'
import { MINUTE_MS } from '../bucket/time.js'

export const DISTRIBUTION = 'distribution'
export const GAUGE = 'gauge'

/** The ingest service's event of a taken gauge summary: a level, or the summary of several */
function gaugeEvent ({ metric, value, time, count, sum, min, max }) {
  return count === 1 ? { metric, value, time, kind: GAUGE } : { metric, value, time, kind: GAUGE, summary: { count, sum, min, max } }
}

/**
 * The ingest service's events of taken events (their `values` counts stay with
 * the door): { metric, value, time } for a counter,
 * { metric, value, time, kind: 'distribution', weight } for a distribution, and
 * { metric, value, time, kind: 'gauge', summary? } for a gauge (value the last
 * level, at the time it arrived; summary { count, sum, min, max } of several).
 */
export const ingestEvents = (events) => events.map((e) => {
  if (e.kind === DISTRIBUTION) return { metric: e.metric, value: e.value, time: e.time, kind: e.kind, weight: e.weight }
  if (e.kind === GAUGE) return gaugeEvent(e)
  return { metric: e.metric, value: e.value, time: e.time }
})

const minuteOf = (time) => time - (time % MINUTE_MS)

/**
 * The key of the event a sample merges into. A distribution's value is in it
 * as String(value), one string per number (the parser gives 0 for −0, which
 * String() would merge with 0 anyway).
 */
function keyOf ({ metric, value, kind }, minute) {
  if (kind === DISTRIBUTION) return `d\n${minute}\n${metric}\n${value}`
  return kind === GAUGE ? `g\n${minute}\n${metric}` : `c\n${minute}\n${metric}`
}

/**
 * options.stampGauge(metric, time) → the time a taken gauge event is given
 * (gauge-levels.js stamp: later than the name's previous event, so that a
 * level arriving in the same millisecond as the one before is still the later
 * `last` where it is stored; equal times would keep the larger level instead)
 */
export function createAggregator ({ stampGauge = null } = {}) {
  let held = new Map() // keyOf(sample, minute) → event
  let full = [] // events whose sum (counter) or weight (distribution) would pass MAX_ABS_VALUE: sent as they are
  let values = 0

  return {
    /** Distinct events held: (minute, metric) of a counter or a gauge, (minute, metric, value) of a distribution */
    get size () { return held.size + full.length },
    /** StatsD values (one per sample) merged since the last take() */
    get values () { return values },
    /** Whether `sample` ({ metric, value, kind? }) at time would add an event */
    adds (sample, time) { return !held.has(keyOf(sample, minuteOf(time))) },
    /**
     * samples: [{ metric, value }] (counters), [{ metric, value, kind: 'distribution', weight }]
     * or [{ metric, value, kind: 'gauge' }] (a level: deltas are applied before, gauge-levels.js),
     * each one StatsD value (line-parser.js); time: epoch ms
     */
    add (samples, time) {
      const minute = minuteOf(time)
      for (const sample of samples) {
        const key = keyOf(sample, minute)
        const event = held.get(key)
        if (sample.kind === GAUGE) {
          const v = sample.value
          if (event) {
            // the last by arrival: a later sample of the minute replaces the level, and its time unless that is earlier
            event.count++
            event.sum += v
            if (v < event.min) event.min = v
            if (v > event.max) event.max = v
            event.value = v
            if (time > event.time) event.time = time
            event.values++
          } else {
            held.set(key, { metric: sample.metric, value: v, time, kind: GAUGE, count: 1, sum: v, min: v, max: v, values: 1 })
          }
          continue
        }
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
     * of a distribution, seen weight times), or
     * { metric, value, time, kind: 'gauge', count, sum, min, max, values } (a
     * gauge's levels of one minute, value the last): values = the StatsD values merged
     * into it (the events' values add up to the total), to count what a lost
     * event loses.
     */
    take () {
      const taken = { events: [...full, ...held.values()], values }
      if (stampGauge) for (const e of held.values()) if (e.kind === GAUGE) e.time = stampGauge(e.metric, e.time)
      held = new Map()
      full = []
      values = 0
      return taken
    }
  }
}
