// The check's rules for a distribution's minute histograms, pure: a
// minute-hour document as the writer leaves it (fractional weights, an hour
// of 60 minutes full) agrees with its daily document; a histogram holding
// less or more than its minute's count, one for a minute or a day the daily
// document lacks, and every malformed key or count is a violation; a minute
// or an hour without a histogram is none; cross-document mismatches carry
// what was seen, for the caller to confirm, and say --repair removes them
// (minuteHistogramRemoval: conditioned on the minute as seen); malformed
// ones are left for a person.
import { describe, expect, it } from 'vitest'
import { createMapping } from '../../../src/bucket/distribution-sketch.js'
import { dayOfHourId, minuteHistogramRemoval, readMinuteHistogram, verifyMinuteHour } from '../../../src/kinds/consistency/minute-histogram.js'
import { distributionDocumentsOf } from '../../helpers/distribution-documents.js'

const MAPPING = createMapping(0.01)
const D = Date.UTC(2026, 10, 25)
const HOUR = 3_600_000
const HOUR_7 = 'api.latency/2026112507'

/** A day's daily document and its minute-hour documents (Map id → doc), written as the writer writes them */
function written (events) {
  const { daily, minutes } = distributionDocumentsOf(events, MAPPING, { batch: 7 })
  return { daily: daily[0], hours: new Map(minutes.map(doc => [doc._id, doc])) }
}

/** Values in every minute of hour 7: zeros, negatives, StatsD weights 1/0.3 and 1/0.7 */
function busyHour () {
  const events = []
  for (let m = 0; m < 60; m++) {
    for (let i = 0; i < 5; i++) {
      const value = i === 0 ? 0 : i === 1 ? -(m + 1) * 1.5 : (m + 1) * (i * 13.37)
      events.push({ metric: 'api.latency', value, time: D + 7 * HOUR + m * 60_000 + i * 1000, weight: i === 3 ? 1 / 0.3 : i === 4 ? 1 / 0.7 : 1 })
    }
  }
  return events
}

const fields = violations => violations.map(v => v.field)

describe('a minute-hour document as the writer leaves it', () => {
  it('an hour of 60 minutes full, fractional weights among them, agrees with its daily document', () => {
    const { daily, hours } = written(busyHour())
    const hour = hours.get(HOUR_7)
    expect(Object.keys(hour.minute)).toHaveLength(60)
    expect(verifyMinuteHour(hour, daily)).toEqual([])
  })

  it('a minute the hour document lacks, and a document with no minutes, are no violation (a histogram write lost: the minute reads no percentile)', () => {
    const { daily, hours } = written(busyHour())
    const hour = structuredClone(hours.get(HOUR_7))
    delete hour.minute[17]
    delete hour.minute[0]
    expect(verifyMinuteHour(hour, daily)).toEqual([])
    expect(verifyMinuteHour({ _id: HOUR_7 }, daily)).toEqual([])
  })

  it('totals equal within 1e-9 relative (weights added in another order) agree; beyond that they do not', () => {
    const { daily } = written(busyHour())
    const { count, sum } = daily.minute[7][3]
    const minute = (bucketed, c = count, s = sum) => ({ _id: HOUR_7, minute: { 3: { count: c, sum: s, positive: { 100: bucketed } } } })
    expect(verifyMinuteHour(minute(count * (1 + 5e-10)), daily)).toEqual([])
    expect(fields(verifyMinuteHour(minute(count * (1 + 5e-9)), daily))).toEqual(['minute.3'])
    // the hour's count and sum beside its buckets, each against the day's
    expect(verifyMinuteHour(minute(count, count * (1 + 5e-10), sum * (1 + 1e-12)), daily)).toEqual([])
    expect(fields(verifyMinuteHour(minute(count, count + 1), daily))).toEqual(['minute.3'])
    expect(fields(verifyMinuteHour(minute(count, count, sum + 1), daily))).toEqual(['minute.3'])
    expect(fields(verifyMinuteHour({ _id: HOUR_7, minute: { 3: { positive: { 100: count } } } }, daily))).toEqual(['minute.3'])
  })

  it('equal counts of other values (two flushes of one minute cut in opposite ways, both retried) are told apart by their sums', () => {
    const { daily, hours } = written(busyHour())
    const hour = structuredClone(hours.get(HOUR_7))
    // minute 9: one value moved to another bucket, the count unchanged, the sum as such a move leaves it
    const [from] = Object.keys(hour.minute[9].positive)
    hour.minute[9].positive[from] -= 1
    hour.minute[9].positive[Number(from) + 40] = (hour.minute[9].positive[Number(from) + 40] ?? 0) + 1
    hour.minute[9].sum += 1000
    const [v] = verifyMinuteHour(hour, daily)
    expect(v).toMatchObject({ field: 'minute.9', note: expect.stringMatching(/^no read uses it .*--repair removes it$/) })
    expect(v.found).toMatch(/, sum /)
  })
})

describe('mismatches with the daily document', () => {
  it('a histogram holding less or more than its minute\'s count is a violation that names the daily minute, carries what was seen, and is removed by a repair conditioned on it', () => {
    const { daily, hours } = written(busyHour())
    const hour = structuredClone(hours.get(HOUR_7))
    const key = Object.keys(hour.minute[12].positive)[0]
    hour.minute[12].positive[key] -= 1 // a flush whose minute-hour write was lost
    hour.minute[40].zero += 2 // or applied twice
    const violations = verifyMinuteHour(hour, daily)
    expect(fields(violations)).toEqual(['minute.12', 'minute.40'])
    for (const v of violations) {
      expect(v).toMatchObject({ id: HOUR_7, against: 'api.latency/20261125', note: expect.stringMatching(/^no read uses it/) })
      expect(v.expected).toMatch(/^a histogram of [\d.]+ values summing to -?[\d.]+ \(minute\.7\.(12|40)\)$/)
      expect(v.seen).toEqual({ hour: hour.minute[v.field.slice(7)], day: daily.minute[7][v.field.slice(7)] })
      // the filter names every field of the minute as seen, apart (a whole embedded document matches only in stored order)
      const { filter, update } = minuteHistogramRemoval(v)
      expect(update).toEqual({ $unset: { [v.field]: '' } })
      const seen = v.seen.hour
      const leaves = { _id: HOUR_7, [`${v.field}.count`]: seen.count, [`${v.field}.sum`]: seen.sum, [`${v.field}.zero`]: seen.zero ?? { $exists: false } }
      for (const side of ['positive', 'negative']) {
        if (seen[side] === undefined) leaves[`${v.field}.${side}`] = { $exists: false }
        else for (const [key, n] of Object.entries(seen[side])) leaves[`${v.field}.${side}.${key}`] = n
      }
      expect(filter).toEqual(leaves)
      expect(Object.keys(filter).length).toBeGreaterThan(4)
    }
  })

  it('a histogram of a minute the daily document lacks, or of a day without a daily document, is a violation; past the days a read uses (unreadBefore) only its shape is judged', () => {
    const { daily, hours } = written(busyHour())
    const hour = hours.get(HOUR_7)
    const lacking = structuredClone(daily)
    delete lacking.minute[7][30]
    expect(verifyMinuteHour(hour, lacking).map(v => [v.field, v.found])).toEqual([['minute.30', expect.stringMatching(/no minute 7:30 in its daily document$/)]])
    const downsampled = structuredClone(daily)
    delete downsampled.minute
    expect(verifyMinuteHour(hour, downsampled)).toHaveLength(60)
    const gone = verifyMinuteHour(hour, null)
    expect(gone).toHaveLength(60)
    expect(gone[0]).toMatchObject({ found: expect.stringMatching(/no daily document$/), note: expect.stringMatching(/^no read uses it/), seen: { day: null } })
    // before the days a read uses: an orphan of a pass cut short, which retention deletes: not judged
    expect(verifyMinuteHour(hour, null, { unreadBefore: D + 86_400_000 })).toEqual([])
    expect(verifyMinuteHour(hour, null, { unreadBefore: D })).toHaveLength(60)
    // its shape is: a malformed minute is named there too
    const malformed = structuredClone(hour)
    malformed.minute[3] = { positive: { '01': 1 } }
    expect(verifyMinuteHour(malformed, null, { unreadBefore: D + 86_400_000 }).map(v => v.field)).toEqual(['minute.3'])
  })

  it('a daily minute that is not a tier is the daily document\'s own violation: not compared here', () => {
    const { daily, hours } = written(busyHour())
    const bad = structuredClone(daily)
    bad.minute[7][5] = 'x'
    bad.minute[7][6].count = -3
    bad.minute[7][7].count = '4'
    expect(verifyMinuteHour(hours.get(HOUR_7), bad)).toEqual([])
  })
})

describe('hostile documents', () => {
  const daily = { _id: 'api.latency/20261125', minute: { 7: { 1: { count: 2, sum: 0, min: 0, max: 0 } } } }
  const one = minute => verifyMinuteHour({ _id: HOUR_7, minute: { 1: minute } }, daily)

  it('malformed minute keys are reported, each, and the well-formed minutes beside them still compared', () => {
    const violations = verifyMinuteHour({ _id: HOUR_7, minute: { 60: { zero: 1 }, '07': { zero: 1 }, '-1': { zero: 1 }, x: { zero: 1 }, 1.5: { zero: 1 }, 1: { count: 2, sum: 0, zero: 2 } } }, daily)
    expect(violations.map(v => v.found).sort()).toEqual(['"-1"', '"07"', '"1.5"', '"60"', '"x"'])
    for (const v of violations) expect(v).toMatchObject({ expected: 'a minute 0..59', note: expect.stringMatching(/person/) })
    expect(violations.every(v => v.seen === undefined)).toBe(true)
  })

  it('malformed bucket keys and parts are reported', () => {
    for (const [minute, problem] of [
      [{ positive: { '01': 2 } }, /bucket key "01"/],
      [{ positive: { 1.5: 2 } }, /bucket key "1.5"/],
      [{ negative: { '-0': 2 } }, /bucket key "-0"/],
      [{ negative: { ' 3': 2 } }, /bucket key " 3"/],
      [{ positive: [2] }, /positive is not an object/],
      [{ negative: null }, /negative is not an object/],
      [{ count: -2 }, /count -2 is not a count/],
      [{ sum: 'x' }, /sum "x" is not a finite number/],
      [{ max: 2 }, /"max" is not a minute histogram's part/],
      [{ zero: 1, $inc: 1 }, /"\$inc" is not a minute histogram's part/]
    ]) {
      const violations = one(minute)
      expect(violations, JSON.stringify(minute)).toHaveLength(1)
      expect(violations[0].found).toMatch(problem)
      expect(violations[0].seen).toBeUndefined()
    }
  })

  it('counts that are not finite non-negative numbers are reported', () => {
    for (const bad of ['2', -1, NaN, Infinity, null, true, { $numberLong: '2' }]) {
      for (const minute of [{ zero: bad }, { positive: { 5: bad } }, { negative: { 5: bad } }]) {
        const violations = one(minute)
        expect(violations, JSON.stringify(minute)).toHaveLength(1)
        expect(violations[0].found).toMatch(/is not a count/)
      }
    }
  })

  it('a minute that is not an object, a `minute` that is not one, an id that is not a minute-hour\'s', () => {
    for (const minute of [2, 'x', null, [1, 1]]) expect(one(minute)[0].found, JSON.stringify(minute)).toMatch(/is not a histogram/)
    for (const minute of [null, 5, [], 'x']) expect(verifyMinuteHour({ _id: HOUR_7, minute }, daily), JSON.stringify(minute)).toMatchObject([{ field: 'minute' }])
    for (const _id of ['api.latency/20261125', 'api.latency/2026112524', 'api.latency/2026023007', '/2026112507', 7, null]) {
      expect(verifyMinuteHour({ _id, minute: { 1: { zero: 2 } } }, daily), String(_id)).toMatchObject([{ field: '_id' }])
      expect(dayOfHourId(_id)).toBeNull()
    }
  })

  it('a well-formed minute adds zero, positive and negative', () => {
    expect(readMinuteHistogram({ count: 3.75, sum: 1, zero: 0.5, positive: { 3: 1, '-7': 0.25 }, negative: { 0: 2 } })).toEqual({ total: 3.75, count: 3.75, sum: 1 })
    expect(readMinuteHistogram({})).toEqual({ total: 0, count: undefined, sum: undefined })
    expect(one({ count: 2, sum: 0, zero: 0.5, positive: { 3: 1, '-7': 0.5 } })).toEqual([])
  })
})
