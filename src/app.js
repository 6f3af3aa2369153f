// buildApp: the whole service as a ready Fastify instance that does not listen.
import Fastify from 'fastify'
import { systemClock } from './clock.js'
import { loadConfig } from './config.js'
import errorHandler from './plugins/error-handler.js'
import closing from './plugins/closing.js'
import auth, { LOG_REDACT_PATHS } from './plugins/auth.js'
import requestLimits, { serverOptions } from './plugins/request-limits.js'
import database from './db/plugin.js'
import telemetry from './telemetry/plugin.js'
import doors from './statsd/doors.js'
import collections from './db/collections-plugin.js'
import writer from './writer/plugin.js'
import idempotency from './idempotency/plugin.js'
import registry from './registry/plugin.js'
import preallocation from './jobs/preallocation-plugin.js'
import reader from './reader/plugin.js'
import ingest from './ingest/plugin.js'
import slos from './slos/plugin.js'
import retention from './jobs/retention-plugin.js'
import statsd from './statsd/plugin.js'
import openapi from './plugins/openapi.js'
import prometheus from './plugins/prometheus.js'
import requestId, { genReqId } from './plugins/request-id.js'
import dashboard from './plugins/dashboard.js'
import admission from './plugins/admission.js'
import { DebugAccessLog } from './access-log.js'
import { errorSchema } from './schemas/common.js'
import { schemaErrorFormatter } from './schemas/validation-errors.js'
import eventsRoutes from './routes/events.js'
import statsdRoutes from './routes/statsd.js'
import otlpRoutes from './routes/otlp.js'
import healthRoutes from './routes/health.js'
import metricsRoutes from './routes/metrics.js'
import kindsRoutes from './routes/kinds.js'
import graphiteRoutes from './routes/graphite.js'
import slosRoutes from './routes/slos.js'
import { PLUGIN_TIMEOUT_MS } from './boot-timeout.js'

/**
 * options:
 *   config      loadConfig() result (default: from process.env)
 *   mongodbUri  overrides config.mongodbUri (the embedded database's URI)
 *   backend     what runs behind the URI, when known ('mongod', 'ferretdb', 'mongo-java-server')
 *   clock       { now() } (default: the system clock)
 *   random      () => [0, 1) for preallocation (default Math.random)
 *   logger      Fastify logger option (default: pino at LOG_LEVEL, pretty on a TTY)
 *   loggerInstance  a pino logger to use instead
 *   sweepSchedule  start the node-cron sweep (default true)
 *   observer    telemetry subscribers { flushed, answered, preallocated, retention } (src/telemetry/publisher.js), besides /metrics' own
 *   client      an existing connected MongoClient to use (not closed by the app)
 *   timers      the writer's timers (src/clock.js), for tests
 *   retentionSchedule  start the node-cron retention job (default: sweepSchedule)
 *   statsdTimers  the StatsD pipelines' timers (src/clock.js), for tests
 *   sweepTimers  the timers that pace the preallocation sweep (src/clock.js), for tests
 *   sloTimers   the timers of the SLO zones' refresh (src/clock.js), for tests
 *   nameIndexTimers  the timers of the name index's periodic look (src/clock.js), for tests
 *   onClose     async () => {} run after everything else closed (e.g. stop the embedded database)
 *   sloReloadOnHangup  read SLO_FILE again on SIGHUP (default true; only when SLO_FILE is set)
 */
export async function buildApp (options = {}) {
  const config = options.config ?? loadConfig()
  const uri = options.mongodbUri ?? config.mongodbUri
  if (!uri && !options.client) throw new Error('buildApp needs a MongoDB URI: set MONGODB_URI or pass mongodbUri')

  const app = Fastify({
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : { logger: withRedaction(options.logger ?? defaultLogger(config.logLevel)) }),
    bodyLimit: config.bodyLimitBytes,
    pluginTimeout: PLUGIN_TIMEOUT_MS,
    // requestTimeout longer than any flush; header size and slow-client timeouts
    ...serverOptions(config),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, allowUnionTypes: true } },
    schemaErrorFormatter,
    // While closing, a request on a kept-alive connection still runs: the writer
    // answers POSTs 503 + Retry-After, outcome not_applied (Fastify's own 503 has neither).
    return503OnClosing: false,
    // the request trail at debug, not info (src/access-log.js)
    logController: new DebugAccessLog(),
    genReqId
  })
  // onClose hooks run last-registered first: this one, registered before the
  // database, runs after the writer flushed and the client closed.
  if (options.onClose) app.addHook('onClose', options.onClose)
  app.decorate('config', config)
  app.decorate('clock', options.clock ?? systemClock)
  app.addSchema(errorSchema)

  try {
    await registerAll(app, options, config, uri)
  } catch (err) {
    // a boot that fails half-way still releases what it opened (client, cron job)
    await app.close().catch(() => {})
    throw err
  }
  return app
}

async function registerAll (app, options, config, uri) {
  await app.register(errorHandler)
  await app.register(closing)
  await app.register(requestLimits)
  await app.register(auth) // before every route: its rate limit attaches to routes added after it
  await app.register(requestId)
  await app.register(openapi) // before the routes: it collects them as they are added
  await app.register(telemetry, { observer: options.observer })
  await app.register(prometheus)
  await app.register(database, { uri, dbName: config.mongodbDb, writeTimeoutMs: config.writeTimeoutMs, backend: options.backend, client: options.client })
  // the services; each declares what it needs, and is released on close (docs/architecture.md)
  await app.register(collections)
  await app.register(doors) // before the writer: the StatsD listeners close before it drains
  await app.register(writer, { timers: options.timers })
  await app.register(admission) // before the routes: its hooks reach every route added after it
  await app.register(idempotency)
  await app.register(registry, { timers: options.nameIndexTimers })
  await app.register(preallocation, { random: options.random, sweepSchedule: options.sweepSchedule ?? true, timers: options.sweepTimers })
  await app.register(reader)
  await app.register(slos, { sighup: options.sloReloadOnHangup ?? true, timers: options.sloTimers })
  await app.register(ingest)
  await app.register(retention, { schedule: options.retentionSchedule ?? options.sweepSchedule ?? true })
  await app.register(statsd, { timers: options.statsdTimers })
  await app.register(healthRoutes)
  await app.register(eventsRoutes)
  await app.register(statsdRoutes)
  await app.register(otlpRoutes)
  await app.register(metricsRoutes)
  await app.register(kindsRoutes)
  await app.register(graphiteRoutes)
  await app.register(slosRoutes)
  await app.register(dashboard)
  await app.ready()
}

export function defaultLogger (level) {
  const pretty = process.stdout.isTTY && level !== 'silent'
  return pretty
    ? { level, redact: LOG_REDACT_PATHS, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }
    : { level, redact: LOG_REDACT_PATHS }
}

/** Tokens never reach the log, whatever logger options a caller passes. */
function withRedaction (logger) {
  if (logger === true) return { redact: LOG_REDACT_PATHS }
  return logger && typeof logger === 'object' && !logger.redact ? { ...logger, redact: LOG_REDACT_PATHS } : logger
}
