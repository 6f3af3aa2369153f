// The one error handler (src/plugins/error-handler.js) alone: a database
// failure is a 503 that says only what the service knows — the fields a
// server's error reply sets on the driver's error (`outcome`, `details`,
// anything) never reach the client.
import Fastify from 'fastify'
import { MongoServerError } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import errorHandler from '../../src/plugins/error-handler.js'
import { BadRequestError, withDetails } from '../../src/errors.js'

const app = Fastify({ logger: false })
await app.register(errorHandler)
app.get('/server-error', async () => {
  // a server's error reply: the driver copies its fields onto the error
  throw new MongoServerError({ ok: 0, code: 91, errmsg: 'interrupted at shutdown', outcome: 'applied', details: { $where: 'x'.repeat(10) }, statusCode: 200 })
})
app.get('/bad', async () => { throw withDetails(new BadRequestError('from: not a time'), { details: [{ path: 'from', message: 'not a time' }] }) })
afterAll(() => app.close())

describe('error handler', () => {
  it('answers a database error 503 not_applied with Retry-After, and none of the reply\'s fields', async () => {
    const res = await app.inject('/server-error')
    expect(res.statusCode).toBe(503)
    expect(res.headers['retry-after']).toBe('1')
    expect(res.json()).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'the database is unavailable; retry later', outcome: 'not_applied' })
  })

  it('keeps the details of the service\'s own errors', async () => {
    const res = await app.inject('/bad')
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: 'from: not a time', details: [{ path: 'from', message: 'not a time' }] })
  })
})
