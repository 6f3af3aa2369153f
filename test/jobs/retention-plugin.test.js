// The retention job inside the service: decorated as app.retention, run on
// the service's settings, one pass across instances, stopped on close.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { seed } from '../helpers/bucket-docs.js'
import { directDb, testApp, uniqueDbName } from '../helpers/test-app.js'

const DAY = 86_400_000
const TODAY = Date.UTC(2026, 10, 21)
const NOW = TODAY + 9 * 3_600_000
const apps = []

afterAll(async () => { while (apps.length) await apps.pop().close().catch(() => {}) })

async function app (dbName, env = {}, options = {}) {
  const a = await testApp('retplugin', { clock: manualClock(NOW), env: { MONGODB_DB: dbName, MINUTE_RETENTION_DAYS: '3', ...env }, ...options })
  apps.push(a)
  return a
}

function eventsOver (metric, daysBack) {
  return Array.from({ length: daysBack + 1 }, (_, back) => ({ metric, value: 1 + back, time: TODAY - back * DAY + 3_600_000 }))
}

describe('retention plugin', () => {
  it('/readyz reports the retention in force', async () => {
    const a = await app(uniqueDbName('retready'), { DAILY_RETENTION_DAYS: '500', RETENTION_RATE: '42' })
    const res = await a.inject({ url: '/readyz' })
    expect(res.statusCode).toBe(200)
    expect(res.json().retention).toEqual({ minuteDays: 3, dailyDays: 500, rules: 0, cron: '17 * * * *', rate: 42 })
  })

  let dbName
  beforeAll(() => { dbName = uniqueDbName('retplugin') })

  it('runs a pass with the configured horizons; two instances at once: one pass', async () => {
    const a = await app(dbName, {}, { keepDatabase: true })
    const b = await app(dbName)
    await seed(a.mongo.db, eventsOver('p.x', 10))
    const results = await Promise.all([a.retention.runOnce(), b.retention.runOnce()])
    expect(results.map(r => r.status).sort()).toEqual(['done', 'lease_held'])
    // MINUTE_RETENTION_DAYS 3: minutes kept from today − 3, documents of days 5..10 downsampled
    expect(results.find(r => r.status === 'done')).toMatchObject({ metrics: 1, downsampled: 6, deleted: 0 })
    expect(await a.mongo.db.collection('daily').countDocuments({ minute: { $exists: true } })).toBe(5)
    // /metrics counts the pass of each instance and the documents changed
    const metrics = (await a.inject({ url: '/metrics' })).body + (await b.inject({ url: '/metrics' })).body
    expect(metrics).toMatch(/^statbucket_retention_passes_total\{status="done"\} 1$/m)
    expect(metrics).toMatch(/^statbucket_retention_passes_total\{status="lease_held"\} 1$/m)
    expect(metrics).toMatch(/^statbucket_retention_documents_total\{action="downsampled"\} 6$/m)
  })

  it('an old event after downsampling brings no minute field back; one inside the minute retention writes its minute', async () => {
    const a = await app(uniqueDbName('retbackfill'))
    await seed(a.mongo.db, eventsOver('p.back', 10))
    expect(await a.retention.runOnce()).toMatchObject({ status: 'done', downsampled: 6 })
    const daily = a.mongo.db.collection('daily')
    const old = TODAY - 8 * DAY
    const before = await daily.findOne({ _id: `p.back/${new Date(old).toISOString().slice(0, 10).replaceAll('-', '')}` })
    const res = await a.inject({
      method: 'POST',
      url: '/v1/events',
      payload: [
        { metric: 'p.back', value: 5, ts: old + 2 * 3_600_000 + 7 * 60_000 },
        { metric: 'p.back', value: 2, ts: TODAY - 2 * DAY + 60_000 } // inside MINUTE_RETENTION_DAYS 3
      ]
    })
    expect(res.statusCode, res.body).toBe(200)
    const after = await daily.findOne({ _id: before._id })
    expect(after.minute).toBeUndefined()
    expect(after.detail).toBe('quarterHour')
    expect(after.daily).toBe(before.daily + 5)
    expect(after.hourly[2]).toBe((before.hourly[2] ?? 0) + 5)
    const recent = await daily.findOne({ _id: `p.back/${new Date(TODAY - 2 * DAY).toISOString().slice(0, 10).replaceAll('-', '')}` })
    expect(recent.minute[0][1]).toBe(2)
  })

  it('closing the app stops a pass in progress and releases the lease', async () => {
    const own = uniqueDbName('retclose')
    const a = await app(own, { RETENTION_RATE: '1' }, { keepDatabase: true })
    await seed(a.mongo.db, eventsOver('p.slow', 30))
    const pass = a.retention.runOnce()
    const daily = a.mongo.db.collection('daily')
    for (let i = 0; i < 400 && await daily.countDocuments({ detail: 'quarterHour' }) === 0; i++) await new Promise(resolve => setTimeout(resolve, 25))
    const jobs = a.mongo.db.collection('jobs')
    expect(await jobs.findOne({ _id: 'retention' })).not.toBeNull()
    apps.splice(apps.indexOf(a), 1)
    const closing = a.close()
    const result = await pass
    expect(result.status).toBe('stopped')
    expect(result.downsampled).toBeLessThan(26)
    await closing
    // the lease was released before the client closed
    const { client, db } = await directDb(own)
    try {
      expect(await db.collection('jobs').findOne({ _id: 'retention' })).toBeNull()
    } finally {
      await db.dropDatabase().catch(() => {})
      await client.close()
    }
  })
})
