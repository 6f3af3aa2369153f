// The storage services on top of the database: writer, preallocator,
// sweep, registry, reader. All are released on close, writer first.
import fp from 'fastify-plugin'
import { LAYOUTS } from '../bucket/layouts.js'
import { createCoalescingWriter } from '../store/coalescing-writer.js'
import { executeKeyedFlush } from '../store/idempotency-flush.js'
import { KEY_COLLECTION, createIdempotencyStore } from '../store/idempotency-store.js'
import { createMetricRegistry } from '../store/metric-registry.js'
import { createPreallocSweep } from '../store/prealloc-sweep.js'
import { createPreallocator } from '../store/preallocator.js'
import { createReader } from '../store/reader.js'

async function storage (app, { random, observer = app.observer ?? {}, sweepSchedule = true }) {
  const { config, clock, mongo } = app
  const layout = LAYOUTS[config.bucketLayout]
  const collections = {
    daily: mongo.db.collection(layout.collection),
    monthly: mongo.db.collection('monthly'),
    metrics: mongo.db.collection('metrics')
  }
  const log = app.log.child({ component: 'storage' })
  // Idempotency-Key needs transactions: without them there is no key store.
  const keyCollection = mongo.transactions ? mongo.db.collection(KEY_COLLECTION) : null
  const writer = createCoalescingWriter(collections, {
    flushIntervalMs: config.flushIntervalMs,
    flushMaxDocs: config.flushMaxDocs,
    maxPendingEvents: config.maxPendingEvents,
    writeTimeoutMs: config.writeTimeoutMs,
    clock,
    logger: log,
    observer,
    writesRetried: mongo.writesRetried,
    keyedFlush: keyCollection && ((units, options) => executeKeyedFlush(units, { ...options, client: mongo.client, collections, keyCollection }))
  })
  const idempotency = keyCollection && createIdempotencyStore({ collection: keyCollection, writer, ttlSeconds: config.idempotencyTtlSeconds })
  if (idempotency) await idempotency.ensureIndexes()
  const preallocator = createPreallocator(collections, {
    layout, clock, random, probability: config.preallocProbability, logger: log, observer
  })
  const sweep = createPreallocSweep({
    metrics: collections.metrics,
    daily: collections.daily,
    preallocator,
    clock,
    rate: config.preallocSweepRate,
    cronExpression: config.preallocCron,
    logger: log
  })
  const registry = createMetricRegistry({ collection: collections.metrics, maxMetrics: config.maxMetrics })
  await registry.load()
  const reader = createReader({ collections })
  if (sweepSchedule) sweep.start()

  app.decorate('storage', { layout, collections, writer, preallocator, sweep, registry, reader, idempotency })

  // preClose runs before in-flight requests finish: flush what is queued now
  // so that they get their answers; onClose (after them) releases the rest.
  app.addHook('preClose', async () => { await writer.close() })
  app.addHook('onClose', async () => {
    await sweep.stop()
    await writer.close()
    await preallocator.close()
  })
}

export default fp(storage, { name: 'storage', dependencies: ['database'] })
