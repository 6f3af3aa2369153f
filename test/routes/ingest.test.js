// Ingest through app.inject against a real server: exact documents, series
// equal to an independent sum of the events, ytd, concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const clock = manualClock(NOW)
let app

beforeAll(async () => {
  app = await testApp('ingest', { clock, env: { PREALLOC_PROBABILITY: '0' } })
})
afterAll(async () => { await app?.close() })

const post = body => app.inject({ method: 'POST', url: '/v1/events', payload: body })
const get = url => app.inject({ method: 'GET', url })
const collection = name => app.mongo.db.collection(name)

describe('POST /v1/events', () => {
  it('writes exact daily and monthly documents for an out-of-order batch across a month boundary', async () => {
    const res = await post([
      { metric: 'mb.x', value: 5, ts: '2026-11-01T00:00:30Z' },
      { metric: 'mb.x', value: 2, ts: '2026-10-31T23:59:10Z' },
      { metric: 'mb.x', ts: Date.UTC(2026, 9, 31, 23, 59, 50) },
      { metric: 'mb.x', value: -1, ts: '2026-11-01T01:00:00+01:00' }, // = Nov 1 00:00Z
      { metric: 'mb.x', value: 0.5, ts: '2026-10-31T10:07:00Z' }
    ])
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ accepted: 5 })

    expect(await collection('daily').find({ metric: 'mb.x' }).sort({ _id: 1 }).toArray()).toEqual([
      {
        _id: 'mb.x/20261031',
        metric: 'mb.x',
        date: new Date('2026-10-31T00:00:00Z'),
        daily: 3.5,
        hourly: { 10: 0.5, 23: 3 },
        quarterHourly: { 10: { 0: 0.5 }, 23: { 3: 3 } },
        minute: { 10: { 7: 0.5 }, 23: { 59: 3 } }
      },
      {
        _id: 'mb.x/20261101',
        metric: 'mb.x',
        date: new Date('2026-11-01T00:00:00Z'),
        daily: 4,
        hourly: { 0: 4 },
        quarterHourly: { 0: { 0: 4 } },
        minute: { 0: { 0: 4 } }
      }
    ])
    expect(await collection('monthly').find({ metric: 'mb.x' }).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'mb.x/202610', metric: 'mb.x', date: new Date('2026-10-01T00:00:00Z'), monthly: 3.5, daily: { 31: 3.5 } },
      { _id: 'mb.x/202611', metric: 'mb.x', date: new Date('2026-11-01T00:00:00Z'), monthly: 4, daily: { 1: 4 } }
    ])
    const registry = await collection('metrics').findOne({ _id: 'mb.x' })
    expect(registry).toEqual({
      _id: 'mb.x',
      firstSeen: new Date('2026-10-31T10:07:00Z'),
      lastSeen: new Date('2026-11-01T00:00:30Z'),
      added: new Date(NOW),
      lastWrite: new Date(NOW) // once, for a 0.1.0 instance's look
    })
  })

  it('writes no minute detail for a day past MINUTE_RETENTION_DAYS (90), every other tier as before, and marks that day\'s minutes as not holding every event', async () => {
    const old = NOW - 91 * 86_400_000 // Aug 22, 12:00
    const kept = NOW - 90 * 86_400_000 // Aug 23, 12:00: the oldest day still kept
    expect((await post([{ metric: 'mr.x', value: 2, ts: old + 61_000 }, { metric: 'mr.x', value: 3, ts: kept }])).statusCode).toBe(200)
    const docs = await collection('daily').find({ metric: 'mr.x' }, { projection: { metric: 0, date: 0 } }).sort({ _id: 1 }).toArray()
    expect(docs).toEqual([
      { _id: 'mr.x/20260822', daily: 2, hourly: { 12: 2 }, quarterHourly: { 12: { 0: 2 } }, detail: 'quarterHour' },
      { _id: 'mr.x/20260823', daily: 3, hourly: { 12: 3 }, quarterHourly: { 12: { 0: 3 } }, minute: { 12: { 0: 3 } } }
    ])
    expect(await collection('monthly').findOne({ _id: 'mr.x/202608' })).toMatchObject({ monthly: 5, daily: { 22: 2, 23: 3 } })
  })

  it('accepts a single event and defaults ts to the time of receipt and value to 1', async () => {
    expect((await post({ metric: 'single' })).json()).toEqual({ accepted: 1 })
    const doc = await collection('daily').findOne({ _id: 'single/20261121' })
    expect(doc).toMatchObject({ daily: 1, hourly: { 12: 1 }, minute: { 12: { 0: 1 } } })
  })

  it('gives exact totals for 50 parallel requests over the same documents', async () => {
    const requests = Array.from({ length: 50 }, (_, i) => post(
      Array.from({ length: 20 }, (_, j) => ({
        metric: `conc.${j % 3}`,
        value: i + 1,
        ts: Date.UTC(2026, 10, 20 + (j % 2), 8, j % 5)
      }))
    ))
    const answers = await Promise.all(requests)
    expect(answers.map(r => r.statusCode)).toEqual(new Array(50).fill(200))
    const sumValues = (50 * 51) / 2 // Σ (i + 1)
    // each request sends, per metric, 7 or 6 events (j % 3), split over two days and 5 minutes
    const perMetric = [0, 1, 2].map(m => Array.from({ length: 20 }, (_, j) => j).filter(j => j % 3 === m).length * sumValues)
    for (const m of [0, 1, 2]) {
      const docs = await collection('daily').find({ metric: `conc.${m}` }).toArray()
      expect(docs.reduce((s, d) => s + d.daily, 0)).toBe(perMetric[m])
      const month = await collection('monthly').findOne({ _id: `conc.${m}/202611` })
      expect(month.monthly).toBe(perMetric[m])
      expect(month.daily[20] + month.daily[21]).toBe(perMetric[m])
    }
  })
})

// An independent reference: sums by plain arithmetic on epoch ms.
function referenceSum (events, start, end, stepMs) {
  const points = []
  for (let t = start; t < end; t += stepMs) {
    points.push(events.filter(e => e.ts >= t && e.ts < t + stepMs).reduce((s, e) => s + e.value, 0))
  }
  return points
}

describe('queries', () => {
  // 300 events over Nov 2..5 2026 for 'q.rand' (seeded, integers)
  const events = []
  let seed = 42
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
  for (let i = 0; i < 300; i++) {
    events.push({ metric: 'q.rand', value: Math.floor(rand() * 100) - 10, ts: Date.UTC(2026, 10, 2) + Math.floor(rand() * 4 * 86400_000) })
  }

  beforeAll(async () => {
    for (let i = 0; i < events.length; i += 100) {
      expect((await post(events.slice(i, i + 100))).statusCode).toBe(200)
    }
    // and one in another month, for the monthly step and ytd
    expect((await post({ metric: 'q.rand', value: 1000, ts: '2026-09-15T00:00:00Z' })).statusCode).toBe(200)
  })

  it('minute step over a day equals the sum of the events, null-free where the day exists', async () => {
    const from = Date.UTC(2026, 10, 3)
    const to = Date.UTC(2026, 10, 4)
    const body = (await get(`/v1/metrics/q.rand/series?from=${from}&to=${to}&step=minute`)).json()
    expect(body).toMatchObject({ metric: 'q.rand', step: 'minute', from, to })
    expect(body.timestamps).toHaveLength(1440)
    expect(body.values).toEqual(referenceSum(events, from, to, 60_000))
  })

  it('hour step over six days has null for days without a document', async () => {
    const from = Date.UTC(2026, 10, 1)
    const to = Date.UTC(2026, 10, 7)
    const body = (await get(`/v1/metrics/q.rand/series?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&step=hour`)).json()
    const expected = referenceSum(events, from, to, 3600_000).map((v, i) => (i < 24 || i >= 5 * 24 ? null : v))
    expect(body.values).toEqual(expected)
  })

  it('day step and month step equal the sums', async () => {
    const from = Date.UTC(2026, 10, 1)
    const to = Date.UTC(2026, 10, 8)
    const days = (await get(`/v1/metrics/q.rand/series?from=${from}&to=${to}&step=day`)).json()
    expect(days.values).toEqual(referenceSum(events, from, to, 86400_000).map((v, i) => (i === 0 || i > 4 ? null : v)))
    const months = (await get(`/v1/metrics/q.rand/series?from=${Date.UTC(2026, 7, 1)}&to=${Date.UTC(2026, 11, 1)}&step=month`)).json()
    const november = events.reduce((s, e) => s + e.value, 0)
    expect(months.timestamps).toEqual([Date.UTC(2026, 7, 1), Date.UTC(2026, 8, 1), Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1)])
    expect(months.values).toEqual([null, 1000, null, november])
  })

  it('rounds from down and to up to the step, and picks a default step', async () => {
    const body = (await get('/v1/metrics/q.rand/series?from=2026-11-03T10:15:30Z&to=2026-11-03T12:00:01Z')).json()
    expect(body.step).toBe('minute')
    expect(body.from).toBe(Date.UTC(2026, 10, 3, 10, 15))
    expect(body.to).toBe(Date.UTC(2026, 10, 3, 12, 1))
    expect(body.timestamps).toHaveLength(106)
    const month = (await get(`/v1/metrics/q.rand/series?from=${Date.UTC(2026, 0, 1)}&to=${Date.UTC(2026, 11, 1)}`)).json()
    expect(month.step).toBe('hour')
  })

  it('defaults to the last 24 hours', async () => {
    const body = (await get('/v1/metrics/q.rand/series')).json()
    expect(body).toMatchObject({ step: 'minute', from: NOW - 86400_000, to: NOW })
  })

  it('answers ytd from the monthly documents', async () => {
    const november = events.reduce((s, e) => s + e.value, 0)
    const body = (await get('/v1/metrics/q.rand/ytd?year=2026')).json()
    expect(body.asOf).toBe(NOW)
    expect(body.total).toBe(1000 + november)
    expect(body.months).toHaveLength(11)
    expect(body.months[8]).toEqual({ month: '2026-09', total: 1000 })
    expect(body.months[9]).toEqual({ month: '2026-10', total: null })
    const early = (await get('/v1/metrics/q.rand/ytd?asOf=2026-11-03T23:00:00Z')).json()
    const upToThird = events.filter(e => e.ts < Date.UTC(2026, 10, 4)).reduce((s, e) => s + e.value, 0)
    expect(early.total).toBe(1000 + upToThird)
    const past = (await get('/v1/metrics/q.rand/ytd?year=2025')).json()
    expect(past).toMatchObject({ year: 2025, asOf: Date.UTC(2026, 0, 1) - 1, total: 0 })
    expect(past.months).toHaveLength(12)
  })

  it('lists metrics sorted, by prefix, and paged', async () => {
    // its own names, written in an order that is not the sorted one
    for (const metric of ['list.c', 'list.a', 'listx', 'list.b']) expect((await post({ metric, ts: NOW - 60_000 })).statusCode).toBe(200)
    const all = (await get('/v1/metrics')).json()
    const names = all.metrics.map(m => m.name)
    expect(names).toEqual([...names].sort())
    expect(names).toEqual(expect.arrayContaining(['list.a', 'list.b', 'list.c', 'listx']))
    const byPrefix = (await get('/v1/metrics?prefix=list.')).json()
    expect(byPrefix.metrics.map(m => m.name)).toEqual(['list.a', 'list.b', 'list.c'])
    const page1 = (await get('/v1/metrics?prefix=list.&limit=2')).json()
    expect(page1).toMatchObject({ next: 'list.b' })
    const page2 = (await get(`/v1/metrics?prefix=list.&limit=2&after=${page1.next}`)).json()
    expect(page2).toEqual({ metrics: [expect.objectContaining({ name: 'list.c' })], next: null })
    expect(byPrefix.metrics[0]).toEqual({ name: 'list.a', kind: 'counter', firstSeen: new Date(NOW - 60_000).toISOString(), lastSeen: new Date(NOW - 60_000).toISOString() })
  })

  it('answers 404 for an unknown metric', async () => {
    for (const url of ['/v1/metrics/nope/series', '/v1/metrics/nope/ytd']) {
      const res = await get(url)
      expect(res.statusCode).toBe(404)
      expect(res.json().message).toMatch(/nope/)
    }
  })
})
