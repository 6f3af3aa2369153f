// Property: no lifecycle step lowers an acknowledged count. Any interleaving
// of ingest (events anywhere inside MAX_AGE_DAYS, values that may be
// negative corrections), probabilistic preallocation (every event), the
// sweep, retention passes (minute detail kept 2 days, daily documents 7),
// the clock moving across days and months, and `check --repair`, through
// the real app on the real database: every day, hour and minute point the
// retention still keeps, every total and the year to date equal what an
// independent model of the acknowledged events says, a day point is null
// exactly where the day has no daily document, and `check` reports no
// violation. A preallocation cut short between its two documents (tomorrow's
// daily document without its month's field) may be mixed in anywhere:
// `check --repair` completes it without moving any count.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { dayZeroIncrements } from '../../src/bucket/minute-fields.js'
import { runCheck } from '../../src/jobs/check-run.js'
import { dailyKeptFromFor, minuteKeptFromFor } from '../../src/bucket/retention-horizons.js'
import { dayId } from '../../src/bucket/time.js'
import { incrementUpdate } from '../../src/writer/write-operations.js'
import { testApp } from '../helpers/test-app.js'

const DAY = 86_400_000
const HOUR = 3_600_000
const MAX_AGE_DAYS = 6
const START = Date.UTC(2026, 10, 28, 20) // four days before December
const metrics = ['lp.a', 'lp.b']
const env = { PREALLOC_PROBABILITY: '1', MAX_AGE_DAYS: String(MAX_AGE_DAYS), MINUTE_RETENTION_DAYS: '2', DAILY_RETENTION_DAYS: String(MAX_AGE_DAYS + 1), RETENTION_RATE: '1000000' }
const clock = manualClock(START)
let app
let cutSteps = 0

beforeAll(async () => { app = await testApp('lifecycleprop', { clock, env }) })
afterAll(async () => { await app?.close() })

const action = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('ingest'), events: fc.array(fc.record({ metric: fc.constantFrom(...metrics), value: fc.integer({ min: -3, max: 9 }), back: fc.integer({ min: 0, max: (MAX_AGE_DAYS - 1) * 24 * 60 - 1 }) }), { minLength: 1, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance'), hours: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'sweep' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'retention' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'repair' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut'), metric: fc.constantFrom(...metrics) }) }
)

/** A preallocation cut short between its two documents: tomorrow zero-filled, its month's field not written */
async function cutPreallocation (metric) {
  const tomorrow = clock.now() - (clock.now() % DAY) + DAY
  const { filter, update } = incrementUpdate(dayId(metric, tomorrow), { metric, date: tomorrow, inc: dayZeroIncrements() }).updateOne
  await app.collections.daily.updateOne(filter, update, { upsert: true })
}

function check (repair) {
  const now = clock.now()
  return runCheck(app.collections, {
    repair,
    writeTimeoutMs: 1,
    sleep: ms => new Promise(resolve => setTimeout(resolve, ms)),
    dailyKeptFrom: dailyKeptFromFor(app.config, now),
    minuteKeptFrom: minuteKeptFromFor(app.config, now)
  })
}

async function perform (step, model) {
  if (step.kind === 'ingest') {
    const now = clock.now()
    const events = step.events.map(e => ({ metric: e.metric, value: e.value, ts: now - e.back * 60_000 - 1 }))
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events })
    expect(res.statusCode, res.body).toBe(200)
    model.push(...events)
    await app.preallocator.idle()
  } else if (step.kind === 'advance') {
    clock.advance(step.hours * HOUR)
  } else if (step.kind === 'sweep') {
    expect(await app.sweep.runOnce()).not.toHaveProperty('error')
  } else if (step.kind === 'retention') {
    expect(await app.retention.runOnce()).toMatchObject({ status: 'done' })
  } else if (step.kind === 'cut') {
    await cutPreallocation(step.metric)
    model.cut = true
    cutSteps++
  } else {
    await check(true)
    model.cut = false
  }
}

const sumWhere = (model, metric, from, to) => model.filter(e => e.metric === metric && e.ts >= from && e.ts < to).reduce((s, e) => s + e.value, 0)

async function expectAnswersEqualModel (model, { nulls = true } = {}) {
  const now = clock.now()
  const today = now - (now % DAY)
  const { minuteFrom, dailyFrom } = { minuteFrom: today - 2 * DAY, dailyFrom: today - (MAX_AGE_DAYS + 1) * DAY }
  for (const metric of metrics) {
    if (!model.some(e => e.metric === metric)) continue
    const from = today - MAX_AGE_DAYS * DAY
    const to = today + DAY
    const days = (await app.inject({ url: `/v1/metrics/${metric}/series?from=${from}&to=${to}&step=day` })).json()
    days.timestamps.forEach((t, i) => expect(days.values[i] ?? 0, `${metric} day ${new Date(t).toISOString()}`).toBe(sumWhere(model, metric, t, t + DAY)))
    // null exactly where the day has no daily document (every day here is inside the daily retention)
    const written = new Set((await app.collections.daily.find({ metric }, { projection: { _id: 1 } }).toArray()).map(d => d._id))
    if (nulls) days.timestamps.forEach((t, i) => expect(days.values[i] === null, `${metric} day ${new Date(t).toISOString()} null`).toBe(!written.has(dayId(metric, t))))
    const hoursFrom = Math.max(from, dailyFrom)
    const hours = (await app.inject({ url: `/v1/metrics/${metric}/series?from=${hoursFrom}&to=${to}&step=hour` })).json()
    hours.timestamps.forEach((t, i) => expect(hours.values[i] ?? 0, `${metric} hour ${new Date(t).toISOString()}`).toBe(sumWhere(model, metric, t, t + HOUR)))
    const minutes = (await app.inject({ url: `/v1/metrics/${metric}/series?from=${minuteFrom}&to=${minuteFrom + DAY}&step=minute` })).json()
    minutes.timestamps.forEach((t, i) => expect(minutes.values[i] ?? 0, `${metric} minute ${new Date(t).toISOString()}`).toBe(sumWhere(model, metric, t, t + 60_000)))
    const total = (await app.inject({ url: `/v1/metrics/${metric}/total?from=${from}&to=${to}` })).json()
    expect(total.total, `${metric} total`).toBe(sumWhere(model, metric, from, to))
    const ytd = (await app.inject({ url: `/v1/metrics/${metric}/ytd?asOf=${now}` })).json()
    expect(ytd.total, `${metric} ytd`).toBe(sumWhere(model, metric, Date.UTC(new Date(now).getUTCFullYear(), 0, 1), now + 1))
  }
}

describe('the lifecycle never lowers an acknowledged count', () => {
  it('ingest, preallocation, sweep, retention and repair in any order: every answer equals the model, check finds nothing', async () => {
    let run = 0
    await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 3, maxLength: 14 }), async (steps) => {
      run++
      // a database and metrics of each run's own: the previous runs' documents stay as they are
      for (const name of ['daily', 'monthly', 'metrics', 'jobs']) await app.mongo.db.collection(name).deleteMany({})
      for (const metric of metrics) { app.registry.forget(metric); app.writer.forgetRegistryEntry(metric) }
      clock.set(START + run * 3 * DAY)
      const model = []
      for (const step of steps) await perform(step, model)
      if (model.cut) {
        // a preallocation cut short: its repair changes no answer's count
        await expectAnswersEqualModel(model, { nulls: false })
        expect(await check(true)).toMatchObject({ unrepaired: 0, unsettled: 0 })
      }
      await expectAnswersEqualModel(model)
      const found = await check(false)
      expect(found.violations, JSON.stringify(found)).toBe(0)
    }), { numRuns: 25 })
    expect(cutSteps).toBeGreaterThan(0)
  }, 120_000)
})
