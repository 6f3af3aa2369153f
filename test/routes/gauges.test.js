// Gauges through POST /v1/events against a real server: the stored
// documents are the statistics of the levels sent (checked against an
// independent model of the raw events), `last` is the level of the latest
// event time whatever the order of arrival (within one request, across
// requests, and on equal times), a metric keeps one kind, hostile values
// change nothing, and gauges are deleted with their metric and never
// preallocated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const clock = manualClock(NOW)
let app

beforeAll(async () => {
  // PREALLOC_PROBABILITY 1: a counter written here would preallocate its next day; a gauge must not
  app = await testApp('gauges', { clock, random: () => 0, env: { PREALLOC_PROBABILITY: '1' } })
})
afterAll(async () => { await app?.close() })

const post = body => app.inject({ method: 'POST', url: '/v1/events', payload: body })
const collection = name => app.mongo.db.collection(name)
const gauge = (metric, value, ts) => ({ metric, kind: 'gauge', value, ...(ts === undefined ? {} : { ts }) })

/** The independent model of one tier: the statistics of the events in it, last the value of the latest (time, value) */
function model (events) {
  if (events.length === 0) return undefined
  const latest = events.reduce((best, e) => (e.time > best.time || (e.time === best.time && e.value > best.value) ? e : best))
  const values = events.map(e => e.value)
  return { count: values.length, sum: values.reduce((a, b) => a + b, 0), min: Math.min(...values), max: Math.max(...values), last: { t: new Date(latest.time), v: latest.value } }
}

const utc = (t) => new Date(t)
const tiersOf = (events, tierOf) => {
  const groups = {}
  for (const e of events) {
    const path = tierOf(utc(e.time))
    let node = groups
    for (const key of path.slice(0, -1)) node = node[key] ??= {}
    ;(node[path.at(-1)] ??= []).push(e)
  }
  const toModel = (node) => Array.isArray(node) ? model(node) : Object.fromEntries(Object.entries(node).map(([k, v]) => [k, toModel(v)]))
  return toModel(groups)
}

describe('gauges over POST /v1/events', () => {
  it('stores every tier as the statistics of its levels, in one day and one month document, and registers the kind without accuracy', async () => {
    const random = seededRandom(7)
    const events = Array.from({ length: 400 }, () => ({
      time: Date.UTC(2026, 10, 20, 0) + Math.floor(random() * 36 * 3_600_000), // Nov 20 00:00 to Nov 21 12:00
      value: Math.round((random() - 0.3) * 2000) / 4 + 0 // + 0: no −0 (JSON would send it as 0)
    }))
    const res = await post(events.map(e => gauge('queue.depth', e.value, e.time)))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ accepted: events.length })

    for (const day of [20, 21]) {
      const ofDay = events.filter(e => utc(e.time).getUTCDate() === day)
      const doc = await collection('gaugeDaily').findOne({ _id: `queue.depth/202611${day}` })
      expect(doc.metric).toBe('queue.depth')
      expect(doc.date).toEqual(new Date(Date.UTC(2026, 10, day)))
      expect(doc.daily).toEqual(model(ofDay))
      expect(doc.hourly).toEqual(tiersOf(ofDay, d => [d.getUTCHours()]))
      expect(doc.quarterHourly).toEqual(tiersOf(ofDay, d => [d.getUTCHours(), Math.floor(d.getUTCMinutes() / 15)]))
      expect(doc.minute).toEqual(tiersOf(ofDay, d => [d.getUTCHours(), d.getUTCMinutes()]))
    }
    const month = await collection('gaugeMonthly').findOne({ _id: 'queue.depth/202611' })
    expect(month.monthly).toEqual(model(events))
    expect(month.daily).toEqual(tiersOf(events, d => [d.getUTCDate()]))

    const entry = await collection('metrics').findOne({ _id: 'queue.depth' })
    expect(entry).toMatchObject({ kind: 'gauge' })
    expect(entry.accuracy).toBeUndefined()
    // nothing in any other kind's collections, and no day preallocated for a gauge
    for (const name of ['daily', 'monthly', 'distributionDaily', 'distributionMonthly']) {
      expect(await collection(name).countDocuments({ metric: 'queue.depth' }), name).toBe(0)
    }
    await app.preallocator.idle()
    expect(await collection('gaugeDaily').countDocuments({ metric: 'queue.depth' })).toBe(2)
    expect(entry.busyDay).toBeUndefined()
    const listed = (await app.inject('/v1/metrics?prefix=queue.')).json().metrics
    expect(listed).toEqual([expect.objectContaining({ name: 'queue.depth', kind: 'gauge' })])
  })

  it('keeps as last the level of the latest event time, whatever the order within a request and across requests', async () => {
    const t = (m, s = 0) => Date.UTC(2026, 10, 21, 9, m, s)
    // one request, out of order: the latest time (9:05:30) is in the middle
    expect((await post([gauge('ooo.depth', 3, t(5, 10)), gauge('ooo.depth', 8, t(5, 30)), gauge('ooo.depth', 1, t(5, 20)), gauge('ooo.depth', 6, t(4))])).statusCode).toBe(200)
    let doc = await collection('gaugeDaily').findOne({ _id: 'ooo.depth/20261121' })
    expect(doc.minute[9][5].last).toEqual({ t: new Date(t(5, 30)), v: 8 })
    expect(doc.minute[9][4].last).toEqual({ t: new Date(t(4)), v: 6 })
    expect(doc.daily.last).toEqual({ t: new Date(t(5, 30)), v: 8 })

    // a later request with older times: counted, never the last
    expect((await post([gauge('ooo.depth', 100, t(5, 29)), gauge('ooo.depth', -50, t(1))])).statusCode).toBe(200)
    doc = await collection('gaugeDaily').findOne({ _id: 'ooo.depth/20261121' })
    expect(doc.daily).toMatchObject({ count: 6, sum: 68, min: -50, max: 100, last: { t: new Date(t(5, 30)), v: 8 } })
    expect(doc.minute[9][5]).toEqual({ count: 4, sum: 112, min: 1, max: 100, last: { t: new Date(t(5, 30)), v: 8 } })
    expect(doc.minute[9][1].last).toEqual({ t: new Date(t(1)), v: -50 })

    // a newer one replaces it at every tier it reaches
    expect((await post(gauge('ooo.depth', 2, t(20)))).statusCode).toBe(200)
    doc = await collection('gaugeDaily').findOne({ _id: 'ooo.depth/20261121' })
    expect(doc.daily.last).toEqual({ t: new Date(t(20)), v: 2 })
    expect(doc.quarterHourly[9][0].last).toEqual({ t: new Date(t(5, 30)), v: 8 })
    expect(doc.quarterHourly[9][1].last).toEqual({ t: new Date(t(20)), v: 2 })
    const month = await collection('gaugeMonthly').findOne({ _id: 'ooo.depth/202611' })
    expect(month.monthly.last).toEqual({ t: new Date(t(20)), v: 2 })
    expect(month.daily[21].last).toEqual({ t: new Date(t(20)), v: 2 })
  })

  it('on equal times keeps the larger value, in one request or across requests, in either order', async () => {
    const at = Date.UTC(2026, 10, 21, 10, 0, 0, 500)
    for (const [metric, order] of [['tie.a', [[4, -2], [9]]], ['tie.b', [[9], [-2, 4]]], ['tie.c', [[9, 4, -2]]], ['tie.d', [[-2, 9, 4]]]]) {
      for (const values of order) expect((await post(values.map(v => gauge(metric, v, at)))).statusCode).toBe(200)
      const doc = await collection('gaugeDaily').findOne({ _id: `${metric}/20261121` })
      expect(doc.daily, metric).toEqual({ count: 3, sum: 11, min: -2, max: 9, last: { t: new Date(at), v: 9 } })
    }
  })

  it('stores a sum as a double from its first write on (an int64 sum could overflow $inc)', async () => {
    expect((await post([gauge('whole.depth', 5, NOW - 1000), gauge('whole.depth', 1e15, NOW - 2000)])).statusCode).toBe(200)
    expect(await collection('gaugeDaily').countDocuments({ _id: 'whole.depth/20261121', 'daily.sum': { $type: 'double' }, 'daily.count': { $type: 'int' } })).toBe(1)
  })

  it('keeps a metric to the kind of its first write: a counter, a distribution and a gauge refuse each other\'s values with a 400 that changes nothing', async () => {
    expect((await post({ metric: 'kinds.counter', value: 3 })).statusCode).toBe(200)
    expect((await post({ metric: 'kinds.timer', kind: 'distribution', value: 3 })).statusCode).toBe(200)
    expect((await post(gauge('kinds.gauge', 3))).statusCode).toBe(200)

    const onCounter = await post(gauge('kinds.counter', 12))
    expect(onCounter.statusCode).toBe(400)
    expect(onCounter.json().message).toMatch(/event\.kind: metric "kinds\.counter" is a counter, so it cannot take a gauge's values/)
    const onTimer = await post([gauge('other.gauge', 1), gauge('kinds.timer', 12)])
    expect(onTimer.statusCode).toBe(400)
    expect(onTimer.json().message).toMatch(/events\[1\]\.kind: metric "kinds\.timer" is a distribution, so it cannot take a gauge's values/)
    for (const body of [{ metric: 'kinds.gauge', value: 1 }, { metric: 'kinds.gauge' }, { metric: 'kinds.gauge', kind: 'counter', value: 1 }, { metric: 'kinds.gauge', kind: 'distribution', value: 1 }]) {
      const res = await post(body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().message).toMatch(/metric "kinds\.gauge" is a gauge, so it cannot take a (counter|distribution)'s values/)
    }
    const both = await post([gauge('kinds.new', 1), { metric: 'kinds.new', value: 1 }])
    expect(both.statusCode).toBe(400)
    expect(both.json().message).toMatch(/events\[1\]\.kind: metric "kinds\.new" is sent both as a counter and as a gauge/)
    const mixed = await post([{ metric: 'kinds.new2', kind: 'distribution', value: 1 }, gauge('kinds.new2', 1)])
    expect(mixed.json().message).toMatch(/is sent both as a distribution and as a gauge/)

    expect(await collection('metrics').countDocuments({ _id: { $in: ['other.gauge', 'kinds.new', 'kinds.new2'] } })).toBe(0)
    expect(await collection('gaugeDaily').countDocuments({ metric: { $in: ['kinds.counter', 'kinds.timer', 'other.gauge'] } })).toBe(0)
    const stored = await collection('gaugeDaily').findOne({ _id: 'kinds.gauge/20261121' })
    expect(stored.daily.count).toBe(1)
  })

  it('learns a gauge written by another instance from the registry', async () => {
    expect((await post(gauge('shared.gauge', 40))).statusCode).toBe(200)
    const other = await testApp('gauges', { clock, env: { PREALLOC_PROBABILITY: '0', MONGODB_DB: app.mongo.db.databaseName }, keepDatabase: true })
    try {
      const res = await other.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'shared.gauge', value: 1 } })
      expect(res.statusCode).toBe(400)
      expect(res.json().message).toMatch(/is a gauge/)
      expect((await other.inject({ method: 'POST', url: '/v1/events', payload: gauge('shared.gauge', 41) })).statusCode).toBe(200)
    } finally {
      await other.close()
    }
    expect((await collection('gaugeDaily').findOne({ _id: 'shared.gauge/20261121' })).daily.count).toBe(2)
  })

  it('refuses hostile values and a missing value with a 400 naming the field, and stores nothing', async () => {
    const cases = [
      [{ metric: 'hostile.gauge', kind: 'gauge' }, /event\.value: a gauge's event needs its value/],
      [gauge('hostile.gauge', 1e308), /value/],
      [gauge('hostile.gauge', -1e16), /value/],
      [gauge('hostile.gauge', 'NaN'), /value/],
      [gauge('hostile.gauge', 'Infinity'), /value/],
      [gauge('hostile.gauge', null), /value/],
      [{ metric: 'hostile.gauge', kind: 'Gauge', value: 1 }, /kind/],
      [{ metric: 'hostile.gauge', kind: 'gauge', value: 1, summary: { count: 1, sum: 1, min: 1, max: 1 } }, /summary|additional/],
      [{ metric: 'hostile.gauge', kind: 'gauge', value: 1, weight: 2 }, /weight|additional/],
      [gauge('hostile.gauge', 1, '2026-11-21T13:00:00Z'), /ts/]
    ]
    for (const [body, message] of cases) {
      const res = await post(body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().message).toMatch(message)
    }
    expect(await collection('metrics').countDocuments({ _id: 'hostile.gauge' })).toBe(0)
    expect(await collection('gaugeDaily').countDocuments({ metric: 'hostile.gauge' })).toBe(0)
  })

  it('keeps −0 as 0 and the largest levels an event may carry', async () => {
    // -0 as JSON text (JSON.stringify would send 0)
    const body = `[{"metric":"edge.gauge","kind":"gauge","value":-0,"ts":${NOW - 120_000}},${JSON.stringify(gauge('edge.gauge', 1e15, NOW - 2000))},${JSON.stringify(gauge('edge.gauge', -1e15, NOW - 1000))}]`
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: body, headers: { 'content-type': 'application/json' } })).statusCode).toBe(200)
    const doc = await collection('gaugeDaily').findOne({ _id: 'edge.gauge/20261121' })
    expect(doc.daily).toEqual({ count: 3, sum: 0, min: -1e15, max: 1e15, last: { t: new Date(NOW - 1000), v: -1e15 } })
    // the driver reads a stored −0.0 back as −0: these are +0
    const zero = doc.minute[11][58]
    expect(zero).toEqual({ count: 1, sum: 0, min: 0, max: 0, last: { t: new Date(NOW - 120_000), v: 0 } })
    for (const v of [zero.sum, zero.min, zero.max, zero.last.v]) expect(Object.is(v, 0)).toBe(true)
    expect(await collection('gaugeDaily').countDocuments({ _id: 'edge.gauge/20261121', 'daily.sum': { $type: 'double' } })).toBe(1)
  })

  it('DELETE removes a gauge\'s registry entry and its day and month documents', async () => {
    expect((await post([gauge('del.gauge', 1, NOW - 1000), gauge('del.gauge', 2, Date.UTC(2026, 9, 30))])).statusCode).toBe(200)
    const res = await app.inject({ method: 'DELETE', url: '/v1/metrics/del.gauge' })
    expect(res.json()).toEqual({ metric: 'del.gauge', deleted: { registry: 1, series: 0, daily: 2, monthly: 2, minuteHours: 0 } })
    expect(await collection('gaugeDaily').countDocuments({ metric: 'del.gauge' })).toBe(0)
    expect(await collection('gaugeMonthly').countDocuments({ metric: 'del.gauge' })).toBe(0)
    // and it may come back as another kind
    expect((await post({ metric: 'del.gauge', value: 1 })).statusCode).toBe(200)
  })

  it('a StatsD delta after DELETE starts from 0, not from the level the deleted gauge (or series) had', async () => {
    const statsd = body => app.inject({ method: 'POST', url: '/v1/statsd', payload: body, headers: { 'content-type': 'text/plain' } })
    expect((await statsd('sd.depth:10|g\nsd.size;host=a:20|g')).statusCode).toBe(200)
    // held by this instance's doors: a delta starts there
    expect((await statsd('sd.depth:+1|g')).statusCode).toBe(200)
    const last = async (metric) => (await collection('gaugeMonthly').findOne({ metric }))?.monthly.last.v
    expect(await last('sd.depth')).toBe(11)
    for (const metric of ['sd.depth', 'sd.size']) expect((await app.inject({ method: 'DELETE', url: `/v1/metrics/${metric}` })).statusCode).toBe(200)
    clock.advance(60_000)
    try {
      expect((await statsd('sd.depth:+1|g\nsd.size;host=a:+1|g')).statusCode).toBe(200)
      expect([await last('sd.depth'), await last('sd.size;host=a'), await last('sd.size')]).toEqual([1, 1, 1])
    } finally {
      clock.advance(-60_000)
    }
  })

  it('a StatsD delta that lands while DELETE runs (its entry made again) is forgotten with the deleted gauge\'s level', async () => {
    const statsd = body => app.inject({ method: 'POST', url: '/v1/statsd', payload: body, headers: { 'content-type': 'text/plain' } })
    expect((await statsd('sd.mid:10|g')).statusCode).toBe(200)
    const metrics = app.collections.metrics
    let release
    let entryDeleted
    const gate = new Promise(resolve => { release = resolve })
    const deleting = new Promise(resolve => { entryDeleted = resolve })
    metrics.deleteOne = async (...args) => { const r = await Object.getPrototypeOf(metrics).deleteOne.apply(metrics, args); entryDeleted(); await gate; return r }
    try {
      const deletion = app.inject({ method: 'DELETE', url: '/v1/metrics/sd.mid' })
      await deleting // the registry entry is gone; the documents are not yet
      expect((await statsd('sd.mid:+3|g')).statusCode).toBe(200) // from the stored 10: 13, and the entry made again
      release()
      expect((await deletion).statusCode).toBe(200)
    } finally {
      delete metrics.deleteOne
    }
    expect(await app.collections.metrics.findOne({ _id: 'sd.mid' })).not.toBeNull() // written again meanwhile: kept
    clock.advance(60_000)
    try {
      expect((await statsd('sd.mid:+1|g')).statusCode).toBe(200)
      expect((await collection('gaugeMonthly').findOne({ metric: 'sd.mid' }))?.monthly.last.v).toBe(1) // not 14
    } finally {
      clock.advance(-60_000)
    }
  })
})
