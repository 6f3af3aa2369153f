// The embedded database: mongo-java-server in memory and on H2, and the
// auto choice (on an offline machine: the Java server after mongod fails).
import { describe, it, expect, beforeAll, afterEach } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { MongoClient } from 'mongodb'
import { startJavaServer, ensureJavaServerBuilt } from '../../src/db/java-server.js'
import { startEmbeddedMongo } from '../../src/db/embedded.js'
import { detectBackend, supportsTransactions } from '../../src/db/capabilities.js'

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

// A mongod at hand without a download: MONGOMS_SYSTEM_BINARY, else one on the PATH.
const installedMongod = process.env.MONGOMS_SYSTEM_BINARY || spawnSync('sh', ['-c', 'command -v mongod'], { encoding: 'utf8' }).stdout.trim() || null

describe('startEmbeddedMongo', () => {
  const saved = { ...process.env }
  afterEach(() => {
    for (const name of ['STATBUCKET_EMBEDDED', 'MONGOMS_VERSION', 'MONGOMS_DOWNLOAD_URL', 'MONGOMS_DOWNLOAD_DIR', 'MONGOMS_SYSTEM_BINARY']) {
      if (saved[name] === undefined) delete process.env[name]
      else process.env[name] = saved[name]
    }
  })

  /** No mongod can be had: a version no cache holds, a download address where nothing listens */
  function withoutMongod () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-nomongod-'))
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }))
    delete process.env.MONGOMS_SYSTEM_BINARY
    process.env.MONGOMS_VERSION = '0.0.1'
    process.env.MONGOMS_DOWNLOAD_URL = 'http://127.0.0.1:9/mongodb-none.tgz'
    process.env.MONGOMS_DOWNLOAD_DIR = dir
  }

  it('auto falls back to the Java server when no mongod can be had', async () => {
    withoutMongod()
    process.env.STATBUCKET_EMBEDDED = 'auto'
    const warned = []
    const logger = { info () {}, debug () {}, error () {}, warn: (m) => warned.push(m) }
    const db = await startEmbeddedMongo({ downloadTimeoutMs: 20_000, logger })
    cleanups.push(db.stop)
    expect(db.backend).toBe('mongo-java-server')
    // the fallback said in words, with the fix
    expect(warned).toEqual([expect.stringMatching(/substitute for trying it out only: no transactions.*set MONGODB_URI=/)])

    const client = await connect(db.uri)
    const test = client.db('embedded_auto')
    expect((await test.command({ ping: 1 })).ok).toBe(1)
    await test.collection('c').insertOne({ _id: 1 })
    expect(await test.collection('c').countDocuments()).toBe(1)
    expect(await detectBackend(test)).toBe('mongo-java-server')
    expect(await supportsTransactions(client, test)).toBe(false)
    await client.close()
    await db.stop()
  }, 55_000)

  it('mongod only, with no mongod to be had: explains how to set MONGODB_URI', async () => {
    withoutMongod()
    process.env.STATBUCKET_EMBEDDED = 'mongod'
    const err = await startEmbeddedMongo({ downloadTimeoutMs: 20_000 }).then(() => null, e => e)
    expect(err).toBeInstanceOf(Error)
    expect(err.message).toContain('MONGODB_URI=mongodb://127.0.0.1:27017 npm start')
    expect(err.message).toContain('mongod (mongodb-memory-server-core):')
    expect(err.message).not.toContain('mongo-java-server:')
  }, 55_000)

  if (!installedMongod) console.log('skipped "auto runs an installed mongod": no mongod here (set MONGOMS_SYSTEM_BINARY or put mongod on the PATH to run it)')
  it.skipIf(!installedMongod)('auto runs an installed mongod, a standalone without transactions', async () => {
    process.env.MONGOMS_SYSTEM_BINARY = installedMongod
    process.env.STATBUCKET_EMBEDDED = 'auto'
    const db = await startEmbeddedMongo({ downloadTimeoutMs: 20_000 })
    cleanups.push(db.stop)
    expect(db.backend).toBe('mongod')
    const client = await connect(db.uri)
    expect(await detectBackend(client.db('x'))).toBe('mongod')
    expect(await supportsTransactions(client, client.db('x'))).toBe(false)
    await client.close()
    await db.stop()
  }, 55_000)

  it('java only, with javaHeap: the JVM runs with that heap (the cardinality bench needs gigabytes)', async () => {
    process.env.STATBUCKET_EMBEDDED = 'java'
    const db = await startEmbeddedMongo({ javaHeap: '640m' })
    cleanups.push(db.stop)
    expect(db.backend).toBe('mongo-java-server')
    const args = fs.readFileSync(`/proc/${db.pid}/cmdline`, 'utf8').split('\0')
    expect(args).toContain('-Xmx640m')
    expect(args).not.toContain('-Xmx512m')
    await db.stop()
  }, 55_000)

  it('rejects an unknown STATBUCKET_EMBEDDED', async () => {
    process.env.STATBUCKET_EMBEDDED = 'docker'
    await expect(startEmbeddedMongo()).rejects.toThrow(/STATBUCKET_EMBEDDED must be one of auto, mongod, java/)
  })
})
