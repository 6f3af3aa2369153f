// The previous point of each cumulative OTLP series this instance has seen
// (docs/otlp.md#cumulative-sums): its start time, time and
// running totals, from which the next point's increments are taken. In
// memory, at most `max` series, the least recently seen forgotten first (its
// next point is then a baseline again). Each instance keeps its own: two
// instances that share one series each take their own first point as a
// baseline; a Collector's cumulativetodelta processor in front avoids that.
//
// Bounded by the running totals held too (a histogram's one a bucket): at most `maxValues`, by default
// 16 a series, so that series of 16,000 buckets each cannot hold gigabytes while staying under `max`.
export const VALUES_PER_SERIES = 16

export function createCumulativeBaselines ({ max, maxValues = max * VALUES_PER_SERIES }) {
  const states = new Map()
  let held = 0 // running totals of the states kept
  const weight = (state) => state?.values?.size ?? 0
  function forgetOldest () {
    const oldest = states.keys().next().value
    held -= weight(states.get(oldest))
    states.delete(oldest)
  }
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
        const before = states.get(key)
        replaced.set(key, before)
        held -= weight(before)
        states.delete(key) // to the end: the most recently seen
        states.set(key, state)
        held += weight(state)
        while (states.size > max || (held > maxValues && states.size > 1)) forgetOldest()
      }
      return replaced
    },
    /** A request whose write did not happen: its states give way to those they replaced, unless a later request's replaced them since */
    giveBack (updates, replaced) {
      for (const [key, state] of updates) {
        if (states.get(key) !== state) continue
        const before = replaced.get(key)
        held += weight(before) - weight(state)
        if (before === undefined) states.delete(key)
        else states.set(key, before)
      }
    },
    get size () { return states.size },
    /** The running totals held, all states together */
    get values () { return held }
  }
}
