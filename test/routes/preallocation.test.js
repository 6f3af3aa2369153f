// Probabilistic preallocation and the sweep against a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { serverLacks } from '../helpers/server-gaps.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 30, 20, 0) // Nov 30: tomorrow starts a month
const clock = manualClock(NOW)

function expectZeroFilledDay (doc) {
  expect(Object.keys(doc.hourly)).toHaveLength(24)
  expect(Object.keys(doc.minute)).toHaveLength(24)
  for (const h of Object.keys(doc.minute)) expect(Object.keys(doc.minute[h])).toHaveLength(60)
}

describe('probabilistic preallocation', () => {
  let always, never
  beforeAll(async () => {
    always = await testApp('prealloc1', { clock, random: () => 0, env: { PREALLOC_PROBABILITY: '1' } })
    never = await testApp('prealloc0', { clock, random: () => 0, env: { PREALLOC_PROBABILITY: '0' } })
  })
  afterAll(async () => { await always?.close(); await never?.close() })

  const post = (app, body) => app.inject({ method: 'POST', url: '/v1/events', payload: body })

  it('with p = 1 creates the next day zero-filled, and the next month on a month end with that day\'s field only', async () => {
    expect((await post(always, { metric: 'p.one', value: 3 })).statusCode).toBe(200)
    await always.preallocator.idle()
    const db = always.mongo.db
    const tomorrow = await db.collection('daily').findOne({ _id: 'p.one/20261201' })
    expect(tomorrow).toMatchObject({ metric: 'p.one', date: new Date('2026-12-01T00:00:00Z'), daily: 0 })
    expectZeroFilledDay(tomorrow)
    expect(Object.values(tomorrow.hourly).every(v => v === 0)).toBe(true)
    const december = await db.collection('monthly').findOne({ _id: 'p.one/202612' })
    expect(december).toMatchObject({ metric: 'p.one', monthly: 0 })
    // `daily.D` exists exactly when day D has a daily document: Dec 1 only
    expect(december.daily).toEqual({ 1: 0 })
    // and today's field is there too: written by the event
    expect((await db.collection('monthly').findOne({ _id: 'p.one/202611' })).daily).toEqual({ 30: 3 })
  })

  it('never overwrites a count written before the preallocation', async () => {
    const db = always.mongo.db
    // write Dec 1 first (within MAX_FUTURE_MS of nothing: use Nov 29 → Nov 30 instead)
    expect((await post(always, { metric: 'p.keep', value: 7, ts: '2026-11-30T05:05:00Z' })).statusCode).toBe(200)
    await always.preallocator.idle()
    expect((await post(always, { metric: 'p.keep', value: 1, ts: '2026-11-29T10:00:00Z' })).statusCode).toBe(200)
    await always.preallocator.idle()
    const day = await db.collection('daily').findOne({ _id: 'p.keep/20261130' })
    expect(day.daily).toBe(7)
    expect(day.hourly[5]).toBe(7)
    expect(day.minute[5][5]).toBe(7)
    expect(day.minute[5][6]).toBe(0)
    expectZeroFilledDay(day)
  })

  it('does not preallocate beyond tomorrow of the service clock, and not at all with p = 0', async () => {
    expect((await post(never, { metric: 'p.zero' })).statusCode).toBe(200)
    await never.preallocator.idle()
    expect(await never.mongo.db.collection('daily').countDocuments({ metric: 'p.zero' })).toBe(1)
    // Dec 1 event (within MAX_FUTURE_MS? no: 4 h ahead) is refused; use the clock's last minutes instead
    clock.set(Date.UTC(2026, 10, 30, 23, 58))
    try {
      expect((await post(always, { metric: 'p.edge', ts: '2026-12-01T00:01:00Z' })).statusCode).toBe(200)
      await always.preallocator.idle()
      expect(await always.mongo.db.collection('daily').findOne({ _id: 'p.edge/20261202' })).toBeNull()
    } finally {
      clock.set(NOW)
    }
  })
})

/** Posts `payload` once in each of `minutes` distinct minutes (from NOW on), so that its metrics are busy at PREALLOC_BUSY_MINUTES = minutes */
async function postInMinutes (app, payload, minutes) {
  try {
    for (let i = 0; i < minutes; i++) {
      clock.set(NOW + i * 60_000)
      expect((await app.inject({ method: 'POST', url: '/v1/events', payload })).statusCode).toBe(200)
    }
  } finally {
    clock.set(NOW)
  }
}

describe('sweep', () => {
  let app
  beforeAll(async () => {
    app = await testApp('sweep', { clock, env: { PREALLOC_PROBABILITY: '0', PREALLOC_SWEEP_RATE: '100000', PREALLOC_BUSY_MINUTES: '2' } })
  })
  afterAll(async () => { await app?.close() })

  it('preallocates tomorrow for the metrics busy today, once; a sparse metric\'s first write makes its day', async () => {
    const db = app.mongo.db
    // s.a and s.b written in two minutes of this hour: busy; s.sparse once: not
    await postInMinutes(app, [{ metric: 's.a' }, { metric: 's.b', ts: '2026-11-20T00:00:00Z' }], 2)
    await postInMinutes(app, [{ metric: 's.sparse' }], 1)
    expect(await db.collection('metrics').findOne({ _id: 's.a' })).toMatchObject({ busyDay: new Date('2026-11-30T00:00:00Z') })
    expect((await db.collection('metrics').findOne({ _id: 's.sparse' })).busyDay).toBeUndefined()
    // a metric busy yesterday is not swept
    await db.collection('metrics').insertOne({ _id: 's.old', firstSeen: new Date(NOW - 2 * 86400_000), lastSeen: new Date(NOW - 2 * 86400_000), added: new Date(NOW - 86400_000), busyDay: new Date('2026-11-29T00:00:00Z') })
    const first = await app.sweep.runOnce()
    expect(first).toMatchObject({ checked: 2, created: 2 })
    for (const m of ['s.a', 's.b']) expectZeroFilledDay(await db.collection('daily').findOne({ _id: `${m}/20261201` }))
    expect(await db.collection('monthly').findOne({ _id: 's.a/202612' })).toMatchObject({ monthly: 0, daily: { 1: 0 } })
    expect(await db.collection('daily').findOne({ _id: 's.old/20261201' })).toBeNull()
    expect(await db.collection('daily').findOne({ _id: 's.sparse/20261201' })).toBeNull()
    expect(await app.sweep.runOnce()).toMatchObject({ checked: 2, created: 0 })
  })

  it('never runs two sweeps at once', async () => {
    const [a, b] = [app.sweep.runOnce(), app.sweep.runOnce()]
    expect(a).toBe(b)
    await a
  })
})

describe('sweep over many busy metrics', () => {
  let app
  beforeAll(async () => {
    app = await testApp('sweeppages', { clock, env: { PREALLOC_PROBABILITY: '0', PREALLOC_SWEEP_RATE: '100000', PREALLOC_BUSY_MINUTES: '2' } })
  })
  afterAll(async () => { await app?.close() })

  const PAGES = 'reads the busy metrics in pages by name: more than a page, each once'
  it.skipIf(serverLacks('scale', PAGES))(PAGES, async () => {
    const db = app.mongo.db
    const names = Array.from({ length: 503 }, (_, i) => `pg.${String(i).padStart(4, '0')}`)
    await db.collection('metrics').insertMany(names.map(_id => ({ _id, firstSeen: new Date(NOW), lastSeen: new Date(NOW), added: new Date(NOW), busyDay: new Date('2026-11-30T00:00:00Z') })))
    const result = await app.sweep.runOnce()
    expect(result.checked).toBeGreaterThanOrEqual(503) // with s.cut when the next test ran first
    expect(await db.collection('daily').countDocuments({ _id: { $gte: 'pg.', $lt: 'pg/' } })).toBe(503)
    const again = await app.sweep.runOnce()
    expect(again).toMatchObject({ checked: result.checked, created: 0 })
  }, 60_000)

  it('does a day again whose month lacks its field (a preallocation cut between its two upserts)', async () => {
    const db = app.mongo.db
    await postInMinutes(app, [{ metric: 's.cut' }], 2)
    await app.sweep.runOnce()
    expect(await db.collection('monthly').findOne({ _id: 's.cut/202612' })).toMatchObject({ monthly: 0, daily: { 1: 0 } })
    await db.collection('monthly').updateOne({ _id: 's.cut/202612' }, { $unset: { 'daily.1': '' } })
    expect(await app.sweep.runOnce()).toMatchObject({ created: 1 })
    expect(await db.collection('monthly').findOne({ _id: 's.cut/202612' })).toMatchObject({ monthly: 0, daily: { 1: 0 } })
  }, 60_000)
})

// each metric's tomorrow is two documents: its daily document and its month's day field
async function sweepRateApp (label, options = {}) {
  const app = await testApp(label, { clock, env: { PREALLOC_PROBABILITY: '0', PREALLOC_SWEEP_RATE: '4', PREALLOC_BUSY_MINUTES: '1' }, ...options })
  await postInMinutes(app, Array.from({ length: 5 }, (_, i) => ({ metric: `r.${i}` })), 1)
  return app
}

/** The sweep's timers, waiting for nothing: a wait moves their clock on by its length at once, so the pace is read off the sweep's own clock */
function pacingTimers () {
  let t = 0
  const waits = []
  return {
    waits,
    now: () => t,
    setTimeout (fn, ms) { waits.push(ms); t += ms; return setImmediate(fn) },
    clearTimeout: handle => clearImmediate(handle)
  }
}

describe('sweep rate', () => {
  let app
  const timers = pacingTimers()
  beforeAll(async () => { app = await sweepRateApp('sweeprate', { sweepTimers: timers }) })
  afterAll(async () => { await app?.close() })

  it('writes at most PREALLOC_SWEEP_RATE documents per second', async () => {
    expect(await app.sweep.runOnce()).toMatchObject({ checked: 5, created: 5 })
    expect(await app.mongo.db.collection('daily').countDocuments({ _id: /^r\.\d\/20261201$/ })).toBe(5)
    // 10 documents at 4 per second: the sweep waited 2.5 s of its own clock, half a second after each day's two
    expect(timers.waits).toEqual([500, 500, 500, 500, 500])
    expect(timers.now()).toBe(2500)
  })
})

describe('sweep and close', () => {
  let app
  beforeAll(async () => { app = await sweepRateApp('sweepclose') })
  afterAll(async () => { await app?.close() })

  it('stops a running sweep when the app closes', async () => {
    const running = app.sweep.runOnce()
    await new Promise(resolve => setTimeout(resolve, 300))
    await app.sweep.stop()
    const result = await running
    expect(result.created).toBeLessThan(5)
    expect(await app.mongo.db.collection('daily').countDocuments({ _id: /\/20261201$/ })).toBe(result.created)
  })
})
