// A percentile merges only the tiers that keep a histogram in every stored
// shape: quarter-hours for whole hours, the days of a month for a whole
// month, minutes where their histograms are kept — never `hourly.H`, the
// day document's `daily` or `monthly`
// (docs/adr/0087-histograms-at-the-finest-tiers.md). The same values are
// written to two metrics; one has its coarse tiers' histograms removed (the
// shape a later writer stores: count, sum, min and max there only), and
// every read of a percentile, a mean and a count answers the same for both,
// through the routes and Graphite, in UTC and in a zone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { serverLacks } from '../helpers/server-gaps.js'
import { directDb, testApp } from '../helpers/test-app.js'

// skipped whole where the server lacks it (test/helpers/server-gaps.js)
const LACKING = serverLacks('wide updates', 'test/reader/histogram-tiers.test.js')

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const DAY = 86_400_000
const HOUR = 3_600_000
const clock = manualClock(NOW)
const FIRST = Date.UTC(2026, 8, 24, 7, 0) // from late September, over the whole of October, to now
const HISTOGRAM = ['zero', 'positive', 'negative']
let app
let direct

const get = async (url) => {
  const res = await app.inject(url)
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
  return res.json()
}

beforeAll(async () => {
  if (LACKING) return
  app = await testApp('hist_tiers', { clock, env: { PREALLOC_PROBABILITY: '0', MAX_AGE_DAYS: '400' } })
  const random = seededRandom(87)
  const events = []
  for (let i = 0; i < 4000; i++) {
    // most values in the last days (minutes kept), some in every day since FIRST
    const time = i % 2 === 0 ? NOW - Math.floor(random() * 3 * DAY) : FIRST + Math.floor(random() * (NOW - FIRST))
    events.push({ time, value: Math.round(Math.exp(3 + 1.5 * (random() + random() - 1)) * 1000) / 1000 })
  }
  for (const metric of ['lat.full', 'lat.lean']) {
    for (let i = 0; i < events.length; i += 1000) {
      const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 1000).map(e => ({ metric, kind: 'distribution', value: e.value, ts: e.time })) })
      expect(res.statusCode, res.body).toBe(200)
    }
  }
  direct = await directDb(app.config.mongodbDb)
  // lat.lean: its day, hour and month tiers without their histograms, as a document written without them
  const dayFields = ['daily', ...Array.from({ length: 24 }, (_, h) => `hourly.${h}`)]
  const unset = (tiers) => Object.fromEntries(tiers.flatMap(t => HISTOGRAM.map(f => [`${t}.${f}`, ''])))
  await direct.db.collection('distributionDaily').updateMany({ metric: 'lat.lean' }, { $unset: unset(dayFields) })
  await direct.db.collection('distributionMonthly').updateMany({ metric: 'lat.lean' }, { $unset: unset(['monthly']) })
}, 120_000)
afterAll(async () => {
  await direct?.client.close()
  await app?.close()
})

describe.skipIf(LACKING)('percentiles from the tiers that keep a histogram in every shape', () => {
  it('the lean documents lack the coarse tiers\' histograms, and keep the finer ones', async () => {
    const day = await direct.db.collection('distributionDaily').findOne({ metric: 'lat.lean', 'hourly.12': { $exists: true } })
    expect(day.hourly['12'].count).toBeGreaterThan(0)
    expect(day.hourly['12'].positive).toBeUndefined()
    expect(day.daily.positive).toBeUndefined()
    expect(Object.keys(day.quarterHourly['12']).some(q => day.quarterHourly['12'][q].positive !== undefined)).toBe(true)
    const october = await direct.db.collection('distributionMonthly').findOne({ metric: 'lat.lean', date: new Date(Date.UTC(2026, 9, 1)) })
    expect(october.monthly.count).toBeGreaterThan(0)
    expect(october.monthly.positive).toBeUndefined()
    expect(october.daily['15'].positive).toBeDefined()
  })

  const series = [
    ['hours of the last two days', `from=${NOW - 2 * DAY}&to=${NOW}&step=hour`],
    ['quarter-hours and minutes of the last hours', `from=${NOW - 3 * HOUR}&to=${NOW}&step=minute`],
    ['days since September', `from=${FIRST - 7 * HOUR}&to=${NOW + 12 * HOUR}&step=day`],
    ['months', `from=${Date.UTC(2026, 8, 1)}&to=${Date.UTC(2026, 11, 1)}&step=month`],
    ['local days in Kathmandu', `from=${NOW - 20 * DAY}&to=${NOW}&step=day&tz=Asia/Kathmandu`],
    ['local hours in Kathmandu', `from=${NOW - 2 * DAY}&to=${NOW}&step=hour&tz=Asia/Kathmandu`]
  ]
  for (const [what, query] of series) {
    it(`series: ${what}, every stat the same`, async () => {
      let answered = 0
      for (const stat of ['p0', 'p50', 'p99', 'p100', 'mean', 'count', 'min', 'max']) {
        const full = await get(`/v1/metrics/lat.full/series?${query}&stat=${stat}`)
        const lean = await get(`/v1/metrics/lat.lean/series?${query}&stat=${stat}`)
        expect(lean.timestamps, `${what} ${stat}`).toEqual(full.timestamps)
        expect(lean.values, `${what} ${stat}`).toEqual(full.values)
        answered += full.values.filter(v => v !== null && v > 0).length
      }
      expect(answered).toBeGreaterThan(0)
    })
  }

  const ranges = [
    ['a whole month', Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1)],
    ['months, days, hours and quarter-hours', Date.UTC(2026, 8, 29, 5, 15), Date.UTC(2026, 10, 3, 17, 45)],
    ['whole hours of a day', Date.UTC(2026, 10, 20, 3), Date.UTC(2026, 10, 20, 22)],
    ['the last hours to a minute', NOW - 5 * HOUR - 15 * 60_000, NOW - 7 * 60_000]
  ]
  for (const [what, from, to] of ranges) {
    it(`quantiles over ${what}`, async () => {
      const query = `from=${from}&to=${to}&q=0,0.25,0.5,0.9,0.99,1`
      const full = await get(`/v1/metrics/lat.full/quantiles?${query}`)
      const lean = await get(`/v1/metrics/lat.lean/quantiles?${query}`)
      expect(full.count).toBeGreaterThan(0)
      expect({ ...lean, metric: 'lat.full' }).toEqual(full)
    })
  }

  it('Graphite: a week of p99 and p50 at its native hour, and consolidated past maxDataPoints', async () => {
    for (const extra of ['', '&maxDataPoints=20']) {
      const render = async (metric) => {
        const res = await app.inject(`/render?target=${metric}.p99&target=${metric}.p50&from=-7d&until=now&format=json${extra}`)
        expect(res.statusCode, res.body).toBe(200)
        return res.json().map(s => s.datapoints)
      }
      const full = await render('lat.full')
      expect(full.flat().filter(([v]) => v !== null).length).toBeGreaterThan(0)
      expect(await render('lat.lean')).toEqual(full)
    }
  })
})
