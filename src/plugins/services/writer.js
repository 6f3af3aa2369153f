// The group-commit writer (src/store/writer.js). Where transactions exist it
// also writes keyed requests (Idempotency-Key) in transactions of their own.
// preClose flushes what is queued so that requests in flight get their
// answers; onClose makes sure nothing is left.
import fp from 'fastify-plugin'
import { executeKeyedFlush } from '../../store/idempotency-flush.js'
import { KEY_COLLECTION } from '../../store/idempotency-store.js'
import { createWriter } from '../../store/writer.js'

async function writer (app, { timers } = {}) {
  const { config, clock, mongo, collections, telemetry } = app
  const keyCollection = mongo.transactions ? mongo.db.collection(KEY_COLLECTION) : null
  const instance = createWriter(collections, {
    flushIntervalMs: config.flushIntervalMs,
    flushMaxDocs: config.flushMaxDocs,
    maxPendingEvents: config.maxPendingEvents,
    writeTimeoutMs: config.writeTimeoutMs,
    clock,
    timers,
    logger: app.log.child({ component: 'writer' }),
    telemetry,
    writesRetried: mongo.writesRetried,
    keyedFlush: keyCollection && ((units, options) => executeKeyedFlush(units, { ...options, client: mongo.client, collections, keyCollection }))
  })
  app.decorate('writer', instance)
  app.addHook('preClose', async () => { await instance.close() })
  app.addHook('onClose', async () => { await instance.close() })
}

export default fp(writer, { name: 'writer', dependencies: ['database', 'collections', 'telemetry'] })
