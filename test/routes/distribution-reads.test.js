// Reads of a distribution through the routes, against exact statistics of
// the raw values sent (an independent model: sort and pick the rank): series
// of every stat at every step in UTC and in Asia/Kathmandu, quantiles over
// any quarter-hour range, total and ytd; and every refusal in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { writeDistributions } from '../helpers/distribution-writes.js'
import { serverLacks } from '../helpers/server-gaps.js'
import { testApp } from '../helpers/test-app.js'

// skipped whole where the server lacks it (test/helpers/server-gaps.js)
const LACKING = serverLacks('wide updates', 'test/routes/distribution-reads.test.js')

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const DAY = 86_400_000
const QH = 900_000
const clock = manualClock(NOW)
const ALPHA = 0.01
let app
const sent = [] // { time, value } of 'lat.api'

const get = async (url) => {
  const res = await app.inject(url)
  return { status: res.statusCode, body: res.json() }
}

// the exact statistics of the values in [from, to): what the histogram approximates
function exact (from, to) {
  const values = sent.filter(e => e.time >= from && e.time < to).map(e => e.value).sort((a, b) => a - b)
  const n = values.length
  const rank = (q) => values[Math.floor(q * (n - 1))]
  return { n, values, rank, sum: values.reduce((a, b) => a + b, 0) }
}

const within = (estimate, truth) => Math.abs(estimate - truth) <= ALPHA * Math.abs(truth) + 1e-9

beforeAll(async () => {
  // MINUTE_RETENTION_DAYS=3: the oldest days are written without minutes (a backfill past the horizon)
  app = await testApp('dist_reads', { clock, env: { PREALLOC_PROBABILITY: '0', MINUTE_RETENTION_DAYS: '3', MAX_AGE_DAYS: '400' } })
  const random = seededRandom(20)
  const events = []
  // 5 days back to now, log-normal latencies, more at some hours; and a day in last month
  for (let i = 0; i < 6000; i++) {
    const time = NOW - 5 * DAY + Math.floor(random() * 5 * DAY)
    const value = Math.round(Math.exp(3 + 1.2 * (random() + random() + random() - 1.5)) * 1000) / 1000
    events.push({ time, value })
  }
  for (let i = 0; i < 300; i++) events.push({ time: Date.UTC(2026, 9, 15, 6) + i * 60_000, value: 1 + (i % 50) })
  sent.push(...events)
  for (let i = 0; i < events.length; i += 1000) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 1000).map(e => ({ metric: 'lat.api', kind: 'distribution', value: e.value, ts: e.time })) })
    expect(res.statusCode, res.body).toBe(200)
  }
  expect((await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'count.api', value: 2, ts: NOW - 1000 } })).statusCode).toBe(200)
})
afterAll(async () => { await app?.close() })

describe.skipIf(LACKING)('series of a distribution\'s stats', () => {
  it.each([
    ['minute', 'UTC', NOW - 3 * 3_600_000, NOW],
    ['quarter-hour', 'UTC', NOW - DAY, NOW],
    ['hour', 'UTC', NOW - 5 * DAY, NOW],
    ['hour', 'Asia/Kathmandu', NOW - 2 * DAY, NOW],
    ['day', 'UTC', NOW - 6 * DAY, NOW],
    ['day', 'Asia/Kathmandu', NOW - 6 * DAY, NOW],
    ['month', 'UTC', Date.UTC(2026, 9, 1), NOW]
  ])('step %s in %s: count, sum, min, max exact; mean exact; p50, p90, p99, p999 within 1 %% of the exact ranks', async (step, tz, from, to) => {
    const answers = {}
    for (const stat of ['count', 'sum', 'min', 'max', 'mean', 'p50', 'p90', 'p99', 'p999']) {
      const { status, body } = await get(`/v1/metrics/lat.api/series?step=${step}&tz=${tz}&from=${from}&to=${to}&stat=${stat}`)
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.stat).toBe(stat)
      answers[stat] = body
    }
    const { timestamps } = answers.count
    let checked = 0
    timestamps.forEach((t, i) => {
      const end = timestamps[i + 1] ?? answers.count.to
      const truth = exact(t, end)
      if (answers.count.values[i] === null) {
        expect(truth.n, `no document at ${new Date(t).toISOString()}`).toBe(0)
        return
      }
      expect(answers.count.values[i]).toBe(truth.n)
      expect(answers.sum.values[i]).toBeCloseTo(truth.sum, 6)
      if (truth.n === 0) {
        for (const s of ['min', 'max', 'mean', 'p50', 'p99']) expect(answers[s].values[i]).toBe(null)
        return
      }
      checked++
      expect(answers.min.values[i]).toBe(truth.values[0])
      expect(answers.max.values[i]).toBe(truth.values[truth.n - 1])
      expect(answers.mean.values[i]).toBeCloseTo(truth.sum / truth.n, 6)
      for (const [stat, q] of [['p50', 0.5], ['p90', 0.9], ['p99', 0.99], ['p999', 0.999]]) {
        expect(within(answers[stat].values[i], truth.rank(q)), `${stat} at ${new Date(t).toISOString()}: ${answers[stat].values[i]} vs ${truth.rank(q)}`).toBe(true)
      }
    })
    expect(checked).toBeGreaterThan(0)
  })

  it('percentiles of days written without minutes (past MINUTE_RETENTION_DAYS) come from their quarter-hours', async () => {
    const from = NOW - 5 * DAY - (NOW % DAY) + DAY // the oldest whole day sent, written without minutes
    const doc = await app.mongo.db.collection('distributionDaily').findOne({ date: new Date(from) })
    expect(doc.detail).toBe('quarterHour')
    expect(doc.minute).toBeUndefined()
    const { status, body } = await get(`/v1/metrics/lat.api/quantiles?from=${from + 7 * QH}&to=${from + DAY - 3 * QH}&q=0.5,0.99`)
    expect(status, JSON.stringify(body)).toBe(200)
    const truth = exact(from + 7 * QH, from + DAY - 3 * QH)
    expect(body.count).toBe(truth.n)
    expect(within(body.quantiles[0].value, truth.rank(0.5))).toBe(true)
    expect(within(body.quantiles[1].value, truth.rank(0.99))).toBe(true)
  })

  it('a busy minute: its percentiles from its own histogram, over a series at step minute and over quantiles with minute edges, within 1 %', async () => {
    const minute = NOW - 10 * 60_000 + 60_000 * 3 // 12:03 UTC: inside a quarter-hour
    const random = seededRandom(7)
    const values = Array.from({ length: 800 }, () => Math.round(Math.exp(2 + 1.5 * (random() + random() - 1)) * 100) / 100)
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: values.map((value, i) => ({ metric: 'busy.lat', kind: 'distribution', value, ts: minute + (i % 60_000) })) })
    expect(res.statusCode, res.body).toBe(200)
    const sorted = values.slice().sort((a, b) => a - b)
    const rank = (q) => sorted[Math.floor(q * (sorted.length - 1))]
    for (const stat of ['p50', 'p90', 'p99', 'p999']) {
      const { status, body } = await get(`/v1/metrics/busy.lat/series?step=minute&from=${minute - 60_000}&to=${minute + 120_000}&stat=${stat}`)
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.values[0]).toBe(null) // the minute before: written in the day, nothing in it
      expect(body.values[2]).toBe(null)
      const q = { p50: 0.5, p90: 0.9, p99: 0.99, p999: 0.999 }[stat]
      expect(within(body.values[1], rank(q)), `${stat}: ${body.values[1]} vs ${rank(q)}`).toBe(true)
    }
    const { status, body } = await get(`/v1/metrics/busy.lat/quantiles?from=${minute}&to=${minute + 60_000}&q=0,0.5,0.99,1`)
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.count).toBe(800)
    expect(body.quantiles.map(x => x.value)).toEqual([sorted[0], expect.any(Number), expect.any(Number), sorted.at(-1)])
    expect(within(body.quantiles[1].value, rank(0.5))).toBe(true)
    expect(within(body.quantiles[2].value, rank(0.99))).toBe(true)
    // the minute among whole quarter-hours: 12:03..13:00 merges three minute histograms' worth of pieces with quarter-hours
    const wide = await get(`/v1/metrics/lat.api/quantiles?from=${NOW - DAY + 7 * 60_000}&to=${NOW - 2 * 60_000}&q=0.5,0.99`)
    expect(wide.status, JSON.stringify(wide.body)).toBe(200)
    const truth = exact(NOW - DAY + 7 * 60_000, NOW - 2 * 60_000)
    expect(wide.body.count).toBe(truth.n)
    expect(within(wide.body.quantiles[0].value, truth.rank(0.5))).toBe(true)
    expect(within(wide.body.quantiles[1].value, truth.rank(0.99))).toBe(true)
  })

  it('defaults to count; minutes answer count, sum, mean, min and max where kept', async () => {
    const from = NOW - 2 * 3_600_000
    const { body } = await get(`/v1/metrics/lat.api/series?step=minute&from=${from}&to=${NOW}`)
    expect(body.stat).toBe('count')
    expect(body.values.reduce((a, b) => a + (b ?? 0), 0)).toBe(exact(from, NOW).n)
    const max = await get(`/v1/metrics/lat.api/series?step=minute&from=${from}&to=${NOW}&stat=max`)
    expect(max.status).toBe(200)
    expect(Math.max(...max.body.values.filter(v => v !== null))).toBe(exact(from, NOW).values.at(-1))
  })
})

describe.skipIf(LACKING)('quantiles, total and ytd of a distribution', () => {
  it('answers any quantiles over ranges of quarter-hours, days and months within 1 % of the exact ones', async () => {
    const ranges = [
      [NOW - DAY + 5 * QH, NOW - 2 * QH],
      [NOW - 4 * DAY - 3 * QH, NOW],
      [Date.UTC(2026, 9, 1), NOW],
      [Date.UTC(2026, 9, 15, 6, 15), Date.UTC(2026, 9, 15, 9, 0)]
    ]
    const qs = [0, 0.001, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1]
    for (const [from, to] of ranges) {
      const { status, body } = await get(`/v1/metrics/lat.api/quantiles?from=${from}&to=${to}&q=${qs.join(',')}`)
      expect(status, JSON.stringify(body)).toBe(200)
      const truth = exact(from, to)
      expect(body.count).toBe(truth.n)
      expect(body.sum).toBeCloseTo(truth.sum, 6)
      expect(body.min).toBe(truth.values[0])
      expect(body.max).toBe(truth.values[truth.n - 1])
      expect(body.accuracy).toBe(ALPHA)
      body.quantiles.forEach(({ q, value }, i) => {
        expect(q).toBe(qs[i])
        expect(within(value, truth.rank(q)), `q ${q} over ${new Date(from).toISOString()}..: ${value} vs ${truth.rank(q)}`).toBe(true)
      })
    }
    // a month and a year read few documents
    const year = await get(`/v1/metrics/lat.api/quantiles?from=${Date.UTC(2026, 0, 1)}&to=${Date.UTC(2026, 10, 21)}`)
    expect(year.body.documents).toBeLessThanOrEqual(2)
  })

  it('quantiles default to the last 24 hours, rounded out to quarter-hours, as series do to their step', async () => {
    const q = 'q=0,0.5,0.99,1'
    const check = async (query, from, to) => {
      const { status, body } = await get(`/v1/metrics/lat.api/quantiles?${query}${query && '&'}${q}`)
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body).toMatchObject({ from, to, count: exact(from, to).n })
      expect(body.quantiles[3].value).toBe(exact(from, to).values.at(-1))
    }
    clock.set(NOW - 7 * 60_000 - 12_500) // 11:52:47.5
    try {
      await check('', NOW - DAY, NOW)
      await check(`from=${NOW - 2 * DAY - 60_000}`, NOW - 2 * DAY - 60_000, NOW)
      await check(`to=${NOW - 3 * QH}`, NOW - 3 * QH - DAY, NOW - 3 * QH)
    } finally {
      clock.set(NOW)
    }
    await check('', NOW - DAY, NOW) // on a quarter-hour: the 24 hours before it
  })

  it('total is the count with the sum beside it; ytd gives each month\'s count and sum', async () => {
    const from = NOW - 3 * DAY
    const total = await get(`/v1/metrics/lat.api/total?from=${from}&to=${NOW}`)
    expect(total.status).toBe(200)
    const truth = exact(from, NOW)
    expect(total.body).toMatchObject({ total: truth.n, count: truth.n })
    expect(total.body.sum).toBeCloseTo(truth.sum, 6)
    const ytd = await get('/v1/metrics/lat.api/ytd?tz=Asia/Kathmandu')
    expect(ytd.status, JSON.stringify(ytd.body)).toBe(200)
    expect(ytd.body.total).toBe(sent.length)
    expect(ytd.body.sum).toBeCloseTo(sent.reduce((a, e) => a + e.value, 0), 6)
    expect(ytd.body.months.at(-2)).toEqual({ month: '2026-10', total: 300, count: 300, sum: 300 * 25.5 - 0 })
    expect(ytd.body.months[0]).toEqual({ month: '2026-01', total: null, count: null, sum: null })
  })
})

describe.skipIf(LACKING)('refusals', () => {
  it.each([
    ['/v1/metrics/lat.api/series?stat=p1000', 400, /stat: stat "p1000" is not a stat/],
    ['/v1/metrics/lat.api/series?stat=median', 400, /use count, sum, mean, min, max, or a percentile/],
    ['/v1/metrics/count.api/series?stat=p99', 400, /stat: metric "count\.api" is a counter: its points are sums, and stat=p99 is for distributions/],
    [`/v1/metrics/count.api/quantiles?from=${NOW - QH}&to=${NOW}`, 400, /metric "count\.api" is a counter: quantiles are kept for distributions only/],
    // past MINUTE_RETENTION_DAYS a minute edge is refused, as for a counter
    [`/v1/metrics/lat.api/quantiles?from=${NOW - 5 * DAY + 60_000}&to=${NOW}`, 400, /from: .* falls inside a quarter-hour slot, the finest detail kept there \(minute detail is kept from .*\); the nearest usable edges are/],
    [`/v1/metrics/lat.api/quantiles?from=${NOW - QH}&to=${NOW}&q=1.5`, 400, /q: "1\.5" is not a quantile: a decimal from 0 to 1/],
    [`/v1/metrics/lat.api/quantiles?from=${NOW - QH}&to=${NOW}&q=${Array(21).fill('0.5').join(',')}`, 400, /q: at most 20 quantiles/],
    [`/v1/metrics/lat.api/quantiles?from=${NOW - QH}&to=${NOW}&q=NaN`, 400, /not a quantile/],
    [`/v1/metrics/no.such/quantiles?from=${NOW - QH}&to=${NOW}`, 404, /no metric named "no\.such"/],
    [`/v1/metrics/lat.api/quantiles?from=${NOW}&to=${NOW - QH}`, 400, /from: must be before to/]
  ])('%s → %s', async (url, status, message) => {
    const { status: got, body } = await get(url)
    expect(got, JSON.stringify(body)).toBe(status)
    expect(body.message).toMatch(message)
  })
})

describe.skipIf(LACKING)('minutes without their histogram (a flush cut between the two documents)', () => {
  it('a minute\'s percentile is null where its histogram is missing or holds other values; its count stays; quantiles with minute edges are refused, quarter-hour ones answered', async () => {
    const db = app.mongo.db
    const minute = NOW - 20 * 60_000 + 4 * 60_000 // 11:44: inside a quarter-hour
    const values = [3, 5, 8, 13, 21]
    await writeDistributions(db, values.map((value, i) => ({ metric: 'old.lat', value, time: minute + i * 1000 })), createMapping(ALPHA), { parts: ['daily', 'monthly'] })
    // another metric whose hour document holds one value more than its day: a day write cut after its hour's was applied
    await writeDistributions(db, values.map((value, i) => ({ metric: 'cut.lat', value, time: minute + i * 1000 })), createMapping(ALPHA))
    await writeDistributions(db, [{ metric: 'cut.lat', value: 99, time: minute }], createMapping(ALPHA), { parts: ['minutes'] })
    for (const metric of ['old.lat', 'cut.lat']) {
      const series = (stat) => get(`/v1/metrics/${metric}/series?step=minute&from=${minute}&to=${minute + 60_000}&stat=${stat}`)
      expect((await series('count')).body.values).toEqual([5])
      expect((await series('max')).body.values).toEqual([21])
      const p50 = await series('p50')
      expect(p50.status, JSON.stringify(p50.body)).toBe(200)
      expect(p50.body.values).toEqual([null])
      const q = await get(`/v1/metrics/${metric}/quantiles?from=${minute}&to=${NOW}&q=0.5`)
      expect(q.status, JSON.stringify(q.body)).toBe(400)
      expect(q.body.message).toMatch(/^from: the minutes of this range hold values without their histogram \(a write cut short\), so its quantiles cannot be ranked; use quarter-hour edges$/)
      expect(q.body.details[0]).toMatchObject({ path: 'from', before: NOW - 30 * 60_000, after: NOW - 15 * 60_000 })
      // the quarter-hour holding it has its own histogram
      const whole = await get(`/v1/metrics/${metric}/quantiles?from=${NOW - 30 * 60_000}&to=${NOW}&q=0.5`)
      expect(whole.status, JSON.stringify(whole.body)).toBe(200)
      expect(whole.body.quantiles[0].value).toBeCloseTo(8, 0)
    }
  })
})

describe.skipIf(LACKING)('a minute-hour document is read, not trusted', () => {
  it('a bucket key or count no histogram holds is refused (500, nothing merged from it); a minute\'s missing part is no percentile; other reads go on', async () => {
    const db = app.mongo.db
    const hour = NOW - 3 * 3_600_000 // 09:00, with minutes written by the batch above
    const minute = hour + 5 * 60_000
    await writeDistributions(db, [{ metric: 'hostile.lat', value: 10, time: minute }, { metric: 'hostile.lat', value: 20, time: minute + 60_000 }], createMapping(ALPHA))
    const id = `hostile.lat/${new Date(hour).toISOString().slice(0, 13).replace(/[-T]/g, '')}`
    const p50 = (m) => get(`/v1/metrics/hostile.lat/series?step=minute&stat=p50&from=${hour + m * 60_000}&to=${hour + (m + 1) * 60_000}`)
    expect((await p50(5)).body.values[0]).toBeCloseTo(10, 0)
    for (const bad of [{ '01': 1 }, { 17: -1 }, { 17: 'many' }, { __proto__: null, constructor: 1 }, { '1e400': 1 }, [1], 7]) {
      await db.collection('distributionMinutes').updateOne({ _id: id }, { $set: { 'minute.5.positive': bad } })
      const res = await p50(5)
      expect(res.status, JSON.stringify(bad)).toBe(500)
      expect(res.body.message).toBe('internal error')
      expect(({}).polluted).toBe(undefined)
    }
    // the minute beside it, and the minute's own count, answer as before
    expect((await p50(6)).body.values[0]).toBeCloseTo(20, 0)
    expect((await get(`/v1/metrics/hostile.lat/series?step=minute&from=${hour + 5 * 60_000}&to=${hour + 6 * 60_000}`)).body.values).toEqual([1])
    // a minute whose histogram is not an object: no percentile, not a crash
    await db.collection('distributionMinutes').updateOne({ _id: id }, { $set: { 'minute.5': 'text' } })
    const res = await p50(5)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.values).toEqual([null])
  })
})

describe.skipIf(LACKING)('minutes whose histograms miss and exceed by as much', () => {
  it('cannot make up for each other in a range: each minute gets its histogram only where it holds exactly its count', async () => {
    const db = app.mongo.db
    const at = (m) => NOW - 2 * 3_600_000 + m * 60_000 // 10:05 and 10:06: inside a quarter-hour
    const mapping = createMapping(ALPHA)
    // 10:05: ten 1s in the day document only (its hour's write lost); 10:06: one 1000 in both, ten more in the hour's only (the day's lost)
    await writeDistributions(db, Array.from({ length: 10 }, (_, i) => ({ metric: 'comp.lat', value: 1, time: at(5) + i })), mapping, { parts: ['daily', 'monthly'] })
    await writeDistributions(db, [{ metric: 'comp.lat', value: 1000, time: at(6) }], mapping)
    await writeDistributions(db, Array.from({ length: 10 }, (_, i) => ({ metric: 'comp.lat', value: 1000, time: at(6) + i + 1 })), mapping, { parts: ['minutes'] })
    // counted: 11 values, ten of them 1s, whose p50 is 1; the two minutes' buckets: 0 + 11, the same total
    const q = await get(`/v1/metrics/comp.lat/quantiles?from=${at(5)}&to=${at(7)}&q=0.5`)
    expect(q.status, JSON.stringify(q.body)).toBe(400)
    expect(q.body.message).toMatch(/hold values without their histogram/)
    expect((await get(`/v1/metrics/comp.lat/series?step=minute&stat=p50&from=${at(5)}&to=${at(7)}`)).body.values).toEqual([null, null])
    expect((await get(`/v1/metrics/comp.lat/series?step=minute&stat=count&from=${at(5)}&to=${at(7)}`)).body.values).toEqual([10, 1])
    // Graphite's consolidated points merge such ranges too (statRanges): no value ranked among the wrong ones
    const ranges = await app.reader.statRanges('comp.lat', { ranges: [{ from: at(5), to: at(7) }], percentile: true })
    expect(await ranges.values({ name: 'p50', kind: 'percentile', q: 0.5 })).toEqual([null])
  })

  it('equal counts of other values in one minute (two flushes cut in opposite ways, both retried) are told apart by the sums beside them', async () => {
    const db = app.mongo.db
    const at = NOW - 2 * 3_600_000 + 9 * 60_000 // 10:09
    const mapping = createMapping(ALPHA)
    const ones = Array.from({ length: 5 }, (_, i) => ({ metric: 'twice.lat', value: 1, time: at + i }))
    const big = Array.from({ length: 5 }, (_, i) => ({ metric: 'twice.lat', value: 1000, time: at + 10 + i }))
    await writeDistributions(db, ones, mapping, { parts: ['daily', 'monthly'] }) // its hour's write lost: answered 503
    await writeDistributions(db, ones, mapping) // the client's retry
    await writeDistributions(db, big, mapping, { parts: ['minutes'] }) // its day's writes lost: answered 503
    await writeDistributions(db, big, mapping) // the retry
    // the day counts ten 1s and five 1000s (p50 1), the hour's buckets five 1s and ten 1000s: 15 each
    const hour = await db.collection('distributionMinutes').findOne({ metric: 'twice.lat' })
    expect(hour.minute[9].count).toBe(15)
    expect((await get(`/v1/metrics/twice.lat/series?step=minute&stat=count&from=${at}&to=${at + 60_000}`)).body.values).toEqual([15])
    expect((await get(`/v1/metrics/twice.lat/series?step=minute&stat=p50&from=${at}&to=${at + 60_000}`)).body.values).toEqual([null])
    expect((await get(`/v1/metrics/twice.lat/quantiles?from=${at}&to=${at + 60_000}`)).status).toBe(400)
  })

  it('the quantiles answer counts the minute-hour documents it read', async () => {
    const hour = NOW - 3 * 3_600_000
    const { body } = await get(`/v1/metrics/lat.api/quantiles?from=${hour + 7 * 60_000}&to=${hour + 3_600_000 + 8 * 60_000}&q=0.5`)
    // the edge day's document, and the two hours' minute histograms
    expect(body.documents).toBe(3)
  })
})

describe.skipIf(LACKING)('MINUTE_HISTOGRAM_DAYS: minutes keep their histograms for the last days only', () => {
  it('writes no minute histogram past it; a minute\'s percentile there is refused naming it, its count and the quarter-hour\'s percentile answer', async () => {
    const short = await testApp('dist_minute_hist', { clock, env: { PREALLOC_PROBABILITY: '0', MINUTE_HISTOGRAM_DAYS: '1', MINUTE_RETENTION_DAYS: '30' } })
    try {
      const old = NOW - 3 * DAY + 7 * 60_000 // three days back, inside a quarter-hour
      const recent = NOW - 20 * 60_000 + 4 * 60_000
      const payload = [old, recent].flatMap(t => [10, 20, 30].map((value, i) => ({ metric: 'short.lat', kind: 'distribution', value, ts: t + i * 1000 })))
      expect((await short.inject({ method: 'POST', url: '/v1/events', payload })).statusCode).toBe(200)
      const hours = await short.mongo.db.collection('distributionMinutes').find({}).toArray()
      expect(hours.map(d => d._id)).toEqual([`short.lat/${new Date(recent).toISOString().slice(0, 13).replace(/[-T]/g, '')}`])
      const at = async (url) => { const res = await short.inject(url); return { status: res.statusCode, body: res.json() } }
      const recentP50 = await at(`/v1/metrics/short.lat/quantiles?from=${recent}&to=${recent + 60_000}&q=0.5`)
      expect(recentP50.status, JSON.stringify(recentP50.body)).toBe(200)
      expect(recentP50.body.quantiles[0].value).toBeCloseTo(20, 0)
      const refused = await at(`/v1/metrics/short.lat/quantiles?from=${old}&to=${old + 60_000}&q=0.5`)
      expect(refused.status).toBe(400)
      expect(refused.body.message).toMatch(/^from: .* falls inside a quarter-hour slot, the finest detail kept there \(minute histograms, which a minute's percentile is read from, are kept from \d{4}-\d{2}-\d{2} on \(MINUTE_HISTOGRAM_DAYS\)\); the nearest usable edges are/)
      const series = await at(`/v1/metrics/short.lat/series?step=minute&stat=p50&from=${old}&to=${old + 60_000}`)
      expect(series.status).toBe(400)
      expect((await at(`/v1/metrics/short.lat/series?step=minute&stat=count&from=${old}&to=${old + 60_000}`)).body.values).toEqual([3])
      const quarter = old - 7 * 60_000
      const whole = await at(`/v1/metrics/short.lat/quantiles?from=${quarter}&to=${quarter + QH}&q=0.5`)
      expect(whole.status).toBe(200)
      expect(whole.body.quantiles[0].value).toBeCloseTo(20, 0)
    } finally {
      await short.close()
    }
  })
})

describe.skipIf(LACKING)('what one read may merge (MAX_READ_BUCKETS)', () => {
  it('refuses a read that would merge more histogram buckets than allowed, before merging them all, and answers one under the bound', async () => {
    const small = await testApp('dist_budget', { clock, env: { PREALLOC_PROBABILITY: '0', MAX_READ_BUCKETS: '1000' } })
    try {
      const day = NOW - (NOW % DAY) - DAY
      // 4 quarter-hours of 400 distinct buckets each: 1,600 buckets in the day
      const events = Array.from({ length: 1600 }, (_, i) => ({ metric: 'wide.lat', kind: 'distribution', value: 1.0202 ** (i % 400) * (1 + Math.floor(i / 400) * 1e-6), ts: day + Math.floor(i / 400) * QH + 1000 }))
      expect((await small.inject({ method: 'POST', url: '/v1/events', payload: events })).statusCode).toBe(200)
      for (const url of [
        `/v1/metrics/wide.lat/series?step=quarter-hour&stat=p99&from=${day}&to=${day + DAY}`,
        `/v1/metrics/wide.lat/quantiles?from=${day + QH}&to=${day + 4 * QH}` // three quarter-hours: 1,200 buckets
      ]) {
        const res = await small.inject(url)
        expect(res.statusCode, res.body).toBe(400)
        expect(res.json().message).toMatch(/this read merges more than MAX_READ_BUCKETS = 1000 histogram buckets; shorten the range or use a coarser step/)
      }
      const under = await small.inject(`/v1/metrics/wide.lat/quantiles?from=${day + QH}&to=${day + 3 * QH}&q=0.5`)
      expect(under.statusCode, under.body).toBe(200)
      expect(under.json().count).toBe(800)
    } finally {
      await small.close()
    }
  })
})
