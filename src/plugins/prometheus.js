// Prometheus metrics at GET /metrics (prom-client), one Registry per app so
// that several apps in one process (the tests) never share counters. Fed by
// the app's telemetry (src/telemetry/publisher.js); the writer's gauges are read at
// scrape time.
import fp from 'fastify-plugin'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { errorResponses } from '../schemas/common.js'
import { registerSloGauges } from './slo-gauges.js'

const EVENTS_ROUTE = '/v1/events'

function eventsInBody (body) {
  if (Array.isArray(body)) return body.length
  return body !== null && typeof body === 'object' ? 1 : 0
}

/**
 * The metrics and the telemetry subscribers that feed them; currentReports:
 * the SLO service's (slo-gauges.js), read at scrape time; log: where a failed
 * SLO report is told
 */
export function createServiceMetrics ({ getWriterStats, currentReports, log } = {}) {
  const register = new Registry()
  collectDefaultMetrics({ register })

  const m = {
    eventsAccepted: new Counter({
      name: 'statbucket_events_accepted_total',
      help: 'Events acknowledged by MongoDB (requests answered 200 by the writer).',
      registers: [register]
    }),
    eventsRejected: new Counter({
      name: 'statbucket_events_rejected_total',
      help: 'Events in POST /v1/events requests not answered 2xx, by status (0 counted where the body was not parsed).',
      labelNames: ['status'],
      registers: [register]
    }),
    writes: new Counter({
      name: 'statbucket_writer_answers_total',
      help: 'Requests answered by the writer, by outcome (applied, not_applied, unknown, key_recorded).',
      labelNames: ['outcome'],
      registers: [register]
    }),
    flushes: new Counter({
      name: 'statbucket_flushes_total',
      help: 'Flushes that reached the database and ended (group commits).',
      registers: [register]
    }),
    flushRetries: new Counter({
      name: 'statbucket_flush_retries_total',
      help: 'Failed bulkWrite operations retried within flushes.',
      registers: [register]
    }),
    flushDuration: new Histogram({
      name: 'statbucket_flush_duration_seconds',
      help: 'Duration of one flush: the parallel bulkWrites and their retries.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [register]
    }),
    flushDocs: new Histogram({
      name: 'statbucket_flush_documents',
      help: 'Distinct daily + monthly documents updated by one flush.',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000],
      registers: [register]
    }),
    flushEvents: new Histogram({
      name: 'statbucket_flush_events',
      help: 'Events merged into one flush.',
      buckets: [1, 10, 100, 1000, 10000, 100000],
      registers: [register]
    }),
    preallocations: new Counter({
      name: 'statbucket_preallocations_total',
      help: 'Zero-filled documents ensured ahead of time, by kind (probabilistic, sweep) and collection.',
      labelNames: ['kind', 'collection'],
      registers: [register]
    }),
    retentionPasses: new Counter({
      name: 'statbucket_retention_passes_total',
      help: 'Retention passes by how they ended (done, lease_held: another instance ran it, stopped, lease_lost, failed).',
      labelNames: ['status'],
      registers: [register]
    }),
    retentionDocuments: new Counter({
      name: 'statbucket_retention_documents_total',
      help: 'Daily documents the retention job downsampled or deleted, or left for `npm run check -- --repair` (kept: the monthly total disagrees; unvouched: a distribution\'s quarter-hours do not hold what its minutes hold).',
      labelNames: ['action'],
      registers: [register]
    }),
    statsdReceived: new Counter({
      name: 'statbucket_statsd_received_total',
      help: 'StatsD values read (a packed line carries several), by transport (udp, tcp, http).',
      labelNames: ['transport'],
      registers: [register]
    }),
    otlpPoints: new Counter({
      name: 'statbucket_otlp_points_total',
      help: 'OTLP data points of applied POST /v1/metrics requests, by outcome (kept, rejected: named in partialSuccess) (docs/otlp.md).',
      labelNames: ['outcome'],
      registers: [register]
    }),
    otlpExemplars: new Counter({
      name: 'statbucket_otlp_exemplars_ignored_total',
      help: 'Exemplars of OTLP data points, read and ignored (docs/otlp.md).',
      registers: [register]
    }),
    statsdDropped: new Counter({
      name: 'statbucket_statsd_dropped_total',
      help: 'StatsD values not kept, by reason (docs/statsd.md); reason "tags" counts lines whose tags were dropped (their values were kept).',
      labelNames: ['reason'],
      registers: [register]
    }),
    statsdConnectionsClosed: new Counter({
      name: 'statbucket_statsd_tcp_connections_closed_total',
      help: 'StatsD TCP connections the service closed: refused over STATSD_TCP_MAX_CONNECTIONS (connection_cap), or idle longer than STATSD_TCP_IDLE_TIMEOUT_MS (idle_timeout).',
      labelNames: ['reason'],
      registers: [register]
    }),
    refused: new Counter({
      name: 'statbucket_writes_refused_before_reading_total',
      help: 'Writes answered 503 before their body was read: the writer full, MAX_INFLIGHT_WRITE_BYTES reached, event-loop delay or heap over their limits.',
      labelNames: ['reason'],
      registers: [register]
    }),
    httpDuration: new Histogram({
      name: 'statbucket_http_request_duration_seconds',
      help: 'HTTP request durations by method, route (the route pattern) and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [register]
    })
  }

  const writerGauge = (name, help, field) => new Gauge({
    name,
    help,
    registers: [register],
    collect () {
      const stats = getWriterStats?.()
      if (stats) this.set(Number(stats[field]))
    }
  })
  writerGauge('statbucket_pending_events', 'Events queued or in flight in the writer (limit MAX_PENDING_EVENTS).', 'pendingEvents')
  writerGauge('statbucket_queued_requests', 'Requests waiting in the writer queue.', 'queuedUnits')
  writerGauge('statbucket_queued_documents', 'Distinct documents waiting in the writer queue.', 'queuedDocs')
  if (currentReports) registerSloGauges(register, { currentReports, log })

  const writesByOutcome = new Map() // outcome → its series of m.writes, made once
  const subscribers = {
    flushed (stats) {
      m.flushes.inc()
      if (stats.retries) m.flushRetries.inc(stats.retries)
      m.flushDuration.observe(stats.durationMs / 1000)
      m.flushDocs.observe(stats.docs)
      m.flushEvents.observe(stats.events)
    },
    answered ({ outcome, events }) {
      let series = writesByOutcome.get(outcome)
      if (!series) writesByOutcome.set(outcome, (series = m.writes.labels({ outcome })))
      series.inc()
      if (outcome === 'applied') m.eventsAccepted.inc(events)
    },
    preallocated ({ kind, collection }) {
      m.preallocations.inc({ kind, collection })
    },
    statsdReceived ({ transport, values }) {
      m.statsdReceived.inc({ transport }, values)
    },
    otlpReceived ({ points, rejected, exemplars }) {
      m.otlpPoints.inc({ outcome: 'kept' }, points - rejected)
      if (rejected > 0) m.otlpPoints.inc({ outcome: 'rejected' }, rejected)
      if (exemplars > 0) m.otlpExemplars.inc(exemplars)
    },
    statsdDropped ({ reason, values }) {
      m.statsdDropped.inc({ reason }, values)
    },
    refused ({ reason }) {
      m.refused.inc({ reason })
    },
    statsdConnectionClosed ({ reason }) {
      m.statsdConnectionsClosed.inc({ reason })
    },
    retention (pass) {
      m.retentionPasses.inc({ status: pass.status })
      for (const action of ['downsampled', 'deleted', 'kept', 'unvouched']) {
        if (pass[action]) m.retentionDocuments.inc({ action }, pass[action])
      }
    }
  }

  // The histogram's series per method, route and status, made once (routes and
  // statuses are few): no labels object per request. prom-client still checks
  // and hashes the labels on each observe, so this saves little (~9 % of one).
  const durationSeries = new Map()
  function durationOf (method, route, statusCode) {
    let byRoute = durationSeries.get(method)
    if (!byRoute) durationSeries.set(method, (byRoute = new Map()))
    let byStatus = byRoute.get(route)
    if (!byStatus) byRoute.set(route, (byStatus = new Map()))
    let series = byStatus.get(statusCode)
    if (!series) byStatus.set(statusCode, (series = m.httpDuration.labels({ method, route, status_code: String(statusCode) })))
    return series
  }

  /** Called once per answered HTTP request */
  /** sentEvents: how many events the body held, where the door let go of it (null: count them in body) */
  function observeRequest ({ method, route, statusCode, durationMs, body, sentEvents }) {
    durationOf(method, route ?? 'unmatched', statusCode).observe(durationMs / 1000)
    if (route === EVENTS_ROUTE && method === 'POST' && statusCode >= 300) {
      m.eventsRejected.inc({ status: String(statusCode) }, sentEvents ?? eventsInBody(body))
    }
  }

  return { register, subscribers, observeRequest }
}

async function prometheus (app) {
  // the writer's gauges and the SLO reports are read at scrape time: no order between this plugin and theirs
  const metrics = createServiceMetrics({
    getWriterStats: () => (app.hasDecorator('writer') ? app.writer.stats() : null),
    currentReports: (options) => (app.hasDecorator('slos') ? app.slos.currentReports(options) : null),
    log: app.log
  })
  for (const [name, fn] of Object.entries(metrics.subscribers)) app.telemetry.subscribe(name, fn)
  app.decorate('metricsRegister', metrics.register)

  // the events of a body POST /v1/events let go of before its write answered (routes/events.js)
  app.decorateRequest('sentEvents', null)
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest({
      method: request.method,
      route: request.routeOptions.url,
      statusCode: reply.statusCode,
      durationMs: reply.elapsedTime,
      body: request.body,
      sentEvents: request.sentEvents
    })
    done()
  })

  app.get('/metrics', {
    logLevel: 'warn',
    schema: {
      summary: 'Prometheus metrics',
      description: 'Counters, histograms and gauges of ingest, flushes, preallocation and HTTP, each SLO\'s current attainment, error budget and burn rates (docs/slos.md), plus process metrics, in the Prometheus text format. Guarded by METRICS_TOKENS (or READ_TOKENS) where set.',
      tags: ['monitoring'],
      produces: ['text/plain'],
      response: { 200: { type: 'string', description: 'Prometheus text exposition format 0.0.4' }, ...errorResponses(401, 403, 429, 500) }
    }
  }, async (request, reply) => {
    reply.type(metrics.register.contentType)
    return metrics.register.metrics()
  })
}

export default fp(prometheus, { name: 'prometheus', dependencies: ['telemetry'] })
