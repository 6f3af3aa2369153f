// buildApp: the whole service as a ready Fastify instance that does not listen.
import Fastify from 'fastify'
import { systemClock } from './clock.js'
import { loadConfig } from './config.js'
import errorHandler from './plugins/error-handler.js'
import database from './plugins/database.js'
import storage from './plugins/storage.js'
import { errorSchema } from './schemas/common.js'
import { schemaErrorFormatter } from './schemas/validation-errors.js'
import eventsRoutes from './routes/events.js'
import healthRoutes from './routes/health.js'
import metricsRoutes from './routes/metrics.js'

/**
 * options:
 *   config      loadConfig() result (default: from process.env)
 *   mongodbUri  overrides config.mongodbUri (the embedded database's URI)
 *   backend     what runs behind the URI, when known ('mongod', 'mongo-java-server')
 *   clock       { now() } (default: the system clock)
 *   random      () => [0, 1) for preallocation (default Math.random)
 *   logger      Fastify logger option (default: pino at LOG_LEVEL, pretty on a TTY)
 *   loggerInstance  a pino logger to use instead
 *   sweepSchedule  start the node-cron sweep (default true)
 *   observer    hooks for metrics (flushed, answered, preallocated)
 *   onClose     async () => {} run after everything else closed (e.g. stop the embedded database)
 */
export async function buildApp (options = {}) {
  const config = options.config ?? loadConfig()
  const uri = options.mongodbUri ?? config.mongodbUri
  if (!uri) throw new Error('buildApp needs a MongoDB URI: set MONGODB_URI or pass mongodbUri')

  const app = Fastify({
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : { logger: options.logger ?? defaultLogger(config.logLevel) }),
    bodyLimit: config.bodyLimitBytes,
    // Longer than any flush can take, so the server never cuts a request whose flush is in flight.
    requestTimeout: config.writeTimeoutMs * 3,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, allowUnionTypes: true } },
    schemaErrorFormatter,
    return503OnClosing: true
  })
  // onClose hooks run last-registered first: this one, registered before the
  // database, runs after the writer flushed and the client closed.
  if (options.onClose) app.addHook('onClose', options.onClose)
  app.decorate('config', config)
  app.decorate('clock', options.clock ?? systemClock)
  app.addSchema(errorSchema)

  await app.register(errorHandler)
  await app.register(database, { uri, dbName: config.mongodbDb, writeTimeoutMs: config.writeTimeoutMs, backend: options.backend })
  await app.register(storage, { random: options.random, observer: options.observer, sweepSchedule: options.sweepSchedule ?? true })
  await app.register(healthRoutes)
  await app.register(eventsRoutes)
  await app.register(metricsRoutes)
  await app.ready()
  return app
}

export function defaultLogger (level) {
  const pretty = process.stdout.isTTY && level !== 'silent'
  return pretty
    ? { level, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }
    : { level }
}
