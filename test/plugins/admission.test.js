// Admission before work, in process: while the writer holds all it may,
// a write is refused with 503 + Retry-After + Connection: close before its
// body is parsed (a body that is not even JSON gets the 503, not a 400),
// health and reads answer, the refusal is counted, and once the writer has
// room the same write is taken again. An unauthenticated write still gets
// its 401 first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { fakeTimers } from '../helpers/fake-timers.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12)
const WRITE = 'w'.repeat(16)
let app, timers

beforeAll(async () => {
  timers = fakeTimers()
  // a flush is cut only when the (fake) interval passes: what is posted stays queued until the test says so
  app = await testApp('admission', { clock: manualClock(NOW), timers, env: { WRITE_TOKENS: WRITE, FLUSH_INTERVAL_MS: '1000', MAX_PENDING_EVENTS: '10', MAX_EVENTS_PER_REQUEST: '10', PREALLOC_PROBABILITY: '0' } })
})
afterAll(async () => { await timers?.advance(5000); await app?.close() })

const post = (payload, headers = {}) => app.inject({ method: 'POST', url: '/v1/events', payload, headers: { authorization: `Bearer ${WRITE}`, 'content-type': 'application/json', ...headers } })

describe('admission before work', () => {
  it('refuses writes before reading them while the writer is full, answers health and reads, and takes writes again once it has room', async () => {
    const queued = post(Array.from({ length: 10 }, () => ({ metric: 'adm.a' })))
    for (let i = 0; i < 50 && app.writer.stats().pendingEvents === 0; i++) await new Promise(resolve => setTimeout(resolve, 10))
    expect(app.writer.stats().pendingEvents).toBe(10)

    const refused = await post('this is not even JSON')
    expect(refused.statusCode).toBe(503)
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.headers.connection).toBe('close')
    expect(refused.json()).toMatchObject({ outcome: 'not_applied', message: expect.stringMatching(/^the writer holds 10 events, near MAX_PENDING_EVENTS = 10; nothing of this request was read or applied: retry later$/) })
    const statsd = await app.inject({ method: 'POST', url: '/v1/statsd', payload: 'adm.b:1|c', headers: { authorization: `Bearer ${WRITE}`, 'content-type': 'text/plain' } })
    expect(statsd.statusCode).toBe(503)
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'adm.c' } })).statusCode).toBe(401) // no token: 401 first

    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200)
    expect((await app.inject({ url: '/v1/metrics' })).statusCode).toBe(200)
    expect((await app.inject({ url: '/metrics' })).body).toContain('statbucket_writes_refused_before_reading_total{reason="writer_full"} 2')

    await timers.advance(1000) // the flush goes out and is answered
    expect((await queued).statusCode).toBe(200)
    const again = post({ metric: 'adm.a' })
    await timers.advance(1000)
    expect((await again).statusCode).toBe(200)
  })
})

describe('a gzip body at admission', () => {
  it('is sized by what it may inflate to, not by its Content-Length: refused where as many events would not fit', async () => {
    const { gzipSync } = await import('node:zlib')
    // an app of its own: its refusal is not counted where the test above counts its own
    const ownTimers = fakeTimers()
    const own = await testApp('admissiongzip', { clock: manualClock(NOW), timers: ownTimers, env: { WRITE_TOKENS: WRITE, FLUSH_INTERVAL_MS: '1000', MAX_PENDING_EVENTS: '10', MAX_EVENTS_PER_REQUEST: '10', PREALLOC_PROBABILITY: '0' } })
    try {
      const send = (payload, headers = {}) => own.inject({ method: 'POST', url: '/v1/events', payload, headers: { authorization: `Bearer ${WRITE}`, 'content-type': 'application/json', ...headers } })
      const queued = send(Array.from({ length: 5 }, () => ({ metric: 'adm.z' })))
      for (let i = 0; i < 50 && own.writer.stats().pendingEvents === 0; i++) await new Promise(resolve => setTimeout(resolve, 10))
      expect(own.writer.stats().pendingEvents).toBe(5)
      // 40 bytes of gzip may hold MAX_EVENTS_PER_REQUEST (10) events: 5 queued leave room for 5
      const zipped = await send(gzipSync(Buffer.from('{"metric":"adm.z"}')), { 'content-encoding': 'gzip' })
      expect(zipped.statusCode, zipped.body).toBe(503)
      expect(zipped.json().message).toMatch(/^the writer holds 5 events, near MAX_PENDING_EVENTS = 10/)
      // the same event uncompressed declares room for 1: taken
      const plain = send({ metric: 'adm.z' })
      await ownTimers.advance(1000)
      expect((await queued).statusCode).toBe(200)
      expect((await plain).statusCode).toBe(200)
    } finally {
      await ownTimers.advance(5000)
      await own.close()
    }
  })
})

describe('a client that hangs up mid-body', () => {
  it('frees the bytes it was admitted for, and nothing is logged as an error', async () => {
    const { Writable } = await import('node:stream')
    const net = await import('node:net')
    const lines = []
    const stream = new Writable({ write (chunk, _enc, done) { lines.push(...chunk.toString().trim().split('\n').map(l => JSON.parse(l))); done() } })
    const own = await testApp('admissionabort', { env: { PREALLOC_PROBABILITY: '0' }, logger: { level: 'info', stream } })
    try {
      await own.listen({ port: 0, host: '127.0.0.1' })
      const socket = net.connect(own.server.address().port, '127.0.0.1')
      await new Promise(resolve => socket.once('connect', resolve))
      socket.write('POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[{"metric":"ab.a"},')
      for (let i = 0; i < 100 && own.admission.inflightBytes() === 0; i++) await new Promise(resolve => setTimeout(resolve, 10))
      expect(own.admission.inflightBytes()).toBe(100000)
      socket.destroy()
      for (let i = 0; i < 100 && own.admission.inflightBytes() !== 0; i++) await new Promise(resolve => setTimeout(resolve, 10))
      expect(own.admission.inflightBytes()).toBe(0)
      await new Promise(resolve => setTimeout(resolve, 50))
      expect(lines.filter(l => l.level >= 50)).toEqual([])
    } finally {
      await own.close()
    }
  })
})
