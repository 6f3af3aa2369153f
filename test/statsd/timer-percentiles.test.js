// StatsD timers sent by a real client (hot-shots over TCP) answer their
// percentiles within α = 1 % of the exact ones: over the minute they were
// sent in (from its minute histogram), over the day in Asia/Kathmandu, the
// month and the year, checked against the values sent (sort and pick the
// rank floor(q·(n−1))). (hot-shots samples client-side at a rate < 1, so the
// rates are tested with raw lines in listeners.test.js.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import StatsD from 'hot-shots'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { testApp } from '../helpers/test-app.js'
import { until } from './helpers.js'

// 12:07:30 UTC: inside a quarter-hour, so a minute is no quarter-hour's edge
const NOW = Date.UTC(2026, 10, 21, 12, 7, 30)
const MINUTE = NOW - (NOW % 60_000)
const ALPHA = 0.01
const clock = manualClock(NOW)
let app
const values = []

const get = async (url) => {
  const res = await app.inject(url)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
const rankOf = (sorted, q) => sorted[Math.floor(q * (sorted.length - 1))]
const within = (estimate, truth) => Math.abs(estimate - truth) <= ALPHA * Math.abs(truth) * (1 + 1e-9)

beforeAll(async () => {
  app = await testApp('statsd_timer_pct', { clock, statsd: true, env: { STATSD_FLUSH_INTERVAL_MS: '20', PREALLOC_PROBABILITY: '0' } })
  const client = new StatsD({ host: '127.0.0.1', port: app.statsd.port, protocol: 'tcp', maxBufferSize: 4096, bufferFlushInterval: 5 })
  const random = seededRandom(87)
  // log-normal latencies in ms to a tenth, and a tail of slow ones
  for (let i = 0; i < 3000; i++) {
    const v = Math.round(20 * Math.exp(0.6 * (random() + random() + random() - 1.5) * 2) * (i % 97 === 0 ? 15 : 1) * 10) / 10
    client.timing('api.latency', v)
    values.push(v)
  }
  await new Promise(resolve => client.close(resolve))
  await until(async () => (await app.inject(`/v1/metrics/api.latency/total?from=${MINUTE}&to=${MINUTE + 60_000}`)).json().count === values.length, `${values.length} timer values stored`)
  values.sort((a, b) => a - b)
}, 60_000)
afterAll(async () => { await app?.close() })

describe('StatsD timers (hot-shots over TCP) answer percentiles within 1 %', () => {
  it('over the minute they were sent in: series at step minute and quantiles with minute edges', async () => {
    const series = {}
    for (const stat of ['p50', 'p90', 'p99', 'count', 'min', 'max']) series[stat] = (await get(`/v1/metrics/api.latency/series?step=minute&from=${MINUTE}&to=${MINUTE + 60_000}&stat=${stat}`)).values[0]
    expect(series.count).toBe(values.length)
    expect(series.min).toBe(values[0])
    expect(series.max).toBe(values.at(-1))
    for (const [stat, q] of [['p50', 0.5], ['p90', 0.9], ['p99', 0.99]]) expect(within(series[stat], rankOf(values, q)), `${stat}: ${series[stat]} vs ${rankOf(values, q)}`).toBe(true)
    const { quantiles } = await get(`/v1/metrics/api.latency/quantiles?from=${MINUTE}&to=${MINUTE + 60_000}&q=0.5,0.9,0.99,0.999`)
    quantiles.forEach(({ q, value }) => expect(within(value, rankOf(values, q)), `q ${q}: ${value} vs ${rankOf(values, q)}`).toBe(true))
  })

  it('over the day in Asia/Kathmandu, the month and the year', async () => {
    for (const [step, tz] of [['day', 'Asia/Kathmandu'], ['month', 'UTC'], ['month', 'Asia/Kathmandu']]) {
      const from = Date.UTC(2026, 10, 1) - 6 * 3_600_000
      const body = {}
      for (const stat of ['count', 'p50', 'p99']) body[stat] = await get(`/v1/metrics/api.latency/series?step=${step}&tz=${tz}&from=${from}&to=${NOW + 86_400_000}&stat=${stat}`)
      const i = body.count.values.findIndex(n => n > 0)
      expect(body.count.values[i], `${step} ${tz}`).toBe(values.length)
      expect(within(body.p50.values[i], rankOf(values, 0.5)), `${step} ${tz} p50`).toBe(true)
      expect(within(body.p99.values[i], rankOf(values, 0.99)), `${step} ${tz} p99`).toBe(true)
    }
    const year = await get(`/v1/metrics/api.latency/quantiles?from=${Date.UTC(2026, 0, 1)}&to=${Date.UTC(2027, 0, 1)}&q=0.5,0.99`)
    expect(year.count).toBe(values.length)
    expect(year.documents).toBeLessThanOrEqual(1)
    year.quantiles.forEach(({ q, value }) => expect(within(value, rankOf(values, q)), `year q ${q}`).toBe(true))
  })
})
