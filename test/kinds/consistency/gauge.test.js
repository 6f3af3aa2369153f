// The pure checks and repairs of gauge documents against documents built as
// the writer leaves them (test/helpers/gauge-documents.js), with ties of
// event time, zeros, negatives and large levels: consistent documents pass
// (minutes kept or dropped, any cut into flushes); a coarser tier that lacks
// values is reported by field and its repair (raises only) restores it,
// `last` included; one that holds more, or a later `last`, is reported and
// never lowered; the repair misses when a concurrent write moved the tier;
// the minutes vouch exactly when the quarter-hours hold their values and a
// `last` no earlier than theirs; a month holds a day only when equal.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildGaugeUnit } from '../../../src/bucket/gauge-increments.js'
import {
  applyGaugeRepair, compareGaugeDay, gaugeDayGuard, gaugeMinutesVouched, holdsWholeGaugeDay, readGaugeTier,
  sameGaugeStored, verifyGaugeDaily, verifyGaugeMonthly
} from '../../../src/kinds/consistency/gauge.js'
import { applyGaugeUpdate, gaugeDocumentsOf } from '../../helpers/gauge-documents.js'

const DAY0 = Date.UTC(2026, 10, 3)
const HOUR = 3_600_000
const MIN = 60_000

const level = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.constantFrom(0, 7, 7, 1e15, -1e15), fc.double({ min: -1e6, max: 1e6, noNaN: true }))
const eventArb = fc.record({
  // a few instants shared often, so ties of event time decide `last`
  ms: fc.oneof(fc.integer({ min: 0, max: 86_399_999 }), fc.constantFrom(10 * HOUR, 10 * HOUR + 1, 23 * HOUR + 59 * MIN)),
  value: level
}).map(e => ({ metric: 'g', value: e.value === 0 ? 0 : e.value, time: DAY0 + e.ms }))
const eventsArb = fc.array(eventArb, { minLength: 1, maxLength: 60 })

const docsOf = (events, options) => gaugeDocumentsOf(events, { batch: 7, ...options })
const dayDocOf = (events, options) => docsOf(events, options).daily[0]

/** What MongoDB does with a filter of exact values ($exists too, dates by time) and the update, on a copy; null when no match */
function applyRepair (doc, { filter, update }) {
  for (const [path, want] of Object.entries(filter)) {
    if (path === '_id') continue
    const got = path.split('.').reduce((node, p) => node?.[p], doc)
    const match = want && typeof want === 'object' && '$exists' in want
      ? (got !== undefined) === want.$exists
      : want instanceof Date ? got instanceof Date && got.getTime() === want.getTime() : got === want
    if (!match) return null
  }
  return applyGaugeRepair(doc, update)
}

/** Every $inc of a count is ≥ 0, and nothing is lowered ($min/$max only) */
function expectOnlyRaises (update) {
  for (const [path, n] of Object.entries(update.$inc ?? {})) if (path.endsWith('.count')) expect(n, path).toBeGreaterThanOrEqual(0)
  expect(Object.keys(update).filter(op => !['$inc', '$min', '$max', '$setOnInsert'].includes(op))).toEqual([])
}

const at = (doc, path) => path.split('.').reduce((n, p) => n?.[p], doc)
const fieldsOf = violations => violations.map(v => v.field).sort()

describe('consistent gauge documents', () => {
  it('pass every check whatever the levels and their cut into flushes, minutes kept or dropped; the minutes vouch, the month holds each day whole', () => {
    fc.assert(fc.property(eventsArb, fc.boolean(), fc.integer({ min: 1, max: 9 }), (events, downsampled, batch) => {
      const { daily, monthly } = docsOf(events, { batch, minuteFrom: downsampled ? DAY0 + 86_400_000 : null })
      const [day] = daily
      const [month] = monthly
      expect(verifyGaugeDaily(day).violations).toEqual([])
      expect(verifyGaugeMonthly(month).violations).toEqual([])
      expect(gaugeMinutesVouched(day)).toEqual({ vouched: true, problems: [] })
      expect(holdsWholeGaugeDay(month.daily[3], day.daily)).toBe(true)
      expect(compareGaugeDay({ monthlyId: month._id, day: 3, dailyId: day._id, dailyTotal: verifyGaugeDaily(day).dayTier, monthlyValue: month.daily[3], metric: 'g', monthStart: Date.UTC(2026, 10, 1) })).toBeNull()
    }), { numRuns: 150 })
  })

  it('a day written past the horizon without some minutes (detail quarterHour) still vouches: its minutes are a subset', () => {
    const kept = [{ metric: 'g', value: 5, time: DAY0 + HOUR }, { metric: 'g', value: -2, time: DAY0 + HOUR + MIN }]
    const late = [{ metric: 'g', value: 900, time: DAY0 + HOUR + 2 * MIN }, { metric: 'g', value: -70, time: DAY0 + 3 * HOUR }]
    const { daily: [day] } = gaugeDocumentsOf([...kept, ...late], { batches: [kept, late], keepsMinutes: (m, dayStart) => false })
    const withMinutes = dayDocOf(kept)
    const doc = { ...day, minute: withMinutes.minute, detail: 'quarterHour' }
    expect(gaugeMinutesVouched(doc).vouched).toBe(true)
    expect(verifyGaugeDaily(doc).violations).toEqual([])
    // as complete minutes they would not vouch: the quarter-hour holds more than they do
    expect(gaugeMinutesVouched(doc, { minutesComplete: true }).vouched).toBe(false)
  })
})

describe('what vouches for the minutes', () => {
  const events = [
    { metric: 'g', value: 3, time: DAY0 + 10 * HOUR + 2 * MIN },
    { metric: 'g', value: 11, time: DAY0 + 10 * HOUR + 7 * MIN },
    { metric: 'g', value: -1, time: DAY0 + 10 * HOUR + 20 * MIN }
  ]
  const base = () => dayDocOf(events)

  it('a quarter-hour lacking a value its minutes hold, a bound, or their last does not vouch; one with values and no minutes neither', () => {
    const lacking = base()
    lacking.quarterHourly[10][0].count -= 1
    lacking.quarterHourly[10][0].sum -= 11
    const bound = base()
    bound.quarterHourly[10][0].max = 10
    const earlier = base()
    earlier.quarterHourly[10][0].last = { t: new Date(DAY0 + 10 * HOUR + 2 * MIN), v: 3 }
    const tie = base()
    tie.quarterHourly[10][0].last = { t: tie.quarterHourly[10][0].last.t, v: 10 } // same time, a smaller level
    const orphan = base()
    delete orphan.minute[10][20]
    for (const doc of [lacking, bound, earlier, tie, orphan]) {
      const { vouched, problems } = gaugeMinutesVouched(doc)
      expect(vouched).toBe(false)
      expect(problems[0]).toMatch(/^quarterHourly\.10\.[01] /)
    }
    // a later last than the minutes' holds more than they do: it vouches for them (the check reports it while they are complete)
    const later = base()
    later.quarterHourly[10][0].last = { t: new Date(DAY0 + 10 * HOUR + 14 * MIN), v: 0 }
    expect(gaugeMinutesVouched(later).vouched).toBe(true)
    expect(gaugeMinutesVouched({ ...later, detail: 'quarterHour' }).vouched).toBe(true)
    expect(verifyGaugeDaily(later).violations).toMatchObject([{ field: 'quarterHourly.10.0', rule: 'minutes', repairable: false }])
  })

  it('an unreadable minute or last does not vouch', () => {
    const doc = base()
    doc.minute[10][7].last = { t: 'yesterday', v: 11 }
    const { vouched, problems } = gaugeMinutesVouched(doc)
    expect(vouched).toBe(false)
    expect(problems[0]).toMatch(/^minute\.10\.7: last/)
    expect(readGaugeTier({ count: -1 }).problem).toMatch(/not a count/)
  })

  it('the guard holds the day tier as read, last by its time and level', () => {
    const doc = base()
    expect(gaugeDayGuard(doc)).toEqual({ _id: doc._id, 'daily.count': 3, 'daily.sum': 13, 'daily.min': -1, 'daily.max': 11, 'daily.last.t': new Date(DAY0 + 10 * HOUR + 20 * MIN), 'daily.last.v': -1 })
    expect(gaugeDayGuard({ _id: 'x' })).toMatchObject({ 'daily.count': { $exists: false }, 'daily.last': { $exists: false } })
  })
})

describe('repairs of a daily gauge document', () => {
  const events = [
    { metric: 'g', value: 4, time: DAY0 + 2 * HOUR + 5 * MIN },
    { metric: 'g', value: 40, time: DAY0 + 2 * HOUR + 40 * MIN },
    { metric: 'g', value: -9, time: DAY0 + 14 * HOUR },
    { metric: 'g', value: 12, time: DAY0 + 23 * HOUR + 59 * MIN }
  ]

  it('an hour and the day that lack a value (its update lost) get exactly it back: count, sum, bounds and last, by a repair that only raises', () => {
    fc.assert(fc.property(eventsArb, fc.nat(), (all, pick) => {
      const lost = all[pick % all.length]
      const doc = dayDocOf(all)
      const without = dayDocOf(all.filter(e => e !== lost))
      const hour = new Date(lost.time).getUTCHours()
      const broken = structuredClone(doc)
      broken.hourly[hour] = without?.hourly?.[hour]
      broken.daily = without?.daily
      if (broken.hourly[hour] === undefined) delete broken.hourly[hour]
      if (broken.daily === undefined) delete broken.daily
      const { violations, repair, dayTier } = verifyGaugeDaily(broken)
      expect(fieldsOf(violations)).toEqual(['daily', `hourly.${hour}`].sort())
      expect(violations.every(v => v.repairable)).toBe(true)
      expectOnlyRaises(repair.update)
      const repaired = applyRepair(broken, repair)
      expect(verifyGaugeDaily(repaired).violations).toEqual([])
      expect(repaired.daily.last).toEqual(doc.daily.last)
      expect(repaired.daily.min).toBe(doc.daily.min)
      expect(repaired.daily.max).toBe(doc.daily.max)
      expect(repaired.daily.count).toBe(doc.daily.count)
      expect(dayTier.count).toBe(doc.daily.count)
      expect(dayTier.last).toEqual(doc.daily.last)
    }), { numRuns: 100 })
  })

  it('misses when a concurrent write moved a tier it changes', () => {
    const doc = dayDocOf(events)
    doc.daily.count -= 1
    doc.daily.sum -= 12
    const { repair } = verifyGaugeDaily(doc)
    expect(repair.update.$inc).toEqual({ 'daily.count': 1, 'daily.sum': expect.anything() })
    const unit = buildGaugeUnit([{ metric: 'g', value: 1, time: DAY0 + 5 * HOUR }])
    const moved = applyGaugeUpdate(structuredClone(doc), unit.daily.get(doc._id))
    expect(applyRepair(moved, repair)).toBeNull()
    expect(verifyGaugeDaily(applyRepair(doc, repair)).violations).toEqual([])
  })

  it('a tier that holds more, a bound past the truth, or a later last is reported and left: the repair never lowers', () => {
    const more = dayDocOf(events)
    more.hourly[2].count += 1
    more.hourly[2].sum += 5
    const below = dayDocOf(events)
    below.daily.min = -100
    const later = dayDocOf(events)
    later.daily.last = { t: new Date(DAY0 + 23 * HOUR + 59 * MIN + 1), v: 0 }
    const bigger = dayDocOf(events)
    bigger.hourly[23].last = { t: bigger.hourly[23].last.t, v: 13 }
    for (const [doc, field] of [[more, 'hourly.2'], [below, 'daily'], [later, 'daily'], [bigger, 'hourly.23']]) {
      const { violations, repair } = verifyGaugeDaily(doc)
      expect(violations).toMatchObject([{ field, repairable: false, note: expect.stringMatching(/^holds more than its quarter-hours/) }])
      expect(repair).toBeNull()
    }
  })

  it('complete minutes restore a quarter-hour that lacks a value (and its hour and day with it); past the horizon only the bounds and last of its minutes are raised', () => {
    const doc = dayDocOf(events)
    const lostFrom = dayDocOf(events.filter(e => e.value !== 40))
    for (const path of ['quarterHourly.2.2', 'hourly.2', 'daily']) {
      const [parent, ...rest] = path.split('.')
      const key = rest.at(-1)
      const node = rest.length === 0 ? doc : rest.length === 1 ? doc[parent] : doc[parent][rest[0]]
      if (rest.length === 0) doc.daily = lostFrom.daily
      else node[key] = at(lostFrom, path)
      if (node[key] === undefined && rest.length) delete node[key]
    }
    const { violations, repair } = verifyGaugeDaily(doc)
    expect(fieldsOf(violations)).toEqual(['daily', 'hourly.2', 'quarterHourly.2.2'])
    expect(violations.every(v => v.repairable)).toBe(true)
    expect(verifyGaugeDaily(applyRepair(doc, repair)).violations).toEqual([])
    expect(applyRepair(doc, repair).quarterHourly[2][2]).toEqual(dayDocOf(events).quarterHourly[2][2])

    // detail quarterHour: the minutes are a subset; a quarter-hour whose min is above its minute's takes it, its count is left
    const past = { ...dayDocOf(events), detail: 'quarterHour' }
    past.quarterHourly[2][0].min = 5
    past.quarterHourly[2][0].last = { t: new Date(DAY0 + 2 * HOUR), v: 4 }
    const check = verifyGaugeDaily(past)
    expect(check.repair.update).toMatchObject({ $min: { 'quarterHourly.2.0.min': 4 }, $max: { 'quarterHourly.2.0.last': { t: new Date(DAY0 + 2 * HOUR + 5 * MIN), v: 4 } } })
    expect(check.repair.update.$inc).toBeUndefined()
  })
})

describe('months and days across documents', () => {
  const events = [
    { metric: 'g', value: 4, time: DAY0 + 2 * HOUR },
    { metric: 'g', value: 9, time: DAY0 + 86_400_000 + 3 * HOUR },
    { metric: 'g', value: -3, time: DAY0 + 86_400_000 + 20 * HOUR }
  ]
  const docs = () => docsOf(events)
  const monthStart = Date.UTC(2026, 10, 1)

  it('a month that lacks a day\'s value takes it, last included; one that holds more is left', () => {
    const { monthly: [month] } = docs()
    const lacking = structuredClone(month)
    lacking.monthly.count -= 1
    lacking.monthly.sum += 3
    lacking.monthly.min = 4
    lacking.monthly.last = { t: new Date(DAY0 + 86_400_000 + 3 * HOUR), v: 9 }
    const { violations, repair } = verifyGaugeMonthly(lacking)
    expect(violations).toMatchObject([{ field: 'monthly', repairable: true }])
    expectOnlyRaises(repair.update)
    expect(applyRepair(lacking, repair)).toEqual(month)
    const more = structuredClone(month)
    more.monthly.max = 100
    expect(verifyGaugeMonthly(more)).toMatchObject({ violations: [{ field: 'monthly', repairable: false }], repair: null })
  })

  it('a day field lacking part of its day is raised with the month; missing, it is created whole; holding more, or without a daily document, it is left', () => {
    const { daily: [, day4], monthly: [month] } = docs()
    const args = { monthlyId: month._id, day: 4, dailyId: day4._id, dailyTotal: day4.daily, metric: 'g', monthStart }
    const lacking = structuredClone(month.daily[4])
    lacking.count -= 1
    lacking.sum += 3
    lacking.min = 9
    lacking.last = { t: new Date(DAY0 + 86_400_000 + 3 * HOUR), v: 9 }
    expect(holdsWholeGaugeDay(lacking, day4.daily)).toBe(false)
    const raised = compareGaugeDay({ ...args, monthlyValue: lacking })
    expectOnlyRaises(raised.repair.update)
    const monthDoc = { ...structuredClone(month), daily: { ...structuredClone(month.daily), 4: lacking } }
    const fixed = applyRepair(monthDoc, raised.repair)
    expect(fixed.daily[4]).toEqual(month.daily[4])
    expect(holdsWholeGaugeDay(fixed.daily[4], day4.daily)).toBe(true)

    const missing = compareGaugeDay({ ...args, monthlyValue: undefined })
    expect(missing.repair.filter).toEqual({ _id: month._id, 'daily.4': { $exists: false } })
    expect(applyGaugeRepair({ _id: month._id }, missing.repair.update).daily[4]).toEqual(month.daily[4])

    const later = { ...structuredClone(month.daily[4]), last: { t: new Date(DAY0 + 2 * 86_400_000), v: 1 } }
    expect(compareGaugeDay({ ...args, monthlyValue: later })).toMatchObject({ violation: { field: 'daily.4' }, repair: null })
    expect(compareGaugeDay({ ...args, dailyTotal: null, monthlyValue: month.daily[4] })).toMatchObject({ violation: { expected: 'missing' }, repair: null })
  })

  it('a value read twice is the same when its dates are', () => {
    const { monthly: [month] } = docs()
    expect(sameGaugeStored(month.daily[4], structuredClone(month.daily[4]))).toBe(true)
    expect(sameGaugeStored(month.daily[4], { ...month.daily[4], last: { t: new Date(0), v: month.daily[4].last.v } })).toBe(false)
  })
})
