// The check's I/O on a real database with the clock and the sleep injected:
// a cross-document mismatch that a flush completes while the check waits is
// no violation; one that held unchanged longer than WRITE_TIMEOUT_MS is; one
// still moving is reported as unsettled and left alone; the read rate holds.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { runCheck } from '../../src/jobs/check-run.js'
import { seed } from '../helpers/bucket-docs.js'
import { checkRun, collectionsOf } from '../helpers/job-runs.js'
import { directDb, uniqueDbName } from '../helpers/test-app.js'

const DAY = 86_400_000
const D = Date.UTC(2026, 10, 10)
const T0 = Date.UTC(2026, 10, 21)
let client, db

beforeAll(async () => { ({ client, db } = await directDb(uniqueDbName('checkrun'))) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => {
  for (const c of ['daily', 'monthly', 'metrics']) await db.collection(c).deleteMany({})
  await seed(db, Array.from({ length: 5 }, (_, i) => ({ metric: 'r.a', value: 3, time: D + i * DAY + 600_000 })))
})

const run = options => checkRun(collectionsOf(db, ['daily', 'monthly']), T0, options)

// a flush half-way: the daily document got its increment, the monthly one not yet
const halfFlush = () => db.collection('daily').updateOne({ _id: 'r.a/20261112' }, { $inc: { daily: 4, 'hourly.0': 4, 'quarterHourly.0.0': 4, 'minute.0.10': 4 } })
const secondHalf = () => db.collection('monthly').updateOne({ _id: 'r.a/202611' }, { $inc: { 'daily.12': 4, monthly: 4 } })

describe('cross-document mismatches', () => {
  it('one that a flush completes while the check waits is no violation', async () => {
    await halfFlush()
    const { summary, found } = await run({ repair: true, onSleep: secondHalf })
    expect(found).toEqual([])
    expect(summary).toMatchObject({ violations: 0 })
  })

  it('one unchanged past WRITE_TIMEOUT_MS is a violation; the repair applies the difference once', async () => {
    await halfFlush()
    const { summary, found, sleeps } = await run({ repair: true })
    expect(sleeps[0]).toBeGreaterThan(3000) // 3 × WRITE_TIMEOUT_MS: the latest a flush's write may land
    expect(found).toEqual([{ id: 'r.a/202611', field: 'daily.12', expected: 7, found: 3, against: 'r.a/20261112', state: 'repaired' }])
    expect(summary).toMatchObject({ violations: 1, repaired: 1 })
    expect(await db.collection('monthly').findOne({ _id: 'r.a/202611' })).toMatchObject({ monthly: 19, daily: { 12: 7 } })
    expect((await run({})).found).toEqual([])
  })

  it('one still changing after every round is reported unsettled and left as it is', async () => {
    await halfFlush()
    let n = 0
    const { summary, found } = await run({ repair: true, settleRounds: 2, onSleep: () => db.collection('daily').updateOne({ _id: 'r.a/20261112' }, { $inc: { daily: 1, 'hourly.0': 1, 'quarterHourly.0.0': 1, 'minute.0.10': 1 } }).then(() => n++) })
    expect(n).toBe(3)
    expect(found.map(f => f.state)).toEqual(['unsettled'])
    expect(summary).toMatchObject({ violations: 1, unsettled: 1, repaired: 0 })
    expect((await db.collection('monthly').findOne({ _id: 'r.a/202611' })).daily[12]).toBe(3)
  })

  it('check without --repair reports the confirmed mismatch and changes nothing', async () => {
    await halfFlush()
    const before = await db.collection('monthly').findOne({ _id: 'r.a/202611' })
    const { found } = await run({})
    expect(found.map(f => [f.field, f.state])).toEqual([['daily.12', 'found']])
    expect(await db.collection('monthly').findOne({ _id: 'r.a/202611' })).toEqual(before)
  })
})

describe('--prefix', () => {
  it('names a prefix of metric names: a series whose values hold / or % (escaped in its ids) is checked under it', async () => {
    await seed(db, [{ metric: 'web.req;route=/a%b', value: 2, time: D + 600_000 }])
    // ids escape a series' / and % (src/bucket/time.js bucketId): the seeded documents under the ids the writer gives them
    for (const c of ['daily', 'monthly']) {
      for (const doc of await db.collection(c).find({ metric: 'web.req;route=/a%b' }).toArray()) {
        await db.collection(c).deleteOne({ _id: doc._id })
        await db.collection(c).insertOne({ ...doc, _id: doc._id.replace('/a%b/', '%2Fa%25b/') })
      }
    }
    // the series' day document, cut half-way as above: its id escapes / and %
    await db.collection('daily').updateOne({ _id: 'web.req;route=%2Fa%25b/20261110' }, { $inc: { daily: 4, 'hourly.0': 4, 'quarterHourly.0.0': 4, 'minute.0.10': 4 } })
    const mismatch = { id: 'web.req;route=%2Fa%25b/202611', field: 'daily.10', expected: 6, found: 2, against: 'web.req;route=%2Fa%25b/20261110', state: 'found' }
    for (const prefix of ['web.req;route=/a%b', 'web.req;route=/a%', 'web.req;route=/', 'web.req;', 'web']) {
      expect((await run({ prefix })).found.map(f => ({ ...f, state: 'found' })), prefix).toEqual([mismatch])
    }
    // not a prefix of its name: not checked (neither is r.a, whose documents agree)
    for (const prefix of ['web.req;route=/b', 'web.req;route=%2F', 'web.req;route=/a%2', 'r.a']) expect((await run({ prefix })).found, prefix).toEqual([])
  })
})

describe('a day field exists exactly when its daily document does', () => {
  const month = () => db.collection('monthly').findOne({ _id: 'r.a/202611' })

  it('a 0 with no daily document (a flush of 0 whose daily write failed) is reported and unset; a daily document of 0 without its field (a preallocation cut short) gets it; no count moves', async () => {
    await db.collection('monthly').updateOne({ _id: 'r.a/202611' }, { $inc: { 'daily.20': 0 } })
    await db.collection('daily').insertOne({ _id: 'r.a/20261116', metric: 'r.a', date: new Date(D + 6 * DAY), daily: 0, hourly: {}, quarterHourly: {} })
    const checked = await run({})
    expect(checked.found.map(f => [f.field, f.expected, f.found, f.state]).sort()).toEqual([['daily.16', 0, 'missing', 'found'], ['daily.20', 'missing', 0, 'found']])
    const { summary } = await run({ repair: true })
    expect(summary).toMatchObject({ violations: 2, repaired: 2, unrepaired: 0, unsettled: 0 })
    expect(await month()).toMatchObject({ monthly: 15, daily: { 10: 3, 11: 3, 12: 3, 13: 3, 14: 3, 16: 0 } })
    expect(Object.keys((await month()).daily).sort()).toEqual(['10', '11', '12', '13', '14', '16'])
    expect((await run({})).found).toEqual([])
  })

  it('a day field with no daily document that is not 0 (a flush whose daily write failed) goes, with the month\'s total', async () => {
    await db.collection('monthly').updateOne({ _id: 'r.a/202611' }, { $inc: { 'daily.20': 4, monthly: 4 } })
    const { found } = await run({ repair: true })
    expect(found.map(f => [f.field, f.expected, f.found, f.state])).toEqual([['daily.20', 'missing', 4, 'repaired']])
    expect(await month()).toMatchObject({ monthly: 15, daily: { 10: 3, 11: 3, 12: 3, 13: 3, 14: 3 } })
    expect((await month()).daily[20]).toBeUndefined()
  })

  it('a daily document that appears while the zero is unset (a flush of 0) gets its field back; one written before the unset makes it miss', async () => {
    await db.collection('monthly').updateOne({ _id: 'r.a/202611' }, { $inc: { 'daily.21': 0, 'daily.22': 0 } })
    const monthly = db.collection('monthly')
    let unsets = 0
    const racing = {
      daily: db.collection('daily'),
      monthly: {
        findOne: (...a) => monthly.findOne(...a),
        find: (...a) => monthly.find(...a),
        async updateOne (filter, update, options) {
          if (update.$unset && 'daily.21' in update.$unset) {
            unsets++
            // the day's flush of a 0 event: its daily document first, its month's $inc of 0 after the unset
            await db.collection('daily').insertOne({ _id: 'r.a/20261121', metric: 'r.a', date: new Date(D + 11 * DAY), daily: 0, hourly: { 0: 0 }, quarterHourly: { 0: { 0: 0 } } })
          }
          if (update.$unset && 'daily.22' in update.$unset) {
            // a 5 written to day 22 (both documents) just before the unset: its filter on 0 misses
            await db.collection('daily').insertOne({ _id: 'r.a/20261122', metric: 'r.a', date: new Date(D + 12 * DAY), daily: 5, hourly: { 0: 5 }, quarterHourly: { 0: { 0: 5 } } })
            await monthly.updateOne({ _id: 'r.a/202611' }, { $inc: { 'daily.22': 5, monthly: 5 } })
          }
          return monthly.updateOne(filter, update, options)
        }
      }
    }
    const clock = manualClock(T0)
    const found = []
    await runCheck(racing, { repair: true, writeTimeoutMs: 1000, clock, sleep: async ms => clock.advance(ms), onViolation: (v, state) => found.push([v.field, state]) })
    expect(unsets).toBe(1)
    expect(found).toEqual([['daily.21', 'repaired']]) // day 22 moved: watched again, then agrees
    expect(await month()).toMatchObject({ monthly: 20, daily: { 21: 0, 22: 5 } })
    expect((await run({})).found).toEqual([])
  })
})

describe('a shape no release writes (docs/adr/0048-no-upgrade-paths-before-the-first-release.md)', () => {
  it('a daily document without the quarter-hour tier is reported, not repaired, and left as it is; its day still agrees with its month', async () => {
    // day 13 as a version before 0.1.0 wrote it: minutes, hours and the day, no quarterHourly
    await db.collection('daily').updateOne({ _id: 'r.a/20261113' }, { $unset: { quarterHourly: '' } })
    const before = await db.collection('daily').findOne({ _id: 'r.a/20261113' })
    const missing = { id: 'r.a/20261113', field: 'quarterHourly', expected: 'present', found: 'missing', note: 'a daily document no release writes: left alone', repairable: false }
    const found = await run({})
    expect(found.found).toEqual([{ ...missing, state: 'found' }])
    const repaired = await run({ repair: true })
    expect(repaired.found).toEqual([{ ...missing, state: 'not repairable' }])
    expect(repaired.summary).toMatchObject({ violations: 1, repaired: 0, unrepaired: 1, unsettled: 0 })
    expect(await db.collection('daily').findOne({ _id: 'r.a/20261113' })).toEqual(before)
  })
})

describe('past the daily horizon', () => {
  it('a day whose daily document was recreated by a backfill is not repaired from it: the month is the truth there', async () => {
    // the day of D + 2 was deleted by retention, then an old event recreated it with 1
    await db.collection('daily').deleteOne({ _id: 'r.a/20261112' })
    await db.collection('daily').insertOne({ _id: 'r.a/20261112', metric: 'r.a', date: new Date(D + 2 * DAY), daily: 1, hourly: { 0: 1 }, quarterHourly: { 0: { 0: 1 } } })
    await db.collection('monthly').updateOne({ _id: 'r.a/202611' }, { $inc: { 'daily.12': 1, monthly: 1 } })
    const before = await db.collection('monthly').findOne({ _id: 'r.a/202611' })
    const { found } = await run({ repair: true, dailyKeptFrom: () => D + 3 * DAY })
    expect(found).toEqual([])
    expect(await db.collection('monthly').findOne({ _id: 'r.a/202611' })).toEqual(before)
    // inside the horizon the same document is the truth, and the month is repaired from it
    const inside = await run({ repair: true })
    expect(inside.found.map(f => [f.field, f.expected, f.found])).toEqual([['daily.12', 1, 4]])
  })
})

describe('rate', () => {
  it('reads at most --rate documents per second of the injected clock', async () => {
    const { summary, sleeps } = await run({ rate: 2 })
    // one monthly + five daily documents, then the five daily ids again for orphans
    expect(summary).toMatchObject({ monthly: 1, daily: 5, violations: 0 })
    expect(sleeps.reduce((a, b) => a + b, 0)).toBe((6 + 5) * 1000 / 2)
  })
})
