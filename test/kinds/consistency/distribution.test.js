// The pure checks and repairs of distribution documents against documents
// built as the writer leaves them (test/helpers/distribution-documents.js),
// with fractional weights (StatsD sample rates), zeros and negatives:
// consistent documents pass; a coarser tier that lacks values is reported by
// field and its repair (adds only) restores it; one that holds more is
// reported and never lowered; the repair misses when a concurrent write moved
// the tier; the minutes vouch exactly when the quarter-hours hold their values.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMapping } from '../../../src/bucket/distribution-sketch.js'
import {
  applyUpdate, compareDistributionDay, holdsWholeDay, minutesVouched, readTier, sameStored,
  verifyDistributionDaily, verifyDistributionMonthly
} from '../../../src/kinds/consistency/distribution.js'
import { distributionDocumentsOf } from '../../helpers/distribution-documents.js'
import { createThresholds, parseThresholdRules } from '../../../src/bucket/distribution-thresholds.js'

const MAPPING = createMapping(0.01)
const DAY0 = Date.UTC(2026, 10, 3)
const HOUR = 3_600_000

const value = fc.oneof(
  { weight: 6, arbitrary: fc.double({ min: 0.5, max: 5000, noNaN: true }) },
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.double({ min: -50, max: -0.01, noNaN: true }) },
  { weight: 1, arbitrary: fc.constant(87) }
)
const eventArb = fc.record({
  second: fc.integer({ min: 0, max: 86_399 }),
  value,
  weight: fc.constantFrom(1, 1, 1, 1 / 0.3, 10, 2.5)
}).map(e => ({ metric: 'd', value: e.value, weight: e.weight, time: DAY0 + e.second * 1000 }))
const eventsArb = fc.array(eventArb, { minLength: 1, maxLength: 80 })

// thresholds declared for the metric: every tier keeps le.<key> (docs/kinds/distribution.md#thresholds)
const THRESHOLDS = createThresholds(parseThresholdRules('{"d": [0.5, 87, 300]}').rules)
const documentsOf = (events, options) => distributionDocumentsOf(events, MAPPING, { batch: 7, thresholdsOf: THRESHOLDS.of, ...options })
const dayDocOf = (events, options) => documentsOf(events, options).daily[0]

/** What MongoDB does with a filter of exact values ($exists too) and { $inc, $min, $max }, on a copy; null when no match */
function applyRepair (doc, { filter, update }) {
  for (const [path, want] of Object.entries(filter)) {
    if (path === '_id') continue
    const got = path.split('.').reduce((node, p) => node?.[p], doc)
    const match = want && typeof want === 'object' && '$exists' in want ? (got !== undefined) === want.$exists : got === want
    if (!match) return null
  }
  return applyUpdate(doc, update)
}

/** Every $inc of a count or bucket is positive: a repair never lowers a count */
function expectOnlyRaises (update) {
  for (const [path, n] of Object.entries(update.$inc ?? {})) {
    if (!path.endsWith('.sum')) expect(n, path).toBeGreaterThanOrEqual(0)
  }
}

/** The tier at `path` of a document, read: compared as the check compares (within rounding) */
const tierAt = (doc, path) => readTier(path.split('.').reduce((n, p) => n?.[p], doc)).tier

function expectSameTier (a, b) {
  expect(a.count).toBeCloseTo(b.count, 9)
  expect(a.sum).toBeCloseTo(b.sum, 6)
  expect(a.min).toBe(b.min)
  expect(a.max).toBe(b.max)
  expect([...a.parts.keys()].sort()).toEqual([...b.parts.keys()].sort())
  for (const [k, n] of a.parts) expect(n, k).toBeCloseTo(b.parts.get(k), 9)
}

describe('consistent documents', () => {
  it('pass every check, with or without minutes, downsampled, with fractional weights; their minutes are vouched for and the month holds each day whole', () => {
    fc.assert(fc.property(eventsArb, fc.constantFrom('minutes', 'downsampled', 'written without'), (events, shape) => {
      const options = shape === 'downsampled' ? { minuteFrom: DAY0 + 86_400_000 } : shape === 'written without' ? { keepsMinutes: () => false } : {}
      const { daily: [doc], monthly: [month] } = documentsOf(events, options)
      expect(verifyDistributionDaily(doc).violations).toEqual([])
      expect(verifyDistributionDaily(doc).repair).toBeNull()
      expect(minutesVouched(doc)).toEqual({ vouched: true, problems: [] })
      expect(verifyDistributionMonthly(month)).toEqual({ violations: [], repair: null })
      const day = { monthlyId: month._id, day: 3, dailyId: doc._id, metric: 'd', monthStart: Date.UTC(2026, 10, 1) }
      expect(compareDistributionDay({ ...day, dailyTotal: verifyDistributionDaily(doc).dayTier, monthlyValue: month.daily[3] })).toBeNull()
      expect(holdsWholeDay(month.daily[3], doc.daily)).toBe(true)
    }), { numRuns: 150 })
  })

  it('a day whose backfilled values came without their minute (detail quarterHour): the minutes are a subset, vouched for, no violation', () => {
    fc.assert(fc.property(eventsArb, eventsArb, (early, late) => {
      // written with minutes, then (past the horizon) more values without them: one document
      const withMinutes = dayDocOf(early)
      const without = distributionDocumentsOf(late, MAPPING, { keepsMinutes: () => false }).daily[0]
      const update = { $inc: {}, $min: {}, $max: {} }
      for (const tier of ['daily', ...Array.from({ length: 24 }, (_, h) => `hourly.${h}`), ...Array.from({ length: 96 }, (_, i) => `quarterHourly.${Math.floor(i / 4)}.${i % 4}`)]) {
        const node = tier.split('.').reduce((n, p) => n?.[p], without)
        if (!node) continue
        for (const [k, v] of Object.entries(node)) {
          if (k === 'min') update.$min[`${tier}.min`] = v
          else if (k === 'max') update.$max[`${tier}.max`] = v
          else if (typeof v === 'number') update.$inc[`${tier}.${k}`] = v
          else for (const [b, n] of Object.entries(v)) update.$inc[`${tier}.${k}.${b}`] = n
        }
      }
      const doc = { ...applyUpdate(withMinutes, update), detail: 'quarterHour' }
      expect(verifyDistributionDaily(doc).violations).toEqual([])
      expect(minutesVouched(doc).vouched).toBe(true)
      // the same document judged as if its minutes were complete (no marker): its quarter-hours hold more
      expect(minutesVouched(doc, { minutesComplete: true }).vouched).toBe(false)
    }), { numRuns: 60 })
  })
})

describe('a coarser tier that lacks values', () => {
  it('is reported by field; the repair adds exactly what it lacks and restores the tier; a concurrent write makes it miss', () => {
    fc.assert(fc.property(eventsArb, fc.nat(), fc.boolean(), (events, pick, dayTier) => {
      const doc = dayDocOf(events)
      // values of one hour that a tier never got (as if that increment had been lost)
      const hour = Math.floor((events[pick % events.length].time - DAY0) / HOUR)
      const lost = events.filter((e, i) => Math.floor((e.time - DAY0) / HOUR) === hour && i % 2 === 0)
      const kept = events.filter(e => !lost.includes(e))
      if (lost.length === 0 || kept.length === 0) return
      const path = dayTier ? 'daily' : `hourly.${hour}`
      const partial = dayDocOf(kept)
      const corrupt = structuredClone(doc)
      if (dayTier) corrupt.daily = partial.daily
      else corrupt.hourly[hour] = partial.hourly?.[hour]
      const { violations, repair, dayTier: vouched } = verifyDistributionDaily(corrupt)
      expect(violations.map(v => [v.field, v.rule, v.repairable])).toEqual([[path, 'tiers', true]])
      expect(repair).not.toBeNull()
      expectOnlyRaises(repair.update)
      const repaired = applyRepair(corrupt, repair)
      expect(verifyDistributionDaily(repaired).violations).toEqual([])
      expectSameTier(tierAt(repaired, path), tierAt(doc, path))
      expectSameTier(readTier(vouched).tier, tierAt(doc, 'daily'))
      // an ingest into that tier after the check read it: the repair's filter no longer matches
      const moved = applyUpdate(corrupt, { $inc: { [`${path}.count`]: 1, [`${path}.sum`]: 3, [`${path}.positive.10`]: 1 } })
      expect(applyRepair(moved, repair)).toBeNull()
    }), { numRuns: 150 })
  })

  it('a missing hour is created from its quarter-hours; a quarter-hour missing its bound takes it from its minutes', () => {
    const events = [
      { metric: 'd', value: 12, time: DAY0 + 5 * HOUR + 60_000 },
      { metric: 'd', value: 40, time: DAY0 + 5 * HOUR + 20 * 60_000 },
      { metric: 'd', value: 7, time: DAY0 + 9 * HOUR }
    ]
    const doc = dayDocOf(events)
    const noHour = structuredClone(doc)
    delete noHour.hourly[5]
    const first = verifyDistributionDaily(noHour)
    expect(first.violations.map(v => [v.field, v.repairable])).toEqual([['hourly.5', true]])
    expect(first.repair.filter).toEqual({ _id: doc._id, 'hourly.5.count': { $exists: false }, 'hourly.5.sum': { $exists: false } })
    expect(applyRepair(noHour, first.repair)).toEqual(doc)

    // a quarter-hour whose max is below its minute's (and so the hour's and day's, equal to it)
    const lowMax = structuredClone(doc)
    for (const tier of [lowMax.quarterHourly[5][1], lowMax.hourly[5], lowMax.daily]) tier.max = 39
    const second = verifyDistributionDaily(lowMax)
    expect(second.violations.map(v => [v.field, v.rule, v.repairable])).toEqual([
      ['quarterHourly.5.1', 'minutes', true], ['hourly.5', 'tiers', true], ['daily', 'tiers', true]
    ])
    expect(second.repair.update).toEqual({ $max: { 'quarterHourly.5.1.max': 40, 'hourly.5.max': 40, 'daily.max': 40 } })
    expect(applyRepair(lowMax, second.repair)).toEqual(doc)
  })
})

describe('what a repair cannot do without lowering a count', () => {
  it('a coarser tier holding more than its quarter-hours is reported, not repairable, and nothing in it moves', () => {
    fc.assert(fc.property(eventsArb, eventArb, fc.boolean(), (events, extra, dayTier) => {
      const doc = dayDocOf(events)
      const more = dayDocOf([...events, { ...extra, time: events[0].time }])
      const hour = Math.floor((events[0].time - DAY0) / HOUR)
      const path = dayTier ? 'daily' : `hourly.${hour}`
      const corrupt = structuredClone(doc)
      if (dayTier) corrupt.daily = more.daily
      else corrupt.hourly[hour] = more.hourly[hour]
      const { violations, repair } = verifyDistributionDaily(corrupt)
      const tiers = violations.filter(v => v.rule === 'tiers')
      expect(tiers.map(v => [v.field, v.repairable])).toEqual([[path, false]])
      expect(tiers[0].note).toMatch(/holds more than its quarter-hours .*a repair never lowers a count/)
      // whatever else is repaired (nothing here), the tier is not touched
      for (const op of Object.values(repair?.update ?? {})) for (const p of Object.keys(op)) expect(p.startsWith(`${path}.`)).toBe(false)
    }), { numRuns: 100 })
  })

  it('buckets that do not add up to the count of a quarter-hour (nothing finer holds a histogram): reported, not repairable', () => {
    const doc = dayDocOf([{ metric: 'd', value: 12, time: DAY0 + 60_000 }, { metric: 'd', value: 13, time: DAY0 + 120_000 }])
    const corrupt = structuredClone(doc)
    const key = Object.keys(corrupt.quarterHourly[0][0].positive)[0]
    corrupt.quarterHourly[0][0].positive[key] += 1
    const { violations, repair } = verifyDistributionDaily(corrupt)
    // its hour and day are not compared with it (nor raised by it): it is no truth until a person looked
    expect(violations.map(v => [v.field, v.rule, v.repairable])).toEqual([['quarterHourly.0.0', 'buckets', false]])
    expect(violations[0]).toMatchObject({ expected: 'buckets adding up to its count 2', found: 'buckets holding 3' })
    expect(repair).toBeNull()
  })

  it('minutes holding more than their quarter-hour: the minutes keep no histogram, so the quarter-hour cannot be rebuilt; retention keeps them', () => {
    const doc = dayDocOf([{ metric: 'd', value: 12, time: DAY0 + 60_000 }])
    const corrupt = structuredClone(doc)
    corrupt.minute[0][1].count += 1
    corrupt.minute[0][1].sum += 12
    expect(verifyDistributionDaily(corrupt).violations.map(v => [v.field, v.rule, v.repairable])).toEqual([['quarterHourly.0.0', 'minutes', false]])
    expect(minutesVouched(corrupt)).toMatchObject({ vouched: false })
    // marked: the minutes may be a subset, never a superset
    expect(minutesVouched({ ...corrupt, detail: 'quarterHour' })).toMatchObject({ vouched: false })
    // complete minutes that hold less than their quarter-hour: it holds values nobody can place
    const fewer = structuredClone(doc)
    fewer.minute[0][1].count = 0.5
    expect(minutesVouched(fewer)).toMatchObject({ vouched: false })
    expect(minutesVouched({ ...fewer, detail: 'quarterHour' })).toMatchObject({ vouched: true })
  })

  it('an unreadable tier (a bad bucket key, a count that is not one) is left for a person', () => {
    const doc = dayDocOf([{ metric: 'd', value: 12, time: DAY0 + 60_000 }])
    const badKey = structuredClone(doc)
    badKey.hourly[0].positive['01'] = 1
    expect(verifyDistributionDaily(badKey).violations.map(v => [v.field, v.rule, v.repairable])).toEqual([['hourly.0', 'unreadable', false]])
    const badCount = structuredClone(doc)
    badCount.daily.count = 'x'
    expect(verifyDistributionDaily(badCount)).toMatchObject({ violations: [{ field: 'daily', rule: 'unreadable', repairable: false }], repair: null })
  })
})

describe('threshold counts', () => {
  const events = [87, 87, 300, 0.2, 1000, -3].map((value, i) => ({ metric: 'd', value, weight: 1, time: DAY0 + 13 * HOUR + i * 60_000 }))

  it('are kept at every tier, minutes included, and pass the check', () => {
    const { daily: [doc], monthly: [month] } = documentsOf(events)
    expect(doc.daily.le).toEqual({ '0_5': 2, 87: 4, 300: 5 })
    expect(doc.minute[13][0].le).toEqual({ 87: 1, 300: 1 })
    expect(doc.quarterHourly[13][0].le).toEqual(doc.daily.le)
    expect(month.daily[3].le).toEqual(doc.daily.le)
    expect(verifyDistributionDaily(doc).violations).toEqual([])
  })

  it.each([
    ['an hour lacking some: reported, raised back', (d) => { d.hourly[13].le['300'] = 2 }, 'hourly.13', 'tiers', true],
    ['the day holding more: reported, never lowered', (d) => { d.daily.le['87'] = 9 }, 'daily', 'tiers', false],
    ['a threshold count above its count', (d) => { d.quarterHourly[13][0].le['300'] = 7; d.hourly[13].le['300'] = 7; d.daily.le['300'] = 7 }, 'quarterHourly.13.0', 'thresholds', false],
    ['a quarter-hour against its minutes', (d) => { d.minute[13][2].le['87'] = 1 }, 'quarterHourly.13.0', 'minutes', false]
  ])('tampered, %s', (label, tamper, field, rule, repairable) => {
    const { daily: [doc] } = documentsOf(events)
    const corrupt = structuredClone(doc)
    tamper(corrupt)
    const { violations, repair } = verifyDistributionDaily(corrupt)
    expect(violations.map(v => [v.field, v.rule, v.repairable])).toContainEqual([field, rule, repairable])
    if (repairable) expect(applyRepair(corrupt, repair).hourly[13].le).toEqual(doc.hourly[13].le)
    if (rule === 'minutes') expect(minutesVouched(corrupt).vouched).toBe(false) // retention keeps the minutes
  })

  it('a day field\'s threshold counts against its daily document: the month lacks them → raised; not the whole day for retention', () => {
    const { daily: [doc], monthly: [month] } = documentsOf(events)
    const corrupt = structuredClone(month.daily[3])
    corrupt.le['300'] = 3
    const found = compareDistributionDay({ monthlyId: month._id, day: 3, dailyId: doc._id, metric: 'd', monthStart: Date.UTC(2026, 10, 1), dailyTotal: doc.daily, monthlyValue: corrupt })
    expect(found.violation.note).toMatch(/lacks le.300 2/)
    expect(found.repair.update.$inc).toEqual({ 'daily.3.le.300': 2, 'monthly.le.300': 2 })
    expect(holdsWholeDay(corrupt, doc.daily)).toBe(false)
  })
})

describe('monthly documents', () => {
  const MONTH = Date.UTC(2026, 10, 1)
  const twoDays = [
    { metric: 'd', value: 5, time: DAY0 + HOUR }, { metric: 'd', value: 9.5, time: DAY0 + 2 * HOUR, weight: 1 / 0.3 },
    { metric: 'd', value: -2, time: DAY0 + 86_400_000 + HOUR }, { metric: 'd', value: 0, time: DAY0 + 86_400_000 + 3 * HOUR }
  ]

  it('monthly = Σ daily.D: a month that lacks a day\'s values is raised by them; one holding more is left', () => {
    const { monthly: [month] } = documentsOf(twoDays)
    const lacking = structuredClone(month)
    lacking.monthly = documentsOf(twoDays.slice(0, 3)).monthly[0].monthly
    const { violations, repair } = verifyDistributionMonthly(lacking)
    expect(violations.map(v => [v.field, v.repairable])).toEqual([['monthly', true]])
    expectOnlyRaises(repair.update)
    const repaired = applyRepair(lacking, repair)
    expect(verifyDistributionMonthly(repaired).violations).toEqual([])
    expectSameTier(tierAt(repaired, 'monthly'), tierAt(month, 'monthly'))

    const more = structuredClone(month)
    more.monthly = documentsOf([...twoDays, { metric: 'd', value: 3, time: DAY0 }]).monthly[0].monthly
    expect(verifyDistributionMonthly(more)).toMatchObject({ violations: [{ field: 'monthly', repairable: false }], repair: null })
  })

  it('a day field against its daily document: lacks → raised with the month; missing → created; more, or no daily document → left alone', () => {
    const { daily: [doc], monthly: [month] } = documentsOf(twoDays)
    const day = { monthlyId: month._id, day: 3, dailyId: doc._id, metric: 'd', monthStart: MONTH, dailyTotal: doc.daily }
    const partialMonth = documentsOf([twoDays[0], ...twoDays.slice(2)]).monthly[0]
    // lacks one flush's values (the monthly write of a flush failed)
    const lacking = compareDistributionDay({ ...day, monthlyValue: partialMonth.daily[3] })
    expect(lacking.violation).toMatchObject({ id: month._id, field: 'daily.3', against: doc._id })
    expectOnlyRaises(lacking.repair.update)
    expect(lacking.repair.filter).toEqual({ _id: month._id, 'daily.3.count': partialMonth.daily[3].count, 'daily.3.sum': partialMonth.daily[3].sum })
    const repaired = applyRepair(partialMonth, lacking.repair)
    expect(holdsWholeDay(repaired.daily[3], doc.daily)).toBe(true)
    expect(verifyDistributionMonthly(repaired).violations).toEqual([])
    expect(compareDistributionDay({ ...day, monthlyValue: repaired.daily[3] })).toBeNull()
    // missing: created whole (and the month raised), only while still missing
    const { daily: { 3: _, ...otherDays }, ...rest } = month
    const without = { ...rest, daily: otherDays, monthly: documentsOf(twoDays.slice(2)).monthly[0].monthly }
    const missing = compareDistributionDay({ ...day, monthlyValue: undefined })
    expect(missing.violation).toMatchObject({ field: 'daily.3', found: 'missing' })
    expect(missing.repair.filter).toEqual({ _id: month._id, 'daily.3': { $exists: false } })
    const created = applyRepair(without, missing.repair)
    expect(holdsWholeDay(created.daily[3], doc.daily)).toBe(true)
    expect(verifyDistributionMonthly(created).violations).toEqual([])
    expect(applyRepair(month, missing.repair)).toBeNull()
    // more than the day: left alone
    const more = documentsOf([...twoDays, { metric: 'd', value: 1, time: DAY0 }]).monthly[0]
    expect(compareDistributionDay({ ...day, monthlyValue: more.daily[3] })).toMatchObject({ repair: null, violation: { note: expect.stringMatching(/never lowers/) } })
    expect(compareDistributionDay({ ...day, dailyTotal: null, monthlyValue: month.daily[3] })).toMatchObject({ repair: null, violation: { expected: 'missing' } })
    expect(compareDistributionDay({ ...day, dailyTotal: null, monthlyValue: undefined })).toBeNull()
  })
})

describe('the whole day tier, for retention', () => {
  it('holdsWholeDay: equal within rounding only; any bucket, min or max different is not the whole day', () => {
    const { daily: [doc], monthly: [month] } = documentsOf([
      { metric: 'd', value: 5, time: DAY0 + HOUR, weight: 1 / 0.3 }, { metric: 'd', value: 50, time: DAY0 + 2 * HOUR, weight: 1 / 0.7 }
    ])
    const held = month.daily[3]
    expect(holdsWholeDay(held, doc.daily)).toBe(true)
    expect(holdsWholeDay({ ...held, count: held.count * (1 + 1e-13) }, doc.daily)).toBe(true) // rounding
    const key = Object.keys(held.positive)[0]
    expect(holdsWholeDay({ ...held, positive: { ...held.positive, [key]: held.positive[key] + 1 } }, doc.daily)).toBe(false)
    expect(holdsWholeDay({ ...held, positive: { ...held.positive, 999: 1 }, count: held.count + 1 }, doc.daily)).toBe(false)
    expect(holdsWholeDay({ ...held, min: 4.9 }, doc.daily)).toBe(false)
    expect(holdsWholeDay({ ...held, max: 51 }, doc.daily)).toBe(false)
    expect(holdsWholeDay(undefined, doc.daily)).toBe(false)
    expect(sameStored(held, structuredClone(held))).toBe(true)
    expect(sameStored(held, { ...held, count: 1 })).toBe(false)
  })
})
