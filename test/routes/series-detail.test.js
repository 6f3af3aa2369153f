// Series follow the detail kept: quarter-hour points, a step finer than
// what is kept refused with the horizon named, day points past the daily
// horizon from the monthly documents — never zeros for data that is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { directDb, testApp } from '../helpers/test-app.js'

const DAY = 86_400_000
const NOW = Date.UTC(2026, 10, 21, 12, 0)
const TODAY = Date.UTC(2026, 10, 21)

describe('series and the detail kept (defaults: minutes 90 days, daily documents forever)', () => {
  let app
  beforeAll(async () => {
    app = await testApp('seriesdetail', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0' } })
    const events = [
      { metric: 'sd.a', value: 1, ts: TODAY + 10 * 60_000 + 5 * 60_000 }, // 00:15
      { metric: 'sd.a', value: 2, ts: TODAY + 29 * 60_000 }, // 00:29
      { metric: 'sd.a', value: 4, ts: TODAY + 60 * 60_000 + 59 * 60_000 }, // 01:59
      { metric: 'sd.a', value: 8, ts: TODAY - 100 * DAY + 7 * 60_000 } // 100 days ago, 00:07
    ]
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events })).statusCode).toBe(200)
  })
  afterAll(async () => { await app?.close() })

  const series = (query) => app.inject(`/v1/metrics/sd.a/series?${query}`)

  it('answers quarter-hour points from the quarter-hour tier', async () => {
    const res = await series(`from=${TODAY}&to=${TODAY + 2 * 3_600_000}&step=quarter-hour`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.step).toBe('quarter-hour')
    expect(body.timestamps).toEqual(Array.from({ length: 8 }, (_, i) => TODAY + i * 900_000))
    expect(body.values).toEqual([0, 3, 0, 0, 0, 0, 0, 4])
  })

  it('refuses minute points before the minute horizon, naming it and the finest usable step', async () => {
    const res = await series(`from=${TODAY - 100 * DAY}&to=${TODAY - 99 * DAY}&step=minute`)
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/^step: minute detail is kept from 2026-08-23 on .*use step=quarter-hour or coarser, or start the window at 2026-08-23 or later/)
  })

  it('picks a step kept for the whole window by default: quarter-hours for a day past the minute horizon', async () => {
    const body = (await series(`from=${TODAY - 100 * DAY}&to=${TODAY - 99 * DAY}`)).json()
    expect(body.step).toBe('quarter-hour')
    expect(body.values[0]).toBe(8)
    expect(body.values.slice(1).every(v => v === 0)).toBe(true)
    // inside the horizon the default stays the minute
    expect((await series(`from=${TODAY}&to=${TODAY + DAY}`)).json().step).toBe('minute')
  })
})

describe('day points past DAILY_RETENTION_DAYS come from the monthly documents', () => {
  let app
  const dbName = `t_dailyret_${Date.now().toString(36)}`
  beforeAll(async () => {
    app = await testApp('dailyret', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0', DAILY_RETENTION_DAYS: '401', MONGODB_DB: dbName } })
    // what retention leaves 500 days back: the monthly document, no daily documents
    const { client, db } = await directDb(dbName)
    try {
      await db.collection('monthly').insertOne({ _id: 'dr.a/202506', metric: 'dr.a', date: new Date(Date.UTC(2025, 5, 1)), monthly: 12, daily: { 3: 5, 4: 7 } })
      await db.collection('metrics').insertOne({ _id: 'dr.a', firstSeen: new Date(Date.UTC(2025, 5, 3)), lastSeen: new Date(Date.UTC(2025, 5, 4)) })
    } finally {
      await client.close()
    }
  })
  afterAll(async () => { await app?.close() })

  it('answers the days from monthly.daily.D (null where the month holds no such day), refuses finer steps', async () => {
    const from = Date.UTC(2025, 5, 2)
    const to = Date.UTC(2025, 5, 6)
    const day = await app.inject(`/v1/metrics/dr.a/series?from=${from}&to=${to}&step=day`)
    expect(day.statusCode).toBe(200)
    expect(day.json().values).toEqual([null, 5, 7, null])
    const hour = await app.inject(`/v1/metrics/dr.a/series?from=${from}&to=${to}&step=hour`)
    expect(hour.statusCode).toBe(400)
    expect(hour.json().message).toMatch(/detail finer than a day is kept from 2025-10-16 on.*use step=day/)
    expect((await app.inject(`/v1/metrics/dr.a/series?from=${from}&to=${to}`)).json().step).toBe('day')
  })
})
