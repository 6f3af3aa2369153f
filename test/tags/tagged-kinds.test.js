// Reads by tag of distributions and gauges: each group's series merged point
// by point, against an independent model of the raw values — count, sum,
// min, max, mean exact; a percentile within α of the exact value at rank
// ⌊q·(n−1)⌋ of the group's values; a gauge's last the level of the latest
// event of the group — in UTC and in a zone; totals and ytd of a
// distribution summed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const HOUR = 3_600_000
const ALPHA = 0.01
let app
const latencies = []
const levels = []

beforeAll(async () => {
  app = await testApp('tagged_kinds', { clock: manualClock(NOW) })
  const random = seededRandom(11)
  const body = []
  for (let i = 0; i < 400; i++) {
    const e = { route: ['/a', '/b', '/c'][i % 3], az: ['x', 'y'][Math.floor(random() * 2)], value: Math.round(Math.exp(1 + random() * 6) * 100) / 100, time: NOW - 6 * HOUR + Math.floor(random() * 6 * HOUR) }
    latencies.push(e)
    body.push({ metric: 'k.lat', kind: 'distribution', tags: { route: e.route, az: e.az }, value: e.value, ts: e.time })
  }
  for (let i = 0; i < 200; i++) {
    // distinct times: the last level of a group is its latest event's
    const e = { pool: ['p1', 'p2'][i % 2], value: Math.floor(random() * 100), time: NOW - 6 * HOUR + i * 97_000 }
    levels.push(e)
    body.push({ metric: 'k.level', kind: 'gauge', tags: { pool: e.pool }, value: e.value, ts: e.time })
  }
  for (let i = 0; i < body.length; i += 100) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: body.slice(i, i + 100) })
    expect(res.json()).toEqual({ accepted: 100 })
  }
})
afterAll(async () => { await app?.close() })

const get = async url => { const res = await app.inject(url); return { status: res.statusCode, body: res.json() } }
const exactQuantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]

describe('a distribution read by tag', () => {
  it.each(['count', 'sum', 'min', 'max', 'p50', 'p99'])('stat=%s by=route, hour points in Asia/Kathmandu: each group the model\'s', async (stat) => {
    const from = NOW - 6 * HOUR - 45 * 60_000 // a Kathmandu hour edge (+05:45)
    const { status, body } = await get(`/v1/metrics/k.lat/series?from=${from}&to=${NOW + 15 * 60_000}&step=hour&tz=Asia/Kathmandu&stat=${stat}&by=route`)
    expect(status).toBe(200)
    expect(body.stat).toBe(stat)
    expect(body.groups.map(g => g.tags)).toEqual([{ route: '/a' }, { route: '/b' }, { route: '/c' }])
    for (const g of body.groups) {
      body.timestamps.forEach((t, i) => {
        const values = latencies.filter(e => e.route === g.tags.route && e.time >= t && e.time < t + HOUR).map(e => e.value)
        const got = g.values[i]
        if (values.length === 0) return expect(got === null || got === 0, `${stat} ${t}`).toBe(true)
        if (stat === 'count') expect(got).toBe(values.length)
        else if (stat === 'sum') expect(got).toBeCloseTo(values.reduce((n, v) => n + v, 0), 6)
        else if (stat === 'min') expect(got).toBe(Math.min(...values))
        else if (stat === 'max') expect(got).toBe(Math.max(...values))
        else {
          const exact = exactQuantile(values, stat === 'p50' ? 0.5 : 0.99)
          expect(Math.abs(got - exact) / exact, `${stat} at ${new Date(t).toISOString()}`).toBeLessThanOrEqual(ALPHA)
        }
      })
    }
  })

  it('tag=az=x: the matching series merged; total and ytd summed (count and sum)', async () => {
    const pick = e => e.az === 'x'
    const series = await get(`/v1/metrics/k.lat/series?from=${NOW - 6 * HOUR}&to=${NOW}&step=day&stat=p90&tag=az=x`)
    expect(series.body.series).toBe(3)
    const values = latencies.filter(pick).map(e => e.value)
    const day = series.body.values.find(v => v !== null)
    expect(Math.abs(day - exactQuantile(values, 0.9)) / exactQuantile(values, 0.9)).toBeLessThanOrEqual(ALPHA)
    const total = await get(`/v1/metrics/k.lat/total?from=${NOW - 7 * HOUR}&to=${NOW}&tag=az=x`)
    expect(total.body).toMatchObject({ total: values.length, count: values.length, series: 3 })
    expect(total.body.sum).toBeCloseTo(values.reduce((n, v) => n + v, 0), 6)
    const ytd = await get('/v1/metrics/k.lat/ytd?tag=az=x')
    expect(ytd.body.total).toBe(values.length)
    expect(ytd.body.sum).toBeCloseTo(values.reduce((n, v) => n + v, 0), 6)
  })
})

describe('a gauge read by tag', () => {
  it.each(['last', 'min', 'max', 'count', 'mean'])('stat=%s by=pool at quarter-hours: each group the model\'s', async (stat) => {
    const from = NOW - 6 * HOUR
    const { status, body } = await get(`/v1/metrics/k.level/series?from=${from}&to=${NOW}&step=quarter-hour&stat=${stat}&by=pool`)
    expect(status).toBe(200)
    for (const g of body.groups) {
      body.timestamps.forEach((t, i) => {
        const held = levels.filter(e => e.pool === g.tags.pool && e.time >= t && e.time < t + 15 * 60_000)
        if (held.length === 0) return expect(g.values[i] === null || (stat === 'count' && g.values[i] === 0)).toBe(true)
        const vs = held.map(e => e.value)
        const expected = { last: held.at(-1).value, min: Math.min(...vs), max: Math.max(...vs), count: vs.length, mean: vs.reduce((n, v) => n + v, 0) / vs.length }[stat]
        expect(g.values[i], `${stat} at ${new Date(t).toISOString()}`).toBeCloseTo(expected, 9)
      })
    }
  })

  it('with no by the two pools merged equal the name\'s own read; a gauge has no total', async () => {
    const window = `from=${NOW - 6 * HOUR}&to=${NOW}&step=hour&stat=last`
    const merged = await get(`/v1/metrics/k.level/series?${window}&tag=pool=~p`)
    const name = await get(`/v1/metrics/k.level/series?${window}`)
    expect(merged.body.values).toEqual(name.body.values)
    expect((await get(`/v1/metrics/k.level/total?from=${NOW - HOUR}&to=${NOW}&by=pool`)).status).toBe(400)
  })
})
