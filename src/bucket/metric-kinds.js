// What a metric is (docs/adr/0042-a-metric-has-one-kind.md): a counter (every metric written before kinds existed, and every
// registry entry without `kind`), a distribution of a relative accuracy α,
// or a gauge (a level: min, max, sum, count and the last value by event time;
// docs/adr/0044-gauges-last-by-event-time.md).
// Kinds are frozen and shared: one object per kind and α. Pure.
import { createMapping } from './distribution-sketch.js'

export const COUNTER_KIND = 'counter'
export const DISTRIBUTION_KIND = 'distribution'
export const GAUGE_KIND = 'gauge'

export const COUNTER = Object.freeze({ kind: COUNTER_KIND })
export const GAUGE = Object.freeze({ kind: GAUGE_KIND })
const distributions = new Map() // α → { kind, accuracy, mapping }

/** The kind of a distribution of relative accuracy α, with its bucket mapping (throws RangeError for a bad α) */
export function distributionKind (accuracy) {
  let kind = distributions.get(accuracy)
  if (!kind) {
    kind = Object.freeze({ kind: DISTRIBUTION_KIND, accuracy, mapping: createMapping(accuracy) })
    distributions.set(accuracy, kind)
  }
  return kind
}

/** The kind name of an event (no `kind`: a counter's increment) */
export const eventKindName = (e) => e.kind ?? COUNTER_KIND

/** Whether an event is a counter's increment (no kind, or kind 'counter') */
export const isCounterEvent = (e) => e.kind === undefined || e.kind === COUNTER_KIND

/** Whether a kind as a unit's registry entry carries it (undefined: a counter) is a counter's */
export const isCounterKind = (kind) => kind === undefined || kind.kind === COUNTER_KIND

/**
 * A registry entry's kind, as stored ({ kind?, accuracy? }). An entry this
 * version cannot read (a kind it does not know, a bad α) gets a kind of its
 * own that no write matches: its metric is refused, never written as something else.
 */
export function kindOfEntry (entry) {
  if (entry.kind === undefined || entry.kind === COUNTER_KIND) return COUNTER
  if (entry.kind === GAUGE_KIND) return GAUGE
  if (entry.kind === DISTRIBUTION_KIND) {
    try {
      return distributionKind(entry.accuracy)
    } catch {}
  }
  return Object.freeze({ kind: `unreadable (${JSON.stringify(entry.kind)}, accuracy ${JSON.stringify(entry.accuracy)})` })
}

/** What a registry entry written with this kind holds on insert ($setOnInsert), or null for a counter (no field: as before kinds) */
export function kindFields (kind) {
  if (kind.kind === COUNTER_KIND) return null
  if (kind.kind === GAUGE_KIND) return { kind: GAUGE_KIND } // a gauge has no accuracy
  return { kind: kind.kind, accuracy: kind.accuracy }
}
