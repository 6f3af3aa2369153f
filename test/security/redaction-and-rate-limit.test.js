// Tokens never reach the log (pino redact), and the optional per-token rate
// limit (RATE_LIMIT_PER_MINUTE) answers 429 + Retry-After per token.
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultLogger } from '../../src/app.js'
import { testApp } from '../helpers/test-app.js'

const WRITE = 'write-token-secret-aaaaaaaaaaa'
const WRITE_2 = 'write-token-secret-bbbbbbbbbbb'
const READ = 'read-token-secret-cccccccccccc'
const WRONG = 'wrong-token-secret-ddddddddddd'

function capture () {
  const lines = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(chunk.toString()); done() } })
  return { lines, stream, text: () => lines.join('') }
}

describe('tokens never reach the log', () => {
  let app
  const out = capture()
  beforeAll(async () => {
    app = await testApp('redact', { env: { WRITE_TOKENS: WRITE, READ_TOKENS: READ }, logger: { level: 'trace', stream: out.stream } })
  })
  afterAll(async () => { await app?.close() })

  it('in the request logs at trace level, for accepted, refused and failed requests', async () => {
    await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'red.a' }, headers: { authorization: `Bearer ${WRITE}` } })
    await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'red.a' }, headers: { authorization: `Bearer ${WRONG}` } })
    await app.inject({ method: 'POST', url: '/v1/events', payload: '{bad json', headers: { authorization: `Bearer ${WRITE}`, 'content-type': 'application/json' } })
    await app.inject({ url: '/v1/metrics', headers: { authorization: `Bearer ${READ}` } })
    // what a careless log line of the headers would write
    app.log.info({ req: { headers: { authorization: `Bearer ${WRITE}` } } }, 'headers as req')
    app.log.info({ headers: { authorization: `Bearer ${WRITE}` } }, 'headers')
    app.log.info({ request: { headers: { authorization: `Bearer ${READ}` } } }, 'headers as request')
    app.log.info({ upstream: { headers: { authorization: `Bearer ${READ}` } } }, 'nested headers')
    const text = out.text()
    expect(text).toMatch(/incoming request/)
    for (const secret of [WRITE, READ, WRONG]) expect(text).not.toContain(secret)
    // (a `req` object goes through Fastify's serializer, which keeps no headers at all)
    for (const msg of ['headers', 'headers as request', 'nested headers']) {
      const line = JSON.parse(out.lines.find(l => JSON.parse(l).msg === msg))
      expect(JSON.stringify(line), msg).toMatch(/"authorization":"\[Redacted\]"/)
    }
  })

  it('with the logger the server builds (defaultLogger)', () => {
    const sink = capture()
    const log = pino(defaultLogger('info'), sink.stream)
    log.info({ req: { headers: { authorization: `Bearer ${WRITE}`, cookie: 'session=1' } } }, 'x')
    expect(sink.text()).not.toContain(WRITE)
    expect(sink.text()).not.toContain('session=1')
  })
})

describe('per-token rate limit', () => {
  let app
  beforeAll(async () => {
    app = await testApp('ratelimit', { env: { WRITE_TOKENS: `${WRITE},${WRITE_2}`, READ_TOKENS: READ, RATE_LIMIT_PER_MINUTE: '3' } })
  })
  afterAll(async () => { await app?.close() })

  const post = token => app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'rl.a' }, headers: { authorization: `Bearer ${token}` } })

  it('answers 429 + Retry-After past the limit, per token; other tokens and open routes are unaffected', async () => {
    const first = await Promise.all([post(WRITE), post(WRITE), post(WRITE)])
    expect(first.map(r => r.statusCode)).toEqual([200, 200, 200])
    const over = await post(WRITE)
    expect(over.statusCode).toBe(429)
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0)
    expect(over.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', message: expect.stringMatching(/RATE_LIMIT_PER_MINUTE = 3/) })
    expect((await post(WRITE_2)).statusCode).toBe(200)
    expect((await app.inject({ url: '/v1/metrics', headers: { authorization: `Bearer ${READ}` } })).statusCode).toBe(200)
    for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200)
    // a wrong token is refused before it could use up anyone's budget
    expect((await post(WRONG)).statusCode).toBe(403)
    expect(await app.mongo.db.collection('daily').countDocuments({ metric: 'rl.a' })).toBe(1)
  })
})

describe('rate limit off by default', () => {
  let app
  beforeAll(async () => { app = await testApp('ratelimitoff') })
  afterAll(async () => { await app?.close() })

  it('takes many requests from one client', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => app.inject({ url: '/healthz' })))
    expect(answers.every(a => a.statusCode === 200)).toBe(true)
    const posts = await Promise.all(Array.from({ length: 20 }, () => app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'rl.off' } })))
    expect(posts.every(a => a.statusCode === 200)).toBe(true)
  })
})
