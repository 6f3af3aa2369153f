// A name deleted through instance A while instance B writes it again: B's
// upsert makes the entry again, and A's DELETE, when its document deletion
// ends (minutes for a big name), keeps it known rather than forgetting it
// once more: A's name index reads an entry only when it is made, so a name
// forgotten then would be missing from A's Graphite finds and tag listings
// until its hourly rebuild, though B writes it each minute.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp, uniqueDbName } from '../helpers/test-app.js'

const MIN = 60_000
const NOW = Date.UTC(2026, 10, 22, 12)

describe('a name deleted via A and written again via B', () => {
  const clock = manualClock(NOW)
  let a, b
  let release
  let registryDeleted
  const gate = new Promise(resolve => { release = resolve })
  const deleted = new Promise(resolve => { registryDeleted = resolve })

  beforeAll(async () => {
    const env = { PREALLOC_PROBABILITY: '0', MONGODB_DB: uniqueDbName('delete-written-again') }
    const nameIndexTimers = { setTimeout: () => null, clearTimeout () {} }
    a = await testApp('delete-written-again', { clock, env, nameIndexTimers })
    b = await testApp('delete-written-again', { clock, env, nameIndexTimers, keepDatabase: true })
    // A's registry deletion, then a long document deletion (a big metric: minutes), simulated by a gate
    const metrics = a.collections.metrics
    const deleteOne = metrics.deleteOne.bind(metrics)
    metrics.deleteOne = async (...args) => { const r = await deleteOne(...args); registryDeleted(); await gate; return r }
  })
  afterAll(async () => { await b?.close(); await a?.close() })

  const post = (app, metric) => app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric, value: 1, ts: clock.now() }] })
  const find = async (app) => (await app.inject({ url: '/metrics/find?query=jobs.*' })).json().map(n => n.id ?? n.text)

  it('A learns the name again from B\'s writes', async () => {
    expect((await post(a, 'jobs.done')).statusCode).toBe(200)
    expect(a.nameIndex.has('jobs.done')).toBe(true)
    const del = a.inject({ method: 'DELETE', url: '/v1/metrics/jobs.done' })
    await deleted
    clock.advance(MIN)
    expect((await post(b, 'jobs.done')).statusCode).toBe(200) // made again by B
    const made = await a.collections.metrics.findOne({ _id: 'jobs.done' })
    expect(made).not.toBeNull()
    await a.nameIndex.refresh()
    for (let i = 0; i < 6; i++) { clock.advance(MIN / 2); await a.nameIndex.refresh() } // A's document deletion lasts 3 min; A looks on (every 10 s in production)
    release()
    expect((await del).statusCode).toBe(200)
    // B goes on writing it each minute; A looks every 10 s (here: once a minute)
    for (let i = 0; i < 10; i++) {
      clock.advance(MIN / 2)
      if (i % 2 === 1) expect((await post(b, 'jobs.done')).statusCode).toBe(200)
      await a.nameIndex.refresh()
    }
    expect(await a.collections.metrics.findOne({ _id: 'jobs.done' })).not.toBeNull() // in the registry
    expect((await a.inject({ url: '/v1/metrics?prefix=jobs.' })).json().metrics.map(m => m.name)).toEqual(['jobs.done'])
    expect(a.nameIndex.has('jobs.done')).toBe(true) // not only at A's hourly rebuild
    expect(await find(a)).toContain('jobs.done')
  })
})
