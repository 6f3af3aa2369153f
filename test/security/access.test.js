// Bearer tokens: WRITE_TOKENS guard POST /v1/events, READ_TOKENS the
// queries, METRICS_TOKENS (or READ_TOKENS) /metrics; /healthz, /readyz, the
// dashboard's static files and /docs stay open. 401 without a token, 403
// with a wrong one; the comparison is of SHA-256 digests in constant time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { accessClass, tokenMatcher } from '../../src/plugins/auth.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const WRITE = 'write-token-0123456789abcdef'
const READ = 'read-token-0123456789abcdef'
const READ_2 = 'read-token-second-0123456789'
const METRICS = 'metrics-token-0123456789abc'
const bearer = token => ({ authorization: `Bearer ${token}` })

describe('with WRITE_TOKENS and READ_TOKENS', () => {
  let app
  beforeAll(async () => {
    app = await testApp('access', { clock: manualClock(NOW), env: { WRITE_TOKENS: WRITE, READ_TOKENS: `${READ}, ${READ_2}`, PREALLOC_PROBABILITY: '0' } })
  })
  afterAll(async () => { await app?.close() })

  const post = headers => app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'acc.a', value: 2, ts: NOW }, headers })
  const get = (url, headers) => app.inject({ method: 'GET', url, headers })

  it('POST /v1/events: 401 without a token, 403 with a wrong or a read token, 200 with a write token', async () => {
    const none = await post({})
    expect(none.statusCode).toBe(401)
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/)
    expect(none.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.stringMatching(/WRITE_TOKENS/) })
    expect((await post(bearer('not-a-token-at-all-xxxx'))).statusCode).toBe(403)
    expect((await post(bearer(READ))).statusCode).toBe(403)
    expect((await post(bearer(WRITE.slice(0, -1)))).statusCode).toBe(403)
    expect((await post(bearer(WRITE + 'x'))).statusCode).toBe(403)
    expect((await post({ authorization: `Basic ${Buffer.from('u:' + WRITE).toString('base64')}` })).statusCode).toBe(401)
    expect(await app.mongo.db.collection('daily').countDocuments({ metric: 'acc.a' })).toBe(0)
    expect((await post(bearer(WRITE))).statusCode).toBe(200)
    expect((await post({ authorization: `bearer ${WRITE}` })).statusCode).toBe(200)
  })

  it('queries: 401 without, 403 with a write token, 200 with any read token', async () => {
    const written = await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'acc.q', ts: NOW }, headers: bearer(WRITE) })
    expect(written.statusCode).toBe(200)
    for (const url of ['/v1/metrics', `/v1/metrics/acc.q/series?from=${NOW - 3_600_000}&to=${NOW}`, '/v1/metrics/acc.q/ytd?year=2026']) {
      expect((await get(url)).statusCode, url).toBe(401)
      expect((await get(url, bearer(WRITE))).statusCode, url).toBe(403)
      expect((await get(url, bearer(READ))).statusCode, url).toBe(200)
      expect((await get(url, bearer(READ_2))).statusCode, url).toBe(200)
    }
    // an unknown /v1 path says nothing to a stranger
    expect((await get('/v1/nothing-here')).statusCode).toBe(401)
  })

  it('/healthz, /readyz, the dashboard and /docs stay open', async () => {
    expect((await get('/healthz')).statusCode).toBe(200)
    expect((await get('/readyz')).statusCode).toBe(200)
    for (const url of ['/', '/slos.html']) {
      const page = await get(url)
      expect(page.statusCode, url).toBe(200)
      expect(page.headers['content-type']).toMatch(/text\/html/)
    }
    expect((await get('/docs/json')).statusCode).toBe(200)
  })

  it('/metrics follows READ_TOKENS when METRICS_TOKENS is unset', async () => {
    expect((await get('/metrics')).statusCode).toBe(401)
    expect((await get('/metrics', bearer(WRITE))).statusCode).toBe(403)
    expect((await get('/metrics', bearer(READ))).statusCode).toBe(200)
  })
})

describe('with METRICS_TOKENS', () => {
  let app
  beforeAll(async () => {
    app = await testApp('accessm', { env: { READ_TOKENS: READ, METRICS_TOKENS: METRICS } })
  })
  afterAll(async () => { await app?.close() })

  it('/metrics takes its own tokens, and writes stay open when WRITE_TOKENS is unset', async () => {
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(401)
    expect((await app.inject({ url: '/metrics', headers: bearer(READ) })).statusCode).toBe(403)
    expect((await app.inject({ url: '/metrics', headers: bearer(METRICS) })).statusCode).toBe(200)
    expect((await app.inject({ url: '/v1/metrics', headers: bearer(METRICS) })).statusCode).toBe(403)
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'acc.open' } })).statusCode).toBe(200)
  })
})

describe('token comparison and routing', () => {
  it('matches exactly one of the configured tokens and names it by a digest prefix', () => {
    const match = tokenMatcher([READ, READ_2])
    expect(match(READ)).toMatch(/^t:[0-9a-f]{16}$/)
    expect(match(READ_2)).toMatch(/^t:[0-9a-f]{16}$/)
    expect(match(READ)).not.toBe(match(READ_2))
    for (const wrong of ['', READ.slice(0, 16), READ + READ, READ.toUpperCase(), READ_2.slice(1)]) expect(match(wrong)).toBeNull()
  })

  it('classifies requests by the matched route and method', () => {
    expect(accessClass('POST', '/v1/events')).toBe('write')
    expect(accessClass('GET', '/v1/metrics')).toBe('read')
    expect(accessClass('HEAD', '/v1/metrics/:metric/series')).toBe('read')
    expect(accessClass('DELETE', '/v1/metrics/:metric')).toBe('write')
    expect(accessClass('GET', '/metrics')).toBe('metrics')
    for (const route of ['/', '/*', '/healthz', '/readyz', '/docs/json', '/v1x']) expect(accessClass('GET', route)).toBe('open')
    expect(accessClass('GET', '/anything', 'read')).toBe('read')
  })
})

describe('percent-encoded paths reach the same routes and the same guards', () => {
  let app
  beforeAll(async () => {
    app = await testApp('access-encoded', { clock: manualClock(NOW), env: { WRITE_TOKENS: WRITE, READ_TOKENS: READ, PREALLOC_PROBABILITY: '0' } })
  })
  afterAll(async () => { await app?.close() })

  it.each([
    ['POST', '/%761/events', { metric: 'enc.a' }],
    ['POST', '/v1/%65vents', { metric: 'enc.a' }],
    ['GET', '/%76%31/metrics'],
    ['GET', '/v1/metrics/enc.a/%73eries'],
    ['GET', '/metric%73'],
    ['GET', '/%76%31/nothing-here']
  ])('%s %s without a token → 401', async (method, url, payload) => {
    const res = await app.inject({ method, url, payload })
    expect(res.statusCode).toBe(401)
  })

  it('writes nothing through an encoded path without a token', async () => {
    expect(await app.mongo.db.collection('daily').countDocuments({ metric: 'enc.a' })).toBe(0)
  })
})
