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

/** env: configuration variables (strings) on top of the defaults; uri: a server of the test's own (default: the suite's) */
export async function testApp (label, { env = {}, uri = mongodbUri(), ...options } = {}) {
  const dbName = env.MONGODB_DB ?? uniqueDbName(label)
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env, MONGODB_DB: dbName })
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
