// The retention job inside the service: decorated as app.retention, run on
// the service's settings, one pass across instances, stopped on close.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../../src/clock.js'
import { seed } from '../../helpers/bucket-docs.js'
import { directDb, testApp, uniqueDbName } from '../../helpers/test-app.js'

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
