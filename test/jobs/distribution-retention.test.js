// The retention job on distributions, against a real database written by
// the writer's own updates (buildDistributionUnit → distributionUpdate):
// minutes dropped exactly where the day is past the horizon and the
// quarter-hours vouch for them, daily documents deleted exactly where the
// month holds the whole day tier; a document an ingest moves between the
// job's read and its write is never changed on stale values; counters are
// left to their own rules; check --repair and the next pass finish what
// was kept. Every tier keeps threshold counts (DISTRIBUTION_THRESHOLDS):
// downsampling keeps them, and a minute's that its quarter-hour lacks keeps the minutes.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { runCheck } from '../../src/jobs/check-run.js'
import { holdsWholeDay, verifyDistributionDaily } from '../../src/kinds/consistency/distribution.js'
import { LEASE_COLLECTION } from '../../src/jobs/lease.js'
import { dayKeyOf, seed } from '../helpers/bucket-docs.js'
import { createThresholds, parseThresholdRules } from '../../src/bucket/distribution-thresholds.js'
import { writeDistributions } from '../helpers/distribution-writes.js'
import { retentionJob } from '../helpers/job-runs.js'
import { directDb, uniqueDbName } from '../helpers/test-app.js'

const DAY = 86_400_000
const HOUR = 3_600_000
const TODAY = Date.UTC(2026, 10, 21)
const NOW = TODAY + 12 * HOUR
const MAPPING = createMapping(0.01)
const COLLECTIONS = ['daily', 'monthly', 'metrics', 'distributionDaily', 'distributionMonthly', LEASE_COLLECTION]
let client, db

beforeAll(async () => { ({ client, db } = await directDb(uniqueDbName('distret'))) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => { for (const name of COLLECTIONS) await db.collection(name).deleteMany({}) })

/** Values at 10:17, 10:50 (sample rate 0.3) and 23:59 of each day back from today, zeros and negatives among them */
function valuesOver (metric, daysBack) {
  const events = []
  for (let back = 0; back <= daysBack; back++) {
    const day = TODAY - back * DAY
    events.push({ metric, value: 12.5 + back, time: day + 10 * HOUR + 17 * 60_000 })
    events.push({ metric, value: back % 3 === 0 ? 0 : -4, time: day + 10 * HOUR + 50 * 60_000, weight: 1 / 0.3 })
    events.push({ metric, value: 900 + back * 7, time: day + DAY - 60_000 })
  }
  return events
}

// the values ≤ 20 and ≤ 1000 counted at every tier
const THRESHOLDS = createThresholds(parseThresholdRules('{"lat.*": [20, 1000]}').rules)

/** Writes values as the writer does: one update per document ($inc, $min, $max), the registry entry a distribution's */
const write = (events, options) => writeDistributions(db, events, MAPPING, { thresholdsOf: THRESHOLDS.of, ...options })

const job = ({ clock = manualClock(NOW), ...options } = {}) => retentionJob(db, COLLECTIONS, { clock, ...options })

const all = name => db.collection(name).find().sort({ _id: 1 }).toArray()
const byId = docs => new Map(docs.map(d => [d._id, d]))
const ageOf = doc => Math.round((TODAY - doc.date.getTime()) / DAY)

/**
 * A collection whose first bulkWrite of operations of kind `op` runs `before`
 * first (an ingest landing between the job's read and its write)
 */
function racing (collection, op, before) {
  let done = false
  return new Proxy(collection, {
    get (target, name) {
      if (name !== 'bulkWrite') return typeof target[name] === 'function' ? target[name].bind(target) : target[name]
      return async (ops, ...rest) => {
        if (!done && ops.some(o => op in o)) { done = true; await before() }
        return target.bulkWrite(ops, ...rest)
      }
    }
  })
}

describe('minute downsampling of distributions', () => {
  it('drops the minutes of exactly the days more than a day past the horizon; every other tier and the months stay; a second pass changes nothing', async () => {
    await write(valuesOver('lat.a', 20))
    await seed(db, [{ metric: 'count.c', value: 3, time: TODAY - 15 * DAY + HOUR }])
    const before = byId(await all('distributionDaily'))
    const months = await all('distributionMonthly')
    const result = await job().runOnce()
    expect(result).toMatchObject({ status: 'done', metrics: 2, downsampled: 10, deleted: 0, kept: 0, unvouched: 0 }) // 9 days, and the counter's day
    const after = await all('distributionDaily')
    expect(after).toHaveLength(21)
    expect(after.filter(d => d.metric === 'lat.a').every(d => d.quarterHourly[10][1].le['1000'] > 0)).toBe(true) // kept, as every other tier
    for (const doc of after) {
      const { minute, ...rest } = before.get(doc._id)
      if (ageOf(doc) > 11) {
        expect(minute).toBeDefined()
        expect(doc, doc._id).toEqual({ ...rest, detail: 'quarterHour' })
      } else {
        expect(doc, doc._id).toEqual(before.get(doc._id))
      }
    }
    expect(await all('distributionMonthly')).toEqual(months)
    expect((await db.collection('daily').findOne({})).detail).toBe('quarterHour') // the counter, by its own rule
    expect(await job().runOnce()).toMatchObject({ status: 'done', downsampled: 0, unvouched: 0 })
    expect(await all('distributionDaily')).toEqual(after)
  })

  it('a day with values written past the horizon without their minute (detail quarterHour) is downsampled: its minutes are a subset the quarter-hours hold', async () => {
    await write(valuesOver('lat.b', 14))
    const day = TODAY - 13 * DAY
    await write([{ metric: 'lat.b', value: 3, time: day + 4 * HOUR }, { metric: 'lat.b', value: 7000, time: day + 10 * HOUR + 20 * 60_000, weight: 2.5 }], { keepsMinutes: () => false })
    const id = `lat.b/${dayKeyOf(day)}`
    expect(await db.collection('distributionDaily').findOne({ _id: id })).toMatchObject({ detail: 'quarterHour', minute: expect.any(Object) })
    expect(await job().runOnce()).toMatchObject({ status: 'done', downsampled: 3, unvouched: 0 })
    const doc = await db.collection('distributionDaily').findOne({ _id: id })
    expect(doc.minute).toBeUndefined()
    expect(doc.daily).toMatchObject({ min: -4, max: 7000 })
    expect(doc.daily.count).toBeCloseTo(3 + 1 / 0.3 + 2.5, 9)
  })

  it('keeps the minutes of a document whose quarter-hours do not hold what its minutes hold (counted unvouched), and downsamples the rest', async () => {
    await write(valuesOver('lat.c', 14))
    const short = `lat.c/${dayKeyOf(TODAY - 12 * DAY)}`
    const lower = `lat.c/${dayKeyOf(TODAY - 13 * DAY)}`
    // a minute that holds a value its quarter-hour lacks, and a quarter-hour missing its minute's minimum
    await db.collection('distributionDaily').updateOne({ _id: short }, { $inc: { 'minute.10.17.count': 1, 'minute.10.17.sum': 20 } })
    await db.collection('distributionDaily').updateOne({ _id: lower }, { $set: { 'quarterHourly.10.1.min': 26 } }) // its value is 25.5
    const result = await job().runOnce()
    expect(result).toMatchObject({ status: 'done', downsampled: 1, unvouched: 2 })
    expect((await db.collection('distributionDaily').findOne({ _id: short })).minute).toBeDefined()
    expect((await db.collection('distributionDaily').findOne({ _id: lower })).minute).toBeDefined()
    // the progress is recorded: they wait for a person (or the check), not for every pass
    expect(await db.collection(LEASE_COLLECTION).findOne({ _id: 'retention.progress' })).not.toBeNull()
    // check --repair takes the minute's minimum into its quarter-hour (a real value), and cannot rebuild the other
    const clock = manualClock(NOW)
    const states = []
    await runCheck({ daily: db.collection('daily'), monthly: db.collection('monthly'), distributionDaily: db.collection('distributionDaily'), distributionMonthly: db.collection('distributionMonthly') }, {
      repair: true, writeTimeoutMs: 10, clock, sleep: async ms => clock.advance(ms), onViolation: (v, state) => states.push([v.id, v.field, state])
    })
    expect(states.sort()).toEqual([[lower, 'quarterHourly.10.1', 'repaired'], [short, 'quarterHourly.10.1', 'not repairable']])
    // the next full pass (after a change of settings, here) downsamples the repaired one
    expect(await job({ rulesFingerprint: 'v2' }).runOnce()).toMatchObject({ status: 'done', full: true, downsampled: 1, unvouched: 1 })
  })

  it('keeps the minutes of a day whose quarter-hour lacks a minute\'s threshold count', async () => {
    await write(valuesOver('lat.e', 13))
    const id = `lat.e/${dayKeyOf(TODAY - 13 * DAY)}`
    await db.collection('distributionDaily').updateOne({ _id: id }, { $inc: { 'minute.10.17.le.20': 1 } })
    expect(await job().runOnce()).toMatchObject({ status: 'done', downsampled: 1, unvouched: 1 })
    expect((await db.collection('distributionDaily').findOne({ _id: id })).minute).toBeDefined()
  })

  it('an ingest between the job\'s read and its update makes the update miss; the document is read and judged again, nothing lost', async () => {
    await write(valuesOver('lat.d', 12))
    const id = `lat.d/${dayKeyOf(TODAY - 12 * DAY)}`
    const backfill = { metric: 'lat.d', value: 55, time: TODAY - 12 * DAY + 2 * HOUR }
    let raced = false
    const distributionDaily = racing(db.collection('distributionDaily'), 'updateOne', () => { raced = true; return write([backfill], { keepsMinutes: () => false }) })
    const result = await job({ collections: { distributionDaily } }).runOnce()
    expect(raced).toBe(true)
    expect(result).toMatchObject({ status: 'done', downsampled: 1, unvouched: 0 })
    const doc = await db.collection('distributionDaily').findOne({ _id: id })
    expect(doc.minute).toBeUndefined()
    expect(doc.hourly[2]).toMatchObject({ count: 1, sum: 55 })
    expect(verifyDistributionDaily(doc).violations).toEqual([])
  })
})

describe('deletion of distribution daily documents', () => {
  const rules = { '*': { minuteDays: 5, dailyDays: 30 } }

  it('deletes exactly the documents past the daily horizon; the month holds each deleted day whole', async () => {
    await write(valuesOver('lat.e', 40))
    const days = await all('distributionDaily')
    const months = await all('distributionMonthly')
    const result = await job({ rules }).runOnce()
    expect(result).toMatchObject({ status: 'done', deleted: 10, kept: 0 })
    const remaining = await all('distributionDaily')
    expect(Math.max(...remaining.map(ageOf))).toBe(30)
    expect(await all('distributionMonthly')).toEqual(months)
    const monthOf = byId(months)
    for (const day of days.filter(d => ageOf(d) > 30)) {
      expect(holdsWholeDay(monthOf.get(day._id.slice(0, -2)).daily[day.date.getUTCDate()], day.daily), day._id).toBe(true)
    }
  })

  it('keeps a day whose month lacks part of it, or holds more; check --repair raises the lacking month, and the next pass deletes that day only', async () => {
    await write(valuesOver('lat.f', 40))
    const dayOf = back => ({ id: `lat.f/${dayKeyOf(TODAY - back * DAY)}`, month: `lat.f/${dayKeyOf(TODAY - back * DAY).slice(0, 6)}`, day: new Date(TODAY - back * DAY).getUTCDate() })
    const lacking = dayOf(35)
    const more = dayOf(36)
    const months = db.collection('distributionMonthly')
    // a flush whose monthly write was lost for day 35's 23:59 value; an extra value in day 36's field (its daily write lost)
    const lost = (await months.findOne({ _id: lacking.month })).daily[lacking.day]
    const key = Object.keys(lost.positive).sort((a, b) => b - a)[0]
    await months.updateOne({ _id: lacking.month }, { $inc: { [`daily.${lacking.day}.count`]: -1, [`daily.${lacking.day}.sum`]: -(900 + 35 * 7), [`daily.${lacking.day}.positive.${key}`]: -1, 'monthly.count': -1, 'monthly.sum': -(900 + 35 * 7), [`monthly.positive.${key}`]: -1 } })
    await months.updateOne({ _id: lacking.month }, { $set: { [`daily.${lacking.day}.max`]: 12.5 + 35 } })
    await months.updateOne({ _id: more.month }, { $inc: { [`daily.${more.day}.count`]: 1, [`daily.${more.day}.sum`]: 5, [`daily.${more.day}.positive.81`]: 1, 'monthly.count': 1, 'monthly.sum': 5, 'monthly.positive.81': 1 } })
    const result = await job({ rules }).runOnce()
    expect(result).toMatchObject({ status: 'done', deleted: 8, kept: 2 })
    expect(await db.collection('distributionDaily').countDocuments({ _id: { $in: [lacking.id, more.id] } })).toBe(2)

    // the check of those two days (as a check run while they were inside the daily horizon: past it the month is the truth)
    const clock = manualClock(NOW)
    const states = []
    const summary = await runCheck({ daily: db.collection('daily'), monthly: db.collection('monthly'), distributionDaily: db.collection('distributionDaily'), distributionMonthly: months }, {
      repair: true, from: TODAY - 36 * DAY, to: TODAY - 34 * DAY, writeTimeoutMs: 10, clock, sleep: async ms => clock.advance(ms), onViolation: (v, state) => states.push([v.field, state])
    })
    expect(summary).toMatchObject({ violations: 2, repaired: 1, unrepaired: 1, documents: { distributionMonthly: 1, distributionDaily: 2 } })
    expect(states.sort()).toEqual([[`daily.${more.day}`, 'not repairable'], [`daily.${lacking.day}`, 'repaired']].sort())
    expect(await job({ rules }).runOnce()).toMatchObject({ status: 'done', deleted: 1, kept: 1 })
    expect(await db.collection('distributionDaily').findOne({ _id: lacking.id })).toBeNull()
    expect(await db.collection('distributionDaily').findOne({ _id: more.id })).not.toBeNull()
  })

  it('an ingest into a day between the job\'s read and its delete makes the delete miss: the document and its new value stay', async () => {
    await write(valuesOver('lat.g', 31))
    const day = TODAY - 31 * DAY
    const id = `lat.g/${dayKeyOf(day)}`
    // the backfill's daily write lands; its monthly write not yet (a flush half-way)
    let raced = false
    const distributionDaily = racing(db.collection('distributionDaily'), 'deleteOne', async () => {
      raced = true
      await write([{ metric: 'lat.g', value: 77, time: day + HOUR }], { keepsMinutes: () => false, parts: ['daily'] })
    })
    const result = await job({ rules, collections: { distributionDaily } }).runOnce()
    expect(raced).toBe(true)
    expect(result).toMatchObject({ status: 'done', deleted: 0 })
    const doc = await db.collection('distributionDaily').findOne({ _id: id })
    expect(doc.daily.count).toBeCloseTo(3 + 1 / 0.3, 9)
    expect(doc.hourly[1]).toMatchObject({ count: 1, sum: 77 })
    // the next pass sees the month does not hold it whole, and keeps it
    expect(await job({ rules }).runOnce()).toMatchObject({ status: 'done', deleted: 0, kept: 1 })
  })
})
