// The database: connects during registration (a bad URI fails boot, not the
// first request), tells what the server can do (backend, transactions) and
// decorates `mongo`. Accepts an existing client, and then closes only what it opened.
import fp from 'fastify-plugin'
import { MongoClient } from 'mongodb'
import { bulkUpdatesFor, detectBackend, supportsTransactions } from './capabilities.js'
import { driverOptions } from './driver-options.js'

/** options: { uri, dbName, writeTimeoutMs, backend? (when known), client? (an existing, connected client) } */
async function database (app, { uri, dbName, writeTimeoutMs, backend, client: existing }) {
  let client = existing
  if (!client) {
    client = new MongoClient(uri, driverOptions(writeTimeoutMs))
    app.addHook('onClose', async () => { await client.close() })
    await client.connect()
  }
  const db = client.db(dbName)
  const transactions = await supportsTransactions(client, db)
  const detected = backend ?? await detectBackend(db)
  const mongo = {
    client,
    db,
    backend: detected,
    transactions,
    // Where transactions work, retryable writes do too: the driver may resend a write.
    writesRetried: transactions && client.options.retryWrites !== false,
    // what a bulkWrite of single-document updates is sent as (capabilities.js)
    bulkUpdates: bulkUpdatesFor(detected)
  }
  app.log.info({ backend: mongo.backend, transactions: mongo.transactions, db: dbName }, 'connected to MongoDB')
  app.decorate('mongo', mongo)
}

export default fp(database, { name: 'database' })
