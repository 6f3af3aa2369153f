// Builds the app on the suite's database server (or another: uri) with a database of its own.
import { inject } from 'vitest'
import { randomBytes } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'

export const mongodbUri = () => inject('mongodbUri')
export const backend = () => inject('backend')

export function uniqueDbName (label) {
  return `t_${label.replace(/[^a-z0-9]/gi, '').slice(0, 20)}_${randomBytes(4).toString('hex')}`
}

/**
 * env: configuration variables (strings) on top of the defaults, StatsD off
 * (STATSD_PORT=0: test files side by side cannot all take 8125) unless env
 * says a port; statsd: true for the listeners on a free port of 127.0.0.1
 * (app.statsd.port), which no environment can ask for; uri: a server of the
 * test's own (default: the suite's)
 */
export async function testApp (label, { env = {}, statsd = false, uri = mongodbUri(), ...options } = {}) {
  const dbName = env.MONGODB_DB ?? uniqueDbName(label)
  // statsd: checked as a listener on the default port, then given port 0
  const loaded = loadConfig({ LOG_LEVEL: 'silent', STATSD_PORT: '0', ...env, ...(statsd ? { STATSD_PORT: '' } : {}), MONGODB_DB: dbName })
  const config = statsd ? Object.freeze({ ...loaded, statsdPort: 0 }) : loaded
  const dropDatabase = async () => {
    if (options.keepDatabase) return
    const client = await new MongoClient(uri).connect()
    await client.db(dbName).dropDatabase().catch(() => {})
    await client.close()
  }
  return buildApp({ config, mongodbUri: uri, sweepSchedule: false, onClose: dropDatabase, ...options })
}

/** A direct client to the suite's server (or uri), for reading what the app wrote */
export async function directDb (dbName, uri = mongodbUri()) {
  const client = await new MongoClient(uri).connect()
  return { client, db: client.db(dbName) }
}
