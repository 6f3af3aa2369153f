// The retention job against a real database: exactly the
// documents past a metric's horizons change, twice changes nothing, day
// totals stay in `monthly`, the rate holds, the lease keeps a second pass
// out, and a stopped pass is finished by the next.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { LEASE_COLLECTION, createLease } from '../../src/jobs/lease.js'
import { dayKeyOf, documentsFor, seed } from '../helpers/bucket-docs.js'
import { retentionJob } from '../helpers/job-runs.js'
import { directDb, uniqueDbName } from '../helpers/test-app.js'

const DAY = 86_400_000
const TODAY = Date.UTC(2026, 10, 21)
const NOW = TODAY + 12 * 3_600_000
const COLLECTIONS = ['daily', 'monthly', 'metrics', LEASE_COLLECTION]
let client, db

beforeAll(async () => { ({ client, db } = await directDb(uniqueDbName('retjob'))) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => {
  for (const name of COLLECTIONS) await db.collection(name).deleteMany({})
})

/** One event at 10:17 and one at 23:59 of each of the days back from today */
function eventsOver (metric, daysBack) {
  const events = []
  for (let back = 0; back <= daysBack; back++) {
    const day = TODAY - back * DAY
    events.push({ metric, value: back + 1, time: day + 10 * 3_600_000 + 17 * 60_000 })
    events.push({ metric, value: 2, time: day + DAY - 60_000 })
  }
  return events
}

// horizons as counts of days kept (rules; helpers/job-runs.js): minute detail from today − minuteDays, daily documents from today − dailyDays
const job = ({ clock = manualClock(NOW), ...options } = {}) => retentionJob(db, COLLECTIONS, { clock, ...options })

const all = name => db.collection(name).find().sort({ _id: 1 }).toArray()
const byId = docs => new Map(docs.map(d => [d._id, d]))

describe('downsampling', () => {
  it('drops minute detail from exactly the documents more than a day past the horizon, and a second pass changes nothing', async () => {
    await seed(db, eventsOver('app.a', 20))
    const before = byId(await all('daily'))
    const result = await job().runOnce()
    // minuteDays 10: minute detail from today − 10; downsampled: days before today − 11
    expect(result).toMatchObject({ status: 'done', metrics: 1, downsampled: 9, deleted: 0, kept: 0 })
    const after = await all('daily')
    expect(after).toHaveLength(21)
    for (const doc of after) {
      const old = before.get(doc._id)
      if (doc.date.getTime() < TODAY - 11 * DAY) {
        const { minute, ...rest } = old
        expect(minute).toBeDefined()
        expect(doc, doc._id).toEqual({ ...rest, detail: 'quarterHour' })
      } else {
        expect(doc, doc._id).toEqual(old)
      }
    }
    const monthlyBefore = await all('monthly')
    const again = await job().runOnce()
    expect(again).toMatchObject({ status: 'done', downsampled: 0, deleted: 0 })
    expect(await all('daily')).toEqual(after)
    expect(await all('monthly')).toEqual(monthlyBefore)
  })

  it('applies each metric its own rule', async () => {
    await seed(db, [...eventsOver('debug.x', 12), ...eventsOver('app.y', 12), ...eventsOver('keep.z', 12)])
    const rules = { debug: { minuteDays: 2, dailyDays: 8 }, keep: { minuteDays: null, dailyDays: null }, '*': { minuteDays: 9, dailyDays: null } }
    const result = await job({ rules }).runOnce()
    expect(result).toMatchObject({ status: 'done', metrics: 3 })
    const docs = await all('daily')
    const daysOf = (metric, pred) => docs.filter(d => d.metric === metric && pred(d)).map(d => Math.round((TODAY - d.date.getTime()) / DAY)).sort((a, b) => a - b)
    // debug: documents older than 8 days deleted, minutes gone before today − 3
    expect(daysOf('debug.x', () => true)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    expect(daysOf('debug.x', d => d.minute)).toEqual([0, 1, 2, 3])
    // default rule: minutes before today − 10 gone, nothing deleted
    expect(daysOf('app.y', () => true)).toHaveLength(13)
    expect(daysOf('app.y', d => d.minute)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(daysOf('app.y', d => d.detail === 'quarterHour')).toEqual([11, 12])
    // forever: untouched
    expect(daysOf('keep.z', d => d.minute)).toHaveLength(13)
  })
})

describe('documents that appear behind the last bound', () => {
  it('are downsampled by the next full scan (every fullScanEveryMs, and after an upgrade), not skipped for good', async () => {
    await seed(db, eventsOver('app.b', 20))
    const first = await job().runOnce()
    expect(first).toMatchObject({ status: 'done', full: true, downsampled: 9 })
    // a document with minutes appears far behind the bound: a restore, a changed rule
    const [late] = documentsFor([{ metric: 'app.b', value: 4, time: TODAY - 40 * DAY + 3_600_000 }]).daily
    await db.collection('daily').insertOne(late)
    const regular = await job({ clock: manualClock(NOW + DAY) }).runOnce()
    expect(regular).toMatchObject({ status: 'done', full: false, downsampled: 1 }) // only the day that crossed the bound
    expect((await db.collection('daily').findOne({ _id: late._id })).minute).toBeDefined()
    const full = await job({ clock: manualClock(NOW + 8 * DAY) }).runOnce()
    expect(full).toMatchObject({ status: 'done', full: true })
    const reached = await db.collection('daily').findOne({ _id: late._id })
    expect(reached.minute).toBeUndefined()
    expect(reached).toMatchObject({ detail: 'quarterHour', daily: 4 })
  })

  it('a progress record of an older version of the job makes the next pass a full one', async () => {
    await seed(db, eventsOver('app.c', 20))
    await db.collection(LEASE_COLLECTION).insertOne({ _id: 'retention.progress', completedAt: new Date(NOW), rules: 'v1' })
    expect(await job().runOnce()).toMatchObject({ status: 'done', full: true, downsampled: 9 })
    expect(await job().runOnce()).toMatchObject({ status: 'done', full: false, downsampled: 0 })
  })
})

describe('a document without the quarter-hour tier (a shape no release writes)', () => {
  it('keeps its minutes, counted nowhere, and the pass records its progress past it', async () => {
    await seed(db, eventsOver('app.b', 20))
    await seed(db, [{ metric: 'app.old', value: 5, time: TODAY - 15 * DAY + 3_600_000 }], { quarterHourly: false })
    const result = await job().runOnce()
    expect(result).toMatchObject({ status: 'done', downsampled: 9, kept: 0, unvouched: 0 })
    expect(result).not.toHaveProperty('unfilled')
    expect((await db.collection('daily').findOne({ _id: `app.old/${dayKeyOf(TODAY - 15 * DAY)}` })).minute).toEqual({ 1: { 0: 5 } })
    expect(await db.collection(LEASE_COLLECTION).findOne({ _id: 'retention.progress' })).toMatchObject({ completedAt: new Date(NOW) })
  })
})

describe('deletion', () => {
  it('deletes daily documents past the daily horizon; their day totals stay in monthly', async () => {
    const events = eventsOver('app.a', 40)
    await seed(db, events)
    const monthlyBefore = await all('monthly')
    const result = await job({ rules: { '*': { minuteDays: 5, dailyDays: 30 } } }).runOnce()
    expect(result).toMatchObject({ status: 'done', deleted: 10, kept: 0 })
    const remaining = await all('daily')
    expect(remaining.map(d => d.date.getTime()).sort((a, b) => a - b)[0]).toBe(TODAY - 30 * DAY)
    expect(await all('monthly')).toEqual(monthlyBefore)
    // every day's total, deleted or not, is still answered by monthly.daily.D
    const expected = documentsFor(events).daily
    const months = byId(monthlyBefore)
    for (const day of expected) {
      const d = day.date
      expect(months.get(`app.a/${dayKeyOf(d.getTime()).slice(0, 6)}`).daily[d.getUTCDate()]).toBe(day.daily)
    }
  })

  it('keeps a daily document whose day total the monthly document does not hold', async () => {
    await seed(db, eventsOver('app.a', 40))
    const victim = `app.a/${dayKeyOf(TODAY - 35 * DAY)}`
    const month = `app.a/${dayKeyOf(TODAY - 35 * DAY).slice(0, 6)}`
    const day = new Date(TODAY - 35 * DAY).getUTCDate()
    await db.collection('monthly').updateOne({ _id: month }, { $inc: { [`daily.${day}`]: -1, monthly: -1 } })
    const result = await job({ rules: { '*': { minuteDays: 5, dailyDays: 30 } } }).runOnce()
    expect(result).toMatchObject({ status: 'done', deleted: 9, kept: 1 })
    expect(await db.collection('daily').findOne({ _id: victim })).not.toBeNull()
  })
})

describe('deletion and the month\'s day field', () => {
  it('a day whose month lacks `daily.D`: kept when its total is not 0; recorded by $inc 0, then deleted, when it is 0', async () => {
    await seed(db, eventsOver('app.a', 40))
    const dayOf = back => ({ id: `app.a/${dayKeyOf(TODAY - back * DAY)}`, month: `app.a/${dayKeyOf(TODAY - back * DAY).slice(0, 6)}`, day: new Date(TODAY - back * DAY).getUTCDate() })
    const written = dayOf(35)
    const zero = dayOf(36)
    // the month never recorded either day (a flush half-applied; a preallocation cut short between its two documents)
    for (const { month, day } of [written, zero]) {
      const m = await db.collection('monthly').findOne({ _id: month })
      await db.collection('monthly').updateOne({ _id: month }, { $unset: { [`daily.${day}`]: '' }, $inc: { monthly: -m.daily[day] } })
    }
    await db.collection('daily').updateOne({ _id: zero.id }, { $set: { daily: 0, hourly: {}, quarterHourly: {} } })
    const result = await job({ rules: { '*': { minuteDays: 5, dailyDays: 30 } } }).runOnce()
    expect(result).toMatchObject({ status: 'done', deleted: 9, kept: 1 })
    expect(await db.collection('daily').findOne({ _id: written.id })).not.toBeNull()
    expect((await db.collection('monthly').findOne({ _id: written.month })).daily[written.day]).toBeUndefined()
    expect(await db.collection('daily').findOne({ _id: zero.id })).toBeNull()
    // the month says the day had a document (0), as a day series past the daily horizon reads it
    expect((await db.collection('monthly').findOne({ _id: zero.month })).daily[zero.day]).toBe(0)
  })
})

describe('rate', () => {
  it('changes at most RETENTION_RATE documents per second of the injected clock', async () => {
    await seed(db, eventsOver('app.a', 40))
    const changed = []
    const j = job({ rate: 4, rules: { '*': { minuteDays: 0, dailyDays: 25 } }, onProgress: p => changed.push({ at: j.clock.now(), n: p.downsampled + p.deleted }) })
    const result = await j.runOnce()
    const total = result.downsampled + result.deleted
    expect(result).toMatchObject({ downsampled: 39, deleted: 15 }) // days 2..40 lose minutes, days 26..40 go
    // at every batch, documents changed so far ≤ rate × seconds elapsed (+ one batch of at most `rate`)
    for (const { at, n } of changed) expect(n).toBeLessThanOrEqual(4 * (at - NOW) / 1000 + 4)
    expect(j.sleeps.reduce((a, b) => a + b, 0)).toBe(total * 1000 / 4)
  })
})

describe('one pass at a time', () => {
  it('a second job finds the lease held and changes nothing; two started together: one runs', async () => {
    await seed(db, eventsOver('app.a', 20))
    const holder = createLease({ collection: db.collection(LEASE_COLLECTION), name: 'retention', clock: manualClock(NOW), ttlMs: 60_000, owner: 'elsewhere' })
    expect(await holder.acquire()).toBe(true)
    const before = await all('daily')
    const refused = await job({ owner: 'here' }).runOnce()
    expect(refused).toMatchObject({ status: 'lease_held', holder: { owner: 'elsewhere' } })
    expect(await all('daily')).toEqual(before)
    await holder.release()

    // two passes at once: the first holds the lease while it waits after its first batch
    let open
    const gate = new Promise(resolve => { open = resolve })
    let firstBatch
    const started = new Promise(resolve => { firstBatch = resolve })
    const one = job({ owner: 'one', onProgress: async () => { firstBatch(); await gate } }).runOnce()
    await started
    const two = await job({ owner: 'two' }).runOnce()
    open()
    expect(two).toMatchObject({ status: 'lease_held', holder: { owner: 'one' } })
    expect(await one).toMatchObject({ status: 'done', downsampled: 9 })
  })

  it('renews the lease on a long pass and stops when it was lost', async () => {
    await seed(db, eventsOver('app.a', 30))
    const j = job({ rate: 1, rules: { '*': { minuteDays: 0, dailyDays: null } } })
    // rate 1 with batches of 1: each batch waits a second; the lease (60 s) is renewed every 20 s
    const result = await j.runOnce()
    expect(result).toMatchObject({ status: 'done', downsampled: 29 })
    let stolen = false
    const k = job({
      rate: 1,
      rules: { '*': { minuteDays: 0, dailyDays: 5 } },
      owner: 'slow',
      onProgress: async () => {
        if (stolen) return
        stolen = true
        // the lease expires and another instance takes it
        await db.collection(LEASE_COLLECTION).updateOne({ _id: 'retention' }, { $set: { owner: 'thief' } })
      }
    })
    const lost = await k.runOnce()
    expect(lost.status).toBe('lease_lost')
    expect(lost.deleted).toBeLessThan(25)
    expect((await db.collection(LEASE_COLLECTION).findOne({ _id: 'retention' })).owner).toBe('thief')
  })
})

describe('resuming', () => {
  it('a pass stopped half-way is finished by the next, with the same result as one whole pass', async () => {
    const events = eventsOver('app.a', 30)
    await seed(db, events)
    const first = job({ rules: { '*': { minuteDays: 3, dailyDays: 20 } }, onProgress: () => { first.stop() } })
    const partial = await first.runOnce()
    expect(partial.status).toBe('stopped')
    expect(partial.downsampled).toBe(5)
    expect(await db.collection(LEASE_COLLECTION).findOne({ _id: 'retention' })).toBeNull() // released

    const rest = await job({ rules: { '*': { minuteDays: 3, dailyDays: 20 } } }).runOnce()
    expect(rest).toMatchObject({ status: 'done', deleted: 10 })
    expect(partial.downsampled + rest.downsampled).toBe(26) // days 5..30, each once

    // the same end state as one whole pass: days 0..20 kept, minute detail on days 0..4 only
    const expected = documentsFor(events).daily
      .filter(d => d.date.getTime() >= TODAY - 20 * DAY)
      .map(({ minute, ...rest }) => (rest.date.getTime() < TODAY - 4 * DAY ? { ...rest, detail: 'quarterHour' } : { ...rest, minute }))
      .sort((a, b) => (a._id < b._id ? -1 : 1))
    expect(await all('daily')).toEqual(expected)
  })
})
