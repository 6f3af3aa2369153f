// The retention job on a distribution's minute histograms (distributionMinutes,
// one document per metric-hour), against a real database: the minute-hour
// documents of a day go after its minutes went (downsampled past the minute
// horizon, or the day deleted past the daily horizon) or a day past their
// own horizon (MINUTE_HISTOGRAM_DAYS) while its minutes stay, a pass cut between the two leaves
// orphans that the next pass deletes, the sweep goes a bounded batch at a
// time under the rate, and ids that are not a minute-hour's, other metrics'
// documents and a job without the collection are left alone.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { parseHourId, startOfDay } from '../../src/bucket/time.js'
import { LEASE_COLLECTION } from '../../src/jobs/lease.js'
import { horizonsFor } from '../../src/bucket/retention-horizons.js'
import { dayKeyOf } from '../helpers/bucket-docs.js'
import { writeDistributions } from '../helpers/distribution-writes.js'
import { retentionJob } from '../helpers/job-runs.js'
import { writeMinuteHistograms } from '../helpers/minute-histograms.js'
import { directDb, uniqueDbName } from '../helpers/test-app.js'

const DAY = 86_400_000
const HOUR = 3_600_000
const TODAY = Date.UTC(2026, 10, 21)
const NOW = TODAY + 12 * HOUR
const MAPPING = createMapping(0.01)
const COLLECTIONS = ['daily', 'monthly', 'metrics', 'distributionDaily', 'distributionMonthly', 'distributionMinutes', LEASE_COLLECTION]
let client, db

beforeAll(async () => { ({ client, db } = await directDb(uniqueDbName('distminret'))) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => { for (const name of COLLECTIONS) await db.collection(name).deleteMany({}) })

/** Values at 00:05, 10:17 (sample rate 0.3) and 23:59 of each day back from today: three minute-hour documents a day */
function valuesOver (metric, daysBack) {
  const events = []
  for (let back = 0; back <= daysBack; back++) {
    const day = TODAY - back * DAY
    events.push({ metric, value: 12.5 + back, time: day + 5 * 60_000 })
    events.push({ metric, value: back % 3 === 0 ? 0 : -4, time: day + 10 * HOUR + 17 * 60_000, weight: 1 / 0.3 })
    events.push({ metric, value: 900 + back * 7, time: day + DAY - 60_000 })
  }
  return events
}

/** Writes values as the writer does: day, month and minute-hour documents (the tests' days all kept minutes when written) */
const write = (events, options) => writeDistributions(db, events, MAPPING, options)

const job = ({ clock = manualClock(NOW), ...options } = {}) => retentionJob(db, COLLECTIONS, { clock, ...options })

const hourIds = async () => (await db.collection('distributionMinutes').find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map(d => d._id)
/** The days (back from today) that have minute-hour documents of `metric` (ids that are a minute-hour's) */
const daysWithHours = async (metric) => [...new Set((await hourIds()).map(parseHourId).filter(p => p?.metric === metric).map(p => Math.round((TODAY - startOfDay(p.date)) / DAY)))].sort((a, b) => a - b)
const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const dayDoc = (metric, back) => db.collection('distributionDaily').findOne({ _id: `${metric}/${dayKeyOf(TODAY - back * DAY)}` })

describe('minute histograms go with their day\'s minutes', () => {
  it('downsampling deletes the minute-hour documents of exactly the days it dropped the minutes of; a second pass deletes nothing', async () => {
    await write(valuesOver('lat.a', 20))
    await write(valuesOver('lat.b', 3)) // another metric, all inside the horizon
    expect(await daysWithHours('lat.a')).toEqual(range(0, 20))
    const result = await job().runOnce()
    // minutes kept 10 days: days 12..20 are downsampled (a day's margin past the horizon), their 3 hours each go
    expect(result).toMatchObject({ status: 'done', downsampled: 9, minuteHoursDeleted: 27, unvouched: 0 })
    expect(await daysWithHours('lat.a')).toEqual(range(0, 11))
    expect(await daysWithHours('lat.b')).toEqual(range(0, 3))
    for (const back of range(12, 20)) expect((await dayDoc('lat.a', back)).minute, String(back)).toBeUndefined()
    for (const back of range(0, 11)) expect((await dayDoc('lat.a', back)).minute, String(back)).toBeDefined()
    expect(await job().runOnce()).toMatchObject({ status: 'done', downsampled: 0, minuteHoursDeleted: 0 })
    expect(await daysWithHours('lat.a')).toEqual(range(0, 11))
  })

  it('deleting a day past the daily horizon deletes its minute-hour documents, also where minutes are kept forever; so does a day kept (its month disagrees): past the daily horizon no read uses a minute', async () => {
    await write(valuesOver('lat.c', 34))
    // day 33's month lacks a value (a flush whose monthly write was lost): the day is kept, minutes and all, but not its histograms
    const kept = TODAY - 33 * DAY
    const month = `lat.c/${dayKeyOf(kept).slice(0, 6)}`
    const dayOfMonth = new Date(kept).getUTCDate()
    await db.collection('distributionMonthly').updateOne({ _id: month }, { $inc: { [`daily.${dayOfMonth}.count`]: -1, 'monthly.count': -1 } })
    const result = await job({ rules: { '*': { minuteDays: null, dailyDays: 30 } } }).runOnce()
    expect(result).toMatchObject({ status: 'done', downsampled: 0, deleted: 3, kept: 1, minuteHoursDeleted: 12 })
    expect(await daysWithHours('lat.c')).toEqual(range(0, 30))
    expect(await db.collection('distributionDaily').countDocuments({ _id: `lat.c/${dayKeyOf(kept)}`, minute: { $exists: true } })).toBe(1)
  })

  it('a day whose minutes retention keeps (its quarter-hours do not vouch for them) loses its minute-hour documents all the same: past the horizon no percentile reads them', async () => {
    await write(valuesOver('lat.d', 13))
    // a minute holding a value its quarter-hour lacks: not vouched for, minutes kept
    await db.collection('distributionDaily').updateOne({ _id: `lat.d/${dayKeyOf(TODAY - 12 * DAY)}` }, { $inc: { 'minute.0.5.count': 1, 'minute.0.5.sum': 20 } })
    const result = await job().runOnce()
    expect(result).toMatchObject({ status: 'done', downsampled: 1, unvouched: 1, minuteHoursDeleted: 6 })
    expect(await daysWithHours('lat.d')).toEqual(range(0, 11))
    expect(await db.collection('distributionDaily').countDocuments({ _id: `lat.d/${dayKeyOf(TODAY - 12 * DAY)}`, minute: { $exists: true } })).toBe(1)
  })
})

describe('MINUTE_HISTOGRAM_DAYS: the histograms go before the minutes', () => {
  it('deletes the minute-hour documents of days a day past MINUTE_HISTOGRAM_DAYS while those days keep their minutes; ingest\'s own horizon, so the reads planned with it lose nothing', async () => {
    await write(valuesOver('lat.h', 20))
    const config = { minuteRetentionDays: 30, dailyRetentionDays: null, minuteHistogramDays: 7 }
    const result = await job({ horizonsFor: horizonsFor(config) }).runOnce()
    // histograms kept 7 days: days 9..20 lose theirs (a day's margin past the horizon, as downsampling keeps); no minute is dropped
    expect(result).toMatchObject({ status: 'done', downsampled: 0, minuteHoursDeleted: 36 })
    expect(await daysWithHours('lat.h')).toEqual(range(0, 8))
    for (const back of range(0, 20)) expect((await dayDoc('lat.h', back)).minute, String(back)).toBeDefined()
    // the same settings on the ingest side write no histogram there: the horizon ingest and reads use
    expect(horizonsFor(config)('lat.h', NOW).minuteHistogramFrom).toBe(TODAY - 7 * DAY)
    expect(await job({ horizonsFor: horizonsFor(config) }).runOnce()).toMatchObject({ status: 'done', minuteHoursDeleted: 0 })
  })
})

describe('orphans', () => {
  it('a pass cut between dropping the minutes and deleting the histograms leaves orphans, never minutes without their histograms; the next pass deletes them', async () => {
    await write(valuesOver('lat.e', 15))
    const cut = job({ batchSize: 200, onProgress: () => { cut.stop() } })
    const partial = await cut.runOnce()
    expect(partial).toMatchObject({ status: 'stopped', downsampled: 4, minuteHoursDeleted: 0 })
    // every day that still has minutes still has its histograms; the downsampled ones are orphans now
    expect(await daysWithHours('lat.e')).toEqual(range(0, 15))
    const next = await job().runOnce()
    expect(next).toMatchObject({ status: 'done', downsampled: 0, minuteHoursDeleted: 12 })
    expect(await daysWithHours('lat.e')).toEqual(range(0, 11))
  })

  it('minute-hour documents past the bound whose day has no minutes or no document at all are deleted, whatever else holds; those inside the bound stay', async () => {
    await write(valuesOver('lat.f', 2))
    // histograms left of days that have no daily document (deleted, or never written), and of a day written without minutes
    const days = [TODAY - 40 * DAY, TODAY - 12 * DAY]
    for (const day of days) await writeMinuteHistograms(db, [{ metric: 'lat.f', value: 3, time: day + 7 * HOUR + 59 * 60_000 }], MAPPING)
    await write([{ metric: 'lat.f', value: 8, time: TODAY - 15 * DAY + HOUR }], { keepsMinutes: () => false })
    await writeMinuteHistograms(db, [{ metric: 'lat.f', value: 8, time: TODAY - 15 * DAY + HOUR }], MAPPING)
    // an orphan a day inside the margin: its day may still be written with minutes, so it stays
    await writeMinuteHistograms(db, [{ metric: 'lat.f', value: 4, time: TODAY - 11 * DAY + HOUR }], MAPPING)
    const result = await job().runOnce()
    expect(result).toMatchObject({ status: 'done', downsampled: 0, minuteHoursDeleted: 3 })
    expect(await daysWithHours('lat.f')).toEqual([0, 1, 2, 11])
  })

  it('ids in the metric\'s range that are not a minute-hour\'s, and the documents of metrics sharing its prefix, are left alone', async () => {
    await write(valuesOver('lat.g', 14))
    await write(valuesOver('lat.gg', 14))
    const strays = ['lat.g/0', 'lat.g/2026', 'lat.g/20261099', 'lat.g/2026110199', 'lat.g/20260230']
    for (const _id of strays) await db.collection('distributionMinutes').insertOne({ _id, minute: { 1: { zero: 1 } } })
    const result = await job({ rules: { lat: { minuteDays: 10, dailyDays: null } } }).runOnce()
    expect(result).toMatchObject({ status: 'done', minuteHoursDeleted: 18 })
    const left = await hourIds()
    for (const id of strays) expect(left).toContain(id)
    expect(await daysWithHours('lat.g')).toEqual(range(0, 11))
    expect(await daysWithHours('lat.gg')).toEqual(range(0, 11))
  })
})

describe('the sweep\'s pace', () => {
  it('deletes a bounded batch at a time and counts its deletes against RETENTION_RATE', async () => {
    await write(valuesOver('lat.h', 15))
    // 60 minutes of one hour full, every minute of one day's every hour: a day of 24 full minute-hour documents
    const full = TODAY - 14 * DAY
    const values = []
    for (let m = 0; m < 24 * 60; m++) values.push({ metric: 'lat.h', value: 1 + (m % 97) * 3.7, time: full + m * 60_000 })
    await write(values)
    const minutes = db.collection('distributionMinutes')
    expect(Object.keys((await minutes.findOne({ _id: `lat.h/${dayKeyOf(full)}07` })).minute)).toHaveLength(60)
    const deletes = []
    const watched = new Proxy(minutes, {
      get (target, name) {
        if (name !== 'deleteMany') return typeof target[name] === 'function' ? target[name].bind(target) : target[name]
        return async (filter, ...rest) => { deletes.push(filter._id.$in.length); return target.deleteMany(filter, ...rest) }
      }
    })
    const j = job({ rate: 5, collections: { distributionMinutes: watched } })
    const start = j.clock.now()
    const result = await j.runOnce()
    // days 12..15: 4 downsampled; 3 × 3 hours and the full day's 24 - its 3 hours were among them: 9 + 24
    expect(result).toMatchObject({ status: 'done', downsampled: 4, minuteHoursDeleted: 33 })
    expect(deletes.length).toBeGreaterThanOrEqual(7)
    for (const n of deletes) expect(n).toBeLessThanOrEqual(5)
    expect(deletes.reduce((a, b) => a + b, 0)).toBe(33)
    // 37 documents changed at 5 a second: at least 7.4 s of the pass's clock
    expect(j.clock.now() - start).toBeGreaterThanOrEqual(37 * 200)
    expect(await daysWithHours('lat.h')).toEqual(range(0, 11))
  })

  it('a pass stopped in the sweep is finished by the next', async () => {
    await write(valuesOver('lat.i', 16))
    let batches = 0
    const first = job({ onProgress: (p) => { if (p.minuteHoursDeleted > 0 && ++batches === 2) first.stop() } })
    const partial = await first.runOnce()
    expect(partial).toMatchObject({ status: 'stopped', downsampled: 5, minuteHoursDeleted: 10 })
    expect(await job().runOnce()).toMatchObject({ status: 'done', downsampled: 0, minuteHoursDeleted: 5 })
    expect(await daysWithHours('lat.i')).toEqual(range(0, 11))
  })

  it('a job given no distributionMinutes leaves minute histograms alone and does the rest', async () => {
    await write(valuesOver('lat.j', 14))
    const before = await hourIds()
    expect(await job({ without: ['distributionMinutes'] }).runOnce()).toMatchObject({ status: 'done', downsampled: 3, minuteHoursDeleted: 0 })
    expect(await hourIds()).toEqual(before)
  })
})
