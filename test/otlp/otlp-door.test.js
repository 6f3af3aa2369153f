// POST /v1/metrics by hand: OTLP JSON and protobuf built from the official
// definitions, gzip, tokens, the answer's shape and partialSuccess, and
// hostile bodies (a 2 MB attribute, 100,000 points, a million empty
// messages, deep nesting, wrong types, unknown fields, a truncated
// protobuf): a 4xx naming the problem, never a 5xx; a big real request
// taken.
import { EventEmitter, once } from 'node:events'
import { Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { ExportMetricsServiceRequest, ExportMetricsServiceResponse, decodeStatus } from '../../src/otlp/otlp-codec.js'
import { minuteHistogramKeptFromFor } from '../../src/bucket/retention-horizons.js'
import { checkApp } from '../helpers/job-runs.js'
import { testApp } from '../helpers/test-app.js'
import { inflate } from '../../src/routes/body-encoding.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0, 30)
const NANOS = String(BigInt(NOW - 30_000) * 1_000_000n) // 12:00:00
const DAY = '/total?from=2026-11-21T00:00:00Z&to=2026-11-22T00:00:00Z'

const attr = (key, value) => ({ key, value: typeof value === 'string' ? { stringValue: value } : { intValue: value } })
const sum = (name, points, { temporality = 1, monotonic = true } = {}) => ({ name, sum: { aggregationTemporality: temporality, isMonotonic: monotonic, dataPoints: points } })
const body = (metrics, resource = [attr('service.name', 'shop')]) => ({ resourceMetrics: [{ resource: { attributes: resource }, scopeMetrics: [{ scope: { name: 't' }, metrics }] }] })
const point = (value, attributes = [], extra = {}) => ({ asInt: String(value), timeUnixNano: NANOS, attributes, ...extra })
const json = (payload, headers = {}) => ({ method: 'POST', url: '/v1/metrics', payload: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { 'content-type': 'application/json', ...headers } })
const varint = (n) => { const out = []; for (; n > 127; n >>>= 7) out.push((n & 127) | 128); out.push(n); return Buffer.from(out) }
const proto = (object) => Buffer.from(ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromObject(object)).finish())

describe('POST /v1/metrics', () => {
  let app
  const clock = manualClock(NOW)
  const total = async (series) => (await app.inject({ url: `/v1/metrics/${encodeURIComponent(series)}${DAY}` })).json().total

  beforeAll(async () => { app = await testApp('otlp_door', { clock, env: { PREALLOC_PROBABILITY: '0', MAX_EVENTS_PER_REQUEST: '1000', MAX_PENDING_EVENTS: '10000', WRITE_TOKENS: 'otlp-writer-token-1' } }) })
  afterAll(async () => { await app?.close() })
  const auth = { authorization: 'Bearer otlp-writer-token-1' }

  it('a histogram whose open bucket has no min or max to close it: quantiles unbounded by its buckets, so say (relativeError null)', async () => {
    const hist = { name: 'open.rt', histogram: { aggregationTemporality: 1, dataPoints: [{ count: '3', sum: 30, explicitBounds: [10], bucketCounts: ['1', '2'], timeUnixNano: NANOS }] } }
    const res = await app.inject(json(body([hist]), auth))
    expect(res.statusCode, res.body).toBe(200)
    const q = (await app.inject({ url: `/v1/metrics/${encodeURIComponent('open.rt;service=shop')}/quantiles?q=0.5&from=2026-11-21T00:00:00Z&to=2026-11-22T00:00:00Z` })).json()
    expect(q).toMatchObject({ count: 3, accuracy: 0.01, relativeError: null, limitedBy: 'buckets' })
  })

  it('stores a delta sum per attribute set, with the resource\'s service as a tag, and answers {}', async () => {
    const res = await app.inject(json(body([sum('orders', [point(2, [attr('route', '/buy'), attr('code', 200)]), point(3, [attr('route', '/buy'), attr('code', 200)])])]), auth))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({})
    expect(await total('orders;code=200;route=/buy;service=shop')).toBe(5)
    expect(await total('orders')).toBe(5)
  })

  it('answers protobuf in protobuf, gzip or not', async () => {
    for (const gzip of [false, true]) {
      const bytes = proto(body([sum('proto.orders', [point(4)])]))
      const res = await app.inject({ method: 'POST', url: '/v1/metrics', payload: gzip ? gzipSync(bytes) : bytes, headers: { 'content-type': 'application/x-protobuf', ...(gzip ? { 'content-encoding': 'gzip' } : {}), ...auth } })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.headers['content-type']).toMatch(/^application\/x-protobuf/)
      expect(ExportMetricsServiceResponse.toObject(ExportMetricsServiceResponse.decode(res.rawPayload))).toEqual({})
    }
    expect(await total('proto.orders;service=shop')).toBe(8)
  })

  it('names renamed metrics and rejects only the points that break a rule, in partialSuccess', async () => {
    const huge = 'x'.repeat(2 * 1024 * 1024 - 4096) // a 2 MB attribute: one point rejected, the body under the limit
    const res = await app.inject(json(body([
      sum('my metric/total', [point(1)]),
      sum('mixed', [point(1, [attr('k', huge)]), point(6, [attr('k', 'ok')]), point(7, [attr('bad key!', 'v')])])
    ]), auth))
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
    const { partialSuccess } = res.json()
    expect(partialSuccess.rejectedDataPoints).toBe(2)
    expect(partialSuccess.errorMessage).toMatch(/longer than 128 characters/)
    expect(partialSuccess.errorMessage).toMatch(/"bad key!" is not a tag key/)
    expect(partialSuccess.errorMessage).toMatch(/"my metric\/total" → "my_metric-total"/)
    expect(await total('mixed;k=ok;service=shop')).toBe(6)
    expect(await total('my_metric-total;service=shop')).toBe(1)
    // a 2 MB name: rejected, and not sent back whole
    const long = await app.inject(json(body([sum('n '.repeat(1024 * 1024 - 2048), [point(1)])]), auth))
    expect(long.statusCode).toBe(200)
    expect(long.json().partialSuccess.rejectedDataPoints).toBe(1)
    expect(long.body.length).toBeLessThan(2000)
  })

  it('rejects a point of a name stored as another kind, and a Summary, keeping the rest', async () => {
    // a name of its own, a counter first: any order of the tests passes
    expect((await app.inject(json(body([sum('kinded', [point(2, [attr('route', '/buy'), attr('code', 200)])])]), auth))).statusCode).toBe(200)
    const res = await app.inject(json(body([
      { name: 'kinded', gauge: { dataPoints: [{ asDouble: 3, timeUnixNano: NANOS }] } },
      { name: 'lat', summary: { dataPoints: [{ count: '1', sum: 2, timeUnixNano: NANOS }] } },
      sum('kinded', [point(1, [attr('route', '/buy'), attr('code', 200)])])
    ]), auth))
    expect(res.statusCode, res.body).toBe(200)
    const { partialSuccess } = res.json()
    expect(partialSuccess.rejectedDataPoints).toBe(2)
    expect(partialSuccess.errorMessage).toMatch(/"kinded" is a counter, so it cannot take a gauge's values/)
    expect(partialSuccess.errorMessage).toMatch(/Summary/)
    expect(await total('kinded;code=200;route=/buy;service=shop')).toBe(3)
    // the same point alone: a partial success of none kept, not a 400
    const alone = await app.inject(json(body([{ name: 'kinded', gauge: { dataPoints: [{ asDouble: 3, timeUnixNano: NANOS }] } }]), auth))
    expect(alone.statusCode, alone.body).toBe(200)
    expect(alone.json().partialSuccess).toMatchObject({ rejectedDataPoints: 1, errorMessage: expect.stringMatching(/"kinded" is a counter, so it cannot take a gauge's values/) })
    expect(await total('kinded;code=200;route=/buy;service=shop')).toBe(3)
  })

  it('keeps a histogram\'s count, sum, min and max exact', async () => {
    const res = await app.inject(json(body([{ name: 'rt', histogram: { aggregationTemporality: 1, dataPoints: [{ timeUnixNano: NANOS, count: '4', sum: 123.5, min: 0.5, max: 100, explicitBounds: [1, 10], bucketCounts: ['1', '2', '1'] }] } }]), auth))
    expect(res.statusCode, res.body).toBe(200)
    const q = (await app.inject({ url: `/v1/metrics/${encodeURIComponent('rt;service=shop')}/quantiles?from=2026-11-21T00:00:00Z&to=2026-11-22T00:00:00Z&q=0,1` })).json()
    expect(q).toMatchObject({ count: 4, sum: 123.5, min: 0.5, max: 100 })
  })

  it('leaves documents the check finds consistent: a histogram point\'s summary in every tier and minute histogram alike', async () => {
    const res = await app.inject(json(body([{ name: 'rt2', exponentialHistogram: { aggregationTemporality: 1, dataPoints: [{ timeUnixNano: NANOS, count: '6', sum: 40.25, min: 0.25, max: 20, scale: 2, zeroCount: '1', positive: { offset: -8, bucketCounts: ['1', '0', '0', '0', '0', '0', '0', '0', '0', '0', '1', '0', '0', '0', '0', '0', '0', '0', '2', '1'] } }] } }]), auth))
    expect(res.statusCode, res.body).toBe(200)
    const found = []
    const summary = await checkApp(app, clock, { minuteHistogramKeptFrom: minuteHistogramKeptFromFor(app.config, NOW), onViolation: (v) => found.push(v) })
    expect(found).toEqual([])
    expect(summary.violations).toBe(0)
    const minute = (await app.inject({ url: `/v1/metrics/${encodeURIComponent('rt2;service=shop')}/quantiles?from=2026-11-21T12:00:00Z&to=2026-11-21T12:01:00Z&q=0,1` })).json()
    expect(minute).toMatchObject({ count: 6, sum: 40.25, min: 0.25, max: 20, quantiles: [{ q: 0, value: 0.25 }, { q: 1, value: 20 }] }) // a percentile clamped to the exact [min, max]
  })

  it('turns cumulative monotonic sums into increments from a baseline, starting over on a new start time', async () => {
    const at = (s, value, start = '1') => ({ asInt: String(value), startTimeUnixNano: start, timeUnixNano: String(BigInt(NOW - 30_000 + s * 1000) * 1_000_000n) })
    const send = (p) => app.inject(json(body([sum('cum', [p], { temporality: 2 })]), auth))
    expect((await send(at(0, 100))).statusCode).toBe(200) // baseline
    await send(at(1, 130)) // +30
    const repeat = await send(at(1, 130)) // the same point again: nothing added, and said
    expect(repeat.json().partialSuccess.errorMessage).toMatch(/not later than the previous point/)
    await send(at(2, 5, '2')) // a new start: a new baseline
    await send(at(3, 12, '2')) // +7
    expect(await total('cum;service=shop')).toBe(37)
    // two requests of one series in flight at once: each step added once
    await Promise.all([send(at(4, 20, '2')), send(at(5, 30, '2'))])
    expect(await total('cum;service=shop')).toBe(55)
  })

  it('refuses without a token, with 401 naming WRITE_TOKENS', async () => {
    const res = await app.inject(json(body([sum('orders', [point(1)])])))
    expect(res.statusCode).toBe(401)
    expect(res.json().message).toMatch(/WRITE_TOKENS/)
  })

  it.each([
    ['a truncated protobuf', () => ({ payload: proto(body([sum('t', [point(1)])])).subarray(0, 20), type: 'application/x-protobuf' }), 400, /not an OTLP ExportMetricsServiceRequest in protobuf/],
    ['bytes that are not protobuf', () => ({ payload: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), type: 'application/x-protobuf' }), 400, /protobuf/],
    ['JSON that does not parse', () => ({ payload: '{"resourceMetrics":[', type: 'application/json' }), 400, /not JSON/],
    ['deep nesting in JSON', () => ({ payload: '{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}', type: 'application/json' }), 400, /nests deeper than 32/],
    ['a wrong type', () => ({ payload: JSON.stringify({ resourceMetrics: [{ scopeMetrics: 'x' }] }), type: 'application/json' }), 400, /scopeMetrics: array expected/],
    // 64-bit integers protobufjs would read loosely ("1e3" as 1, 1.9 as 1, {} as 0), stored silently before
    ...[['asInt', '"1e3"'], ['asInt', '"12abc"'], ['asInt', '1.9'], ['timeUnixNano', '"abc"'], ['timeUnixNano', '{}'], ['startTimeUnixNano', '-5']].map(([field, raw]) =>
      [`a point's ${field} of ${raw}`, () => ({ payload: `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"li","sum":{"aggregationTemporality":1,"isMonotonic":true,"dataPoints":[{"asInt":"1",${JSON.stringify(field)}:${raw}}]}}]}]}]}`, type: 'application/json' }), 400, new RegExp(`dataPoints\\[0\\]\\.${field}: .* is not a 64-bit integer`)]),
    ['a histogram\'s bucket count of "1.5"', () => ({ payload: JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'lh', histogram: { aggregationTemporality: 1, dataPoints: [{ count: '2', explicitBounds: [1], bucketCounts: ['1.5', '0.5'] }] } }] }] }] }), type: 'application/json' }), 400, /dataPoints\[0\]\.bucketCounts\[0\]: "1\.5" is not a 64-bit integer/],
    ['an array body', () => ({ payload: '[]', type: 'application/json' }), 400, /an object \{ resourceMetrics/],
    // counted on the wire and refused before any is decoded: only the first 1,001 are counted
    ['100,000 points', () => ({ payload: proto(body([sum('many', Array.from({ length: 100_000 }, () => ({ asInt: '1' })))])), type: 'application/x-protobuf' }), 413, /MAX_EVENTS_PER_REQUEST = 1000 data points, got more than 1000;/],
    ['1,001 points in JSON', () => ({ payload: JSON.stringify(body([sum('many', Array.from({ length: 1001 }, () => ({ asInt: '1' })))])), type: 'application/json' }), 413, /MAX_EVENTS_PER_REQUEST = 1000 data points, got 1001;/],
    ['histograms of more non-empty buckets than the writer holds', () => ({ payload: proto(body([{ name: 'wide', exponentialHistogram: { aggregationTemporality: 1, dataPoints: Array.from({ length: 20 }, () => ({ count: '1000', scale: 8, positive: { offset: 0, bucketCounts: Array(1000).fill('1') } })) } }])), type: 'application/x-protobuf' }), 413, /MAX_PENDING_EVENTS = 10000 events/],
    ['a body over BODY_LIMIT_BYTES', () => ({ payload: Buffer.alloc(2 * 1024 * 1024 + 1, 32), type: 'application/json' }), 413, /BODY_LIMIT_BYTES|too large/i],
    ['a gzip body that inflates past BODY_LIMIT_BYTES', () => ({ payload: gzipSync(Buffer.alloc(8 * 1024 * 1024, 32)), type: 'application/json', encoding: 'gzip' }), 413, /BODY_LIMIT_BYTES|too large/i],
    ['a gzip body that is not gzip', () => ({ payload: Buffer.from('not gzip'), type: 'application/json', encoding: 'gzip' }), 400, /gzip/],
    ['an unknown content encoding', () => ({ payload: '{}', type: 'application/json', encoding: 'br' }), 415, /Content-Encoding br/],
    ['text/plain', () => ({ payload: '{}', type: 'text/plain' }), 415, /application\/x-protobuf or application\/json/]
  ])('answers %s with a 4xx naming the problem', async (what, make, status, message) => {
    const { payload, type, encoding } = make()
    const res = await app.inject({ method: 'POST', url: '/v1/metrics', payload, headers: { 'content-type': type, ...(encoding ? { 'content-encoding': encoding } : {}), ...auth } })
    expect(res.statusCode, res.body.slice(0, 300)).toBe(status)
    // OTLP/HTTP: a protobuf request's error is a google.rpc.Status in protobuf
    const answer = type === 'application/x-protobuf' ? decodeStatus(res.rawPayload) : res.json()
    expect(answer.message).toMatch(message)
    if (type === 'application/x-protobuf') expect(answer.code).toBe(status === 413 ? 8 : 3)
  })

  // A body of BODY_LIMIT_BYTES whose points are empty (2 bytes each in protobuf, 3 in JSON): a million points,
  // 270 ms (protobuf) and 410 ms (JSON) to decode before they were counted, for a 2 KB gzip body
  it.each([
    ['protobuf', () => {
      const points = Buffer.alloc(2 * 1_000_000, 0); for (let i = 0; i < points.length; i += 2) points[i] = 0x0a // data_points (1), 0 bytes long
      const framed = (tag, bytes) => Buffer.concat([Buffer.from([tag]), varint(bytes.length), bytes])
      // ExportMetricsServiceRequest.resource_metrics → ResourceMetrics.scope_metrics → ScopeMetrics.metrics → Metric{ name 'empty', gauge }
      return framed(0x0a, framed(0x12, framed(0x12, Buffer.concat([framed(0x0a, Buffer.from('empty')), framed(0x2a, points)]))))
    }, 'application/x-protobuf', /got more than 1000;/],
    ['JSON', () => `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"empty","gauge":{"dataPoints":[${Array(600_000).fill('{}').join(',')}]}}]}]}]}`, 'application/json', /got 600000;/]
  ])('refuses a gzip body of a million empty points in %s before they are decoded (413, nothing stored)', async (encoding, make, type, message) => {
    expect((await refusedUndecoded(make(), type)).message).toMatch(message)
    const stored = await app.inject({ url: `/v1/metrics/empty${DAY}` })
    expect(stored.statusCode).toBe(404)
  })

  /** POSTs `bytes` gzipped (under 10 KB) as `type`: a 413 before anything is decoded (neither decode nor fromObject called) → its answer */
  async function refusedUndecoded (bytes, type) {
    const decode = vi.spyOn(ExportMetricsServiceRequest, 'decode')
    const fromObject = vi.spyOn(ExportMetricsServiceRequest, 'fromObject')
    try {
      const payload = gzipSync(bytes)
      expect(payload.length).toBeLessThan(10_000)
      const res = await app.inject({ method: 'POST', url: '/v1/metrics', payload, headers: { 'content-type': type, 'content-encoding': 'gzip', ...auth } })
      expect(res.statusCode).toBe(413)
      expect(decode).not.toHaveBeenCalled()
      expect(fromObject).not.toHaveBeenCalled()
      return type === 'application/x-protobuf' ? decodeStatus(res.rawPayload) : res.json()
    } finally {
      decode.mockRestore()
      fromObject.mockRestore()
    }
  }

  // A body of BODY_LIMIT_BYTES whose other messages are empty, beside a point that would be stored: a million
  // resources, scopes, metrics, attributes or exemplars, decoded in full (115–460 ms) before the budget of
  // MESSAGES_PER_POINT (64) messages a point of MAX_EVENTS_PER_REQUEST and MESSAGES_PER_REQUEST (docs/adr/0093-otlp-message-budget.md)
  const typeAt = (path) => path.reduce((type, name) => type.fields[name].resolvedType, ExportMetricsServiceRequest)
  /** `object` (a request) in protobuf, the message at `path` (field names; a list's first) followed by `extra` bytes */
  function protoWith (object, path, extra, type = ExportMetricsServiceRequest) {
    const own = (o) => Buffer.from(type.encode(type.fromObject(o)).finish())
    if (path.length === 0) return Buffer.concat([own(object), extra])
    const [name, ...rest] = path
    const field = type.fields[name]
    const inner = protoWith(field.repeated ? object[name][0] : object[name], rest, extra, field.resolvedType)
    return Buffer.concat([own({ ...object, [name]: field.repeated ? object[name].slice(1) : undefined }), varint(field.id * 8 + 2), varint(inner.length), inner])
  }
  /** `object` in JSON, the message at `path` (a list's first) given `n` more empty objects in its list `field` */
  function jsonWith (object, path, field, n) {
    const copy = structuredClone(object)
    const at = path.reduce((o, name) => (Array.isArray(o[name]) ? o[name][0] : o[name]), copy)
    at[field] = (at[field] ?? []).concat(Array(n).fill({}))
    return JSON.stringify(copy)
  }
  const SOME_BYTES = 2 * 1024 * 1024 - 4096
  const budgetBody = (kind) => body([sum(`budget.${kind}`, [point(1)])])
  const BUDGET_KINDS = [
    ['resources', [], 'resourceMetrics'],
    ['scopes', ['resourceMetrics'], 'scopeMetrics'],
    ['metrics', ['resourceMetrics', 'scopeMetrics'], 'metrics'],
    ['attributes', ['resourceMetrics', 'resource'], 'attributes'],
    ['exemplars', ['resourceMetrics', 'scopeMetrics', 'metrics', 'sum', 'dataPoints'], 'exemplars']
  ]
  it.each([
    ...BUDGET_KINDS.map(([kind, path, field]) => [kind, 'protobuf', () => {
      const empty = Buffer.from([...varint(typeAt(path).fields[field].id * 8 + 2), 0]) // the field, 0 bytes long
      return protoWith(budgetBody(kind), path, Buffer.alloc(Math.floor(SOME_BYTES / empty.length) * empty.length, empty))
    }, 'application/x-protobuf']),
    ...BUDGET_KINDS.map(([kind, path, field]) => [kind, 'JSON', () => jsonWith(budgetBody(kind), path, field, 600_000), 'application/json'])
  ])('refuses a gzip body of a million empty %s in %s before they are decoded (413, nothing stored)', async (kind, encoding, make, type) => {
    const bytes = make()
    expect(bytes.length).toBeGreaterThan(1_000_000)
    expect((await refusedUndecoded(bytes, type)).message).toMatch(/the body would decode into more than 65024 OTLP messages \(resources, scopes, metrics, points, attributes: two each, exemplars\).*at most 64 × MAX_EVENTS_PER_REQUEST \(= 1000\) \+ 1024, and 131072 in all; send fewer attributes or exemplars, or split the export/)
    const stored = await app.inject({ url: `/v1/metrics/budget.${kind}${DAY}` })
    expect(stored.statusCode).toBe(404)
  })

  // What an SDK sends, at MAX_EVENTS_PER_REQUEST: 1000 points of 10 attributes each, a resource of 30, and 16
  // exemplars with trace and span ids on each histogram point: 29,000 messages and 16,000 byte strings
  it.each([['protobuf', 'p'], ['JSON', 'j']])('takes a big but real request in %s: 1000 points of 10 attributes, a resource of 30, exemplars', async (encoding, prefix) => {
    const resource = [attr('service.name', 'checkout'), ...Array.from({ length: 29 }, (_, i) => attr(`resource.attribute.${i}`, `a resource attribute's value ${i}`))]
    const attributes = (i) => Array.from({ length: 10 }, (_, k) => attr(`point.attribute.${k}`, k === 0 ? `route-${i}` : `value-${k}`))
    const exemplar = { asDouble: 2, timeUnixNano: NANOS, traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174' }
    const metrics = Array.from({ length: 10 }, (_, m) => m % 2 === 0
      ? sum(`legal.${prefix}.sum${m}`, Array.from({ length: 100 }, (_, i) => point(1, attributes(i))))
      : { name: `legal.${prefix}.hist${m}`, histogram: { aggregationTemporality: 1, dataPoints: Array.from({ length: 100 }, (_, i) => ({ timeUnixNano: NANOS, count: '2', sum: 3, explicitBounds: [1, 10], bucketCounts: ['1', '1', '0'], attributes: attributes(i), exemplars: Array(16).fill(exemplar) })) } })
    const request = body(metrics, resource)
    const payload = encoding === 'protobuf' ? proto(request) : JSON.stringify(request)
    const res = await app.inject({ method: 'POST', url: '/v1/metrics', payload, headers: { 'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json', ...auth } })
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
    expect(encoding === 'protobuf' ? ExportMetricsServiceResponse.toObject(ExportMetricsServiceResponse.decode(res.rawPayload)) : res.json()).toEqual({})
    expect(await total(`legal.${prefix}.sum0`)).toBe(100)
    const q = (await app.inject({ url: `/v1/metrics/legal.${prefix}.hist1/quantiles?from=2026-11-21T00:00:00Z&to=2026-11-22T00:00:00Z&q=0.5` })).json()
    expect(q).toMatchObject({ count: 200, sum: 300 }) // 100 points of 2 values, every series of the name
  })

  it('stops inflating a gzip body once its answer is sent: a 1 MB body of 1,000 MB is not inflated on after its 413', async () => {
    const payload = Readable.from([gzipSync(Buffer.alloc(16 * 1024 * 1024, 32))])
    const reply = { raw: new EventEmitter() }
    let inflated = null
    inflate({ headers: { 'content-encoding': 'gzip' } }, reply, payload, (err, stream) => { expect(err).toBeNull(); inflated = stream })
    // the parser reads up to its bound, then answers
    await once(inflated, 'data')
    inflated.pause()
    expect(inflated.destroyed).toBe(false)
    reply.raw.emit('finish')
    expect(inflated.destroyed).toBe(true)
    const consumed = inflated.bytesWritten
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(inflated.bytesWritten).toBe(consumed)
  })

  it('answers a protobuf request without a token with a 401 Status in protobuf', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/metrics', payload: proto(body([sum('t', [point(1)])])), headers: { 'content-type': 'application/x-protobuf' } })
    expect(res.statusCode).toBe(401)
    expect(res.headers['content-type']).toMatch(/^application\/x-protobuf/)
    expect(decodeStatus(res.rawPayload)).toEqual({ code: 16, message: expect.stringMatching(/WRITE_TOKENS/) })
  })

  it('counts the points kept and rejected, and the exemplars ignored, on /metrics', async () => {
    const read = async () => {
      const text = (await app.inject({ url: '/metrics', headers: { authorization: 'Bearer otlp-writer-token-1' } })).body
      const n = (line) => Number(text.match(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm'))?.[1] ?? 0)
      return [n('statbucket_otlp_points_total{outcome="kept"}'), n('statbucket_otlp_points_total{outcome="rejected"}'), n('statbucket_otlp_exemplars_ignored_total')]
    }
    const before = await read()
    const res = await app.inject(json(body([sum('ex', [point(1, [], { exemplars: [{ asDouble: 1, timeUnixNano: NANOS, traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174' }] }), point(1, [attr('bad key!', 'v')])])]), auth))
    expect(res.statusCode, res.body).toBe(200)
    const after = await read()
    expect(after.map((n, i) => n - before[i])).toEqual([1, 1, 1])
  })

  it('takes an empty protobuf body as the empty request it is, and refuses an empty JSON body', async () => {
    const empty = await app.inject({ method: 'POST', url: '/v1/metrics', payload: Buffer.alloc(0), headers: { 'content-type': 'application/x-protobuf', ...auth } })
    expect(empty.statusCode, empty.body).toBe(200)
    expect(ExportMetricsServiceResponse.toObject(ExportMetricsServiceResponse.decode(empty.rawPayload))).toEqual({})
    const none = await app.inject({ method: 'POST', url: '/v1/metrics', headers: { 'content-type': 'application/json', ...auth } })
    expect(none.statusCode, none.body).toBe(400)
    const text = await app.inject({ method: 'POST', url: '/v1/metrics', payload: '', headers: { 'content-type': 'application/json; charset=utf-8', ...auth } })
    expect(text.statusCode, text.body).toBe(400)
  })

  it('ignores unknown fields and counts nothing twice', async () => {
    const payload = body([{ ...sum('unknown.fields', [{ ...point(2), somethingNew: { deep: [1, 2] } }]), futureField: true }])
    const res = await app.inject(json({ ...payload, extra: 'x' }, auth))
    expect(res.statusCode, res.body).toBe(200)
    expect(await total('unknown.fields;service=shop')).toBe(2)
  })
})
