// The app creates its collections at boot with COLLECTION_COMPRESSOR, on the
// suite's real database: what the driver sends (command monitoring), what
// the server keeps (a mongod lists the option; mongo-java-server accepts
// it and lists empty options), existing collections never created, changed
// or dropped, and the one line said at boot
// (docs/adr/0055-zstd-by-default.md). The logic on a stand-in:
// test/db/create-collections.test.js.
import { Writable } from 'node:stream'
import { MongoClient } from 'mongodb'
import { afterEach, describe, expect, it } from 'vitest'
import { COMPRESSORS, compressorOf } from '../../src/db/create-collections.js'
import { collectionNames } from '../../src/db/collections.js'
import { backend, mongodbUri, testApp, uniqueDbName } from '../helpers/test-app.js'

// commands that would create, change, rename or drop a collection
const SHAPING = new Set(['create', 'collMod', 'drop', 'dropDatabase', 'renameCollection', 'convertToCapped', 'cloneCollectionAsCapped'])
// what of them was sent, but the database plugin's transaction probe (db/capabilities.js), which drops its scratch collection where transactions work
const shaping = sent => sent.filter(c => SHAPING.has(Object.keys(c)[0]) && Object.values(c)[0] !== 'statbucket_txn_probe')

const cleanups = []
afterEach(async () => { while (cleanups.length) await cleanups.pop()().catch(() => {}) })

/** A client of its own that records the commands it sends to `dbName` */
async function monitoredClient (dbName) {
  const client = await new MongoClient(mongodbUri(), { monitorCommands: true }).connect()
  cleanups.push(() => client.close())
  const sent = []
  client.on('commandStarted', e => { if (e.databaseName === dbName) sent.push(structuredClone(e.command)) })
  return { client, sent }
}

function logLines () {
  const lines = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(...chunk.toString().trim().split('\n').map(l => JSON.parse(l))); done() } })
  return { lines, stream }
}

/** The app on `dbName` through `client`, closed (and the database dropped) after the test unless keepDatabase */
async function boot (label, dbName, client, env, options = {}) {
  const log = logLines()
  const app = await testApp(label, { client, env: { PREALLOC_PROBABILITY: '0', MONGODB_DB: dbName, ...env }, logger: { level: 'info', stream: log.stream }, ...options })
  cleanups.push(() => app.close())
  const said = log.lines.filter(l => /^collections: /.test(l.msg))
  expect(said, 'one line about the collections').toHaveLength(1)
  return { app, said: said[0] }
}

const byName = async (db) => new Map((await db.listCollections().toArray()).map(c => [c.name, c]))

describe('the app creates its collections with COLLECTION_COMPRESSOR', () => {
  it.each(COMPRESSORS)('%s: the driver sends each create with that block_compressor, and the server takes it', async (compressor) => {
    const dbName = uniqueDbName(`coll${compressor}`)
    const { client, sent } = await monitoredClient(dbName)
    const { app, said } = await boot(`coll${compressor}`, dbName, client, { COLLECTION_COMPRESSOR: compressor })
    const names = collectionNames({ keys: app.mongo.transactions })
    expect(shaping(sent).map(({ create, storageEngine }) => ({ create, storageEngine })))
      .toEqual(names.map(name => ({ create: name, storageEngine: { wiredTiger: { configString: `block_compressor=${compressor}` } } })))
    expect(said).toMatchObject({ compressor, created: names, existing: {} })
    expect(said.msg).toMatch(new RegExp(`^collections: created ${names.join(', ')} with block_compressor=${compressor} \\(COLLECTION_COMPRESSOR\\)`))

    const listed = await byName(app.mongo.db)
    expect(names.filter(n => !listed.has(n)), 'created').toEqual([])
    if (app.mongo.backend === 'mongod') {
      // a mongod keeps the option and lists it
      expect(names.map(n => compressorOf(listed.get(n)))).toEqual(names.map(() => compressor))
    } else if (app.mongo.backend === 'mongo-java-server') {
      // mongo-java-server took the option without a word and keeps nothing of it
      expect(names.map(n => listed.get(n).options)).toEqual(names.map(() => ({})))
      expect(said.msg).toMatch(/; mongo-java-server has no WiredTiger and ignores the compressor$/)
    }

    // the app works on what it created
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'coll.a', value: 2 } })
    expect(res.statusCode).toBe(200)
  })

  it('leaves existing collections as they are: never created again, changed or dropped, their documents kept, and says so', async () => {
    const dbName = uniqueDbName('collexisting')
    const { client, sent } = await monitoredClient(dbName)
    const db = client.db(dbName)
    // as an earlier statbucket left them: one made by a write (the server's default), one created with snappy
    await db.collection('daily').insertOne({ _id: 'old/20260301', daily: 5 })
    await db.createCollection('monthly', { storageEngine: { wiredTiger: { configString: 'block_compressor=snappy' } } })
    await db.collection('monthly').insertOne({ _id: 'old/202603', monthly: 5 })
    const before = await byName(db)
    sent.length = 0

    const first = await boot('collexisting', dbName, client, {}, { keepDatabase: true })
    const names = collectionNames({ keys: first.app.mongo.transactions })
    const others = names.filter(n => n !== 'daily' && n !== 'monthly')
    expect(shaping(sent).map(c => [c.create, c.storageEngine?.wiredTiger.configString]))
      .toEqual(others.map(n => [n, 'block_compressor=zstd']))
    expect(first.said).toMatchObject({ compressor: 'zstd', created: others })
    expect(Object.keys(first.said.existing).sort()).toEqual(['daily', 'monthly'])
    expect(first.said.msg).toMatch(new RegExp(`^collections: created ${others.join(', ')} with block_compressor=zstd \\(COLLECTION_COMPRESSOR\\); existing collections keep their compressor: `))
    if (backend() === 'mongod') {
      expect(first.said.existing).toEqual({ daily: null, monthly: 'snappy' })
      expect(first.said.msg).toMatch(/: daily \(the server's default when created\); monthly \(snappy\)$/)
    } else if (backend() === 'mongo-java-server') {
      expect(first.said.msg).toMatch(/: daily, monthly \(not told\); mongo-java-server has no WiredTiger and ignores the compressor$/)
    }
    await first.app.close()

    const after = await byName(db)
    for (const name of ['daily', 'monthly']) expect(after.get(name), name).toEqual(before.get(name)) // options and uuid alike
    expect(await db.collection('daily').find().toArray()).toEqual([{ _id: 'old/20260301', daily: 5 }])
    expect(await db.collection('monthly').find().toArray()).toEqual([{ _id: 'old/202603', monthly: 5 }])

    // booted again with another compressor: nothing to create, nothing changed
    sent.length = 0
    const second = await boot('collexisting', dbName, client, { COLLECTION_COMPRESSOR: 'none' })
    expect(shaping(sent)).toEqual([])
    expect(second.said).toMatchObject({ compressor: 'none', created: [] })
    expect(Object.keys(second.said.existing).sort()).toEqual([...names].sort())
    expect(second.said.msg).toMatch(/^collections: existing collections keep their compressor: /)
    if (backend() === 'mongod') expect(second.said.existing).toMatchObject({ daily: null, monthly: 'snappy', metrics: 'zstd', jobs: 'zstd' })
    expect(await byName(db)).toEqual(after)
  })
})
