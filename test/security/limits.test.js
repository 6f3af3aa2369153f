// Limits hold: body size, events per request, metric name length, points
// per query, query string and path sizes; and on a listening server, huge
// headers, and clients that trickle their headers or body (slow loris), are
// cut by the HTTP server's own limits and timeouts.
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { loadConfig } from '../../src/config.js'
import { MAX_HEADER_BYTES, MAX_QUERY_STRING_BYTES, serverOptions } from '../../src/plugins/request-limits.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const WRITE_TIMEOUT_MS = 1000 // requestTimeout 3 s, headersTimeout 3 s

let app
let port
beforeAll(async () => {
  app = await testApp('limits', {
    clock: manualClock(NOW),
    env: { MAX_EVENTS_PER_REQUEST: '10', MAX_PENDING_EVENTS: '100', BODY_LIMIT_BYTES: '4096', MAX_POINTS: '100', WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS), PREALLOC_PROBABILITY: '0' }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  port = app.server.address().port
})
afterAll(async () => { await app?.close() })

const post = payload => app.inject({ method: 'POST', url: '/v1/events', payload })
const get = url => app.inject({ method: 'GET', url })
const name = n => 'm' + 'x'.repeat(n - 1)

describe('request limits', () => {
  it('a body over BODY_LIMIT_BYTES: 413', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: JSON.stringify({ metric: 'a', pad: 'x'.repeat(5000) }), headers: { 'content-type': 'application/json' } })
    expect(res.statusCode).toBe(413)
    expect(res.json().message).toMatch(/BODY_LIMIT_BYTES = 4096/)
  })

  it('more than MAX_EVENTS_PER_REQUEST events: 413', async () => {
    expect((await post(Array.from({ length: 11 }, () => ({ metric: 'lim.a' })))).statusCode).toBe(413)
    expect((await post(Array.from({ length: 10 }, () => ({ metric: 'lim.a' })))).statusCode).toBe(200)
  })

  it('metric names: 200 characters are written and queried, 201 are refused with 400', async () => {
    expect((await post({ metric: name(200), ts: NOW })).statusCode).toBe(200)
    const series = await get(`/v1/metrics/${name(200)}/series?from=${NOW - 3_600_000}&to=${NOW + 60_000}&step=hour`)
    expect(series.statusCode).toBe(200)
    expect(series.json().values.at(-1)).toBe(1)
    expect((await post({ metric: name(201) })).statusCode).toBe(400)
    expect([400, 414]).toContain((await get(`/v1/metrics/${name(201)}/series`)).statusCode)
    const long = await get(`/v1/metrics/${name(5000)}/ytd`)
    expect(long.statusCode).toBe(414)
    expect(long.json()).toEqual({ statusCode: 414, error: 'URI Too Long', message: expect.stringMatching(/longer than 200 characters/) })
  })

  it('a series over MAX_POINTS: 400 naming the limit', async () => {
    const res = await get(`/v1/metrics/lim.a/series?from=${NOW - 86_400_000}&to=${NOW}&step=minute`)
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/MAX_POINTS = 100/)
  })

  it(`a query string over ${MAX_QUERY_STRING_BYTES} bytes: 414`, async () => {
    const res = await get(`/v1/metrics?prefix=a&x=${'y'.repeat(MAX_QUERY_STRING_BYTES)}`)
    expect(res.statusCode).toBe(414)
    expect(res.json()).toMatchObject({ statusCode: 414, message: expect.stringMatching(/query string/) })
  })

  it('requestTimeout (time to receive a request) stays longer than a flush can take', () => {
    for (const writeTimeoutMs of [100, 2000, 10_000, 600_000]) {
      const options = serverOptions(loadConfig({ WRITE_TIMEOUT_MS: String(writeTimeoutMs) }))
      expect(options.requestTimeout).toBeGreaterThan(writeTimeoutMs * 2)
      expect(options.http.headersTimeout).toBeLessThanOrEqual(options.requestTimeout)
    }
    expect(app.server.requestTimeout).toBe(3 * WRITE_TIMEOUT_MS)
  })
})

/** Opens a raw connection; resolves when the server closes it: { response } (a hang guard after 30 s) */
function rawClient (writer) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let response = ''
    socket.on('data', d => { response += d })
    socket.on('error', () => {})
    socket.on('close', () => resolve({ response }))
    socket.setTimeout(30_000, () => { socket.destroy(); reject(new Error('the server did not cut the connection within 30 s')) })
    socket.on('connect', () => writer(socket))
  })
}

describe('on a listening server', () => {
  it(`headers over ${MAX_HEADER_BYTES} bytes: 431`, async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'x-big': 'a'.repeat(MAX_HEADER_BYTES + 1000) } })
    expect(res.status).toBe(431)
  })

  it('a client trickling its headers (slow loris) is cut after headersTimeout', async () => {
    const { response } = await rawClient(socket => {
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n')
      const timer = setInterval(() => { if (!socket.destroyed) socket.write('X-Slow: 1\r\n') }, 300)
      socket.on('close', () => clearInterval(timer))
    })
    // 408: the server's headersTimeout cut it, and the listening server checks it every second at most
    expect(response).toMatch(/^HTTP\/1\.1 408/)
    expect(app.server.headersTimeout).toBe(3 * WRITE_TIMEOUT_MS)
    expect(app.server.connectionsCheckingInterval).toBeLessThanOrEqual(1000)
  }, 30_000)

  it('a client trickling its body is cut after requestTimeout, and nothing is written', async () => {
    const body = JSON.stringify({ metric: 'lim.slow', ts: NOW })
    const { response } = await rawClient(socket => {
      socket.write(`POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 100}\r\n\r\n`)
      let i = 0
      const timer = setInterval(() => { if (!socket.destroyed && i < body.length) socket.write(body[i++]) }, 200)
      socket.on('close', () => clearInterval(timer))
    })
    // 408: the server's requestTimeout cut it (checked every second at most)
    expect(response).toMatch(/^HTTP\/1\.1 408/)
    expect(app.server.requestTimeout).toBe(3 * WRITE_TIMEOUT_MS)
    expect(app.server.connectionsCheckingInterval).toBeLessThanOrEqual(1000)
    expect(await app.mongo.db.collection('daily').countDocuments({ metric: 'lim.slow' })).toBe(0)
  }, 30_000)
})
