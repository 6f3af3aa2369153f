// Reads of a gauge through the routes, against an independent model of the
// raw levels sent (the statistics of the events in each point's range, last
// the level of the latest (time, value)): series of every stat at every step
// in UTC and in Asia/Kathmandu (+05:45, whose hours and days start at a
// quarter past), days written without minutes included, levels sent out of
// order over several requests; and every refusal in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const DAY = 86_400_000
const QH = 900_000
const clock = manualClock(NOW)
let app
const sent = [] // { time, value } of 'pool.size'
const STATS = ['last', 'min', 'max', 'mean', 'count', 'sum']

const get = async (url) => {
  const res = await app.inject(url)
  return { status: res.statusCode, body: res.json() }
}

/** The model: the statistics of the levels in [from, to), null where none */
function model (from, to) {
  const inRange = sent.filter(e => e.time >= from && e.time < to)
  if (inRange.length === 0) return { count: 0 }
  const latest = inRange.reduce((best, e) => (e.time > best.time || (e.time === best.time && e.value > best.value) ? e : best))
  const values = inRange.map(e => e.value)
  const sum = values.reduce((a, b) => a + b, 0)
  return { count: values.length, sum, min: Math.min(...values), max: Math.max(...values), mean: sum / values.length, last: latest.value }
}

beforeAll(async () => {
  // MINUTE_RETENTION_DAYS=3: the oldest days are written without minutes (a backfill past the horizon)
  app = await testApp('gauge_reads', { clock, env: { PREALLOC_PROBABILITY: '0', MINUTE_RETENTION_DAYS: '3', MAX_AGE_DAYS: '400' } })
  const random = seededRandom(21)
  const events = []
  for (let i = 0; i < 5000; i++) {
    // whole seconds over 5 days: many minutes hold several levels, and some share a time
    const time = NOW - 5 * DAY + Math.floor(random() * 5 * DAY / 1000) * 1000
    events.push({ time, value: Math.round((random() * 200 - 40) * 4) / 4 + 0 })
  }
  // ties at the end of 50 minutes (after every whole second): equal times, different levels (the larger is the last)
  for (let i = 0; i < 50; i++) events.push({ time: NOW - DAY + i * 60_000 + 59_999, value: -7 }, { time: NOW - DAY + i * 60_000 + 59_999, value: 7 })
  // a day last month
  for (let i = 0; i < 300; i++) events.push({ time: Date.UTC(2026, 9, 15, 6) + i * 60_000, value: i % 50 })
  sent.push(...events)
  // shuffled, so that a later request often holds earlier times
  const shuffled = [...events]
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]]
  }
  for (let i = 0; i < shuffled.length; i += 700) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: shuffled.slice(i, i + 700).map(e => ({ metric: 'pool.size', kind: 'gauge', value: e.value, ts: e.time })) })
    expect(res.statusCode, res.body).toBe(200)
  }
  expect((await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'count.api', value: 2, ts: NOW - 1000 } })).statusCode).toBe(200)
  expect((await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'lat.api', kind: 'distribution', value: 2, ts: NOW - 1000 } })).statusCode).toBe(200)
})
afterAll(async () => { await app?.close() })

describe('series of a gauge\'s stats', () => {
  it.each([
    ['minute', 'UTC', NOW - 6 * 3_600_000, NOW],
    ['minute', 'Asia/Kathmandu', NOW - DAY - 3_600_000, NOW - DAY + 3_600_000],
    ['quarter-hour', 'UTC', NOW - 5 * DAY, NOW - 3 * DAY],
    ['hour', 'UTC', NOW - 5 * DAY, NOW],
    ['hour', 'Asia/Kathmandu', NOW - 5 * DAY, NOW],
    ['day', 'UTC', NOW - 6 * DAY, NOW],
    ['day', 'Asia/Kathmandu', NOW - 6 * DAY, NOW],
    ['month', 'UTC', Date.UTC(2026, 8, 1), NOW],
    ['month', 'Asia/Kathmandu', Date.UTC(2026, 9, 1), NOW]
  ])('step %s in %s: last, min, max, mean, count and sum of every point as the raw levels say', async (step, tz, from, to) => {
    const answers = {}
    for (const stat of STATS) {
      const { status, body } = await get(`/v1/metrics/pool.size/series?step=${step}&tz=${tz}&from=${from}&to=${to}&stat=${stat}`)
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.stat).toBe(stat)
      answers[stat] = body
    }
    const { timestamps } = answers.count
    let checked = 0
    timestamps.forEach((t, i) => {
      const end = timestamps[i + 1] ?? answers.count.to
      const truth = model(t, end)
      const at = `${step} at ${new Date(t).toISOString()}`
      if (answers.count.values[i] === null) {
        expect(truth.count, `no document at ${at}`).toBe(0)
        for (const s of STATS) expect(answers[s].values[i], at).toBe(null)
        return
      }
      expect(answers.count.values[i], at).toBe(truth.count)
      if (truth.count === 0) {
        expect(answers.sum.values[i]).toBe(0)
        for (const s of ['last', 'min', 'max', 'mean']) expect(answers[s].values[i], `${s} ${at}`).toBe(null)
        return
      }
      checked++
      expect(answers.last.values[i], `last ${at}`).toBe(truth.last)
      expect(answers.min.values[i], `min ${at}`).toBe(truth.min)
      expect(answers.max.values[i], `max ${at}`).toBe(truth.max)
      expect(answers.sum.values[i]).toBeCloseTo(truth.sum, 6)
      expect(answers.mean.values[i]).toBeCloseTo(truth.mean, 9)
    })
    expect(checked).toBeGreaterThan(0)
  })

  it('defaults to last; a day written without minutes answers from its quarter-hours up', async () => {
    const { body } = await get(`/v1/metrics/pool.size/series?step=hour&from=${NOW - 2 * 3_600_000}&to=${NOW}`)
    expect(body.stat).toBe('last')
    expect(body.values).toEqual([model(NOW - 2 * 3_600_000, NOW - 3_600_000).last, model(NOW - 3_600_000, NOW).last])
    const old = NOW - 5 * DAY - (NOW % DAY) + DAY // the oldest whole day sent, written without minutes
    const doc = await app.mongo.db.collection('gaugeDaily').findOne({ _id: `pool.size/${new Date(old).toISOString().slice(0, 10).replaceAll('-', '')}` })
    expect(doc.detail).toBe('quarterHour')
    expect(doc.minute).toBeUndefined()
    const minutes = await get(`/v1/metrics/pool.size/series?step=minute&from=${old}&to=${old + QH}`)
    expect(minutes.status).toBe(400)
    expect(minutes.body.message).toMatch(/step: minute detail is kept from/)
  })

  it('the ties sent (equal times, levels −7 and 7) read 7 as last', async () => {
    const from = NOW - DAY
    const { body } = await get(`/v1/metrics/pool.size/series?step=minute&from=${from}&to=${from + 50 * 60_000}`)
    body.values.forEach((v, i) => expect(v, `minute ${i}`).toBe(model(from + i * 60_000, from + (i + 1) * 60_000).last))
    expect(body.values).toEqual(Array(50).fill(7))
  })
})

describe('refusals', () => {
  it.each([
    ['/v1/metrics/pool.size/series?stat=p99', 400, /stat: metric "pool\.size" is a gauge: it keeps no histogram, so stat=p99 is a distribution's; use last, min, max, mean, count, sum/],
    ['/v1/metrics/pool.size/series?stat=median', 400, /stat "median" is not a stat.* for a gauge last, min, max, mean, count or sum/],
    ['/v1/metrics/count.api/series?stat=last', 400, /stat: metric "count\.api" is a counter: its points are sums, and stat=last is for distributions and gauges; leave stat out/],
    ['/v1/metrics/lat.api/series?stat=last', 400, /stat: metric "lat\.api" is a distribution: stat=last is a gauge's/],
    [`/v1/metrics/pool.size/total?from=${NOW - DAY}&to=${NOW}`, 400, /metric "pool\.size" is a gauge: a gauge has no total .* read …\/series\?stat=last, min, max, mean, count or sum/],
    ['/v1/metrics/pool.size/ytd', 400, /metric "pool\.size" is a gauge: a gauge has no year-to-date total/],
    [`/v1/metrics/pool.size/quantiles?from=${NOW - QH}&to=${NOW}`, 400, /metric "pool\.size" is a gauge: quantiles are kept for distributions only/],
    [`/v1/metrics/pool.size/series?step=minute&from=${NOW - 30_000}&to=${NOW}&stat=last`, 200, null]
  ])('%s → %s', async (url, status, message) => {
    const { status: got, body } = await get(url)
    expect(got, JSON.stringify(body)).toBe(status)
    if (message) expect(body.message).toMatch(message)
  })

  it('a counter and a distribution still read as before', async () => {
    expect((await get(`/v1/metrics/count.api/series?step=minute&from=${NOW - 60_000}&to=${NOW}`)).body.values).toEqual([2])
    expect((await get(`/v1/metrics/lat.api/series?step=minute&from=${NOW - 60_000}&to=${NOW}&stat=max`)).body.values).toEqual([2])
  })
})
