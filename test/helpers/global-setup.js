// One database server for the whole run; each test file uses its own
// database on it. TEST_MONGODB_URI points the suite at an existing server.
import { startEmbeddedMongo } from '../../src/db/embedded.js'
import { detectBackend } from '../../src/db/capabilities.js'
import { MongoClient } from 'mongodb'

export default async function setup ({ provide }) {
  if (process.env.TEST_MONGODB_URI) {
    const client = await new MongoClient(process.env.TEST_MONGODB_URI).connect()
    const backend = await detectBackend(client.db('admin'))
    await client.close()
    provide('mongodbUri', process.env.TEST_MONGODB_URI)
    provide('backend', backend)
    provide('embeddedMongod', false)
    console.log(`tests use TEST_MONGODB_URI (${backend})`)
    return
  }
  const logger = { info: (o, m) => console.log(m ?? o, typeof o === 'object' ? JSON.stringify(o) : ''), warn: (o, m) => console.warn(m ?? o), debug () {}, error: (o, m) => console.error(m ?? o) }
  const db = await startEmbeddedMongo({ persistent: false, logger })
  provide('mongodbUri', db.uri)
  provide('backend', db.backend)
  provide('embeddedMongod', db.backend === 'mongod') // a mongod binary is at hand for MongoMemoryReplSet
  console.log(`tests use the embedded database: ${db.backend} at ${db.uri}`)
  return async () => { await db.stop() }
}
