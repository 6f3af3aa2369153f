// DELETE /v1/metrics/:metric: the registry entry and every daily and monthly
// document of that metric and of no other (names that share its prefix
// included), idempotent, a write afterwards starts the metric anew, guarded
// by the write tokens, and a database failure is a 503 that says to retry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { directDb, testApp, uniqueDbName } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12)
const WRITE = 'w'.repeat(16)
const READ = 'r'.repeat(16)
let app, client, db

beforeAll(async () => {
  const dbName = uniqueDbName('deletemetric')
  app = await testApp('deletemetric', { clock: manualClock(NOW), env: { MONGODB_DB: dbName, PREALLOC_PROBABILITY: '0', WRITE_TOKENS: WRITE, READ_TOKENS: READ } })
  ;({ client, db } = await directDb(dbName))
})
afterAll(async () => { await app?.close(); await client?.close() })

const auth = token => ({ authorization: `Bearer ${token}` })
const post = events => app.inject({ method: 'POST', url: '/v1/events', payload: events, headers: auth(WRITE) })
const del = (metric, token = WRITE) => app.inject({ method: 'DELETE', url: `/v1/metrics/${metric}`, headers: token ? auth(token) : {} })
const idsOf = async (collection) => (await db.collection(collection).find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map(d => d._id)
const ts = (day, hour = 10) => Date.UTC(2026, 9, day, hour) // October

describe('DELETE /v1/metrics/:metric', () => {
  it('removes the metric\'s registry entry and documents and nothing of its neighbours, and is idempotent', async () => {
    // del.a over two months; names that share its prefix ('del.a.b', 'del.ab') or sort right after it
    const events = []
    for (const metric of ['del.a', 'del.a.b', 'del.ab', 'del.a-']) {
      for (const time of [ts(30), ts(31), Date.UTC(2026, 10, 1, 3), Date.UTC(2026, 10, 21, 11)]) events.push({ metric, value: 2, ts: time })
    }
    expect((await post(events)).statusCode).toBe(200)
    const before = { daily: await idsOf('daily'), monthly: await idsOf('monthly'), metrics: await idsOf('metrics') }
    expect(before.daily.filter(id => id.startsWith('del.a/'))).toHaveLength(4)

    const res = await del('del.a')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ metric: 'del.a', deleted: { registry: 1, series: 0, daily: 4, monthly: 2, minuteHours: 0 } })
    expect(await idsOf('daily')).toEqual(before.daily.filter(id => !id.startsWith('del.a/')))
    expect(await idsOf('monthly')).toEqual(before.monthly.filter(id => !id.startsWith('del.a/')))
    expect(await idsOf('metrics')).toEqual(before.metrics.filter(id => id !== 'del.a'))

    expect((await app.inject({ url: '/v1/metrics/del.a/series', headers: auth(READ) })).statusCode).toBe(404)
    const listed = (await app.inject({ url: '/v1/metrics?prefix=del.a', headers: auth(READ) })).json().metrics.map(m => m.name)
    expect(listed).toEqual(['del.a-', 'del.a.b', 'del.ab'])

    const again = await del('del.a')
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual({ metric: 'del.a', deleted: { registry: 0, series: 0, daily: 0, monthly: 0, minuteHours: 0 } })
    expect((await del('never.was')).json()).toEqual({ metric: 'never.was', deleted: { registry: 0, series: 0, daily: 0, monthly: 0, minuteHours: 0 } })
  })

  it('a write after the deletion starts the metric anew, registry entry included', async () => {
    expect((await post([{ metric: 'del.re', value: 5, ts: ts(30) }])).statusCode).toBe(200)
    expect((await del('del.re')).json().deleted).toEqual({ registry: 1, series: 0, daily: 1, monthly: 1, minuteHours: 0 })
    expect((await post([{ metric: 'del.re', value: 3, ts: Date.UTC(2026, 10, 21, 11) }])).statusCode).toBe(200)
    expect(await db.collection('metrics').countDocuments({ _id: 'del.re' })).toBe(1)
    const total = await app.inject({ url: `/v1/metrics/del.re/total?from=${Date.UTC(2026, 9, 1)}&to=${Date.UTC(2026, 10, 22)}`, headers: auth(READ) })
    expect(total.json()).toMatchObject({ total: 3 })
  })

  it('counts a distribution\'s minute-hour documents (its minute histograms) in the answer', async () => {
    // two hours of one day and one of the next, within MINUTE_HISTOGRAM_DAYS: three minute-hour documents
    const times = [Date.UTC(2026, 10, 20, 9, 5), Date.UTC(2026, 10, 20, 10, 7), Date.UTC(2026, 10, 21, 11, 30)]
    expect((await post(times.map(time => ({ metric: 'del.dist', kind: 'distribution', value: 12.5, ts: time })))).statusCode).toBe(200)
    expect(await db.collection('distributionMinutes').countDocuments({ _id: { $gte: 'del.dist/', $lt: 'del.dist/\uffff' } })).toBe(3)
    const res = await del('del.dist')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ metric: 'del.dist', deleted: { registry: 1, series: 0, daily: 2, monthly: 1, minuteHours: 3 } })
    expect(await db.collection('distributionMinutes').countDocuments({ _id: { $gte: 'del.dist/', $lt: 'del.dist/\uffff' } })).toBe(0)
  })

  it('needs a write token: none is 401, a read token 403, and neither deletes anything', async () => {
    expect((await post([{ metric: 'del.kept', value: 1 }])).statusCode).toBe(200)
    expect((await del('del.kept', null)).statusCode).toBe(401)
    expect((await del('del.kept', READ)).statusCode).toBe(403)
    expect(await db.collection('daily').countDocuments({ metric: 'del.kept' })).toBe(1)
    expect(await db.collection('metrics').countDocuments({ _id: 'del.kept' })).toBe(1)
  })

  it('a bad name is a 400 that names it', async () => {
    const res = await del('a%20b')
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/metric/)
  })
})

describe('DELETE when the database fails', () => {
  it('answers 503 with Retry-After, saying the deletion may be partial and to send it again', async () => {
    const dbName = uniqueDbName('deletefail')
    const failing = await testApp('deletefail', { clock: manualClock(NOW), env: { MONGODB_DB: dbName, PREALLOC_PROBABILITY: '0' } })
    try {
      expect((await failing.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'del.f' } })).statusCode).toBe(200)
      await failing.mongo.client.close(true) // every database call from now on fails
      const res = await failing.inject({ method: 'DELETE', url: '/v1/metrics/del.f' })
      expect(res.statusCode).toBe(503)
      expect(res.headers['retry-after']).toBe('1')
      expect(res.json().message).toBe('the database failed while deleting "del.f", which may be partly deleted: send the DELETE again (it is idempotent)')
    } finally {
      await failing.close().catch(() => {})
      const { client: c, db: d } = await directDb(dbName)
      await d.dropDatabase().catch(() => {})
      await c.close()
    }
  })
})
