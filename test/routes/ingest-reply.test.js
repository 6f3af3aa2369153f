// Every ingest outcome → its HTTP answer, through a real Fastify app with
// the service's error handler: status, Retry-After and body.
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import errorHandler from '../../src/plugins/error-handler.js'
import { replyToIngestOutcome } from '../../src/routes/ingest-reply.js'

async function answerOf (result) {
  const app = Fastify({ logger: false })
  app.decorate('config', { bodyLimitBytes: 1024 })
  await app.register(errorHandler)
  app.get('/', async (request, reply) => replyToIngestOutcome(reply, result))
  const res = await app.inject('/')
  await app.close()
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], replayed: res.headers['idempotent-replayed'], body: res.json() }
}

describe('ingest outcome → HTTP', () => {
  it.each([
    [{ outcome: 'applied', accepted: 3 }, 200, undefined, { accepted: 3 }],
    [{ outcome: 'replayed', body: { accepted: 2 } }, 200, undefined, { accepted: 2 }],
    [{ outcome: 'rejected', reason: 'invalid_event', message: 'event.ts: too old', details: [{ path: 'event.ts', message: 'too old' }] }, 400, undefined, { message: 'event.ts: too old', details: [{ path: 'event.ts' }] }],
    [{ outcome: 'key_unsupported', message: 'no transactions here' }, 400, undefined, { message: 'no transactions here' }],
    [{ outcome: 'key_in_flight' }, 409, '1', { message: expect.stringMatching(/in flight/) }],
    [{ outcome: 'key_reused' }, 422, undefined, { message: expect.stringMatching(/different body/) }],
    [{ outcome: 'not_applied', reason: 'the server is shutting down' }, 503, '1', { outcome: 'not_applied', message: 'the server is shutting down; outcome: not_applied' }],
    [{ outcome: 'unknown', reason: 'the database did not acknowledge every write' }, 504, '1', { outcome: 'unknown' }]
  ])('%o → %i', async (result, status, retryAfter, body) => {
    const answer = await answerOf(result)
    expect(answer.status).toBe(status)
    expect(answer.retryAfter).toBe(retryAfter)
    expect(answer.body).toMatchObject(body)
    if (status >= 400) expect(answer.body).toMatchObject({ statusCode: status, error: expect.any(String) })
    expect(answer.replayed).toBe(result.outcome === 'replayed' ? 'true' : undefined)
  })

  it('refuses to invent an answer for an outcome it does not know', async () => {
    expect((await answerOf({ outcome: 'mystery' })).status).toBe(500)
  })
})
