// Admission before work (docs/adr/0027-admission-before-work.md): a write
// (POST /v1/events, POST /v1/statsd, POST /v1/metrics) is refused with 503 + Retry-After before
// its body is read or parsed when the service cannot take it:
//   - the writer is full (no room for the events the body can hold),
//   - the bodies of the writes already admitted add up to MAX_INFLIGHT_WRITE_BYTES,
//   - the process is overloaded: event-loop delay over MAX_EVENT_LOOP_DELAY_MS,
//     heap over MAX_HEAP_USED_BYTES (@fastify/under-pressure samples both).
//   - the server is shutting down (src/shutdown.js).
// Health checks and reads are never refused here. A refused write's body is
// never parsed: its answer closes the connection, in stages
// (src/plugins/close-in-stages.js), so that a sender still writing the body
// gets the 503 and not a reset.
import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import { errorBody } from './error-handler.js'
import { closeInStages } from './close-in-stages.js'
import { contentEncoding } from '../routes/body-encoding.js'

const WRITE_URLS = new Set(['/v1/events', '/v1/statsd', '/v1/metrics']) // POST only (GET /v1/metrics reads the registry)
// the smallest event a JSON body can hold, {"metric":"a"}, and a separator: a body of n bytes holds at most n / 15 events
const MIN_EVENT_BYTES = 15

const isWrite = request => request.method === 'POST' && WRITE_URLS.has(request.routeOptions.url)

async function admission (app) {
  const { config, writer, telemetry } = app
  let inflightBytes = 0

  function refuse (request, reply, reason, message) {
    telemetry.publish('refused', { reason })
    request.log.warn({ reason }, message)
    // close the connection after the answer: the body is not parsed, and its sender cannot keep the connection
    closeInStages(request.raw.socket)
    reply.code(503).header('retry-after', 1).header('connection', 'close').send(errorBody(503, `${message}; nothing of this request was read or applied: retry later`, { outcome: 'not_applied' }))
  }

  await app.register(underPressure, {
    maxEventLoopDelay: config.maxEventLoopDelayMs,
    maxHeapUsedBytes: config.maxHeapUsedBytes,
    retryAfter: 1,
    // only writes are refused; health checks and reads go on (returning nothing lets the request through)
    pressureHandler (request, reply, type, value) {
      if (!isWrite(request)) return
      const what = type === underPressure.TYPE_EVENT_LOOP_DELAY
        ? `the event loop is ${Math.round(value)} ms behind (MAX_EVENT_LOOP_DELAY_MS = ${config.maxEventLoopDelayMs})`
        : `the heap holds ${Math.round(value / 1048576)} MiB (MAX_HEAP_USED_BYTES = ${config.maxHeapUsedBytes})`
      refuse(request, reply, type === underPressure.TYPE_EVENT_LOOP_DELAY ? 'event_loop_delay' : 'heap', `the service is overloaded: ${what}`)
    }
  })

  app.addHook('onRequest', (request, reply, done) => {
    if (!isWrite(request)) return done()
    // draining: writes go elsewhere (or come back after Retry-After) while the connections close one by one
    if (app.isDraining()) return refuse(request, reply, 'shutting_down', 'the server is shutting down')
    // a gzip body is sized by what it may inflate to (BODY_LIMIT_BYTES), not by what it declares (routes/body-encoding.js)
    const declared = contentEncoding(request) === 'identity' ? Number(request.headers['content-length']) : NaN
    const bytes = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, config.bodyLimitBytes) : config.bodyLimitBytes
    const mostEvents = Math.max(1, Math.min(config.maxEventsPerRequest, Math.floor(bytes / MIN_EVENT_BYTES)))
    if (!writer.hasRoom(1) || (!writer.hasRoom(mostEvents) && writer.pendingEvents() > 0)) {
      writer.turnedAway?.() // a gathering writer stops waiting for senders that do not fit
      return refuse(request, reply, 'writer_full', `the writer holds ${writer.pendingEvents()} events, near MAX_PENDING_EVENTS = ${config.maxPendingEvents}`)
    }
    if (inflightBytes > 0 && inflightBytes + bytes > config.maxInflightWriteBytes) {
      return refuse(request, reply, 'inflight_bytes', `writes of ${inflightBytes} bytes are being read or applied (MAX_INFLIGHT_WRITE_BYTES = ${config.maxInflightWriteBytes})`)
    }
    inflightBytes += bytes
    request.admittedBytes = bytes
    done()
  })
  const release = (request) => {
    if (request.admittedBytes) { inflightBytes -= request.admittedBytes; request.admittedBytes = 0 }
  }
  app.addHook('onResponse', (request, reply, done) => { release(request); done() })
  // onRequestAbort hooks are called (request, done): a client that hangs up mid-body frees its bytes
  app.addHook('onRequestAbort', (request, done) => { release(request); done() })
  app.decorateRequest('admittedBytes', 0)
  app.decorate('admission', { inflightBytes: () => inflightBytes })
}

export default fp(admission, { name: 'admission', dependencies: ['writer', 'telemetry', 'closing'] })
