// The check's pure verification against documents built by brute force
// (test/helpers/bucket-docs.js): consistent documents pass, any corruption of
// a coarser counter is reported by field, and the repair's $inc, applied as
// MongoDB would, restores the brute-force document; the retention ranges
// hold one metric's documents only (fast-check).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compareDay, monthlyDayRepair, monthlyDayUnset, sameTotal, verifyDaily, verifyMonthlyTotal } from '../../../src/kinds/consistency/counter.js'
import { dayIdRange, downsampleScanFrom, retentionBounds } from '../../../src/bucket/retention-plan.js'
import { DAY_MS, dayId } from '../../../src/bucket/time.js'
import { METRIC_NAME_RE } from '../../../src/bucket/event-rules.js'
import { documentsFor } from '../../helpers/bucket-docs.js'

const DAY0 = Date.UTC(2026, 10, 21)
const events = fc.array(fc.record({
  minuteOfDay: fc.integer({ min: 0, max: 1439 }),
  value: fc.integer({ min: -1000, max: 1000 })
}), { minLength: 1, maxLength: 60 }).map(list => list.map(e => ({ metric: 'm', value: e.value, time: DAY0 + e.minuteOfDay * 60_000 + 5_000 })))

/** What MongoDB does with a filter of exact values and an $inc of dotted paths, on a copy */
function applyRepair (doc, { filter, update }) {
  const out = structuredClone(doc)
  for (const [path, want] of Object.entries(filter)) {
    if (path === '_id') continue
    const got = path.split('.').reduce((node, p) => node?.[p], out)
    if (want && typeof want === 'object' && '$exists' in want ? (got !== undefined) !== want.$exists : got !== want) return null // no match
  }
  for (const path of Object.keys(update.$unset ?? {})) {
    const parts = path.split('.')
    const parent = parts.slice(0, -1).reduce((node, p) => node?.[p], out)
    if (parent) delete parent[parts.at(-1)]
  }
  for (const [path, v] of Object.entries(update.$inc ?? {})) {
    const parts = path.split('.')
    let node = out
    for (const p of parts.slice(0, -1)) node = node[p] ??= {}
    node[parts.at(-1)] = (node[parts.at(-1)] ?? 0) + v
  }
  return out
}

/** Counters compared as numbers: an absent counter and a 0 are the same count */
function stripZeros (doc) {
  const strip = v => {
    if (v instanceof Date || typeof v !== 'object' || v === null) return v
    const out = {}
    for (const [k, x] of Object.entries(v)) {
      const s = strip(x)
      if (s === 0 || (s && typeof s === 'object' && !(s instanceof Date) && Object.keys(s).length === 0)) continue
      out[k] = s
    }
    return out
  }
  return strip(doc)
}

describe('verifyDaily', () => {
  it('finds nothing in a consistent document, with or without minute detail', () => {
    fc.assert(fc.property(events, evs => {
      const [doc] = documentsFor(evs).daily
      expect(verifyDaily(doc).violations).toEqual([])
      const { minute, ...downsampled } = doc
      expect(verifyDaily({ ...downsampled, detail: 'quarterHour' }).violations).toEqual([])
    }))
  })

  it('reports a corrupted coarser counter by field, and its repair restores the document exactly', () => {
    const field = fc.oneof(
      fc.constant('daily'),
      fc.integer({ min: 0, max: 23 }).map(h => `hourly.${h}`),
      fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 3 })).map(([h, q]) => `quarterHourly.${h}.${q}`)
    )
    fc.assert(fc.property(events, field, fc.integer({ min: 1, max: 99 }), (evs, path, delta) => {
      const [doc] = documentsFor(evs).daily
      const corrupt = applyRepair(doc, { filter: {}, update: { $inc: { [path]: delta } } })
      const { violations, repair } = verifyDaily(corrupt)
      expect(violations.map(v => v.field)).toEqual([path])
      expect(violations[0].found - violations[0].expected).toBe(delta)
      expect(stripZeros(applyRepair(corrupt, repair))).toEqual(stripZeros(doc))
      // the same repair after a concurrent write moved that counter: no match, nothing applied
      const moved = applyRepair(corrupt, { filter: {}, update: { $inc: { [path]: 1 } } })
      expect(applyRepair(moved, repair)).toBeNull()
    }))
  })

  it('a document without quarterHourly (a shape no release writes) is reported and left alone, whatever its minutes and hours say', () => {
    fc.assert(fc.property(events, fc.boolean(), fc.integer({ min: 1, max: 50 }), (evs, marked, off) => {
      const [doc] = documentsFor(evs, { quarterHourly: false }).daily
      for (const old of [doc, { ...doc, hourly: { ...doc.hourly, 0: (doc.hourly[0] ?? 0) + off } }]) {
        const stale = marked ? { ...old, detail: 'quarterHour' } : old
        const missing = { id: doc._id, field: 'quarterHourly', expected: 'present', found: 'missing', note: 'a daily document no release writes: left alone', repairable: false }
        expect(verifyDaily(stale)).toEqual({ violations: [missing], repair: null })
        expect(verifyDaily(stale, { minutesComplete: false })).toEqual({ violations: [missing], repair: null })
        const { minute, ...downsampled } = stale
        expect(verifyDaily(downsampled)).toEqual({ violations: [missing], repair: null })
      }
      expect(verifyDaily({ ...doc, quarterHourly: 7 }).violations).toMatchObject([{ field: 'quarterHourly', found: 7, repairable: false }])
    }))
  })

  it('in a downsampled document the quarter-hours are the truth: minutes written back later are no violation, and never lower a tier', () => {
    fc.assert(fc.property(events, fc.integer({ min: 1, max: 50 }), (evs, backfill) => {
      const [doc] = documentsFor(evs).daily
      const { minute, ...downsampled } = { ...doc, detail: 'quarterHour' }
      // an event written with its minute after downsampling (the minute horizon lengthened since): every tier moved, minute holds it alone
      const written = applyRepair(downsampled, { filter: {}, update: { $inc: { 'minute.5.20': backfill, 'quarterHourly.5.1': backfill, 'hourly.5': backfill, daily: backfill } } })
      expect(verifyDaily(written)).toEqual({ violations: [], repair: null })
      // a corrupted coarser tier is still found against the quarter-hours, not the partial minutes
      const corrupted = applyRepair(written, { filter: {}, update: { $inc: { 'hourly.5': 3, daily: 3 } } })
      const { violations, repair } = verifyDaily(corrupted)
      expect(violations.map(v => v.field)).toEqual(['hourly.5', 'daily'])
      expect(applyRepair(corrupted, repair)).toEqual(written)
    }))
  })

  it('minutes that may lack events (past the minute horizon, or a day marked quarterHour) never lower a tier: the bug that zeroed backfilled days', () => {
    fc.assert(fc.property(events, fc.integer({ min: 1, max: 50 }), fc.boolean(), (evs, backfill, marked) => {
      // a preallocated day (every minute zero-filled) then written past the horizon: every tier but the minutes moved
      const [doc] = documentsFor(evs).daily
      const zeroMinutes = Object.fromEntries(Array.from({ length: 24 }, (_, h) => [h, Object.fromEntries(Array.from({ length: 60 }, (_, m) => [m, 0]))]))
      const stale = { ...doc, minute: zeroMinutes, ...(marked ? { detail: 'quarterHour' } : {}) }
      const options = marked ? {} : { minutesComplete: false } // unmarked: the caller knows the horizon
      expect(verifyDaily(stale, options)).toEqual({ violations: [], repair: null })
      // whatever the minutes say (they may lack increments of either sign), no tier moves on their word
      const other = applyRepair(stale, { filter: {}, update: { $inc: { 'minute.5.20': backfill, 'minute.0.0': -backfill } } })
      expect(verifyDaily(other, options)).toEqual({ violations: [], repair: null })
      // the coarser tiers are still checked against the quarter-hours
      const corrupted = applyRepair(stale, { filter: {}, update: { $inc: { daily: backfill } } })
      const { violations, repair } = verifyDaily(corrupted, options)
      expect(violations).toEqual([{ id: doc._id, field: 'daily', expected: doc.daily, found: doc.daily + backfill }])
      expect(applyRepair(corrupted, repair)).toEqual(stale)
    }))
  })
})

describe('monthly documents', () => {
  it('monthly = Σ daily.D: a wrong total is reported and repaired; a right one is not', () => {
    const month = { _id: 'm/202611', monthly: 10, daily: { 1: 4, 2: 6 } }
    expect(verifyMonthlyTotal(month).violations).toEqual([])
    const wrong = { ...month, monthly: 13 }
    const { violations, repair } = verifyMonthlyTotal(wrong)
    expect(violations).toEqual([{ id: 'm/202611', field: 'monthly', expected: 10, found: 13 }])
    expect(repair).toEqual({ filter: { _id: 'm/202611', monthly: 13 }, update: { $inc: { monthly: -3 } } })
  })

  it('a day against its daily document: the daily total is the truth; an absent day with no daily document is fine', () => {
    expect(compareDay({ monthlyId: 'm/202611', day: 3, dailyId: 'm/20261103', dailyTotal: 7, monthlyValue: 7 })).toBeNull()
    expect(compareDay({ monthlyId: 'm/202611', day: 3, dailyId: 'm/20261103', dailyTotal: null, monthlyValue: undefined })).toBeNull()
    expect(compareDay({ monthlyId: 'm/202611', day: 3, dailyId: 'm/20261103', dailyTotal: 7, monthlyValue: 9 }))
      .toEqual({ violation: { id: 'm/202611', field: 'daily.3', expected: 7, found: 9, against: 'm/20261103' }, difference: -2 })
    expect(compareDay({ monthlyId: 'm/202611', day: 3, dailyId: 'm/20261103', dailyTotal: 7, monthlyValue: undefined }).difference).toBe(7)
  })

  it('`daily.D` exists exactly when the day has a daily document: a field without one (even 0: a flush of 0 cut short) goes, a daily document of 0 without one gets it', () => {
    const day = { monthlyId: 'm/202611', day: 3, dailyId: 'm/20261103' }
    expect(compareDay({ ...day, dailyTotal: null, monthlyValue: 0 }))
      .toEqual({ violation: { id: 'm/202611', field: 'daily.3', expected: 'missing', found: 0, against: 'm/20261103', note: 'no daily document that day' }, difference: -0, unset: true })
    expect(compareDay({ ...day, dailyTotal: null, monthlyValue: 5 })).toMatchObject({ difference: -5, unset: true })
    expect(compareDay({ ...day, dailyTotal: null, monthlyValue: 'x' })).toMatchObject({ difference: null, unset: true })
    expect(compareDay({ ...day, dailyTotal: 0, monthlyValue: undefined }))
      .toEqual({ violation: { id: 'm/202611', field: 'daily.3', expected: 0, found: 'missing', against: 'm/20261103' }, difference: 0 })
    expect(compareDay({ ...day, dailyTotal: 0, monthlyValue: 0 })).toBeNull()
    // the repairs, as MongoDB applies them: the field set by $inc of the difference, or unset with the total moved by its value
    const month = { _id: 'm/202611', monthly: 5, daily: { 1: 5, 3: 0 } }
    expect(applyRepair(month, monthlyDayUnset({ ...day, monthlyValue: 0 }))).toEqual({ _id: 'm/202611', monthly: 5, daily: { 1: 5 } })
    expect(applyRepair(month, monthlyDayUnset({ ...day, monthlyValue: 1 }))).toBeNull() // the value moved: no match
    expect(applyRepair({ _id: 'm/202611', monthly: 9, daily: { 1: 5, 3: 4 } }, monthlyDayUnset({ ...day, monthlyValue: 4 }))).toEqual({ _id: 'm/202611', monthly: 5, daily: { 1: 5 } })
    const fill = monthlyDayRepair({ ...day, metric: 'm', monthStart: Date.UTC(2026, 10, 1), monthlyValue: undefined, difference: 0 })
    expect(applyRepair({ _id: 'm/202611', monthly: 5, daily: { 1: 5 } }, fill)).toEqual({ _id: 'm/202611', monthly: 5, daily: { 1: 5, 3: 0 } })
  })

  it('decimal sums equal up to the order of additions', () => {
    expect(sameTotal(0.1 + 0.2, 0.3)).toBe(true)
    expect(sameTotal(0.3, 0.31)).toBe(false)
    expect(sameTotal(1e15, 1e15 + 1)).toBe(true) // 1e-9 relative: below a double's resolution of the terms
    expect(sameTotal(100, 101)).toBe(false)
  })
})

describe('retention ranges', () => {
  it('a metric\'s _id range holds its own day ids in range and no other metric\'s', () => {
    const name = fc.stringMatching(METRIC_NAME_RE).filter(n => n.length < 30)
    const day = fc.integer({ min: 0, max: 3000 }).map(d => Date.UTC(2020, 0, 1) + d * DAY_MS)
    fc.assert(fc.property(name, name, day, day, day, (a, b, from, before, at) => {
      const range = dayIdRange(a, from, before)
      const inRange = id => id >= range.$gte && id < range.$lt
      expect(inRange(dayId(a, at))).toBe(at >= from && at < before)
      if (b !== a) expect(inRange(dayId(b, at))).toBe(false)
      const whole = dayIdRange(a, null, before)
      expect(dayId(a, at) >= whole.$gte && dayId(a, at) < whole.$lt).toBe(at < before)
      if (b !== a) expect(dayId(b, at) >= whole.$gte && dayId(b, at) < whole.$lt).toBe(false)
    }), { numRuns: 500 })
  })

  it('bounds: downsampling a day past the minute horizon, deletion at the daily horizon; forever is null', () => {
    expect(retentionBounds({ minuteFrom: DAY0, dailyFrom: DAY0 - 30 * DAY_MS })).toEqual({ downsampleBefore: DAY0 - DAY_MS, histogramsBefore: DAY0 - DAY_MS, deleteBefore: DAY0 - 30 * DAY_MS })
    expect(retentionBounds({ minuteFrom: null, dailyFrom: null })).toEqual({ downsampleBefore: null, histogramsBefore: null, deleteBefore: null })
    // a distribution's minute histograms: their own horizon (MINUTE_HISTOGRAM_DAYS), a day past it too
    expect(retentionBounds({ minuteFrom: DAY0 - 90 * DAY_MS, minuteHistogramFrom: DAY0 - 7 * DAY_MS, dailyFrom: null })).toEqual({ downsampleBefore: DAY0 - 91 * DAY_MS, histogramsBefore: DAY0 - 8 * DAY_MS, deleteBefore: null })
    expect(retentionBounds({ minuteFrom: null, minuteHistogramFrom: DAY0 - 7 * DAY_MS, dailyFrom: null }).histogramsBefore).toBe(DAY0 - 8 * DAY_MS)
    expect(downsampleScanFrom(DAY0, null)).toBeNull()
    expect(downsampleScanFrom(DAY0, DAY0 - 3 * DAY_MS)).toBe(DAY0 - 4 * DAY_MS)
    expect(downsampleScanFrom(DAY0 - 5 * DAY_MS, DAY0)).toBe(DAY0 - 6 * DAY_MS) // settings moved back: from the nearer bound
  })
})
