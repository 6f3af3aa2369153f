// The database a maintenance command (check, retention) works on, found as
// the service finds it (docs/architecture.md#where-the-database-comes-from): MONGODB_URI when set; else the embedded database of a statbucket
// that runs on this data directory (its published address); else the
// embedded database opened by the command itself, which takes the data
// directory's lock as the service would, for the length of the command.
import { MongoClient } from 'mongodb'
import { detectBackend } from './capabilities.js'
import { collectionNames } from './collections.js'
import { createCollections, describeCollections } from './create-collections.js'
import { embeddedDataDir, readEmbeddedAddress } from './embedded-address.js'

const REACH_RUNNING_MS = 5_000

/**
 * → { client, description, close() }; throws with a one-line message when no
 * database can be had (the lock held by a service whose address is unknown,
 * no embedded database possible).
 */
export async function connectCommandDatabase ({ config, env = process.env, appName, logger }) {
  if (config.mongodbUri) {
    const client = await new MongoClient(config.mongodbUri, { serverSelectionTimeoutMS: 10_000, appName }).connect()
    return { client, description: 'MONGODB_URI', close: () => client.close() }
  }
  const dataDir = embeddedDataDir(env)
  const running = readEmbeddedAddress(dataDir)
  if (running) {
    const client = new MongoClient(running.uri, { serverSelectionTimeoutMS: REACH_RUNNING_MS, appName })
    try {
      await client.connect()
      return { client, description: `the embedded database of the statbucket running on ${dataDir} (${running.uri}, pid ${running.pid})`, close: () => client.close() }
    } catch (err) {
      await client.close().catch(() => {})
      throw new Error(`a statbucket (pid ${running.pid}) runs on ${dataDir} but its database at ${running.uri} does not answer (${err.message}): try again, or set MONGODB_URI`)
    }
  }
  const { startEmbeddedMongo } = await import('./embedded.js')
  let embedded
  try {
    embedded = await startEmbeddedMongo({ persistent: true, dataDir, logger })
  } catch (err) {
    if (/file is locked|mongod\.lock|DBPathInUse/i.test(err.message)) {
      throw new Error(`the embedded database's data directory (${dataDir}) is locked by a process that did not publish its address: stop it and run again, or set MONGODB_URI`)
    }
    throw new Error(`${err.message.split('\n')[0]} Set MONGODB_URI to a MongoDB server.`)
  }
  const client = new MongoClient(embedded.uri, { serverSelectionTimeoutMS: 10_000, appName })
  try {
    await client.connect()
  } catch (err) {
    await embedded.stop().catch(() => {})
    throw err
  }
  return {
    client,
    description: `the embedded database in ${dataDir} (${embedded.backend}; opened for this command, no statbucket runs on it)`,
    close: async () => {
      await client.close().catch(() => {})
      await embedded.stop()
    }
  }
}

/**
 * For a command that writes (retention, check --repair): creates the
 * collections `db` lacks as the service does at boot, with
 * COLLECTION_COMPRESSOR (docs/adr/0055-zstd-by-default.md), so a command run
 * before the service ever ran makes none with the server's default. → the
 * line to print when it created some, else null.
 */
export async function createMissingCollections (db, config) {
  const report = await createCollections(db, collectionNames({ keys: false }), config.collectionCompressor)
  return report.created.length > 0 ? describeCollections(report, await detectBackend(db)) : null
}
