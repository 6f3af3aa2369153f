// `check` and `--repair` of distributions on a real database written by the
// writer's own updates, the clock and the sleep injected: a flush half-way
// (the daily document written, the monthly one not yet) completed while the
// check waits is no violation, one unchanged past WRITE_TIMEOUT_MS is
// repaired by what the month lacks, once; one still moving is unsettled; a
// month holding what its day does not (the daily write lost) is reported and
// never lowered; a tier repaired inside a document is recomputed when an
// ingest moved it; a tampered threshold count is found and raised back; and
// the real `npm run check` says how many documents were distributions'.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { holdsWholeDay, verifyDistributionDaily, verifyDistributionMonthly } from '../../src/kinds/consistency/distribution.js'
import { writeDistributions } from '../helpers/distribution-writes.js'
import { checkRun, collectionsOf } from '../helpers/job-runs.js'
import { createThresholds, parseThresholdRules } from '../../src/bucket/distribution-thresholds.js'
import { directDb, mongodbUri, uniqueDbName } from '../helpers/test-app.js'

const CHECK = fileURLToPath(new URL('../../src/jobs/check-command.js', import.meta.url))
const DAY = 86_400_000
const D = Date.UTC(2026, 10, 10)
const T0 = Date.UTC(2026, 10, 21)
const MAPPING = createMapping(0.01)
const MONTH = 'lat.r/202611'
let client, db, dbName

beforeAll(async () => { dbName = uniqueDbName('distcheck'); ({ client, db } = await directDb(dbName)) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => {
  for (const c of ['daily', 'monthly', 'metrics', 'distributionDaily', 'distributionMonthly', 'distributionMinutes']) await db.collection(c).deleteMany({})
  // five days, each with a value at 00:10, one at 07:40 (sample rate 0.3), a zero at 13:00
  const events = []
  for (let i = 0; i < 5; i++) {
    events.push({ metric: 'lat.r', value: 20 + i, time: D + i * DAY + 600_000 })
    events.push({ metric: 'lat.r', value: 310.5, time: D + i * DAY + 7 * 3_600_000 + 40 * 60_000, weight: 1 / 0.3 })
    events.push({ metric: 'lat.r', value: 0, time: D + i * DAY + 13 * 3_600_000 })
  }
  await write(events)
})

// every tier keeps the values ≤ 25 and ≤ 300 (DISTRIBUTION_THRESHOLDS)
const THRESHOLDS = createThresholds(parseThresholdRules('{"lat.*": [25, 300]}').rules)
const write = (events, options) => writeDistributions(db, events, MAPPING, { thresholdsOf: THRESHOLDS.of, ...options })
const run = (options = {}, over = {}) => checkRun({ ...collectionsOf(db, ['daily', 'monthly', 'distributionDaily', 'distributionMonthly']), ...over }, T0, options)

// a flush half-way on day 12: its daily document got the value, its monthly document not yet
const late = [{ metric: 'lat.r', value: 4000, time: D + 2 * DAY + 5 * 3_600_000 }]
const halfFlush = () => write(late, { parts: ['daily'] })
const secondHalf = () => write(late, { parts: ['monthly'] })
const month = () => db.collection('distributionMonthly').findOne({ _id: MONTH })
const day12 = () => db.collection('distributionDaily').findOne({ _id: 'lat.r/20261112' })

describe('distributions across documents', () => {
  it('a consistent database: no violation, and every document counted', async () => {
    const { summary, found } = await run({})
    expect(found).toEqual([])
    expect(summary).toMatchObject({ monthly: 1, daily: 5, violations: 0, documents: { distributionMonthly: 1, distributionDaily: 5 } })
  })

  it('a tampered threshold count: an hour lacking some is named and raised back; a day holding more is named and left', async () => {
    const day = 'lat.r/20261111'
    expect((await db.collection('distributionDaily').findOne({ _id: day })).hourly[0].le).toEqual({ 25: 1, 300: 1 })
    await db.collection('distributionDaily').updateOne({ _id: day }, { $set: { 'hourly.0.le.25': 0 } })
    const { found } = await run({ repair: true })
    expect(found.map(f => [f.id, f.field, f.state])).toEqual([[day, 'hourly.0', 'repaired']])
    expect(found[0].note).toMatch(/lacks le.25 1/)
    expect((await db.collection('distributionDaily').findOne({ _id: day })).hourly[0].le).toEqual({ 25: 1, 300: 1 })
    await db.collection('distributionDaily').updateOne({ _id: day }, { $inc: { 'daily.le.300': 1 } })
    const again = await run({ repair: true })
    const daily = again.found.find(f => f.id === day)
    expect([daily.field, daily.state]).toEqual(['daily', 'not repairable'])
    expect([daily.expected, daily.found]).toEqual([expect.stringMatching(/le\.300 2$/), expect.stringMatching(/le\.300 3$/)])
  })

  it('a flush completed while the check waits is no violation', async () => {
    await halfFlush()
    const { summary } = await run({ repair: true, onSleep: secondHalf })
    expect(summary).toMatchObject({ violations: 0 })
  })

  it('one unchanged past WRITE_TIMEOUT_MS is repaired by what the month lacks, once: the month then holds the day whole', async () => {
    await halfFlush()
    const { summary, found, sleeps } = await run({ repair: true })
    expect(sleeps[0]).toBeGreaterThan(3000) // 3 × WRITE_TIMEOUT_MS: the latest a flush's write may land
    expect(found.map(f => [f.id, f.field, f.against, f.state])).toEqual([[MONTH, 'daily.12', 'lat.r/20261112', 'repaired']])
    expect(found[0].note).toMatch(/lacks count 1, .*sum 4000, max 4000/)
    expect(summary).toMatchObject({ violations: 1, repaired: 1 })
    const m = await month()
    expect(holdsWholeDay(m.daily[12], (await day12()).daily)).toBe(true)
    expect(verifyDistributionMonthly(m).violations).toEqual([])
    expect(m.monthly.max).toBe(4000)
    expect((await run({})).found).toEqual([])
  })

  it('one still changing after every round is unsettled and left', async () => {
    await halfFlush()
    const { summary, found } = await run({ repair: true, settleRounds: 2, onSleep: () => write([{ metric: 'lat.r', value: 1, time: D + 2 * DAY + 60_000 }], { parts: ['daily'] }) })
    expect(found.map(f => f.state)).toEqual(['unsettled'])
    expect(summary).toMatchObject({ violations: 1, unsettled: 1, repaired: 0 })
    expect((await month()).daily[12].max).toBe(310.5)
  })

  it('a month holding values its day does not (the daily write lost), or a day without a daily document: reported, never lowered', async () => {
    await write(late, { parts: ['monthly'] })
    await write([{ metric: 'lat.r', value: 9, time: D + 8 * DAY }], { parts: ['monthly'] })
    const before = await month()
    const { summary, found } = await run({ repair: true })
    expect(found.map(f => [f.field, f.state]).sort()).toEqual([['daily.12', 'not repairable'], ['daily.18', 'not repairable']])
    expect(found.find(f => f.field === 'daily.18')).toMatchObject({ expected: 'missing', note: expect.stringMatching(/no daily document/) })
    expect(summary).toMatchObject({ violations: 2, repaired: 0, unrepaired: 2 })
    expect(await month()).toEqual(before)
  })

  it('a daily document whose month does not exist yet: the month is created with the day whole', async () => {
    await write([{ metric: 'lat.r', value: 55, time: Date.UTC(2026, 11, 2, 3) }], { parts: ['daily'] })
    const { found } = await run({ repair: true })
    expect(found.map(f => [f.id, f.field, f.found, f.state])).toEqual([['lat.r/202612', 'daily.2', 'missing', 'repaired']])
    const created = await db.collection('distributionMonthly').findOne({ _id: 'lat.r/202612' })
    expect(created).toMatchObject({ metric: 'lat.r', date: new Date(Date.UTC(2026, 11, 1)), monthly: { count: 1, sum: 55, min: 55, max: 55 }, daily: { 2: { count: 1, sum: 55 } } })
    expect((await run({})).found).toEqual([])
  })
})

describe('inside a distribution document', () => {
  it('an hour that lacks values is raised by them; an ingest between the check\'s read and its repair makes it miss, and the recomputed repair keeps the ingest', async () => {
    const id = 'lat.r/20261111'
    const doc = await db.collection('distributionDaily').findOne({ _id: id })
    const hour7 = doc.hourly[7]
    const key = Object.keys(hour7.positive)[0]
    // the hour lost part of the 07:40 values (count 1 of 3.33, its bucket too)
    await db.collection('distributionDaily').updateOne({ _id: id }, { $inc: { 'hourly.7.count': -1, 'hourly.7.sum': -310.5, [`hourly.7.positive.${key}`]: -1 } })
    const real = db.collection('distributionDaily')
    let raced = false
    const distributionDaily = new Proxy(real, {
      get (target, name) {
        if (name !== 'updateOne') return typeof target[name] === 'function' ? target[name].bind(target) : target[name]
        return async (filter, update, ...rest) => {
          if (!raced && filter._id === id) {
            raced = true
            await write([{ metric: 'lat.r', value: 2, time: D + DAY + 7 * 3_600_000 + 5 * 60_000 }])
          }
          return target.updateOne(filter, update, ...rest)
        }
      }
    })
    const { found } = await run({ repair: true }, { distributionDaily })
    expect(raced).toBe(true)
    expect(found.map(f => [f.id, f.field, f.state])).toEqual([[id, 'hourly.7', 'repaired']])
    const repaired = await real.findOne({ _id: id })
    expect(verifyDistributionDaily(repaired).violations).toEqual([])
    expect(repaired.hourly[7].count).toBeCloseTo(hour7.count + 1, 9)
    expect(repaired.hourly[7].min).toBe(2)
    expect((await run({})).found).toEqual([])
  })

  it('a day without `detail` is judged by its minutes whatever the minute horizon, as retention judges it: a quarter-hour holding more than them is named', async () => {
    const id = 'lat.r/20261110'
    // values in quarter-hour 0.0 that no minute holds, on a day that never said its minutes are incomplete
    await db.collection('distributionDaily').updateOne({ _id: id }, { $inc: { 'quarterHourly.0.0.count': 1, 'quarterHourly.0.0.sum': 20, 'quarterHourly.0.0.positive.152': 1, 'hourly.0.count': 1, 'hourly.0.sum': 20, 'hourly.0.positive.152': 1, 'daily.count': 1, 'daily.sum': 20, 'daily.positive.152': 1 } })
    await db.collection('distributionMonthly').updateOne({ _id: MONTH }, { $inc: { 'daily.10.count': 1, 'daily.10.sum': 20, 'daily.10.positive.152': 1, 'monthly.count': 1, 'monthly.sum': 20, 'monthly.positive.152': 1 } })
    const { found } = await run({ repair: true, minuteKeptFrom: () => T0 })
    expect(found.map(f => [f.id, f.field, f.state])).toEqual([[id, 'quarterHourly.0.0', 'not repairable']])
  })
})

describe('npm run check', () => {
  it('counts the distributions\' documents in its summary line, and exits 1 on what it cannot repair', async () => {
    const check = args => new Promise(resolve => {
      execFile(process.execPath, [CHECK, ...args], {
        env: { PATH: process.env.PATH, MONGODB_URI: mongodbUri(), MONGODB_DB: dbName, WRITE_TIMEOUT_MS: '100' },
        timeout: 60_000
      }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }))
    })
    const clean = await check([])
    expect(clean).toMatchObject({ code: 0, stdout: 'checked 1 monthly and 5 daily documents (1 and 5 of them distributions\') and 15 minute-hour documents of distributions: 0 violations\n' })
    await write(late, { parts: ['monthly'] })
    const left = await check(['--repair'])
    expect(left.code).toBe(1)
    expect(left.stdout).toMatch(/^lat\.r\/202611 daily\.12: expected count 5\.33333333333, .*\(from lat\.r\/20261112\) \[not repairable\] holds more than the daily document/m)
    expect(left.stdout).toMatch(/1 violations, 0 repaired, 1 left\n$/)
  })
})
