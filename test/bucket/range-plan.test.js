// The range planner against brute force: synthetic minute data made into
// documents the way ingest writes them, any range, any detail horizons;
// the planned sum equals the sum of the minutes, and the documents read are
// the fewest (an independent count).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { documentsOf } from '../helpers/documents.js'
import { MAX_TEMPLATE_PIECES, MAX_TEMPLATE_RANGES, RangeRefusal, documentsByProjection, evaluatePlan, finestSlotAt, heldTemplatePieces, planRanges } from '../../src/bucket/range-plan.js'

const MIN = 60_000
const DAY = 86_400_000
const BASE = Date.UTC(2026, 0, 27) // a window of ~70 days over three month ends
const SPAN_DAYS = 70

/** The fewest documents covering [from, to): the months holding a whole day, plus the days partly covered */
function fewestDocuments (from, to, docsExist) {
  const ids = new Set()
  for (let day = Math.floor(from / DAY) * DAY; day < to; day += DAY) {
    const whole = day >= from && day + DAY <= to
    const d = new Date(day)
    const id = whole
      ? `m/${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`
      : `m/${d.toISOString().slice(0, 10).replaceAll('-', '')}`
    if (docsExist.has(id)) ids.add(id)
  }
  return ids.size
}

const horizonsArb = fc.record({
  minuteFrom: fc.option(fc.integer({ min: 0, max: SPAN_DAYS }).map(d => BASE + d * DAY), { nil: null }),
  dailyFrom: fc.option(fc.integer({ min: 0, max: SPAN_DAYS }).map(d => BASE + d * DAY), { nil: null })
}).map(h => (h.minuteFrom !== null && h.dailyFrom !== null && h.dailyFrom > h.minuteFrom ? { ...h, dailyFrom: h.minuteFrom } : h))
const eventsArb = fc.array(fc.record({
  metric: fc.constant('m'),
  value: fc.integer({ min: -5, max: 100 }),
  time: fc.integer({ min: BASE, max: BASE + SPAN_DAYS * DAY - 1 })
}), { minLength: 0, maxLength: 80 })
/** an edge on a boundary of the finest slot kept there */
const snap = (t, horizons) => {
  const size = { minute: MIN, 'quarter-hour': 15 * MIN, day: DAY }[finestSlotAt(t, horizons)]
  return Math.floor(t / size) * size
}

describe('range planner', () => {
  it('sums any range exactly from the fewest documents, for any detail horizons', () => {
    fc.assert(fc.property(eventsArb, horizonsArb, fc.integer({ min: 0, max: SPAN_DAYS * DAY }), fc.integer({ min: 0, max: SPAN_DAYS * DAY }), (events, horizons, a, b) => {
      const from = snap(BASE + Math.min(a, b), horizons)
      let to = snap(BASE + Math.max(a, b), horizons)
      if (to <= from) to = from + { minute: MIN, 'quarter-hour': 15 * MIN, day: DAY }[finestSlotAt(from, horizons)]
      // `to` must sit on a boundary of the slot it ends
      to = Math.ceil(to / { minute: MIN, 'quarter-hour': 15 * MIN, day: DAY }[finestSlotAt(to - 1, horizons)]) * { minute: MIN, 'quarter-hour': 15 * MIN, day: DAY }[finestSlotAt(to - 1, horizons)]
      fc.pre(from < to)
      const docs = documentsOf(events, horizons)
      const plan = planRanges('m', [{ from, to }], horizons)
      const [result] = evaluatePlan(plan, docs)
      const inRange = events.filter(e => e.time >= from && e.time < to)
      expect(result.value ?? 0).toBe(inRange.reduce((s, e) => s + e.value, 0))
      const existing = new Set([...docs.daily, ...docs.monthly].map(d => d._id))
      expect(result.documents).toBe(fewestDocuments(from, to, existing))
      // what it reads is what it needs: every piece's document is asked for, once
      const ids = [...plan.reads.daily.ids, ...plan.reads.monthly.ids]
      expect(new Set(ids).size).toBe(ids.length)
      for (const piece of plan.ranges[0]) expect(ids).toContain(piece.id)
    }), { numRuns: 400 })
  })

  it('plans many ranges with one read per collection, and each range\'s value is its own', () => {
    const events = [
      { metric: 'm', value: 2, time: BASE + 10 * MIN },
      { metric: 'm', value: 3, time: BASE + DAY + 5 * MIN },
      { metric: 'm', value: 7, time: BASE + 40 * DAY }
    ]
    // Jan 27, Jan 28, Jan 29 (no event, but January's document holds the day: 0), 60 days, and an April day (no document: null)
    const ranges = [{ from: BASE, to: BASE + DAY }, { from: BASE + DAY, to: BASE + 2 * DAY }, { from: BASE + 2 * DAY, to: BASE + 3 * DAY }, { from: BASE, to: BASE + 60 * DAY }, { from: Date.UTC(2026, 3, 20), to: Date.UTC(2026, 3, 21) }]
    const plan = planRanges('m', ranges, {})
    expect(plan.reads.monthly.ids).toEqual(['m/202601', 'm/202602', 'm/202603', 'm/202604'])
    expect(plan.reads.daily.ids).toEqual([])
    const docs = documentsOf(events, { minuteFrom: null, dailyFrom: null })
    // the third day: its month's document exists but holds no such day (nothing written that day):
    // 0 as a year to date counts it; null with strictDays, as a day series reads it
    expect(evaluatePlan(plan, docs).map(r => r.value)).toEqual([2, 3, 0, 12, null])
    expect(evaluatePlan(plan, docs, { strictDays: true }).map(r => r.value)).toEqual([2, 3, null, 12, null])
  })

  it('uses whole months, whole days, hours, quarter-hours and minutes, coarsest first', () => {
    const from = Date.UTC(2026, 0, 30, 22, 44)
    const to = Date.UTC(2026, 2, 2, 1, 30)
    const paths = planRanges('m', [{ from, to }], {}).ranges[0].map(p => `${p.id}:${p.path.join('.')}`)
    expect(paths).toEqual([
      'm/20260130:minute.22.44', 'm/20260130:quarterHourly.22.3', 'm/20260130:hourly.23',
      'm/202601:daily.31',
      'm/202602:monthly',
      'm/202603:daily.1',
      'm/20260302:hourly.0', 'm/20260302:quarterHourly.1.0', 'm/20260302:quarterHourly.1.1'
    ])
  })

  it('refuses an edge finer than the detail kept there, naming the nearest usable edges', () => {
    const horizons = { minuteFrom: Date.UTC(2026, 1, 1), dailyFrom: Date.UTC(2026, 0, 15) }
    const refusal = (from, to) => { try { planRanges('m', [{ from, to }], horizons); return null } catch (err) { return err } }
    const quarter = refusal(Date.UTC(2026, 0, 20, 10, 7), Date.UTC(2026, 1, 3))
    expect(quarter).toBeInstanceOf(RangeRefusal)
    expect(quarter).toMatchObject({ param: 'from', slot: 'quarter-hour', before: Date.UTC(2026, 0, 20, 10, 0), after: Date.UTC(2026, 0, 20, 10, 15) })
    expect(quarter.message).toMatch(/minute detail is kept from 2026-02-01 on/)
    const day = refusal(Date.UTC(2026, 0, 10), Date.UTC(2026, 0, 12, 6))
    expect(day).toMatchObject({ param: 'to', slot: 'day', before: Date.UTC(2026, 0, 12), after: Date.UTC(2026, 0, 13) })
    expect(refusal(Date.UTC(2026, 0, 10), Date.UTC(2026, 1, 3, 10, 7))).toBeNull() // minutes kept there
  })

  it('reads minutes where the documents keep them', () => {
    const day = Date.UTC(2026, 2, 3)
    const events = [7, 14, 15, 44, 45, 49, 50].map((m, i) => ({ metric: 'm', value: i + 1, time: day + m * MIN }))
    const from = day + 7 * MIN
    const to = day + 50 * MIN // minutes 7–14, quarter-hours 15–44, minutes 45–49
    const plan = planRanges('m', [{ from, to }], {})
    expect(evaluatePlan(plan, documentsOf(events, {}))[0].value).toBe(1 + 2 + 3 + 4 + 5 + 6)
  })
})

describe('what a plan projects', () => {
  it('the hours, quarter-hours and minutes of the hours it reads, and the days of the months: never a whole tier, never a path under another', () => {
    const day = Date.UTC(2026, 10, 20)
    // a local day at UTC+1 (23:00–23:00) and the last 5 minutes before 10:07
    const plan = planRanges('m', [{ from: day - 3_600_000, to: day + 23 * 3_600_000 }, { from: day + 10 * 3_600_000 + 2 * 60_000, to: day + 10 * 3_600_000 + 7 * 60_000 }, { from: Date.UTC(2026, 9, 1), to: Date.UTC(2026, 9, 3) }])
    const daily = Object.keys(plan.reads.daily.projection)
    expect(daily).toEqual(expect.arrayContaining(['hourly.23', 'hourly.0', 'hourly.22', 'minute.10']))
    expect(daily).not.toContain('minute.11')
    expect(Object.keys(plan.reads.monthly.projection).sort()).toEqual(['daily.1', 'daily.2'])
    const all = [...daily, ...Object.keys(plan.reads.monthly.projection)]
    for (const a of all) for (const b of all) expect(b.startsWith(`${a}.`)).toBe(false)
  })
})

describe('plans kept as templates, whatever the metric', () => {
  // minute-aligned ranges within the span (every day keeps its minutes)
  const rangeArb = fc.tuple(fc.integer({ min: 0, max: SPAN_DAYS * 1440 }), fc.integer({ min: 1, max: 5 * 1440 }))
    .map(([start, length]) => ({ from: BASE + start * MIN, to: BASE + Math.min(start + length, SPAN_DAYS * 1440 + 1) * MIN }))
  // names whose ids are escaped ('/' and '%' in a tag value) beside plain ones
  const metricArb = fc.constantFrom('m', 'web.requests;route=/login', 'a%2F;b=100%')

  it('a plan made from another metric\'s template sums that metric\'s own documents, range by range', () => {
    fc.assert(fc.property(fc.array(rangeArb, { minLength: 1, maxLength: 8 }), metricArb, metricArb, fc.array(fc.record({ value: fc.integer({ min: 1, max: 100 }), time: fc.integer({ min: BASE, max: BASE + SPAN_DAYS * DAY - 1 }) }), { maxLength: 40 }), (ranges, other, metric, values) => {
      planRanges(other, ranges) // the template made by another metric first
      const events = values.map(v => ({ ...v, metric }))
      const docs = documentsOf(events, {})
      const plan = planRanges(metric, ranges)
      const results = evaluatePlan(plan, docs)
      ranges.forEach(({ from, to }, i) => {
        expect(results[i].value ?? 0).toBe(events.filter(e => e.time >= from && e.time < to).reduce((n, e) => n + e.value, 0))
      })
      // the documents each range used, by id: as many as it counts, each in the plan's reads and holding a piece of the range
      const withIds = evaluatePlan(plan, docs, { ids: true })
      expect(withIds.map(r => r.ids.size)).toEqual(results.map(r => r.documents))
      withIds.forEach(({ ids }, i) => {
        for (const id of ids) {
          expect([...plan.reads.daily.ids, ...plan.reads.monthly.ids]).toContain(id)
          expect(plan.ranges[i].some(p => p.id === id)).toBe(true)
        }
      })
    }), { numRuns: 150 })
  })

  it('documents several plans read together project the union of their fields, and a plan\'s own fields stay its own', () => {
    const day = Date.UTC(2026, 1, 10)
    const a = planRanges('m', [{ from: day + 60 * MIN, to: day + 62 * MIN }])
    const b = planRanges('m', [{ from: day + 5 * 60 * MIN, to: day + 6 * 60 * MIN }])
    const other = planRanges('n', [{ from: day + 60 * MIN, to: day + 62 * MIN }])
    const groups = documentsByProjection([a, b, other], 'daily')
    expect(groups).toEqual([
      { projection: { 'hourly.5': 1, 'minute.1': 1 }, ids: ['m/20260210'] },
      { projection: { 'minute.1': 1 }, ids: ['n/20260210'] }
    ])
    // the union was made on a copy: planning the first range again projects what it did
    expect([...planRanges('m', [{ from: day + 60 * MIN, to: day + 62 * MIN }]).reads.daily.fields.get('m/20260210')]).toEqual(['minute.1'])
  })

  it('keeps lists of at most MAX_TEMPLATE_RANGES ranges, holding at most MAX_TEMPLATE_PIECES pieces', () => {
    // 16 ranges of ~68 pieces each (minutes, quarter-hours and hours at both edges), a list per k
    const list = (k, n = 16) => Array.from({ length: n }, (_, i) => ({ from: BASE + (k * 64 + i) * DAY + 7 * MIN, to: BASE + (k * 64 + i + 2) * DAY - 7 * MIN }))
    const events = [{ metric: 'm', value: 3, time: BASE + 12 * 3_600_000 }]
    let held = heldTemplatePieces()
    let dropped = false
    for (let k = 0; k < 40; k++) {
      const ranges = list(k % 30) // 30 lists of ~1,100 pieces: more than the bound holds
      const before = heldTemplatePieces()
      const plan = planRanges('m', ranges)
      expect(plan.ranges.reduce((n, pieces) => n + pieces.length, 0)).toBeGreaterThan(ranges.length * 60)
      expect(heldTemplatePieces()).toBeLessThanOrEqual(MAX_TEMPLATE_PIECES)
      if (heldTemplatePieces() < before) dropped = true
      if (k === 0) {
        // kept: added to what was held, or alone after the templates were dropped to make room
        const pieces = plan.ranges.reduce((n, p) => n + p.length, 0)
        expect([held + pieces, pieces]).toContain(heldTemplatePieces())
        // the first day's event, in the ranges holding it
        expect(evaluatePlan(plan, documentsOf(events, {})).map(r => r.value ?? 0)).toEqual(ranges.map(r => (r.from <= events[0].time && events[0].time < r.to ? 3 : 0)))
      }
    }
    expect(dropped).toBe(true)
    // whole days, a piece each: MAX_TEMPLATE_RANGES of them are kept, a longer list is planned piece by piece and not kept
    const days = (n, k) => Array.from({ length: n }, (_, i) => ({ from: BASE + (k + i) * DAY, to: BASE + (k + i + 1) * DAY }))
    held = heldTemplatePieces()
    expect(planRanges('n', days(MAX_TEMPLATE_RANGES, 0)).ranges).toHaveLength(MAX_TEMPLATE_RANGES)
    expect([held + MAX_TEMPLATE_RANGES, MAX_TEMPLATE_RANGES]).toContain(heldTemplatePieces())
    held = heldTemplatePieces()
    const long = days(MAX_TEMPLATE_RANGES + 1, 1)
    expect(planRanges('n', long).ranges).toHaveLength(long.length)
    expect(heldTemplatePieces()).toBe(held)
  })
})
