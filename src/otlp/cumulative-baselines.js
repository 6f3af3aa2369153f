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
    /**
     * Keeps the states a request's points left (Map key → state) at once, so
     * that a request arriving while its write is in flight adds from them
     * → what they replaced (Map key → state or undefined), for giveBack
     */
    keep (updates) {
      const replaced = new Map()
      for (const [key, state] of updates) {
        replaced.set(key, states.get(key))
        states.delete(key) // to the end: the most recently seen
        states.set(key, state)
        if (states.size > max) states.delete(states.keys().next().value)
      }
      return replaced
    },
    /** A request whose write did not happen: its states give way to those they replaced, unless a later request's replaced them since */
    giveBack (updates, replaced) {
      for (const [key, state] of updates) {
        if (states.get(key) !== state) continue
        const before = replaced.get(key)
        if (before === undefined) states.delete(key)
        else states.set(key, before)
      }
    },
    get size () { return states.size }
  }
}
