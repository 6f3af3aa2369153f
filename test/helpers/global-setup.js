// One database server for the whole run; each test file uses its own
// database on it. TEST_MONGODB_URI points the suite at an existing server.
// Every project that needs it (vitest.config.js: database, browser, oracle)
// names this file; vitest calls it once per such project with tests to run,
// in its own process, so the server is started by the first call and stopped
// after the last project's teardown. A run of the unit or faults project
// alone never starts it.
import { startEmbeddedMongo } from '../../src/db/embedded.js'
import { detectBackend } from '../../src/db/capabilities.js'
import { MongoClient } from 'mongodb'

const SHARED = Symbol.for('statbucket.test.suiteDatabase')

async function start () {
  if (process.env.TEST_MONGODB_URI) {
    const client = await new MongoClient(process.env.TEST_MONGODB_URI).connect()
    const backend = await detectBackend(client.db('admin'))
    await client.close()
    console.log(`tests use TEST_MONGODB_URI (${backend})`)
    return { uri: process.env.TEST_MONGODB_URI, backend, embeddedMongod: false, stop: async () => {} }
  }
  const logger = { info: (o, m) => console.log(m ?? o, typeof o === 'object' ? JSON.stringify(o) : ''), warn: (o, m) => console.warn(m ?? o), debug () {}, error: (o, m) => console.error(m ?? o) }
  const db = await startEmbeddedMongo({ persistent: false, logger })
  console.log(`tests use the embedded database: ${db.backend} at ${db.uri}`)
  // embeddedMongod: a mongod binary is at hand for MongoMemoryReplSet
  return { uri: db.uri, backend: db.backend, embeddedMongod: db.backend === 'mongod', stop: () => db.stop() }
}

export default async function setup ({ provide }) {
  const shared = (globalThis[SHARED] ??= { users: 0, started: null })
  shared.users++
  shared.started ??= start()
  let db
  try {
    db = await shared.started
  } catch (err) {
    shared.users--
    if (shared.users === 0) shared.started = null
    throw err
  }
  provide('mongodbUri', db.uri)
  provide('backend', db.backend)
  provide('embeddedMongod', db.embeddedMongod)
  return async () => {
    if (--shared.users > 0) return
    shared.started = null
    await db.stop()
  }
}
