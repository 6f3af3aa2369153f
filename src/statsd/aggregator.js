// Merges StatsD samples into one event per metric per minute before they
// reach the ingest service, so that a flood of tiny packets becomes a few
// events (docs/decisions.md, "StatsD lines are summed per metric per minute").
// Pure: the caller passes each sample's time.
import { MAX_ABS_VALUE } from '../bucket/event-rules.js'
import { MINUTE_MS } from '../bucket/time.js'

/** The ingest service's events of taken sums (their `values` counts stay with the door) */
export const ingestEvents = (events) => events.map(({ metric, value, time }) => ({ metric, value, time }))

export function createAggregator () {
  let sums = new Map() // `${minute}\n${metric}` → event
  let full = [] // events whose sum reached MAX_ABS_VALUE: sent as they are
  let values = 0

  return {
    /** Distinct (metric, minute) events held */
    get size () { return sums.size + full.length },
    /** Values (StatsD lines or packed values) merged since the last take() */
    get values () { return values },
    /** Whether a sample of metric at time would add an event */
    adds (metric, time) { return !sums.has(`${time - (time % MINUTE_MS)}\n${metric}`) },
    /**
     * samples: [{ metric, value }] (a timer's value gives two); time: epoch ms;
     * count: the StatsD values they came from (a packed line carries several)
     */
    add (samples, time, count = 1) {
      const minute = time - (time % MINUTE_MS)
      // the values are counted once, on the first sample's event
      let carried = count
      for (const { metric, value } of samples) {
        const key = `${minute}\n${metric}`
        const held = sums.get(key)
        if (!held) {
          sums.set(key, { metric, value, time: minute, values: carried })
        } else if (Math.abs(held.value + value) > MAX_ABS_VALUE) {
          full.push(held)
          sums.set(key, { metric, value, time: minute, values: carried })
        } else {
          held.value += value
          held.values += carried
        }
        carried = 0
      }
      values += count
    },
    /**
     * → { events, values } held so far, and starts empty. Each event is
     * { metric, value, time, values }: values = the StatsD values counted on it
     * (the events' values add up to the total), to count what a lost event loses.
     */
    take () {
      const taken = { events: [...full, ...sums.values()], values }
      sums = new Map()
      full = []
      values = 0
      return taken
    }
  }
}
