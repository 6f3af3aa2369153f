// Quiet by default: at the default LOG_LEVEL (info) a thousand requests
// write no line at all (the startup and shutdown lines stay visible); at
// debug each request writes its "incoming request" and "request completed"
// lines with its request id.
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { testApp } from './helpers/test-app.js'

function captured () {
  const lines = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(...chunk.toString().trim().split('\n').map(l => JSON.parse(l))); done() } })
  return { lines, stream }
}

describe('the access log', () => {
  it('is silent at the default level: 1,000 requests, no line', async () => {
    const out = captured()
    const app = await testApp('accessquiet', { env: { PREALLOC_PROBABILITY: '0' }, logger: { level: 'info', stream: out.stream } })
    try {
      const before = out.lines.length
      for (let i = 0; i < 500; i++) await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'quiet.a' } })
      for (let i = 0; i < 500; i++) await app.inject({ url: '/healthz' })
      expect(out.lines.slice(before)).toEqual([])
    } finally {
      await app.close()
    }
  })

  it('writes the request trail at debug', async () => {
    const out = captured()
    const app = await testApp('accessdebug', { env: { PREALLOC_PROBABILITY: '0' }, logger: { level: 'debug', stream: out.stream } })
    try {
      const res = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'trail-1' } })
      expect(res.statusCode).toBe(200)
      const trail = out.lines.filter(l => l.reqId === 'trail-1')
      expect(trail.map(l => [l.level, l.msg])).toEqual([[20, 'incoming request'], [20, 'request completed']])
      expect(trail[1].res.statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })
})
