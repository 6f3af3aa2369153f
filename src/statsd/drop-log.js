// One warn line per drop reason per minute, with an example (docs/statsd.md): UDP carries no answer, so besides the counter on /metrics the
// log says what is being lost and shows one line that was. Pure but for the
// logger it is given; the clock is injected.
const MAX_EXAMPLE_CHARS = 200

export function createDropLog ({ clock, log, everyMs = 60_000 }) {
  const reasons = new Map() // reason → { loggedAt, dropped since }
  return {
    /** values of `reason` lost; example: a line or a name showing it (shown cut to 200 characters) */
    note (reason, example, values = 1) {
      let r = reasons.get(reason)
      if (!r) reasons.set(reason, (r = { loggedAt: -Infinity, dropped: 0 }))
      r.dropped += values
      const now = clock.now()
      if (now - r.loggedAt < everyMs) return
      const shown = typeof example === 'string' ? (example.length > MAX_EXAMPLE_CHARS ? `${example.slice(0, MAX_EXAMPLE_CHARS)}…` : example) : undefined
      log.warn({ reason, dropped: r.dropped, example: shown }, `StatsD: ${r.dropped} value(s) dropped (${reason}) since the last such line; the count is statbucket_statsd_dropped_total{reason="${reason}"} on /metrics`)
      r.loggedAt = now
      r.dropped = 0
    }
  }
}
