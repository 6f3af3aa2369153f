// MAX_METRICS counts only metrics whose requests were applied.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

let app
beforeAll(async () => {
  app = await testApp('registrylimit', { clock: manualClock(Date.UTC(2026, 10, 21, 12)), env: { MAX_METRICS: '1', PREALLOC_PROBABILITY: '0' } })
})
afterAll(async () => { await app?.close() })

it('a new metric of a request answered 503 holds no place in MAX_METRICS', async () => {
  await app.writer.close() // from now on every write is refused: 503 not_applied
  const refused = await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'first.try' } })
  expect(refused.statusCode).toBe(503)
  expect(refused.json()).toMatchObject({ outcome: 'not_applied' })
  expect(await app.registry.admit(['another'])).toEqual({ reserved: ['another'] })
  expect(await app.registry.admit(['third'])).toMatchObject({ refusal: { limit: 1 } })
})
