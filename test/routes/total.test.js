// GET /v1/metrics/:metric/total: exact sums over any range, from the fewest
// documents, with edges refused where they fall inside the detail kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const DAY = 86_400_000
let app
// seeded events over the last 380 days (MAX_AGE_DAYS 400): integers, some negative
const events = []
let seed = 7
const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
for (let i = 0; i < 600; i++) events.push({ metric: 'tot.a', value: Math.floor(rand() * 50) - 5, ts: NOW - Math.floor(rand() * 380 * DAY) })

beforeAll(async () => {
  app = await testApp('total', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0' } })
  for (let i = 0; i < events.length; i += 200) {
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 200) })).statusCode).toBe(200)
  }
})
afterAll(async () => { await app?.close() })

const total = (query) => app.inject(`/v1/metrics/tot.a/total?${query}`)
const sumOf = (from, to) => events.filter(e => e.ts >= from && e.ts < to).reduce((s, e) => s + e.value, 0)

describe('GET /v1/metrics/:metric/total', () => {
  it('sums a one-year range exactly from at most 14 documents', async () => {
    const from = Date.UTC(2025, 10, 21, 12, 0)
    const res = await total(`from=${from}&to=${NOW}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ metric: 'tot.a', from, to: NOW, total: sumOf(from, NOW) })
    expect(body.documents).toBeLessThanOrEqual(15) // 13 monthly documents (Nov 2025 … Nov 2026) and the two edge days' daily ones
    expect(body.documents).toBeGreaterThan(0)
  })

  it('sums ranges with minute, quarter-hour, hour, day and month edges', async () => {
    const cases = [
      [Date.UTC(2026, 9, 3, 7, 13), Date.UTC(2026, 10, 20, 23, 59)],
      [Date.UTC(2026, 10, 1), Date.UTC(2026, 10, 2)],
      [Date.UTC(2026, 5, 30, 23, 45), Date.UTC(2026, 6, 1, 0, 15)],
      [Date.UTC(2026, 0, 1), Date.UTC(2026, 10, 1)]
    ]
    for (const [from, to] of cases) {
      const body = (await total(`from=${new Date(from).toISOString()}&to=${to}`)).json()
      expect(body.total, `${new Date(from).toISOString()}..${new Date(to).toISOString()}`).toBe(sumOf(from, to))
    }
  })

  it('refuses an edge inside a quarter-hour past the minute retention, naming the nearest usable edges', async () => {
    const from = Date.UTC(2026, 5, 10, 10, 7) // > 90 days back: quarter-hours only
    const res = await total(`from=${from}&to=${NOW}`)
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toBe('from: 2026-06-10T10:07:00.000Z falls inside a quarter-hour slot, the finest detail kept there (minute detail is kept from 2026-08-23 on); the nearest usable edges are 2026-06-10T10:00:00.000Z and 2026-06-10T10:15:00.000Z')
    expect((await total(`from=${Date.UTC(2026, 5, 10, 10, 0)}&to=${NOW}`)).statusCode).toBe(200)
  })

  it('asks for both edges in order, and a known metric', async () => {
    expect((await total(`from=${NOW}`)).statusCode).toBe(400)
    expect((await total(`from=${NOW}&to=${NOW - 60_000}`)).json().message).toMatch(/from: must be before to/)
    const res = await app.inject(`/v1/metrics/nope/total?from=${NOW - DAY}&to=${NOW}`)
    expect(res.statusCode).toBe(404)
  })
})
