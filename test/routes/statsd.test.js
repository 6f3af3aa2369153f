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
    return { received: read('statbucket_statsd_received_total{transport="http"}'), tags: read('statbucket_statsd_dropped_total{reason="tags"}') }
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
    expect(res.json()).toEqual({ accepted: 3 }) // web.hits, web.latency (one value, weight 100), web.tagged
    expect(await totals('web.hits')).toBe(600)
    // the timer is a distribution: its day holds 100 values of 12, and no counter was made of it
    const latency = await app.mongo.db.collection('distributionMonthly').findOne({ metric: 'web.latency' })
    expect(latency.monthly).toMatchObject({ count: 100, sum: 1200, min: 12, max: 12 })
    expect(await totals('web.latency.count')).toBe(0)
    expect(await totals('web.tagged')).toBe(5)
    expect(await minuteOf('web.hits')).toBe(600)
    // counted on /metrics: what this request added (other tests of this file post too)
    const after = await counters()
    expect(after.received - before.received).toBe(401)
    expect(after.tags - before.tags).toBe(1)
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
    for (const [line, reason] of [['q.depth:4|g', 'gauge'], ['q.users:x|s', 'set'], ['q.x:1|zz', 'unknown_type'], ['q.x:abc|c', 'bad_value'], ['q.x:1|c|@0', 'bad_sample_rate'], ['q.x', 'malformed'], ['/x:1|c', 'invalid_name']]) {
      const res = await post(app, `q.ok:1|c\n${line}\nq.ok:1|c\n`)
      expect(res.statusCode).toBe(400)
      expect(res.json().message).toContain(`line 2 ${JSON.stringify(line)}`)
      expect(res.json().details).toEqual([expect.objectContaining({ line: 2, text: line, reason })])
    }
    expect(await totals('q.ok')).toBe(0)
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
