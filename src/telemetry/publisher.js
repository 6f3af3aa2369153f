// What the services tell observers (docs/architecture.md#observability):
// one publisher per app, so that several apps in one process (the tests)
// never see each other's events. A subscriber that throws is logged and
// never breaks the publisher's work (an answer, a flush).
//
// Events and their payloads:
//   flushed       { durationMs, docs, events, units, statements, retries }  (writer)
//   answered      { outcome, reason?, events }                              (writer)
//   preallocated  { kind: 'probabilistic'|'sweep', collection }             (preallocator)
//   retention     { status, downsampled, deleted, kept, unvouched, ms }      (retention pass, once it ended)
//   statsdReceived  { transport: 'udp'|'tcp'|'http', values }               (StatsD values read)
//   statsdDropped   { transport, reason, values }                           (StatsD values or tags not kept)
//   statsdConnectionClosed { reason: 'connection_cap'|'idle_timeout' }     (a StatsD TCP connection refused or closed)
//   otlpReceived  { points, rejected, exemplars }                           (an applied POST /v1/metrics: points read, not kept, exemplars ignored)
//   refused       { reason: 'writer_full'|'inflight_bytes'|'event_loop_delay'|'heap'|'shutting_down' }  (a write refused before its body was read)
export const TELEMETRY_EVENTS = Object.freeze(['flushed', 'answered', 'preallocated', 'retention', 'statsdReceived', 'statsdDropped', 'statsdConnectionClosed', 'otlpReceived', 'refused'])

export function createTelemetry ({ logger } = {}) {
  const subscribers = new Map(TELEMETRY_EVENTS.map(name => [name, []]))
  const listOf = (name) => {
    const list = subscribers.get(name)
    if (!list) throw new TypeError(`telemetry: unknown event "${name}" (known: ${[...subscribers.keys()].join(', ')})`)
    return list
  }
  return {
    /** Adds an event name (for a service that publishes its own) */
    define (name) {
      if (!subscribers.has(name)) subscribers.set(name, [])
    },
    publish (name, payload) {
      for (const fn of listOf(name)) {
        try { fn(payload) } catch (err) { logger?.error({ err, event: name }, 'telemetry subscriber threw') }
      }
    },
    subscribe (name, fn) {
      listOf(name).push(fn)
      return () => {
        const list = listOf(name)
        const i = list.indexOf(fn)
        if (i >= 0) list.splice(i, 1)
      }
    }
  }
}
