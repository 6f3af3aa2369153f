// The database: connects during registration (a bad URI fails boot, not the
// first request), tells what the server can do (backend, transactions) and
// decorates `mongo`. Accepts an existing client, and then closes only what it opened.
import fp from 'fastify-plugin'
import { MongoClient } from 'mongodb'
import { detectBackend, supportsTransactions } from './capabilities.js'

/**
 * Driver timeouts chosen so that one attempt of a flush ends within
 * WRITE_TIMEOUT_MS: server selection and connecting take at most 25 % of it
 * each and a sent operation at most 50 %. The writer stops retrying at the
 * same deadline and its watchdog answers `unknown` then for whatever is still
 * running; on a replica set the driver may retry a write once more itself,
 * which can keep the flush slot (not the answers) up to one more attempt.
 */
export function driverOptions (writeTimeoutMs) {
  return {
    serverSelectionTimeoutMS: Math.max(100, Math.floor(writeTimeoutMs * 0.25)),
    connectTimeoutMS: Math.max(100, Math.floor(writeTimeoutMs * 0.25)),
    socketTimeoutMS: Math.max(200, Math.floor(writeTimeoutMs * 0.5)),
    appName: 'statbucket'
  }
}

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
  const mongo = {
    client,
    db,
    backend: backend ?? await detectBackend(db),
    transactions,
    // Where transactions work, retryable writes do too: the driver may resend a write.
    writesRetried: transactions && client.options.retryWrites !== false
  }
  app.log.info({ backend: mongo.backend, transactions: mongo.transactions, db: dbName }, 'connected to MongoDB')
  app.decorate('mongo', mongo)
}

export default fp(database, { name: 'database' })
