// Idempotency-Key (src/store/idempotency-store.js): `idempotency` is null
// where the deployment has no transactions, and a key is refused there.
import fp from 'fastify-plugin'
import { KEY_COLLECTION, createIdempotencyStore } from '../../store/idempotency-store.js'

async function idempotency (app) {
  const { config, mongo, writer } = app
  if (!mongo.transactions) {
    app.decorate('idempotency', null)
    return
  }
  const store = createIdempotencyStore({ collection: mongo.db.collection(KEY_COLLECTION), writer, ttlSeconds: config.idempotencyTtlSeconds })
  await store.ensureIndexes()
  app.decorate('idempotency', store)
}

export default fp(idempotency, { name: 'idempotency', dependencies: ['database', 'writer'] })
