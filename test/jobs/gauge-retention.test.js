// The retention job and `check --repair` on gauges, against a real database
// written by the writer's own updates (buildGaugeUnit → gaugeUpdate): minutes
// dropped exactly where the day is past the horizon and the quarter-hours
// vouch for them (count, sum, min, max and `last`), daily documents deleted
// exactly where the month holds the whole day tier; a document an ingest
// moves between the job's read and its write is never changed on stale
// values; the check raises what a coarser tier lacks (`last` included), never
// lowers, settles a half-way flush, and the real `npm run check` counts the
// gauges' documents.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { holdsWholeGaugeDay, verifyGaugeDaily, verifyGaugeMonthly } from '../../src/kinds/consistency/gauge.js'
import { LEASE_COLLECTION } from '../../src/jobs/lease.js'
import { dayKeyOf } from '../helpers/bucket-docs.js'
import { writeGauges } from '../helpers/gauge-writes.js'
import { checkRun, collectionsOf, retentionJob } from '../helpers/job-runs.js'
import { directDb, mongodbUri, uniqueDbName } from '../helpers/test-app.js'

const CHECK = fileURLToPath(new URL('../../src/jobs/check-command.js', import.meta.url))
const DAY = 86_400_000
const HOUR = 3_600_000
const TODAY = Date.UTC(2026, 10, 21)
const NOW = TODAY + 12 * HOUR
const COLLECTIONS = ['daily', 'monthly', 'metrics', 'distributionDaily', 'distributionMonthly', 'gaugeDaily', 'gaugeMonthly', LEASE_COLLECTION]
let client, db, dbName

beforeAll(async () => { dbName = uniqueDbName('gaugejobs'); ({ client, db } = await directDb(dbName)) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => { for (const name of COLLECTIONS) await db.collection(name).deleteMany({}) })

/** Levels at 10:17, twice at 10:50 (a tie of event time: the larger wins), and 23:59 of each day back from today, zeros and negatives among them */
function levelsOver (metric, daysBack) {
  const events = []
  for (let back = 0; back <= daysBack; back++) {
    const day = TODAY - back * DAY
    events.push({ metric, value: 12.5 + back, time: day + 10 * HOUR + 17 * 60_000 })
    events.push({ metric, value: back % 3 === 0 ? 0 : -4, time: day + 10 * HOUR + 50 * 60_000 })
    events.push({ metric, value: -40, time: day + 10 * HOUR + 50 * 60_000 })
    events.push({ metric, value: 900 + back * 7, time: day + DAY - 60_000 })
  }
  return events
}

const write = (events, options) => writeGauges(db, events, options)

const job = ({ clock = manualClock(NOW), ...options } = {}) => retentionJob(db, COLLECTIONS, { clock, ...options })
const check = (options = {}, over = {}) => checkRun({ ...collectionsOf(db, ['daily', 'monthly', 'distributionDaily', 'distributionMonthly', 'gaugeDaily', 'gaugeMonthly']), ...over }, NOW, options)

const all = name => db.collection(name).find().sort({ _id: 1 }).toArray()
const byId = docs => new Map(docs.map(d => [d._id, d]))
const ageOf = doc => Math.round((TODAY - doc.date.getTime()) / DAY)

/** A collection whose first call of `method` with an operation of kind `op` (bulkWrite) or on `id` (updateOne) runs `before` first */
function racing (collection, method, match, before) {
  let done = false
  return new Proxy(collection, {
    get (target, name) {
      if (name !== method) return typeof target[name] === 'function' ? target[name].bind(target) : target[name]
      return async (first, ...rest) => {
        if (!done && match(first)) { done = true; await before() }
        return target[method](first, ...rest)
      }
    }
  })
}

describe('minute downsampling of gauges', () => {
  it('drops the minutes of exactly the days more than a day past the horizon; every other tier, last included, and the months stay; a second pass changes nothing', async () => {
    await write(levelsOver('q.a', 20))
    const before = byId(await all('gaugeDaily'))
    const months = await all('gaugeMonthly')
    expect(await job().runOnce()).toMatchObject({ status: 'done', metrics: 1, downsampled: 9, deleted: 0, kept: 0, unvouched: 0 })
    const after = await all('gaugeDaily')
    expect(after).toHaveLength(21)
    for (const doc of after) {
      const { minute, ...rest } = before.get(doc._id)
      if (ageOf(doc) > 11) {
        expect(minute).toBeDefined()
        expect(doc, doc._id).toEqual({ ...rest, detail: 'quarterHour' })
      } else {
        expect(doc, doc._id).toEqual(before.get(doc._id))
      }
    }
    expect(after.at(0).hourly[10].last.v).toBe(-4) // the tie at 10:50 kept the larger level
    expect(await all('gaugeMonthly')).toEqual(months)
    expect(await job().runOnce()).toMatchObject({ status: 'done', downsampled: 0, unvouched: 0 })
    expect(await all('gaugeDaily')).toEqual(after)
  })

  it('keeps the minutes of a document whose quarter-hour lacks what its minutes hold (a value, or their last): unvouched; check --repair raises it from the complete minutes, and the next full pass downsamples it', async () => {
    await write(levelsOver('q.c', 14))
    const short = `q.c/${dayKeyOf(TODAY - 12 * DAY)}`
    const early = `q.c/${dayKeyOf(TODAY - 13 * DAY)}`
    const gd = db.collection('gaugeDaily')
    // a quarter-hour, its hour and day that lost the 10:17 level; a quarter-hour whose last is earlier than its minute's
    await gd.updateOne({ _id: short }, { $inc: { 'quarterHourly.10.1.count': -1, 'quarterHourly.10.1.sum': -24.5, 'hourly.10.count': -1, 'hourly.10.sum': -24.5, 'daily.count': -1, 'daily.sum': -24.5 } })
    await gd.updateOne({ _id: early }, { $set: { 'quarterHourly.10.3.last': { t: new Date(TODAY - 13 * DAY + 10 * HOUR + 46 * 60_000), v: 0 } } })
    expect(await job().runOnce()).toMatchObject({ status: 'done', downsampled: 1, unvouched: 2 })
    expect((await gd.findOne({ _id: short })).minute).toBeDefined()
    expect((await gd.findOne({ _id: early })).minute).toBeDefined()
    const { found } = await check({ repair: true, from: TODAY - 13 * DAY, to: TODAY - 11 * DAY })
    expect(found.map(f => [f.id, f.field, f.state]).sort()).toEqual([
      [early, 'quarterHourly.10.3', 'repaired'],
      // the month held the whole day: its day field is not raised, only the daily document's tiers
      [short, 'daily', 'repaired'], [short, 'hourly.10', 'repaired'], [short, 'quarterHourly.10.1', 'repaired']
    ].sort())
    for (const id of [short, early]) expect(verifyGaugeDaily(await gd.findOne({ _id: id })).violations).toEqual([])
    expect(await job({ rulesFingerprint: 'v2' }).runOnce()).toMatchObject({ status: 'done', full: true, downsampled: 2, unvouched: 0 })
  })

  it('an ingest between the job\'s read and its update makes the update miss; the document is read and judged again, nothing lost', async () => {
    await write(levelsOver('q.d', 12))
    const id = `q.d/${dayKeyOf(TODAY - 12 * DAY)}`
    const backfill = { metric: 'q.d', value: 55, time: TODAY - 12 * DAY + 2 * HOUR }
    let raced = false
    const gaugeDaily = racing(db.collection('gaugeDaily'), 'bulkWrite', ops => ops.some(o => 'updateOne' in o), () => { raced = true; return write([backfill], { keepsMinutes: () => false }) })
    const result = await job({ collections: { gaugeDaily } }).runOnce()
    expect(raced).toBe(true)
    expect(result).toMatchObject({ status: 'done', downsampled: 1, unvouched: 0 })
    const doc = await db.collection('gaugeDaily').findOne({ _id: id })
    expect(doc.minute).toBeUndefined()
    expect(doc.hourly[2]).toMatchObject({ count: 1, sum: 55, last: { t: new Date(backfill.time), v: 55 } })
    expect(verifyGaugeDaily(doc).violations).toEqual([])
  })
})

describe('deletion of gauge daily documents', () => {
  const rules = { '*': { minuteDays: 5, dailyDays: 30 } }

  it('deletes exactly the documents past the daily horizon; the month holds each deleted day whole (count, sum, min, max, last)', async () => {
    await write(levelsOver('q.e', 40))
    const days = await all('gaugeDaily')
    const months = await all('gaugeMonthly')
    expect(await job({ rules }).runOnce()).toMatchObject({ status: 'done', deleted: 10, kept: 0 })
    expect(Math.max(...(await all('gaugeDaily')).map(ageOf))).toBe(30)
    expect(await all('gaugeMonthly')).toEqual(months)
    const monthOf = byId(months)
    for (const day of days.filter(d => ageOf(d) > 30)) {
      expect(holdsWholeGaugeDay(monthOf.get(day._id.slice(0, -2)).daily[day.date.getUTCDate()], day.daily), day._id).toBe(true)
    }
  })

  it('keeps a day whose month lacks part of it (a level, or its last) or holds more; check --repair raises the lacking one, and the next pass deletes that day only', async () => {
    await write(levelsOver('q.f', 40))
    const dayOf = back => ({ id: `q.f/${dayKeyOf(TODAY - back * DAY)}`, month: `q.f/${dayKeyOf(TODAY - back * DAY).slice(0, 6)}`, day: new Date(TODAY - back * DAY).getUTCDate() })
    const lacking = dayOf(35)
    const more = dayOf(36)
    const months = db.collection('gaugeMonthly')
    // the 23:59 level's monthly write lost for day 35 (count, sum, max and last); an extra level in day 36's field
    const lost = 900 + 35 * 7
    await months.updateOne({ _id: lacking.month }, {
      $inc: { [`daily.${lacking.day}.count`]: -1, [`daily.${lacking.day}.sum`]: -lost },
      $set: { [`daily.${lacking.day}.max`]: 12.5 + 35, [`daily.${lacking.day}.last`]: { t: new Date(TODAY - 35 * DAY + 10 * HOUR + 50 * 60_000), v: -4 } }
    })
    await months.updateOne({ _id: more.month }, { $inc: { [`daily.${more.day}.count`]: 1, [`daily.${more.day}.sum`]: 5, 'monthly.count': 1, 'monthly.sum': 5 } })
    expect(await job({ rules }).runOnce()).toMatchObject({ status: 'done', deleted: 8, kept: 2 })

    // the check of those two days (as a check run while they were inside the daily horizon)
    const { summary, found } = await check({ repair: true, from: TODAY - 36 * DAY, to: TODAY - 34 * DAY })
    expect(summary).toMatchObject({ repaired: 1, documents: { gaugeMonthly: 1, gaugeDaily: 2 } })
    expect(found.filter(f => f.field.startsWith('daily.')).map(f => [f.field, f.state]).sort()).toEqual([[`daily.${lacking.day}`, 'repaired'], [`daily.${more.day}`, 'not repairable']].sort())
    const month = await months.findOne({ _id: lacking.month })
    expect(month.daily[lacking.day]).toMatchObject({ count: 4, max: lost, last: { t: new Date(TODAY - 34 * DAY - 60_000), v: lost } })
    expect(await job({ rules }).runOnce()).toMatchObject({ status: 'done', deleted: 1, kept: 1 })
    expect(await db.collection('gaugeDaily').findOne({ _id: lacking.id })).toBeNull()
    expect(await db.collection('gaugeDaily').findOne({ _id: more.id })).not.toBeNull()
  })

  it('an ingest into a day between the job\'s read and its delete makes the delete miss: the document and its new level stay', async () => {
    await write(levelsOver('q.g', 31))
    const day = TODAY - 31 * DAY
    const id = `q.g/${dayKeyOf(day)}`
    let raced = false
    const gaugeDaily = racing(db.collection('gaugeDaily'), 'bulkWrite', ops => ops.some(o => 'deleteOne' in o), async () => {
      raced = true
      await write([{ metric: 'q.g', value: 77, time: day + HOUR }], { keepsMinutes: () => false, parts: ['daily'] })
    })
    expect(await job({ rules, collections: { gaugeDaily } }).runOnce()).toMatchObject({ status: 'done', deleted: 0 })
    expect(raced).toBe(true)
    const doc = await db.collection('gaugeDaily').findOne({ _id: id })
    expect(doc.daily.count).toBe(5)
    expect(doc.hourly[1]).toMatchObject({ count: 1, sum: 77, min: 77, max: 77 })
    expect(await job({ rules }).runOnce()).toMatchObject({ status: 'done', deleted: 0, kept: 1 })
  })
})

describe('check --repair of gauges', () => {
  const D = TODAY - 3 * DAY
  const late = [{ metric: 'q.r', value: 4000, time: D + 5 * HOUR }]
  const monthId = `q.r/${dayKeyOf(D).slice(0, 6)}`
  const dayId = `q.r/${dayKeyOf(D)}`
  const day = new Date(D).getUTCDate()
  beforeEach(() => write(levelsOver('q.r', 4)))

  it('a consistent database: no violation, every document counted as a gauge\'s', async () => {
    const { summary, found } = await check()
    expect(found).toEqual([])
    expect(summary).toMatchObject({ monthly: 1, daily: 5, violations: 0, documents: { gaugeMonthly: 1, gaugeDaily: 5, distributionDaily: 0 } })
  })

  it('a flush half-way unchanged past WRITE_TIMEOUT_MS: the month is raised by what it lacks, once; one completed meanwhile is no violation', async () => {
    await write(late, { parts: ['daily'] })
    const { summary, found } = await check({ repair: true })
    expect(found.map(f => [f.id, f.field, f.against, f.state])).toEqual([[monthId, `daily.${day}`, dayId, 'repaired']])
    expect(found[0].note).toMatch(/lacks count 1, sum 4000, max 4000/)
    expect(summary).toMatchObject({ violations: 1, repaired: 1 })
    const month = await db.collection('gaugeMonthly').findOne({ _id: monthId })
    expect(holdsWholeGaugeDay(month.daily[day], (await db.collection('gaugeDaily').findOne({ _id: dayId })).daily)).toBe(true)
    expect(verifyGaugeMonthly(month).violations).toEqual([])
    expect((await check()).found).toEqual([])
    // the other half of a second flush lands while the check waits
    const again = [{ metric: 'q.r', value: 1, time: D + 6 * HOUR }]
    await write(again, { parts: ['daily'] })
    expect((await check({ repair: true, onSleep: () => write(again, { parts: ['monthly'] }) })).summary).toMatchObject({ violations: 0 })
  })

  it('a month holding a level its day does not, or a later last, is reported and never lowered', async () => {
    await write(late, { parts: ['monthly'] })
    await db.collection('gaugeMonthly').updateOne({ _id: monthId }, { $max: { [`daily.${day + 1}.last`]: { t: new Date(D + DAY + 23 * HOUR + 59 * 60_000 + 1), v: 1 }, 'monthly.last': { t: new Date(D + DAY + 23 * HOUR + 59 * 60_000 + 1), v: 1 } } })
    const before = await db.collection('gaugeMonthly').findOne({ _id: monthId })
    const { summary, found } = await check({ repair: true })
    expect(found.map(f => [f.field, f.state]).sort()).toEqual([[`daily.${day}`, 'not repairable'], [`daily.${day + 1}`, 'not repairable']])
    expect(summary).toMatchObject({ repaired: 0, unrepaired: 2 })
    expect(await db.collection('gaugeMonthly').findOne({ _id: monthId })).toEqual(before)
  })

  it('an hour that lost a level is raised by it; an ingest between the check\'s read and its repair makes it miss, and the recomputed repair keeps the ingest', async () => {
    const gd = db.collection('gaugeDaily')
    const hour10 = (await gd.findOne({ _id: dayId })).hourly[10]
    await gd.updateOne({ _id: dayId }, { $inc: { 'hourly.10.count': -1, 'hourly.10.sum': -(12.5 + 3) }, $set: { 'hourly.10.max': 0 } })
    const gaugeDaily = racing(gd, 'updateOne', filter => filter._id === dayId, () => write([{ metric: 'q.r', value: 2, time: D + 10 * HOUR + 5 * 60_000 }]))
    const { found } = await check({ repair: true }, { gaugeDaily })
    expect(found.map(f => [f.id, f.field, f.state])).toEqual([[dayId, 'hourly.10', 'repaired']])
    const repaired = await gd.findOne({ _id: dayId })
    expect(verifyGaugeDaily(repaired).violations).toEqual([])
    expect(repaired.hourly[10]).toMatchObject({ count: hour10.count + 1, max: 15.5, last: hour10.last })
    expect((await check()).found).toEqual([])
  })

  it('npm run check counts the gauges\' documents and exits 1 on what it cannot repair', async () => {
    const run = args => new Promise(resolve => {
      execFile(process.execPath, [CHECK, ...args], {
        env: { PATH: process.env.PATH, MONGODB_URI: mongodbUri(), MONGODB_DB: dbName, WRITE_TIMEOUT_MS: '100' },
        timeout: 60_000
      }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }))
    })
    expect(await run([])).toMatchObject({ code: 0, stdout: 'checked 1 monthly and 5 daily documents (1 and 5 of them gauges\'): 0 violations\n' })
    await write(late, { parts: ['monthly'] })
    const left = await run(['--repair'])
    expect(left.code).toBe(1)
    expect(left.stdout).toMatch(new RegExp(`^${monthId.replace('/', '\\/')} daily\\.${day}: expected count 4, .*\\(from ${dayId.replace('/', '\\/')}\\) \\[not repairable\\] holds more than the daily document`, 'm'))
  })
})
