// The group-commit writer (src/writer/writer.js). Keyed requests
// (Idempotency-Key) are written by the flush the idempotency service installs.
// preClose flushes what is queued so that requests in flight get their
// answers; onClose makes sure nothing is left.
import fp from 'fastify-plugin'
import { createWriter } from './writer.js'

async function writer (app, { timers } = {}) {
  const { config, clock, mongo, collections, telemetry } = app
  const instance = createWriter(collections, {
    flushIntervalMs: config.flushIntervalMs,
    flushMaxDocs: config.flushMaxDocs,
    maxPendingEvents: config.maxPendingEvents,
    busyMinutes: config.preallocBusyMinutes,
    writeTimeoutMs: config.writeTimeoutMs,
    clock,
    timers,
    logger: app.log.child({ component: 'writer' }),
    telemetry,
    writesRetried: mongo.writesRetried,
    bulkUpdates: mongo.bulkUpdates
  })
  app.decorate('writer', instance)
  app.addHook('preClose', async () => { await instance.close() })
  app.addHook('onClose', async () => { await instance.close() })
}

export default fp(writer, { name: 'writer', dependencies: ['database', 'collections', 'telemetry'] })
