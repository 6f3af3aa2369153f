// Connects to MongoDB during registration (a bad URI fails boot, not the
// first request), decorates `mongo`, closes the client on close.
import fp from 'fastify-plugin'
import { MongoClient } from 'mongodb'
import { detectBackend, supportsTransactions } from '../db/embedded.js'

/**
 * Driver timeouts chosen so that a flush ends within WRITE_TIMEOUT_MS:
 * server selection and connecting take at most 30 % of it each and a
 * sent operation at most 60 %; the writer's watchdog answers the rest.
 */
export function driverOptions (writeTimeoutMs) {
  return {
    serverSelectionTimeoutMS: Math.max(100, Math.floor(writeTimeoutMs * 0.3)),
    connectTimeoutMS: Math.max(100, Math.floor(writeTimeoutMs * 0.3)),
    socketTimeoutMS: Math.max(200, Math.floor(writeTimeoutMs * 0.6)),
    appName: 'statbucket'
  }
}

async function database (app, { uri, dbName, writeTimeoutMs, backend }) {
  const client = new MongoClient(uri, driverOptions(writeTimeoutMs))
  await client.connect()
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
  app.addHook('onClose', async () => { await client.close() })
}

export default fp(database, { name: 'database' })
