// POST /v1/statsd: lines written by a real client (hot-shots over its
// `stream` transport, captured and posted), answered like POST /v1/events.
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import StatsD from 'hot-shots'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0, 30)
const MINUTE = Date.UTC(2026, 10, 21, 12, 0)

/** The lines hot-shots writes for what `use(client)` sends */
async function linesFrom (use) {
  const stream = new PassThrough()
  const chunks = []
  stream.on('data', chunk => chunks.push(chunk))
  const client = new StatsD({ protocol: 'stream', stream, datadog: false, errorHandler: (err) => { throw err } })
  use(client)
  await new Promise(resolve => client.close(() => resolve()))
  return Buffer.concat(chunks).toString('utf8')
}

const post = (app, payload, headers = {}) => app.inject({ method: 'POST', url: '/v1/statsd', payload, headers: { 'content-type': 'text/plain', ...headers } })

describe('POST /v1/statsd', () => {
  let app
  const totals = async (metric) => {
    const docs = await app.collections.monthly.find({ metric }).toArray()
    return docs.reduce((sum, d) => sum + d.monthly, 0)
  }
  const minuteOf = async (metric) => {
    const doc = await app.collections.daily.findOne({ _id: `${metric}/20261121` })
    return doc?.minute?.['12']?.['0']
  }

  const counters = async () => {
    const body = (await app.inject({ url: '/metrics' })).body
    const read = (line) => Number(body.match(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm'))?.[1] ?? 0)
    return { received: read('statbucket_statsd_received_total{transport="http"}'), badTags: read('statbucket_statsd_dropped_total{reason="bad_tags"}') }
  }

  beforeAll(async () => { app = await testApp('statsd_http', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0', MAX_EVENTS_PER_REQUEST: '1000' } }) })
  afterAll(async () => { await app?.close() })

  it('says which names the sanitising changed, and stores them as it says', async () => {
    const res = await post(app, 'my metric:2|c\nsvc/api.calls:3|c\nplain.name:1|c\n')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ accepted: 3, renamed: [{ from: 'my metric', to: 'my_metric' }, { from: 'svc/api.calls', to: 'svc-api.calls' }] })
    expect(await totals('my_metric')).toBe(2)
    expect(await totals('svc-api.calls')).toBe(3)
    const plain = await post(app, 'plain.name:1|c\n')
    expect(plain.json()).toEqual({ accepted: 1 })
  })

  it('stores the exact totals of what a real client sent, in the minute of receipt', async () => {
    const text = await linesFrom(client => {
      for (let i = 0; i < 300; i++) client.increment('web.hits', (i % 3) + 1)
      for (let i = 0; i < 100; i++) client.timing('web.latency', 12)
      client.increment('web.tagged', 5, ['env:prod'])
    })
    const before = await counters()
    const res = await post(app, text)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ accepted: 3 }) // web.hits, web.latency (one value, weight 100), web.tagged;env=prod (and its name)
    expect(await totals('web.hits')).toBe(600)
    // the timer is a distribution: its day holds 100 values of 12, and no counter was made of it
    const latency = await app.mongo.db.collection('distributionMonthly').findOne({ metric: 'web.latency' })
    expect(latency.monthly).toMatchObject({ count: 100, sum: 1200, min: 12, max: 12 })
    expect(await totals('web.latency.count')).toBe(0)
    expect(await totals('web.tagged')).toBe(5)
    expect(await totals('web.tagged;env=prod')).toBe(5)
    expect(await minuteOf('web.hits')).toBe(600)
    // counted on /metrics: what this request added (other tests of this file post too)
    const after = await counters()
    expect(after.received - before.received).toBe(401)
    expect(after.badTags - before.badTags).toBe(0)
  })

  it('a timer on a counter\'s name (or a count on a timer\'s) is a 400 that changes nothing', async () => {
    expect((await post(app, 'k.hits:1|c\nk.took:5|ms\n')).statusCode).toBe(200)
    for (const text of ['k.ok:1|c\nk.hits:5|ms\n', 'k.ok:1|c\nk.took:1|c\n']) {
      const res = await post(app, text)
      expect(res.statusCode, text).toBe(400)
      expect(res.json().message).toMatch(/metric "k\.(hits|took)" is a (counter|distribution), so it cannot take a (distribution|counter)'s values/)
    }
    expect(await totals('k.ok')).toBe(0)
  })

  it('a line that cannot be kept rejects the whole request, naming its number and text', async () => {
    for (const [line, reason] of [['q.depth:+1e16|g', 'bad_value'], ['q.depth:4|g|x', 'bad_sample_rate'], ['q.users:x|s', 'set'], ['q.x:1|zz', 'unknown_type'], ['q.x:abc|c', 'bad_value'], ['q.x:1|c|@0', 'bad_sample_rate'], ['q.x', 'malformed'], ['/x:1|c', 'invalid_name']]) {
      const res = await post(app, `q.ok:1|c\n${line}\nq.ok:1|c\n`)
      expect(res.statusCode).toBe(400)
      expect(res.json().message).toContain(`line 2 ${JSON.stringify(line)}`)
      expect(res.json().details).toEqual([expect.objectContaining({ line: 2, text: line, reason })])
    }
    expect(await totals('q.ok')).toBe(0)
  })

  it('stores gauges: levels, and deltas applied in line order to the level held, sample rates ignored', async () => {
    const gaugeAt = async (metric) => (await app.mongo.db.collection('gaugeDaily').findOne({ _id: `${metric}/20261121` }))?.minute?.['12']?.['0']
    const res = await post(app, 'h.depth:10|g\nh.depth:+5|g\nh.depth:-3|g|@0.5\nh.fresh:-4|g\n')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ accepted: 2 }) // one event per gauge and minute
    const depth = await gaugeAt('h.depth')
    expect({ ...depth, last: depth.last.v }).toEqual({ count: 3, sum: 37, min: 10, max: 15, last: 12 })
    expect((await gaugeAt('h.fresh')).last.v).toBe(-4) // a delta of a gauge never seen starts from 0
    // the clock does not move here: each request's event is given a later millisecond than the one before, so the later level is the last
    expect((await post(app, 'h.depth:-5|g\n')).statusCode).toBe(200)
    expect((await post(app, 'h.depth:-1|g\n')).statusCode).toBe(200)
    const after = await gaugeAt('h.depth')
    expect([after.count, after.min, after.last.v]).toEqual([5, 6, 6])
    expect(after.last.t.getTime()).toBe(NOW + 2)
    expect((await app.mongo.db.collection('metrics').findOne({ _id: 'h.depth' })).kind).toBe('gauge')
  })

  it('a delta of a gauge the doors hold no level of starts from the level stored (written by POST /v1/events here)', async () => {
    const json = await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'j.depth', kind: 'gauge', value: 40, ts: NOW - 60_000 } })
    expect(json.statusCode).toBe(200)
    expect((await post(app, 'j.depth:+2|g\nj.depth:-1|g\n')).statusCode).toBe(200)
    const doc = await app.mongo.db.collection('gaugeMonthly').findOne({ _id: 'j.depth/202611' })
    expect(doc.monthly).toMatchObject({ count: 3, sum: 40 + 42 + 41, min: 40, max: 42, last: { v: 41 } })
  })

  it('a request refused keeps no level: sent again, its deltas start from the same level', async () => {
    expect((await post(app, 'r.depth:5|g\nr.hits:1|c\n')).statusCode).toBe(200)
    // r.hits is a counter: the whole request is refused, r.depth's delta with it
    const refused = await post(app, 'r.depth:+1|g\nr.hits:+1|g\n')
    expect(refused.statusCode).toBe(400)
    expect(refused.json().message).toMatch(/metric "r\.hits" is a counter, so it cannot take a gauge's values/)
    expect((await post(app, 'r.depth:+1|g\n')).statusCode).toBe(200)
    const doc = await app.mongo.db.collection('gaugeMonthly').findOne({ _id: 'r.depth/202611' })
    expect(doc.monthly).toMatchObject({ count: 2, sum: 11, last: { v: 6 } })
  })

  it('a delta that would take a gauge past 1e15 is a 400 naming its line; the level stays', async () => {
    expect((await post(app, 'o.depth:9e14|g\n')).statusCode).toBe(200)
    const res = await post(app, 'o.ok:1|c\no.depth:+1e14|g\no.depth:+2e14|g\n')
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/^line 3 "o\.depth:\+2e14\|g": gauge "o\.depth" would pass 1000000000000000 with this delta \(its level is 1000000000000000\); nothing of this request was applied/)
    expect(res.json().details).toEqual([expect.objectContaining({ line: 3, reason: 'bad_value' })])
    expect(await totals('o.ok')).toBe(0)
    expect((await post(app, 'o.depth:-1|g\n')).statusCode).toBe(200)
    const doc = await app.mongo.db.collection('gaugeMonthly').findOne({ _id: 'o.depth/202611' })
    expect(doc.monthly).toMatchObject({ count: 2, max: 9e14, last: { v: 9e14 - 1 } })
  })

  it('refuses other content types (415), an empty body (400), too many values (413) and keys without transactions (400)', async () => {
    const json = await app.inject({ method: 'POST', url: '/v1/statsd', payload: { metric: 'a' } })
    expect(json.statusCode).toBe(415)
    expect(json.json().message).toMatch(/text\/plain/)
    expect((await post(app, '\n\n')).statusCode).toBe(400)
    const many = Array.from({ length: 1001 }, () => 'r.many:1|c').join('\n')
    const tooMany = await post(app, many)
    expect(tooMany.statusCode).toBe(413)
    expect(tooMany.json().message).toMatch(/MAX_EVENTS_PER_REQUEST = 1000/)
    const keyed = await post(app, 'r.key:1|c', { 'idempotency-key': 'k-1' })
    expect(keyed.statusCode).toBe(400)
    expect(keyed.json().message).toMatch(/Idempotency-Key needs a MongoDB deployment with transactions/)
    expect(await totals('r.many')).toBe(0)
    expect(await totals('r.key')).toBe(0)
  })

  it('is in the OpenAPI document as text/plain', async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json()
    expect(doc.paths['/v1/statsd'].post.requestBody.content).toHaveProperty('text/plain')
  })
})

describe('POST /v1/statsd with WRITE_TOKENS', () => {
  let app
  beforeAll(async () => { app = await testApp('statsd_auth', { clock: manualClock(NOW), env: { WRITE_TOKENS: 'w'.repeat(20), PREALLOC_PROBABILITY: '0' } }) })
  afterAll(async () => { await app?.close() })

  it('needs a write token, as /v1/events does', async () => {
    expect((await post(app, 'a.b:1|c')).statusCode).toBe(401)
    const res = await post(app, 'a.b:1|c', { authorization: `Bearer ${'w'.repeat(20)}` })
    expect(res.statusCode).toBe(200)
    expect(await app.collections.daily.findOne({ _id: 'a.b/20261121' })).toMatchObject({ daily: 1 })
    expect(MINUTE).toBe(NOW - 30_000)
  })
})
