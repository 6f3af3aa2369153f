// The write doors take gzip bodies (Content-Encoding: gzip), as OTLP exporters
// and Vector's or Fluent Bit's HTTP outputs send them: POST /v1/events and
// POST /v1/statsd store what the inflated body holds; a body that inflates
// past BODY_LIMIT_BYTES is a 413, one that does not inflate a 400, another
// encoding a 415 naming it, and a sender without a token a 401: nothing stored.
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const WRITE = 'gzip-writer-token-0123456789'
let app

beforeAll(async () => {
  app = await testApp('gzipbodies', { clock: manualClock(NOW), env: { BODY_LIMIT_BYTES: '65536', WRITE_TOKENS: WRITE, PREALLOC_PROBABILITY: '0' } })
})
afterAll(async () => { await app?.close() })

const post = (url, payload, headers = {}) => app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${WRITE}`, ...headers } })
const total = async (metric) => {
  const res = await app.inject(`/v1/metrics/${metric}/total?from=${NOW - 3_600_000}&to=${NOW + 60_000}`)
  return res.statusCode === 404 ? null : res.json().total
}
const json = (body) => ({ 'content-type': 'application/json', 'content-encoding': 'gzip', body: gzipSync(Buffer.from(JSON.stringify(body))) })

describe('gzip bodies at the write doors', () => {
  it('POST /v1/events and POST /v1/statsd store what the inflated body holds', async () => {
    const events = Array.from({ length: 500 }, (_, i) => ({ metric: 'gz.events', value: i % 3 }))
    const { body, ...headers } = json(events)
    const res = await post('/v1/events', body, headers)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ accepted: 500 })
    expect(await total('gz.events')).toBe(events.reduce((n, e) => n + e.value, 0))
    const lines = Array.from({ length: 300 }, () => 'gz.statsd:2|c').join('\n')
    const statsd = await post('/v1/statsd', gzipSync(Buffer.from(lines)), { 'content-type': 'text/plain', 'content-encoding': 'GZIP ' })
    expect(statsd.statusCode, statsd.body).toBe(200)
    expect(await total('gz.statsd')).toBe(600)
  })

  it.each([
    ['a body that inflates past BODY_LIMIT_BYTES (1 KB to 8 MB)', '/v1/events', () => ({ body: gzipSync(Buffer.from(`[${'{"metric":"gz.bomb"},'.repeat(400_000)}{"metric":"gz.bomb"}]`)), 'content-type': 'application/json', 'content-encoding': 'gzip' }), 413, /65536/],
    ['StatsD lines that inflate past it', '/v1/statsd', () => ({ body: gzipSync(Buffer.from('gz.bomb:1|c\n'.repeat(700_000))), 'content-type': 'text/plain', 'content-encoding': 'gzip' }), 413, /65536/],
    ['a body that is not gzip', '/v1/events', () => ({ body: Buffer.from('{"metric":"gz.bomb"}'), 'content-type': 'application/json', 'content-encoding': 'gzip' }), 400, /^the gzip body cannot be inflated: /],
    ['a truncated gzip body', '/v1/events', () => ({ body: gzipSync(Buffer.from('[{"metric":"gz.bomb"}]')).subarray(0, 15), 'content-type': 'application/json', 'content-encoding': 'gzip' }), 400, /^the gzip body cannot be inflated: /],
    ['another encoding', '/v1/events', () => ({ body: Buffer.from('{"metric":"gz.bomb"}'), 'content-type': 'application/json', 'content-encoding': 'br' }), 415, /^Content-Encoding br is not supported: send the body as it is or with gzip$/],
    ['no token', '/v1/statsd', () => ({ body: gzipSync(Buffer.from('gz.bomb:1|c')), 'content-type': 'text/plain', 'content-encoding': 'gzip', authorization: '' }), 401, /token/i]
  ])('%s: refused, nothing stored', async (what, url, make, status, message) => {
    const { body, ...headers } = make()
    const res = await post(url, body, headers)
    expect(res.statusCode, res.body).toBe(status)
    expect(res.json().message).toMatch(message)
    expect(await total('gz.bomb')).toBe(null)
  })
})
