// Request ids: x-request-id honoured when it looks like an id, a UUID
// otherwise; echoed in the answer and present in the request's log lines.
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { genReqId } from '../../src/plugins/request-id.js'
import { testApp } from '../helpers/test-app.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const lines = []
let app

beforeAll(async () => {
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(...chunk.toString().trim().split('\n').map(l => JSON.parse(l))); done() } })
  app = await testApp('reqid', { env: { PREALLOC_PROBABILITY: '0' }, logger: { level: 'debug', stream } })
})
afterAll(async () => { await app?.close() })

describe('request ids', () => {
  it('honours a client x-request-id, echoes it and logs it', async () => {
    const res = await app.inject({ url: '/v1/metrics/none/series', headers: { 'x-request-id': 'trace-42.abc' } })
    expect(res.statusCode).toBe(404)
    expect(res.headers['x-request-id']).toBe('trace-42.abc')
    const logged = lines.filter(l => l.reqId === 'trace-42.abc')
    expect(logged.map(l => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']))
  })

  it('makes a UUID when the header is missing or not an id', async () => {
    const none = await app.inject('/healthz')
    expect(none.headers['x-request-id']).toMatch(UUID)
    const bad = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'x'.repeat(200) } })
    expect(bad.headers['x-request-id']).toMatch(UUID)
    expect(genReqId({ headers: { 'x-request-id': 'has space' } })).toMatch(UUID)
    expect(genReqId({ headers: { 'x-request-id': '0af7651916cd43dd8448eb211c80319c' } })).toBe('0af7651916cd43dd8448eb211c80319c')
  })
})
