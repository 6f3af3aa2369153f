// Idempotency-Key logic against a fake replica set (fake-transactional-db.js):
// the route, the key store, the writer and the keyed transaction together,
// with faults injected at each step. The same logic on a real replica set:
// test/routes/idempotency-key.test.js.
import Fastify from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import auth from '../../src/plugins/auth.js'
import errorHandler from '../../src/plugins/error-handler.js'
import eventsRoutes from '../../src/routes/events.js'
import { errorSchema } from '../../src/schemas/common.js'
import { schemaErrorFormatter } from '../../src/schemas/validation-errors.js'
import { createIngestService } from '../../src/ingest/ingest.js'
import { createWriter } from '../../src/writer/writer.js'
import { executeKeyedFlush } from '../../src/idempotency/keyed-flush.js'
import { bodyHash, createIdempotencyStore, keyId } from '../../src/idempotency/idempotency-store.js'
import { deferred } from '../helpers/fake-collection.js'
import { errors, fakeTransactionalDb } from '../helpers/fake-transactional-db.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const WRITER_A = 'writer-token-aaaaaaaaaaaa'
const WRITER_B = 'writer-token-bbbbbbbbbbbb'
const apps = []
afterEach(async () => { while (apps.length) await apps.pop().close() })

async function fakeApp ({ transactions = true, env = {} } = {}) {
  const config = loadConfig({ LOG_LEVEL: 'silent', WRITE_TIMEOUT_MS: '1000', FLUSH_INTERVAL_MS: '5', ...env })
  const db = fakeTransactionalDb()
  const collections = { daily: db.collection('daily'), monthly: db.collection('monthly'), metrics: db.collection('metrics') }
  const keyCollection = db.collection('idempotency_keys')
  const silent = { info () {}, warn () {}, error () {}, debug () {} }
  const writer = createWriter(collections, {
    flushIntervalMs: config.flushIntervalMs,
    flushMaxDocs: config.flushMaxDocs,
    maxPendingEvents: config.maxPendingEvents,
    writeTimeoutMs: config.writeTimeoutMs,
    clock: { now: () => NOW },
    logger: silent,
    keyedFlush: transactions ? (units, options) => executeKeyedFlush(units, { ...options, client: db.client, collections, keyCollection }) : null
  })
  const idempotency = transactions ? createIdempotencyStore({ collection: keyCollection, writer, ttlSeconds: 3600 }) : null
  const app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allowUnionTypes: true } }, schemaErrorFormatter })
  app.decorate('config', config)
  app.decorate('clock', { now: () => NOW })
  app.decorate('ingest', createIngestService({
    config,
    clock: { now: () => NOW },
    writer,
    idempotency,
    registry: { knowsAll: () => false, admit: async () => ({ reserved: [] }), settle () {} },
    preallocator: { draw: () => [], preallocateDrawn () {} },
    backend: transactions ? 'fake-replica-set' : 'fake-standalone'
  }))
  app.addSchema(errorSchema)
  await app.register(errorHandler)
  await app.register(auth)
  await app.register(eventsRoutes)
  await app.ready()
  apps.push(app)
  const post = (body, key, token) => app.inject({
    method: 'POST',
    url: '/v1/events',
    payload: body,
    headers: { ...(key !== undefined ? { 'idempotency-key': key } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) }
  })
  const dayTotal = metric => db.docs('daily').filter(d => d.metric === metric).reduce((n, d) => n + d.daily, 0)
  const monthTotal = metric => db.docs('monthly').filter(d => d.metric === metric).reduce((n, d) => n + d.monthly, 0)
  return { app, db, writer, idempotency, post, dayTotal, monthTotal }
}

const batch = (metric, ...values) => values.map(value => ({ metric, value, ts: NOW - 60_000 }))

describe('Idempotency-Key (fake replica set)', () => {
  it('applies a keyed request once and records its key with the body hash', async () => {
    const { post, db, dayTotal, monthTotal } = await fakeApp()
    const res = await post(batch('k.a', 2, 3), 'key-1')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ accepted: 2 })
    expect(dayTotal('k.a')).toBe(5)
    expect(monthTotal('k.a')).toBe(5)
    const [record] = db.docs('idempotency_keys')
    expect(record).toMatchObject({ _id: 'open:key-1', hash: bodyHash(batch('k.a', 2, 3)), status: 200, body: { accepted: 2 } })
    expect(record.createdAt).toEqual(new Date(NOW))
  })

  it('answers a retry of an applied request with the first answer and applies nothing', async () => {
    const { post, dayTotal } = await fakeApp()
    expect((await post(batch('k.b', 4), 'key-2')).statusCode).toBe(200)
    const retry = await post(batch('k.b', 4), 'key-2')
    expect(retry.statusCode).toBe(200)
    expect(retry.json()).toEqual({ accepted: 1 })
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(dayTotal('k.b')).toBe(4)
  })

  it('answers 422 to a key reused with a different body, and applies nothing', async () => {
    const { post, dayTotal } = await fakeApp()
    expect((await post(batch('k.c', 1), 'key-3')).statusCode).toBe(200)
    const reused = await post(batch('k.c', 9), 'key-3')
    expect(reused.statusCode).toBe(422)
    expect(reused.json().message).toMatch(/different body/)
    expect(dayTotal('k.c')).toBe(1)
  })

  it('answers 409 + Retry-After while a request with the same key is in flight', async () => {
    const { post, db, dayTotal } = await fakeApp()
    const gate = deferred()
    db.failNext('insertMany', () => gate.promise)
    const first = post(batch('k.d', 5), 'key-4')
    await new Promise(resolve => setTimeout(resolve, 50))
    const second = await post(batch('k.d', 5), 'key-4')
    expect(second.statusCode).toBe(409)
    expect(second.headers['retry-after']).toBeDefined()
    gate.resolve()
    expect((await first).statusCode).toBe(200)
    expect(dayTotal('k.d')).toBe(5)
    // once answered, a retry gets the recorded answer
    expect((await post(batch('k.d', 5), 'key-4')).headers['idempotent-replayed']).toBe('true')
  })

  it('after a 504 whose commit did go through, the retry is answered from the key and applies nothing', async () => {
    const { post, db, dayTotal } = await fakeApp()
    // the commit is applied, then every acknowledgment is lost (first try + 3 commit retries)
    for (let i = 0; i < 4; i++) db.failNext('commit', () => { throw errors.unknownCommit() })
    const first = await post(batch('k.e', 7), 'key-5')
    expect(first.statusCode).toBe(504)
    expect(first.json().outcome).toBe('unknown')
    expect(dayTotal('k.e')).toBe(7)
    const retry = await post(batch('k.e', 7), 'key-5')
    expect(retry.statusCode).toBe(200)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(dayTotal('k.e')).toBe(7)
  })

  it('retries a lost commit acknowledgment itself (commit is idempotent) and answers 200', async () => {
    const { post, db, dayTotal } = await fakeApp()
    db.failNext('commit', () => { throw errors.unknownCommit() })
    expect((await post(batch('k.f', 3), 'key-6')).statusCode).toBe(200)
    expect(dayTotal('k.f')).toBe(3)
    // the key was recorded once: a retry is replayed, not applied again
    const retry = await post(batch('k.f', 3), 'key-6')
    expect(retry.statusCode).toBe(200)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(dayTotal('k.f')).toBe(3)
    expect(db.docs('idempotency_keys')).toHaveLength(1)
  })

  it('after a 503 (the transaction failed before commit) leaves no key, and the retry is applied once', async () => {
    const { post, db, dayTotal } = await fakeApp()
    db.failNext('bulkWrite:monthly', () => { throw errors.network() })
    const first = await post(batch('k.g', 6), 'key-7')
    expect(first.statusCode).toBe(503)
    expect(first.json().outcome).toBe('not_applied')
    expect(db.docs('idempotency_keys')).toEqual([])
    expect(dayTotal('k.g')).toBe(0)
    const retry = await post(batch('k.g', 6), 'key-7')
    expect(retry.statusCode).toBe(200)
    expect(retry.headers['idempotent-replayed']).toBeUndefined()
    expect(dayTotal('k.g')).toBe(6)
  })

  it('aborts when a statement\'s reply counts fewer documents than were sent: 503 not applied, no key, and the retry is applied once', async () => {
    for (const [step, reply] of [['bulkWrite:daily', { ok: 1 }], ['bulkWrite:monthly', { ok: 1, matchedCount: 0, upsertedCount: 0 }], ['insertMany', { insertedCount: 0 }]]) {
      const { post, db, dayTotal, monthTotal } = await fakeApp()
      // the reply a server without counts (or an unacknowledged write concern) gives; the writes are staged all the same
      db.failNext(step, () => ({ reply }))
      const first = await post(batch('k.s', 4), 'key-s')
      expect(first.statusCode, step).toBe(503)
      expect(first.json().outcome, step).toBe('not_applied')
      expect(db.docs('idempotency_keys'), step).toEqual([])
      expect([dayTotal('k.s'), monthTotal('k.s')], step).toEqual([0, 0])
      const retry = await post(batch('k.s', 4), 'key-s')
      expect(retry.statusCode, step).toBe(200)
      expect([dayTotal('k.s'), monthTotal('k.s')], step).toEqual([4, 4])
    }
  })

  it('retries a transient write conflict and applies once', async () => {
    const { post, db, dayTotal } = await fakeApp()
    db.failNext('bulkWrite:daily', () => { throw errors.writeConflict() })
    expect((await post(batch('k.h', 2), 'key-8')).statusCode).toBe(200)
    expect(dayTotal('k.h')).toBe(2)
    expect(db.calls.filter(c => c === 'insertMany')).toHaveLength(2)
  })

  it('a key recorded by another instance meanwhile: its answer stands, nothing applied twice', async () => {
    const { post, db, dayTotal } = await fakeApp()
    const body = batch('k.i', 8)
    // another instance commits the same request (same key, same body) between the lookup and this transaction
    db.failNext('insertMany', () => {
      db.data.get('idempotency_keys').set('open:key-9', { _id: 'open:key-9', hash: bodyHash(body), status: 200, body: { accepted: 1 }, createdAt: new Date(NOW) })
    })
    const res = await post(body, 'key-9')
    expect(res.statusCode).toBe(200)
    expect(res.headers['idempotent-replayed']).toBe('true')
    expect(dayTotal('k.i')).toBe(0) // this instance applied nothing; the other one's increments are its own
  })

  it('flushes keyed and unkeyed requests together: the unkeyed ones outside the transaction', async () => {
    const { post, db, dayTotal } = await fakeApp()
    const answers = await Promise.all([post(batch('k.j', 1), 'key-10'), post(batch('k.j', 2)), post(batch('k.j', 4), 'key-11')])
    expect(answers.map(a => a.statusCode)).toEqual([200, 200, 200])
    expect(dayTotal('k.j')).toBe(7)
    expect(db.docs('idempotency_keys').map(d => d._id).sort()).toEqual(['open:key-10', 'open:key-11'])
  })

  it('scopes keys by write token: two clients may use the same key', async () => {
    const { post, dayTotal, db } = await fakeApp({ env: { WRITE_TOKENS: `${WRITER_A},${WRITER_B}` } })
    expect((await post(batch('k.k', 1), 'same', WRITER_A)).statusCode).toBe(200)
    const other = await post(batch('k.k', 5), 'same', WRITER_B)
    expect(other.statusCode).toBe(200)
    expect(other.headers['idempotent-replayed']).toBeUndefined()
    expect(dayTotal('k.k')).toBe(6)
    expect(db.docs('idempotency_keys').every(d => /^t:[0-9a-f]{16}:same$/.test(d._id))).toBe(true)
  })

  it('rejects a malformed key with 400 and changes nothing', async () => {
    const { post, dayTotal } = await fakeApp()
    for (const key of ['', 'has space', 'x'.repeat(256), 'é']) {
      const res = await post(batch('k.l', 1), key)
      expect(res.statusCode, JSON.stringify(key)).toBe(400)
    }
    expect(dayTotal('k.l')).toBe(0)
    // the longest key allowed, visible ASCII of every kind
    expect((await post(batch('k.l', 1), '!~' + 'x'.repeat(253))).statusCode).toBe(200)
  })

  it('answers 400 to a key where transactions are unavailable (never pretends)', async () => {
    const { post, dayTotal } = await fakeApp({ transactions: false })
    const res = await post(batch('k.m', 1), 'key-12')
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/transactions/)
    expect(dayTotal('k.m')).toBe(0)
    expect((await post(batch('k.m', 1))).statusCode).toBe(200)
  })

  it('releases in-flight keys once their flush ended', async () => {
    const { post, idempotency } = await fakeApp()
    await Promise.all([post(batch('k.n', 1), 'a1'), post(batch('k.n', 1), 'a2')])
    expect(idempotency.inFlightCount()).toBe(0)
  })
})

describe('idempotency helpers', () => {
  it('hashes bodies independently of key order, and tells different bodies apart', () => {
    expect(bodyHash({ metric: 'a', value: 1 })).toBe(bodyHash({ value: 1, metric: 'a' }))
    expect(bodyHash([{ metric: 'a', value: 1 }])).not.toBe(bodyHash({ metric: 'a', value: 1 }))
    expect(bodyHash({ metric: 'a', value: 1 })).not.toBe(bodyHash({ metric: 'a', value: 2 }))
  })

  it('scopes key ids by who sent them', () => {
    expect(keyId(null, 'k')).toBe('open:k')
    expect(keyId('t:abc', 'k')).toBe('t:abc:k')
  })
})
