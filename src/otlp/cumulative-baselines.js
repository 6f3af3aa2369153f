// The previous point of each cumulative OTLP series this instance has seen
// (docs/otlp.md#cumulative-sums): its start time, time and
// running totals, from which the next point's increments are taken. In
// memory, at most `max` series, the least recently seen forgotten first (its
// next point is then a baseline again). Each instance keeps its own: two
// instances that share one series each take their own first point as a
// baseline; a Collector's cumulativetodelta processor in front avoids that.
export function createCumulativeBaselines ({ max }) {
  const states = new Map()
  return {
    get: (key) => states.get(key),
    /** Keeps the states a request's points left (Map key → state), once its write may have happened */
    keep (updates) {
      for (const [key, state] of updates) {
        states.delete(key) // to the end: the most recently seen
        states.set(key, state)
        if (states.size > max) states.delete(states.keys().next().value)
      }
    },
    get size () { return states.size }
  }
}
