// Distributions through POST /v1/events against a real server: the stored
// documents are the sketch of the values sent (checked against an
// independent histogram and exact quantiles), a metric keeps one kind, and
// hostile values change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { bucketIndex, bucketValue, createMapping, histogramOf, quantiles } from '../../src/bucket/distribution-sketch.js'
import { MAX_BUCKETS_PER_REQUEST } from '../../src/bucket/distribution-rules.js'
import { serverLacks } from '../helpers/server-gaps.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const clock = manualClock(NOW)
const mapping = createMapping(0.01)
let app

beforeAll(async () => {
  app = await testApp('distributions', { clock, env: { PREALLOC_PROBABILITY: '0' } })
})
afterAll(async () => { await app?.close() })

const post = body => app.inject({ method: 'POST', url: '/v1/events', payload: body })
const collection = name => app.mongo.db.collection(name)
const timer = (metric, value, ts) => ({ metric, kind: 'distribution', value, ...(ts === undefined ? {} : { ts }) })

// an independent model of one stored tier: the sketch of its values (distribution-sketch.js is tested apart)
function expectedTier (values) {
  const h = histogramOf(mapping, values)
  const tier = { count: h.count, sum: h.sum, min: h.min, max: h.max }
  if (h.zero) tier.zero = h.zero
  for (const side of ['positive', 'negative']) if (Object.keys(h[side]).length) tier[side] = h[side]
  return tier
}

describe('distributions over POST /v1/events', () => {
  it('stores every tier as the sketch of its values, in one day and one month document, and registers the kind', async () => {
    const values = [12, 87, 87, 3.5, 250, 0, 1900.25]
    const res = await post(values.map((v, i) => timer('api.latency', v, Date.UTC(2026, 10, 21, 9, 14 + (i % 2), 30))))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ accepted: values.length })

    const day = await collection('distributionDaily').findOne({ _id: 'api.latency/20261121' })
    const at14 = values.filter((_, i) => i % 2 === 0)
    const at15 = values.filter((_, i) => i % 2 === 1)
    expect(day.daily).toEqual(expectedTier(values))
    expect(day.hourly).toEqual({ 9: expectedTier(values) })
    expect(day.quarterHourly).toEqual({ 9: { 0: expectedTier(at14), 1: expectedTier(at15) } })
    const minuteStats = (vs) => ({ count: vs.length, sum: vs.reduce((a, b) => a + b, 0), min: Math.min(...vs), max: Math.max(...vs) })
    expect(day.minute).toEqual({ 9: { 14: minuteStats(at14), 15: minuteStats(at15) } })
    const month = await collection('distributionMonthly').findOne({ _id: 'api.latency/202611' })
    expect(month.monthly).toEqual(expectedTier(values))
    expect(month.daily).toEqual({ 21: expectedTier(values) })
    // the stored histogram answers quantiles within 1 % of the exact ones
    const sorted = [...values].sort((a, b) => a - b)
    const [p50, p90] = quantiles(day.daily, mapping, [0.5, 0.9])
    expect(Math.abs(p50 - sorted[3]) / sorted[3]).toBeLessThanOrEqual(0.01)
    expect(Math.abs(p90 - sorted[5]) / sorted[5]).toBeLessThanOrEqual(0.01)

    expect(await collection('metrics').findOne({ _id: 'api.latency' })).toMatchObject({ kind: 'distribution', accuracy: 0.01 })
    // nothing in the counters' collections
    expect(await collection('daily').countDocuments({ metric: 'api.latency' })).toBe(0)
    expect(await collection('monthly').countDocuments({ metric: 'api.latency' })).toBe(0)
  })

  it('adds later values by $inc, $min and $max: two requests store what one would', async () => {
    const ts = Date.UTC(2026, 10, 21, 10, 0)
    const first = [5, 50, 500]
    const second = [0.5, 5000, 50]
    expect((await post(first.map(v => timer('merge.latency', v, ts)))).statusCode).toBe(200)
    expect((await post(second.map(v => timer('merge.latency', v, ts)))).statusCode).toBe(200)
    const day = await collection('distributionDaily').findOne({ _id: 'merge.latency/20261121' })
    expect(day.daily).toEqual(expectedTier([...first, ...second]))
    expect(day.minute[10][0]).toEqual({ count: 6, sum: 5605.5, min: 0.5, max: 5000 })
  })

  it('keeps a metric to the kind of its first write: a counter refuses values, a distribution refuses increments, with a 400 that changes nothing', async () => {
    expect((await post({ metric: 'kind.counter', value: 3 })).statusCode).toBe(200)
    const asDistribution = await post(timer('kind.counter', 12))
    expect(asDistribution.statusCode).toBe(400)
    expect(asDistribution.json().message).toMatch(/event\.kind: metric "kind\.counter" is a counter, so it cannot take a distribution's values/)

    expect((await post(timer('kind.timer', 12))).statusCode).toBe(200)
    const asCounter = await post([{ metric: 'other.counter' }, { metric: 'kind.timer', value: 1 }])
    expect(asCounter.statusCode).toBe(400)
    expect(asCounter.json().message).toMatch(/events\[1\]\.kind: metric "kind\.timer" is a distribution, so it cannot take a counter's values/)
    expect(await collection('daily').countDocuments({ metric: { $in: ['kind.timer', 'other.counter'] } })).toBe(0)
    expect(await collection('metrics').countDocuments({ _id: 'other.counter' })).toBe(0)

    const both = await post([timer('kind.new', 1), { metric: 'kind.new', value: 1 }])
    expect(both.statusCode).toBe(400)
    expect(both.json().message).toMatch(/events\[1\]\.kind: metric "kind\.new" is sent both as a counter and as a distribution/)
    expect(await collection('metrics').countDocuments({ _id: 'kind.new' })).toBe(0)
  })

  it('holds a new name\'s kind while its first write is in flight: a concurrent write of the other kind is refused', async () => {
    // whichever request's registry look-up answers first holds the name: the other is refused
    const [a, b] = await Promise.all([post(timer('race.metric', 7)), post({ metric: 'race.metric', value: 1 })])
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 400])
    const entry = await collection('metrics').findOne({ _id: 'race.metric' })
    if (a.statusCode === 200) expect(entry).toMatchObject({ kind: 'distribution' })
    else expect(entry.kind).toBeUndefined()
  })

  it('learns a kind written by another instance from the registry (a fresh app refuses the other kind)', async () => {
    expect((await post(timer('shared.timer', 40))).statusCode).toBe(200)
    const other = await testApp('distributions', { clock, env: { PREALLOC_PROBABILITY: '0', MONGODB_DB: app.mongo.db.databaseName }, keepDatabase: true })
    try {
      const res = await other.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'shared.timer', value: 1 } })
      expect(res.statusCode).toBe(400)
      expect(res.json().message).toMatch(/is a distribution/)
      expect((await other.inject({ method: 'POST', url: '/v1/events', payload: timer('shared.timer', 41) })).statusCode).toBe(200)
    } finally {
      await other.close()
    }
    const day = await collection('distributionDaily').findOne({ _id: 'shared.timer/20261121' })
    expect(day.daily.count).toBe(2)
  })

  it('refuses hostile values and a missing value with a 400 naming the field, and stores nothing', async () => {
    const cases = [
      [{ metric: 'hostile.timer', kind: 'distribution' }, /event\.value: a distribution's event needs its value/],
      [timer('hostile.timer', 1e308), /value/],
      [timer('hostile.timer', -1e16), /value/],
      [timer('hostile.timer', 'NaN'), /value/],
      [timer('hostile.timer', null), /value/],
      [{ metric: 'hostile.timer', kind: 'level', value: 1 }, /kind/],
      [{ metric: 'hostile.timer', kind: 'Distribution', value: 1 }, /kind/],
      [{ metric: 'hostile.timer', kind: 'distribution', value: 1, weight: 10 }, /weight/]
    ]
    for (const [body, message] of cases) {
      const res = await post(body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().message).toMatch(message)
    }
    expect(await collection('metrics').countDocuments({ _id: 'hostile.timer' })).toBe(0)
    expect(await collection('distributionDaily').countDocuments({ metric: 'hostile.timer' })).toBe(0)
  })

  it('keeps −0, subnormals and the largest values a distribution may hold: −0 and |v| < 1e-9 in the zero bucket, ±1e15 at the index range\'s ends', async () => {
    const values = [-0, 5e-324, -1e-300, 1e15, -1e15]
    expect((await post(values.map(v => timer('edge.timer', v, NOW - 1000)))).statusCode).toBe(200)
    const day = await collection('distributionDaily').findOne({ _id: 'edge.timer/20261121' })
    expect(day.daily.zero).toBe(3)
    expect(day.daily.positive).toEqual({ [bucketIndex(mapping, 1e15)]: 1 })
    expect(day.daily.negative).toEqual({ [bucketIndex(mapping, 1e15)]: 1 })
    expect(day.daily.min).toBe(-1e15)
    expect(day.daily.max).toBe(1e15)
  })

  const WIDEST = `refuses a request whose values open more than ${MAX_BUCKETS_PER_REQUEST} histogram buckets in one metric's day, and takes one at the limit, and many metrics each at the limit`
  it.skipIf(serverLacks('wide updates', WIDEST))(WIDEST, async () => {
    const spread = (n, metric) => Array.from({ length: n }, (_, i) => timer(metric, bucketValue(mapping, i - 900), NOW - 1000)) // one bucket per value
    const over = await post(spread(MAX_BUCKETS_PER_REQUEST + 1, 'wide.timer'))
    expect(over.statusCode).toBe(400)
    expect(over.json().message).toMatch(new RegExp(`events: the values of "wide\\.timer" fall in ${MAX_BUCKETS_PER_REQUEST + 1} distinct histogram buckets in one day, over the ${MAX_BUCKETS_PER_REQUEST} one request may add to a day; split them over several requests`))
    expect(await collection('metrics').countDocuments({ _id: 'wide.timer' })).toBe(0)
    const at = await post(spread(MAX_BUCKETS_PER_REQUEST, 'wide.timer'))
    expect(at.statusCode, at.body).toBe(200)
    const day = await collection('distributionDaily').findOne({ _id: 'wide.timer/20261121' })
    expect(Object.keys(day.daily.positive)).toHaveLength(MAX_BUCKETS_PER_REQUEST)
    // the bound is per metric-day: a batch of many timers, each at the limit, is one request
    const many = [...spread(MAX_BUCKETS_PER_REQUEST, 'wide.a'), ...spread(MAX_BUCKETS_PER_REQUEST, 'wide.b'), ...spread(MAX_BUCKETS_PER_REQUEST, 'wide.c')]
    expect((await post(many)).statusCode).toBe(200)
  })
})
