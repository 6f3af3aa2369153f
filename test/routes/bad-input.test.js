// Every bad input gets a 4xx that says what to fix, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
let app

beforeAll(async () => {
  app = await testApp('badinput', {
    clock: manualClock(NOW),
    env: { MAX_EVENTS_PER_REQUEST: '5', MAX_PENDING_EVENTS: '100', BODY_LIMIT_BYTES: '2048', MAX_METRICS: '3', MAX_POINTS: '100', PREALLOC_PROBABILITY: '1' }
  })
  // two metrics exist: room for one more
  const res = await app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric: 'ok.a' }, { metric: 'ok.b' }] })
  expect(res.statusCode).toBe(200)
  await app.preallocator.idle()
})
afterAll(async () => { await app?.close() })

async function snapshot () {
  const db = app.mongo.db
  const out = {}
  for (const name of ['daily', 'monthly', 'metrics']) out[name] = await db.collection(name).find().sort({ _id: 1 }).toArray()
  return out
}

const raw = (payload, contentType = 'application/json') =>
  app.inject({ method: 'POST', url: '/v1/events', payload, headers: { 'content-type': contentType } })

const badBodies = [
  ['a metric name with a space, in words', () => raw({ metric: 'my metric' }), 400, /^event\.metric: must be a metric name: .*metric names cannot contain spaces/],
  ['non-JSON', () => raw('{"metric": '), 400, /not valid JSON/],
  ['an empty body', () => raw(''), 400, /empty/],
  ['a wrong content type', () => raw('metric=a', 'application/x-www-form-urlencoded'), 415, /application\/json/],
  ['JSON sent as text/plain', () => raw('{"metric":"ok.a"}', 'text/plain'), 415, /^send the events as JSON with Content-Type: application\/json \(got text\/plain\)$/],
  ['JSON under another JSON-like type', () => raw('{"metric":"ok.a"}', 'application/vnd.api+json'), 415, /got application\/vnd\.api\+json/],
  ['an empty batch', () => raw('[]'), 400, /at least one event/],
  ['an unknown field', () => raw({ metric: 'a', valu: 1 }), 400, /unknown field "valu"/],
  ['an unknown field in a batch names the index', () => raw([{ metric: 'a' }, { metric: 'a', extra: true }]), 400, /events\[1\].*unknown field "extra"/],
  ['a missing metric', () => raw({ value: 1 }), 400, /missing field "metric"/],
  ['a misspelt metric names the unknown field', () => raw({ metrc: 'x' }), 400, /^event: missing field "metric"; unknown field "metrc" \(the fields are metric, tags, value, ts, kind\)$/],
  ['a misspelt field in a batch names the event', () => raw([{ metric: 'a' }, { metirc: 'b', value: 2 }]), 400, /^events\[1\]: missing field "metric"; unknown field "metirc"/],
  ['malformed JSON, said once', () => raw('{"metric": '), 400, /^the body is not valid JSON, or holds a __proto__ key \(refused anywhere\); send one event or an array of events, e\.g\. \{"metric":"api\.requests","value":1\}$/],
  ['a metric with a slash', () => raw({ metric: 'a/b' }), 400, /metric/],
  ['a metric with a dollar', () => raw({ metric: '$a' }), 400, /metric/],
  ['a metric with a space', () => raw({ metric: 'a b' }), 400, /metric/],
  ['a metric name of 201 characters', () => raw({ metric: 'a'.repeat(201) }), 400, /metric/],
  ['a string value', () => raw({ metric: 'a', value: '5' }), 400, /value: must be number/],
  ['a value out of range', () => raw({ metric: 'a', value: 1e16 }), 400, /value/],
  ['an infinite value (1e400)', () => raw('{"metric":"a","value":1e400}'), 400, /value/],
  ['a null value', () => raw({ metric: 'a', value: null }), 400, /value/],
  ['a ts without a zone', () => raw({ metric: 'a', ts: '2026-11-21T10:00:00' }), 400, /ts.*Z or an offset/],
  ['an unparsable ts', () => raw({ metric: 'a', ts: 'yesterday' }), 400, /ts/],
  ['a ts in epoch seconds', () => raw([{ metric: 'ok.a', ts: 1795500000000 }, { metric: 'ok.a', ts: 1795500000 }]), 400, /^events\[1\]\.ts: 1795500000 is not epoch milliseconds .*: multiply by 1000$/],
  ['a ts of 0', () => raw({ metric: 'ok.a', ts: 0 }), 400, /^event\.ts: 0 is not epoch milliseconds/],
  ['an impossible date', () => raw({ metric: 'a', ts: '2026-02-30T10:00:00Z' }), 400, /not a valid time/],
  ['a fractional epoch', () => raw({ metric: 'a', ts: 1.5 }), 400, /ts: must be string or integer/],
  ['a ts too far ahead', () => raw({ metric: 'a', ts: NOW + 301_000 }), 400, /MAX_FUTURE_MS/],
  ['a ts too old', () => raw({ metric: 'a', ts: NOW - 401 * 86400_000 }), 400, /MAX_AGE_DAYS/],
  ['a batch with one bad event among good ones', () => raw([{ metric: 'ok.a' }, { metric: 'ok.a', ts: 'x' }]), 400, /events\[1\]/],
  ['new metrics past MAX_METRICS', () => raw([{ metric: 'new.1' }, { metric: 'new.2' }]), 400, /MAX_METRICS = 3/],
  ['too many events', () => raw(Array.from({ length: 6 }, () => ({ metric: 'ok.a' }))), 413, /MAX_EVENTS_PER_REQUEST = 5/],
  ['too many bytes', () => raw([{ metric: 'ok.a'.padEnd(180, 'x') }, { metric: 'b'.repeat(190) }, { metric: 'c'.repeat(190) }, { metric: 'd'.repeat(190) }, { metric: 'e'.repeat(190) }, { metric: 'f'.repeat(190) }, { metric: 'g'.repeat(190) }, { metric: 'h'.repeat(190) }, { metric: 'i'.repeat(190) }, { metric: 'j'.repeat(190) }, { metric: 'k'.repeat(190) }]), 413, /BODY_LIMIT_BYTES = 2048/]
]

const badQueries = [
  ['a limit of 0, in words', '/v1/metrics?limit=0', 400, /^querystring\.limit: must be a whole number from 1 to 10000$/],
  ['a prefix with a space, in words', '/v1/metrics?prefix=a%20b', 400, /^querystring\.prefix: must be the start of a metric name: .*no spaces/],
  ['a metric with a space in the path, in words', '/v1/metrics/a%20b/series', 400, /^params\.metric: .*metric names cannot contain spaces/],
  ['from ≥ to', '/v1/metrics/ok.a/series?from=1795500060000&to=1795500000000', 400, /from: must be before to/],
  ['epoch seconds for from and to', '/v1/metrics/ok.a/series?from=1795500000&to=1796400000', 400, /^from: 1795500000 is not epoch milliseconds \(a number below 100000000000, before 1973\): this API takes epoch milliseconds or an ISO-8601 time with Z or an offset; read as epoch seconds it would be 2026-11-24T\d\d:\d\d:00\.000Z: multiply by 1000$/],
  ['epoch seconds for to alone', '/v1/metrics/ok.a/series?to=1796400000', 400, /^to: 1796400000 is not epoch milliseconds/],
  ['epoch seconds for a total', '/v1/metrics/ok.a/total?from=1795500000&to=1796400000000', 400, /^from: 1795500000 is not epoch milliseconds/],
  ['epoch seconds for asOf', '/v1/metrics/ok.a/ytd?asOf=1795500000', 400, /^asOf: 1795500000 is not epoch milliseconds/],
  ['a small number for from', '/v1/metrics/ok.a/series?from=0', 400, /^from: 0 is not epoch milliseconds \(a number below 100000000000, before 1973\): this API takes epoch milliseconds or an ISO-8601 time with Z or an offset$/],
  ['too many points', '/v1/metrics/ok.a/series?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&step=minute', 400, /1440 points.*MAX_POINTS = 100/],
  ['a bad step', '/v1/metrics/ok.a/series?step=week', 400, /^querystring\.step: must be one of minute, quarter-hour, hour, day, month$/],
  ['a bad from', '/v1/metrics/ok.a/series?from=tomorrow', 400, /from: must be epoch milliseconds or an ISO-8601/],
  ['a from without a zone', '/v1/metrics/ok.a/series?from=2026-11-01T00:00:00', 400, /from/],
  ['an unknown query parameter', '/v1/metrics/ok.a/series?form=1', 400, /form/],
  ['a repeated parameter', '/v1/metrics/ok.a/series?step=hour&step=day', 400, /step/],
  ['a bad metric in the path', '/v1/metrics/$x/series', 400, /metric/],
  ['an unknown metric', '/v1/metrics/nope/series', 404, /nope/],
  ['a bad year', '/v1/metrics/ok.a/ytd?year=26', 400, /year/],
  ['a year after this one', '/v1/metrics/ok.a/ytd?year=2027', 400, /year: must not be after this year \(2026\)/],
  ['an asOf in a later year', '/v1/metrics/ok.a/ytd?asOf=2027-01-02T00:00:00Z', 400, /asOf: must not be after this year \(2026\)/],
  ['asOf outside the year', '/v1/metrics/ok.a/ytd?year=2025&asOf=2026-01-05T00:00:00Z', 400, /asOf: must fall within the year 2025/],
  ['a limit of 0', '/v1/metrics?limit=0', 400, /limit/],
  ['a limit over 10000', '/v1/metrics?limit=10001', 400, /limit/],
  ['a bad prefix', '/v1/metrics?prefix=a/b', 400, /prefix/]
]

describe('bad input', () => {
  it.each(badBodies)('POST with %s: 4xx and nothing written', async (_, send, status, message) => {
    const before = await snapshot()
    const res = await send()
    expect(res.statusCode).toBe(status)
    const body = res.json()
    expect(body).toMatchObject({ statusCode: status, error: expect.any(String) })
    expect(body.message).toMatch(message)
    await app.preallocator.idle()
    expect(await snapshot()).toEqual(before)
  })

  it.each(badQueries)('GET with %s: 4xx', async (_, url, status, message) => {
    const res = await app.inject({ method: 'GET', url })
    expect(res.statusCode).toBe(status)
    expect(res.json().message).toMatch(message)
  })

  it('takes application/json with a charset parameter, in any case', async () => {
    const res = await raw('{"metric":"ok.a"}', 'Application/JSON; charset=utf-8')
    expect(res.statusCode).toBe(200)
    await app.preallocator.idle()
  })

  it('answers 415 to a POST without a Content-Type', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: '{"metric":"ok.a"}', headers: { 'content-type': undefined } })
    expect(res.statusCode).toBe(415)
    expect(res.json().message).toMatch(/none was sent/)
  })

  it('accepts the one new metric the registry still has room for', async () => {
    expect((await raw({ metric: 'new.1' })).statusCode).toBe(200)
    expect((await raw({ metric: 'new.2' })).statusCode).toBe(400)
    await app.preallocator.idle() // its preallocation lands now, not inside another test's snapshot
  })
})
