// Idempotency-Key (src/idempotency/idempotency-store.js): `idempotency` is null
// where the deployment has no transactions, and a key is refused there.
import fp from 'fastify-plugin'
import { KEY_COLLECTION, createIdempotencyStore } from './idempotency-store.js'
import { executeKeyedFlush } from './keyed-flush.js'

async function idempotency (app) {
  const { config, mongo, writer, collections } = app
  if (!mongo.transactions) {
    app.decorate('idempotency', null)
    return
  }
  const keyCollection = mongo.db.collection(KEY_COLLECTION)
  // keyed requests are written in transactions of their own, beside the group commit
  writer.useKeyedFlush((units, options) => executeKeyedFlush(units, { ...options, client: mongo.client, collections, keyCollection }))
  const store = createIdempotencyStore({ collection: keyCollection, writer, ttlSeconds: config.idempotencyTtlSeconds })
  await store.ensureIndexes()
  app.decorate('idempotency', store)
}

export default fp(idempotency, { name: 'idempotency', dependencies: ['database', 'collections', 'writer'] })
