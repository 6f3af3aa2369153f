// A collection's lone update goes as the driver's updateOne
// (docs/adr/0077-lone-update-as-update-one.md), against the suite's real
// server through the real driver: a lone request is applied exactly once,
// and a real write error of a lone statement is classified as the same
// statement's beside another in a bulkWrite; a request whose statement
// failed is never answered 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { bulkWriteWithRetries } from '../../src/writer/flush-executor.js'
import { incrementUpdate } from '../../src/writer/write-operations.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const clock = manualClock(NOW)
let app

beforeAll(async () => {
  app = await testApp('loneupdate', { clock, env: { PREALLOC_PROBABILITY: '0' } })
})
afterAll(async () => { await app?.close() })

const post = body => app.inject({ method: 'POST', url: '/v1/events', payload: body })
const collection = name => app.mongo.db.collection(name)
const increment = (id, inc) => incrementUpdate(id, { metric: 'lone.x', date: Date.UTC(2026, 10, 21), inc })

describe('a lone update as updateOne', () => {
  it('single-event requests one at a time: each applied once, the documents equal the sum of the events', async () => {
    const values = [3, -1, 0.5, 7, 2, 11, -4, 1]
    for (const value of values) {
      const res = await post({ metric: 'lone.sum', value, ts: NOW - 30_000 })
      expect(res.statusCode).toBe(200)
    }
    const sum = values.reduce((a, b) => a + b, 0)
    expect((await collection('daily').findOne({ _id: 'lone.sum/20261121' })).daily).toBe(sum)
    expect((await collection('monthly').findOne({ _id: 'lone.sum/202611' })).monthly).toBe(sum)
  })

  it('a real write error of a lone statement: not applied, as beside another statement in a bulkWrite', async () => {
    const daily = collection('daily')
    await daily.insertOne({ _id: 'lone.bad/20261121', metric: 'lone.bad', daily: 'not a number' })
    const lone = await bulkWriteWithRetries(daily, ['bad'], [increment('lone.bad/20261121', { daily: 1 })])
    const bulk = await bulkWriteWithRetries(daily, ['bad', 'good'], [increment('lone.bad/20261121', { daily: 1 }), increment('lone.good/20261121', { daily: 1 })])
    expect(lone.error).not.toBeNull()
    expect(Object.fromEntries(lone.outcomes)).toEqual({ bad: 'not_applied' })
    expect(Object.fromEntries(bulk.outcomes)).toEqual({ bad: 'not_applied', good: 'applied' })
    expect((await daily.findOne({ _id: 'lone.bad/20261121' })).daily).toBe('not a number')
  })

  it('a lone request whose day document cannot take it: never 200, the failure named', async () => {
    await collection('daily').insertOne({ _id: 'lone.stuck/20261121', metric: 'lone.stuck', daily: 'not a number' })
    const res = await post({ metric: 'lone.stuck', value: 1, ts: NOW - 30_000 })
    // the month document took its increment, the day's did not: the request is neither applied nor not applied
    expect(res.statusCode).toBe(504)
    expect(res.json().outcome).toBe('unknown')
    expect((await collection('daily').findOne({ _id: 'lone.stuck/20261121' })).daily).toBe('not a number')
  })
})
