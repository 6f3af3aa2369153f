// Idempotency-Key against real databases: where transactions are missing
// (mongo-java-server, a standalone mongod) a key is refused with 400 and
// /readyz says transactions: false; on a replica set (MongoMemoryReplSet,
// where a mongod can be had) a retry is answered from the recorded key.
// The logic with injected faults: test/idempotency/idempotency.test.js.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { backend, testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const event = (metric, value) => [{ metric, value, ts: NOW - 60_000 }]

describe('Idempotency-Key without transactions', () => {
  let app
  beforeAll(async () => { app = await testApp('idemnotx', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0' } }) })
  afterAll(async () => { await app?.close() })

  it('/readyz says transactions: false, and a keyed request gets 400 and changes nothing', async () => {
    const ready = await app.inject({ url: '/readyz' })
    expect(ready.json()).toMatchObject({ status: 'ready', transactions: false })
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: event('nk.a', 1), headers: { 'idempotency-key': 'abc-123' } })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/Idempotency-Key needs a MongoDB deployment with transactions/)
    expect(await app.mongo.db.collection('daily').countDocuments({ metric: 'nk.a' })).toBe(0)
    // filtered here: mongo-java-server ignores listCollections' filter (and the registry's index creates `metrics`)
    expect((await app.mongo.db.listCollections().toArray()).filter(c => c.name === 'idempotency_keys')).toEqual([])
  })
})

// A replica set needs a mongod binary: the suite's global setup found (or
// downloaded) one exactly when it started an embedded mongod.
const noMongod = !inject('embeddedMongod')
if (noMongod) console.log(`skipping the replica-set Idempotency-Key test: it needs mongodb-memory-server's mongod binary, and this run has none (the suite runs on ${backend()}${process.env.TEST_MONGODB_URI ? ' from TEST_MONGODB_URI' : ', the offline fallback'}); it runs where a mongod can be downloaded`)

describe.skipIf(noMongod)('Idempotency-Key on a replica set (MongoMemoryReplSet)', () => {
  let replSet
  let app
  beforeAll(async () => {
    const { MongoMemoryReplSet } = await import('mongodb-memory-server-core')
    replSet = await MongoMemoryReplSet.create({ replSet: { count: 1, storageEngine: 'wiredTiger' } })
    const config = loadConfig({ LOG_LEVEL: 'silent', PREALLOC_PROBABILITY: '0', MONGODB_DB: 'idem_rs', IDEMPOTENCY_TTL: '3600', STATSD_PORT: '0' })
    app = await buildApp({ config, mongodbUri: replSet.getUri(), clock: manualClock(NOW), sweepSchedule: false })
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await replSet?.stop()
  })

  const post = (body, key) => app.inject({ method: 'POST', url: '/v1/events', payload: body, headers: { 'idempotency-key': key } })
  const dayTotal = async metric => (await app.mongo.db.collection('daily').find({ metric }).toArray()).reduce((n, d) => n + d.daily, 0)

  it('/readyz says transactions: true, and the key collection has its TTL index', async () => {
    expect((await app.inject({ url: '/readyz' })).json()).toMatchObject({ transactions: true })
    const indexes = await app.mongo.db.collection('idempotency_keys').indexes()
    expect(indexes.find(i => i.name === 'ttl')).toMatchObject({ key: { createdAt: 1 }, expireAfterSeconds: 3600 })
  })

  it('applies once: a retry gets the first answer, another body 422', async () => {
    expect((await post(event('rs.a', 5), 'rs-key-1')).statusCode).toBe(200)
    const retry = await post(event('rs.a', 5), 'rs-key-1')
    expect(retry.statusCode).toBe(200)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect((await post(event('rs.a', 6), 'rs-key-1')).statusCode).toBe(422)
    expect(await dayTotal('rs.a')).toBe(5)
  })

  it('concurrent requests with one key: applied once, the others 409 or the first answer', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(event('rs.b', 3), 'rs-key-2')))
    for (const a of answers) expect([200, 409]).toContain(a.statusCode)
    expect(answers.filter(a => a.statusCode === 200 && !a.headers['idempotent-replayed'])).toHaveLength(1)
    expect(await dayTotal('rs.b')).toBe(3)
  })
})
