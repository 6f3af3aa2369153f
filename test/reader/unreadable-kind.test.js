// A registry entry of a kind this version cannot read (written by another
// version, or by hand): every read of it is a 400 naming the kind, never a
// 500 and never an answer read from another kind's documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 2, 2, 10, 30)
let app

beforeAll(async () => {
  app = await testApp('unreadablekind', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0' } })
  await app.collections.metrics.insertOne({ _id: 'odd.set', kind: 'set', firstSeen: new Date(NOW), lastSeen: new Date(NOW), added: new Date(NOW) })
})
afterAll(async () => { await app?.close() })

describe('a metric of a kind this version cannot read', () => {
  it.each([
    ['series', `/v1/metrics/odd.set/series?from=${NOW - 3_600_000}&to=${NOW}`],
    ['series with a stat', `/v1/metrics/odd.set/series?from=${NOW - 3_600_000}&to=${NOW}&stat=p99`],
    ['total', `/v1/metrics/odd.set/total?from=${NOW - 3_600_000}&to=${NOW}`],
    ['ytd', '/v1/metrics/odd.set/ytd'],
    ['quantiles', `/v1/metrics/odd.set/quantiles?from=${NOW - 3_600_000}&to=${NOW}`]
  ])('%s: a 400 naming the kind it has', async (_, url) => {
    const res = await app.inject({ method: 'GET', url })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().message).toMatch(/metric "odd\.set" is of a kind this version cannot read \(unreadable \("set"/)
  })

  it('Graphite reads it as no series (as an unknown path), never a 5xx', async () => {
    const res = await app.inject({ method: 'GET', url: '/render?target=odd.set&from=-1h&format=json' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual([])
  })
})
