// The embedded database: mongo-java-server in memory and on H2, and the
// auto choice (on an offline machine: the Java server after mongod fails).
import { describe, it, expect, beforeAll, afterEach } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { MongoClient } from 'mongodb'
import { startJavaServer, ensureJavaServerBuilt } from '../../src/db/java-server.js'
import { startEmbeddedMongo } from '../../src/db/embedded.js'
import { detectBackend, supportsTransactions } from '../../src/store/database-capabilities.js'

const isGone = (pid) => {
  try {
    process.kill(pid, 0)
    return false
  } catch (err) {
    return err.code === 'ESRCH'
  }
}

// Each test stops what it started; these catch what a failed assertion left.
const cleanups = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()().catch(() => {})
})

async function connect (uri) {
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 5000 }).connect()
  cleanups.push(() => client.close())
  return client
}

describe('mongo-java-server', () => {
  // A fresh clone builds the jar here (Maven), so the hook, not a test, waits.
  beforeAll(() => ensureJavaServerBuilt({ buildTimeoutMs: 170_000 }), 180_000)

  it('runs in memory, is detected by behaviour, has no transactions, and stops', async () => {
    const server = await startJavaServer()
    cleanups.push(server.stop)
    expect(server.backend).toBe('mongo-java-server')
    expect(server.uri).toBe(`mongodb://127.0.0.1:${server.port}`)

    const client = await connect(server.uri)
    const db = client.db('embedded_test')
    await db.collection('c').updateOne({ _id: 'a' }, { $inc: { 'n.x': 2 } }, { upsert: true })
    expect(await db.collection('c').findOne({ _id: 'a' })).toEqual({ _id: 'a', n: { x: 2 } })
    expect(await detectBackend(db)).toBe('mongo-java-server')
    expect(await supportsTransactions(client, db)).toBe(false)

    await client.close()
    await server.stop()
    expect(isGone(server.pid)).toBe(true)
    await server.stop() // idempotent
  }, 30_000)

  it('keeps data in an H2 file across restarts', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-h2-'))
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }))
    const h2File = path.join(dir, 'test.h2.mv.db')

    const first = await startJavaServer({ h2File })
    cleanups.push(first.stop)
    let client = await connect(first.uri)
    await client.db('persist').collection('c').insertOne({ _id: 'kept', v: 42 })
    await client.close()
    await first.stop()
    expect(fs.existsSync(h2File)).toBe(true)

    const second = await startJavaServer({ h2File })
    cleanups.push(second.stop)
    client = await connect(second.uri)
    expect(await client.db('persist').collection('c').findOne({ _id: 'kept' })).toEqual({ _id: 'kept', v: 42 })
    await client.close()
    await second.stop()
  }, 40_000)
})

describe('startEmbeddedMongo', () => {
  const saved = process.env.STATBUCKET_EMBEDDED
  afterEach(() => {
    if (saved === undefined) delete process.env.STATBUCKET_EMBEDDED
    else process.env.STATBUCKET_EMBEDDED = saved
  })

  it('auto ends up on a working backend', async () => {
    process.env.STATBUCKET_EMBEDDED = 'auto'
    const db = await startEmbeddedMongo({ downloadTimeoutMs: 20_000 })
    cleanups.push(db.stop)
    expect(['mongod', 'mongo-java-server']).toContain(db.backend)

    const client = await connect(db.uri)
    const test = client.db('embedded_auto')
    expect((await test.command({ ping: 1 })).ok).toBe(1)
    await test.collection('c').insertOne({ _id: 1 })
    expect(await test.collection('c').countDocuments()).toBe(1)
    expect(await detectBackend(test)).toBe(db.backend)
    // standalone mongod and the Java server alike: no transactions
    expect(await supportsTransactions(client, test)).toBe(false)
    await client.close()
    await db.stop()
  }, 55_000)

  it('mongod only: runs one or explains how to set MONGODB_URI', async () => {
    process.env.STATBUCKET_EMBEDDED = 'mongod'
    let db
    try {
      db = await startEmbeddedMongo({ downloadTimeoutMs: 20_000 })
    } catch (err) {
      console.log(`no mongod here (expected offline): ${err.message.split('\n').at(-1).trim()}`)
      expect(err.message).toContain('MONGODB_URI=mongodb://127.0.0.1:27017 npm start')
      expect(err.message).toContain('mongod (mongodb-memory-server-core):')
      expect(err.message).not.toContain('mongo-java-server:')
      return
    }
    cleanups.push(db.stop)
    expect(db.backend).toBe('mongod')
    const client = await connect(db.uri)
    expect(await detectBackend(client.db('x'))).toBe('mongod')
    await db.stop()
  }, 55_000)

  it('rejects an unknown STATBUCKET_EMBEDDED', async () => {
    process.env.STATBUCKET_EMBEDDED = 'docker'
    await expect(startEmbeddedMongo()).rejects.toThrow(/STATBUCKET_EMBEDDED must be one of auto, mongod, java/)
  })
})
