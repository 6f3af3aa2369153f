// `check` of a distribution's minute histograms on a real database, the clock
// and the sleep injected: minute-hour documents written as the writer writes
// them pass and are counted; a minute whose histogram disagrees with its
// daily minute (or that its day lacks), unchanged past WRITE_TIMEOUT_MS, is
// reported — and under --repair removed from its hour document (no read uses
// it), every other minute and the daily documents untouched, unless a write
// moved it since it was confirmed; a flush half-way completed while the check
// waits is none; one still moving is unsettled; malformed documents are
// reported without waiting and left; minutes with no histogram are none;
// --prefix/--from/--to choose the hours of the days they choose; and the real
// `npm run check` says how many it read.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { writeDistributions } from '../helpers/distribution-writes.js'
import { checkRun, collectionsOf } from '../helpers/job-runs.js'
import { writeMinuteHistograms } from '../helpers/minute-histograms.js'
import { directDb, mongodbUri, uniqueDbName } from '../helpers/test-app.js'

const CHECK = fileURLToPath(new URL('../../src/jobs/check-command.js', import.meta.url))
const DAY = 86_400_000
const HOUR = 3_600_000
const D = Date.UTC(2026, 10, 10)
const T0 = Date.UTC(2026, 10, 21)
const MAPPING = createMapping(0.01)
let client, db, dbName

beforeAll(async () => { dbName = uniqueDbName('minhistcheck'); ({ client, db } = await directDb(dbName)) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => {
  for (const c of ['daily', 'monthly', 'metrics', 'distributionDaily', 'distributionMonthly', 'distributionMinutes']) await db.collection(c).deleteMany({})
  // three days of lat.m: values at 00:10, 07:40 (sample rate 0.3) and a zero at 13:00; minute histograms for all
  await write(eventsOver('lat.m', 3))
})

function eventsOver (metric, days) {
  const events = []
  for (let i = 0; i < days; i++) {
    events.push({ metric, value: 20 + i, time: D + i * DAY + 600_000 })
    events.push({ metric, value: 310.5, time: D + i * DAY + 7 * HOUR + 40 * 60_000, weight: 1 / 0.3 })
    events.push({ metric, value: 0, time: D + i * DAY + 13 * HOUR })
  }
  return events
}

const write = (events, options) => writeDistributions(db, events, MAPPING, options)

const run = (options = {}, over = {}) => checkRun({ ...collectionsOf(db, ['daily', 'monthly', 'distributionDaily', 'distributionMonthly', 'distributionMinutes']), ...over }, T0, options)

const minutes = () => db.collection('distributionMinutes')
const all = name => db.collection(name).find().sort({ _id: 1 }).toArray()

describe('minute histograms against their daily documents', () => {
  it('written as the writer writes them: no violation, every minute-hour document counted apart from the day and month documents', async () => {
    const { summary, found, sleeps } = await run({})
    expect(found).toEqual([])
    expect(sleeps).toEqual([])
    expect(summary).toMatchObject({ monthly: 1, daily: 3, violations: 0, documents: { distributionDaily: 3, distributionMinutes: 9 } })
  })

  it('a minute without its histogram (no document for its hour, or none in its hour\'s document) is no violation', async () => {
    await minutes().deleteOne({ _id: 'lat.m/2026111000' })
    await write([{ metric: 'lat.m', value: 5, time: D + DAY + 7 * HOUR + 3 * 60_000 }], { parts: ['daily', 'monthly'] })
    const { summary, found } = await run({})
    expect(found).toEqual([])
    expect(summary).toMatchObject({ violations: 0, documents: { distributionMinutes: 8 } })
  })

  it('a histogram that lacks a value of its minute, unchanged past WRITE_TIMEOUT_MS, is found; --repair removes that minute, and only it', async () => {
    // a flush whose minute-hour write was lost: the daily documents hold 5 at 07:40, the minute's histogram does not
    await write([{ metric: 'lat.m', value: 5, time: D + DAY + 7 * HOUR + 40 * 60_000 }], { parts: ['daily', 'monthly'] })
    const before = await all('distributionMinutes')
    const days = await all('distributionDaily')
    const found = await run({})
    expect(found.summary).toMatchObject({ violations: 1, unrepaired: 0 })
    expect(found.found).toEqual([expect.objectContaining({ id: 'lat.m/2026111107', field: 'minute.40', against: 'lat.m/20261111', state: 'found', note: expect.stringMatching(/^no read uses it/) })])
    expect(found.found[0].seen).toBeUndefined()
    // confirmed past 3 × WRITE_TIMEOUT_MS (1 s here): the latest a flush's write may land
    expect(found.sleeps).toEqual([3001])
    expect(await all('distributionMinutes')).toEqual(before)
    const repaired = await run({ repair: true })
    expect(repaired.summary).toMatchObject({ violations: 1, repaired: 1, unrepaired: 0, unsettled: 0 })
    expect(repaired.found.map(f => [f.id, f.field, f.state])).toEqual([['lat.m/2026111107', 'minute.40', 'repaired']])
    // the hour document without minute 40 (it had no other), every other one as it was; the days untouched
    const after = await all('distributionMinutes')
    expect(after.find(d => d._id === 'lat.m/2026111107')).toEqual({ ...before.find(d => d._id === 'lat.m/2026111107'), minute: {} })
    expect(after.filter(d => d._id !== 'lat.m/2026111107')).toEqual(before.filter(d => d._id !== 'lat.m/2026111107'))
    expect(await all('distributionDaily')).toEqual(days)
    expect((await run({ repair: true })).summary).toMatchObject({ violations: 0 })
  })

  it('a histogram of buckets two flushes wrote out of key order (stored 301 before 70, read back sorted) is removed all the same', async () => {
    const at = D + DAY + 7 * HOUR + 41 * 60_000
    await write([{ metric: 'lat.m', value: 300, time: at }, { metric: 'lat.m', value: -0.5, time: at }])
    await write([{ metric: 'lat.m', value: 3, time: at }, { metric: 'lat.m', value: -400, time: at }])
    await write([{ metric: 'lat.m', value: 5, time: at }], { parts: ['daily', 'monthly'] })
    const stored = (await minutes().findOne({ _id: 'lat.m/2026111107' })).minute[41]
    expect(Object.keys(stored.positive).length).toBe(2)
    const { summary, found } = await run({ repair: true })
    expect(summary).toMatchObject({ violations: 1, repaired: 1, unrepaired: 0, unsettled: 0 })
    expect(found.map(f => [f.field, f.state])).toEqual([['minute.41', 'repaired']])
    expect((await minutes().findOne({ _id: 'lat.m/2026111107' })).minute[41]).toBeUndefined()
  })

  it('a confirmed mismatch that a write moves before its removal is not removed, but watched again, and removed once it holds still', async () => {
    await write([{ metric: 'lat.m', value: 5, time: D + DAY + 7 * HOUR + 40 * 60_000 }], { parts: ['daily', 'monthly'] })
    // the first removal finds the minute moved: another value of a flush whose daily write was lost lands just before it
    let moved = 0
    const racing = new Proxy(minutes(), {
      get: (target, key) => key !== 'updateOne'
        ? (typeof target[key] === 'function' ? target[key].bind(target) : target[key])
        : async (filter, update) => {
          if (moved++ === 0) await target.updateOne({ _id: filter._id }, { $inc: { 'minute.40.count': 1, 'minute.40.sum': 7, 'minute.40.zero': 1 } })
          return target.updateOne(filter, update)
        }
    })
    const { summary, found } = await run({ repair: true }, { distributionMinutes: racing })
    expect(moved).toBe(2)
    expect(summary).toMatchObject({ violations: 1, repaired: 1, unsettled: 0 })
    expect(found.map(f => [f.field, f.state])).toEqual([['minute.40', 'repaired']])
    expect((await minutes().findOne({ _id: 'lat.m/2026111107' })).minute).toEqual({})
  })

  it('a histogram of a minute or a day the daily documents lack is found; one past the histograms\' horizon (no read uses it, retention deletes it) is not judged', async () => {
    await writeMinuteHistograms(db, [{ metric: 'lat.m', value: 9, time: D + 2 * DAY + 21 * HOUR + 59 * 60_000 }], MAPPING)
    await writeMinuteHistograms(db, [{ metric: 'lat.m', value: 9, time: D - 20 * DAY + HOUR }], MAPPING)
    const { summary, found } = await run({ minuteKeptFrom: () => D - 10 * DAY })
    expect(summary).toMatchObject({ violations: 1, documents: { distributionMinutes: 11 } })
    expect(found.map(v => [v.id, v.field, v.state])).toEqual([['lat.m/2026111221', 'minute.59', 'found']])
    // judged where a read would use it: with the horizons further back; --repair removes both
    const back = await run({ minuteKeptFrom: () => D - 30 * DAY, repair: true })
    expect(back.found.map(v => [v.id, v.state]).sort()).toEqual([['lat.m/2026102101', 'repaired'], ['lat.m/2026111221', 'repaired']])
    expect(await minutes().find({ _id: { $in: ['lat.m/2026102101', 'lat.m/2026111221'] } }).toArray()).toEqual([{ _id: 'lat.m/2026102101', minute: {} }, { _id: 'lat.m/2026111221', minute: {} }].map(d => expect.objectContaining(d)))
  })

  it('past the daily horizon (shorter than MINUTE_HISTOGRAM_DAYS) no read uses a minute histogram either: not judged', async () => {
    const at = D + 7 * HOUR + 40 * 60_000
    await write([{ metric: 'lat.m', value: 1, time: at }], { parts: ['daily', 'monthly'] })
    const past = await run({ minuteHistogramKeptFrom: () => D - 3 * DAY, dailyKeptFrom: () => D + DAY })
    expect(past.found.filter(v => v.id === 'lat.m/2026111007')).toEqual([])
    const inside = await run({ minuteHistogramKeptFrom: () => D - 3 * DAY, dailyKeptFrom: () => D })
    expect(inside.found.map(v => [v.id, v.field])).toEqual([['lat.m/2026111007', 'minute.40']])
  })

  it('past MINUTE_HISTOGRAM_DAYS a minute written without its histogram (ingest writes none there) is no violation; inside it, it is', async () => {
    const at = D + 7 * HOUR + 40 * 60_000
    await write([{ metric: 'lat.m', value: 1, time: at }], { parts: ['daily', 'monthly'] })
    const past = await run({ minuteHistogramKeptFrom: () => D + DAY })
    expect(past.summary).toMatchObject({ violations: 0 })
    const inside = await run({ minuteHistogramKeptFrom: () => D })
    expect(inside.found.map(v => [v.id, v.field])).toEqual([['lat.m/2026111007', 'minute.40']])
  })

  it('a flush half-way (the daily write landed, the minute-hour write not yet) completed while the check waits is no violation', async () => {
    const late = [{ metric: 'lat.m', value: 4000, time: D + 2 * DAY + 7 * HOUR + 40 * 60_000 }]
    await write(late, { parts: ['daily', 'monthly'] })
    const { summary, sleeps } = await run({ repair: true, onSleep: () => writeMinuteHistograms(db, late, MAPPING) })
    expect(summary).toMatchObject({ violations: 0, documents: { distributionMinutes: 9 } })
    expect(sleeps).toHaveLength(1)
  })

  it('a minute still moving after every round is unsettled, not found', async () => {
    const at = D + 7 * HOUR + 40 * 60_000
    await write([{ metric: 'lat.m', value: 1, time: at }], { parts: ['daily', 'monthly'] })
    // every wait another value lands in the daily documents, whose minute-hour write keeps lagging
    let n = 0
    const { summary, found } = await run({ settleRounds: 2, onSleep: () => write([{ metric: 'lat.m', value: 1 + ++n, time: at }], { parts: ['daily'] }) })
    expect(summary).toMatchObject({ violations: 1, unsettled: 1 })
    expect(found[0]).toMatchObject({ id: 'lat.m/2026111007', field: 'minute.40', state: 'unsettled', note: expect.stringMatching(/still changing/) })
  })

  it('malformed documents are reported at once, without a wait; the others still checked', async () => {
    await minutes().insertMany([
      { _id: 'lat.m/2026111099', minute: { 1: { zero: 1 } } },
      { _id: 'lat.m/2026111014', minute: 'x' }
    ])
    await minutes().updateOne({ _id: 'lat.m/2026111107' }, { $set: { 'minute.61': { zero: 1 }, 'minute.40.positive.007': 1, 'minute.40.count': 3 } })
    await minutes().updateOne({ _id: 'lat.m/2026111200' }, { $set: { 'minute.10.zero': '1' } })
    const { summary, found, sleeps } = await run({ repair: true })
    expect(sleeps).toEqual([])
    expect(summary).toMatchObject({ violations: 5, unrepaired: 5, documents: { distributionMinutes: 11 } })
    expect(found.map(v => [v.id, v.field]).sort()).toEqual([
      ['lat.m/2026111014', 'minute'],
      ['lat.m/2026111099', '_id'],
      ['lat.m/2026111107', 'minute.40'],
      ['lat.m/2026111107', 'minute.61'],
      ['lat.m/2026111200', 'minute.10']
    ].sort())
  })

  it('--prefix, --from and --to choose the minute-hour documents of the days they choose; without the collection nothing of it is read', async () => {
    await write(eventsOver('lat.n', 3))
    // every 00:10 of every day of both: a histogram of one more
    const midnights = ['lat.m', 'lat.n'].flatMap(metric => [10, 11, 12].map(day => `${metric}/202611${day}00`))
    await minutes().updateMany({ _id: { $in: midnights } }, { $inc: { 'minute.10.zero': 1 } })
    const some = await run({ prefix: 'lat.n', from: D + DAY - 1, to: D + 2 * DAY })
    expect(some.summary).toMatchObject({ violations: 1, documents: { distributionMinutes: 3 } })
    expect(some.found.map(v => v.id)).toEqual(['lat.n/2026111100'])
    const every = await run({})
    expect(every.summary).toMatchObject({ violations: 6, documents: { distributionMinutes: 18 } })
    const none = await run({}, { distributionMinutes: undefined })
    expect(none.summary).toMatchObject({ violations: 0, documents: { distributionMinutes: 0 } })
  })

  it('--prefix of a series whose values hold / or % (escaped in its ids) chooses its minute-hour documents', async () => {
    await write(eventsOver('lat.s;route=/a%b', 1))
    await minutes().updateOne({ _id: 'lat.s;route=%2Fa%25b/2026111000' }, { $inc: { 'minute.10.zero': 1 } })
    for (const prefix of ['lat.s;route=/a%b', 'lat.s;route=/', 'lat.s']) {
      const { summary, found } = await run({ prefix })
      expect(found.map(v => v.id), prefix).toEqual(['lat.s;route=%2Fa%25b/2026111000'])
      expect(summary.documents.distributionMinutes, prefix).toBe(3)
    }
    expect((await run({ prefix: 'lat.s;route=%2F' })).summary).toMatchObject({ violations: 0, documents: { distributionMinutes: 0 } })
  })
})

describe('npm run check', () => {
  const exec = args => new Promise(resolve => {
    execFile(process.execPath, [CHECK, ...args], {
      // horizons far back: the documents' fixed days stay inside them whatever day the test runs on
      env: { PATH: process.env.PATH, MONGODB_URI: mongodbUri(), MONGODB_DB: dbName, WRITE_TIMEOUT_MS: '100', MINUTE_RETENTION_DAYS: '36500', MINUTE_HISTOGRAM_DAYS: '36500' },
      timeout: 60_000
    }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }))
  })

  it('counts the minute-hour documents it read, exits 0 once --repair removed a mismatched minute, and 1 on a malformed one it leaves', async () => {
    expect(await exec([])).toMatchObject({ code: 0, stdout: 'checked 1 monthly and 3 daily documents (1 and 3 of them distributions\') and 9 minute-hour documents of distributions: 0 violations\n' })
    await minutes().updateOne({ _id: 'lat.m/2026111013' }, { $inc: { 'minute.0.zero': 0.5 } })
    const found = await exec([])
    expect(found.code).toBe(1)
    expect(found.stdout).toMatch(/^lat\.m\/2026111013 minute\.0: expected a histogram of 1 values summing to 0 \(minute\.13\.0\), found a histogram of 1\.5, count 1, sum 0 \(from lat\.m\/20261110\) no read uses it/m)
    const repaired = await exec(['--repair'])
    expect(repaired.code).toBe(0)
    expect(repaired.stdout).toMatch(/^lat\.m\/2026111013 minute\.0: .* \[repaired\] no read uses it/m)
    expect(repaired.stdout).toMatch(/9 minute-hour documents of distributions: 1 violations, 1 repaired, 0 left\n$/)
    await minutes().updateOne({ _id: 'lat.m/2026111013' }, { $set: { 'minute.7': { positive: { '01': 1 } } } })
    const left = await exec(['--repair'])
    expect(left.code).toBe(1)
    expect(left.stdout).toMatch(/^lat\.m\/2026111013 minute\.7: .* \[not repairable\] left for a person to look at$/m)
  }, 20_000)
})
