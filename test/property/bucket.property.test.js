// Properties of the bucket math (fast-check): any valid timestamp lands in
// exactly one day / hour / minute slot and one month / day-of-month slot;
// ids round-trip, sort like time, and one metric's id range holds no other
// metric's ids; the zero documents have exactly the slots the writers
// increment and the readers read; what is written is what is read back.
import fc from 'fast-check'
import { dayZeroIncrements, minuteField } from '../../src/bucket/minute-fields.js'
import { describe, expect, it } from 'vitest'
import { eventIncrements, monthDayZeroIncrements, monthlyZeroIncrements } from '../../src/bucket/increments.js'
import { buildWriteUnit } from '../../src/kinds/write-unit.js'
import { assembleSeries, assembleYtd, seriesReadPlan, seriesWindow } from '../../src/bucket/results.js'
import {
  DAY_MS, HOUR_MS, MAX_TIME_MS, MINUTE_MS, MIN_TIME_MS, STEPS, countPoints, dayId, daysInMonth, monthId,
  parseBucketId, parseEventTime, parseQueryTime, startOfDay, startOfMonth, utcParts
} from '../../src/bucket/time.js'
import { METRIC_NAME_RE } from '../../src/bucket/event-rules.js'
import { applyInc } from '../helpers/documents.js'

const time = fc.integer({ min: MIN_TIME_MS, max: MAX_TIME_MS })
const recentTime = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })
const metric = fc.stringMatching(METRIC_NAME_RE)
const value = fc.integer({ min: -1_000_000, max: 1_000_000 })

/** Every leaf path of a document, dotted */
function leafPaths (doc, prefix = '') {
  return Object.entries(doc).flatMap(([k, v]) => (v !== null && typeof v === 'object' ? leafPaths(v, `${prefix}${k}.`) : [`${prefix}${k}`]))
}

describe('time → slots', () => {
  it('any valid timestamp falls in exactly one day, hour and minute, inside that slot', () => {
    fc.assert(fc.property(time, t => {
      const { year, month, day, hour, minute } = utcParts(t)
      const dayStart = startOfDay(t)
      expect(hour).toBeGreaterThanOrEqual(0); expect(hour).toBeLessThan(24)
      expect(minute).toBeGreaterThanOrEqual(0); expect(minute).toBeLessThan(60)
      expect(day).toBeGreaterThanOrEqual(1); expect(day).toBeLessThanOrEqual(daysInMonth(year, month))
      const slotStart = dayStart + hour * HOUR_MS + minute * MINUTE_MS
      expect(slotStart).toBeLessThanOrEqual(t)
      expect(t).toBeLessThan(slotStart + MINUTE_MS)
      expect(startOfMonth(t)).toBe(Date.UTC(year, month - 1, 1))
      expect(dayStart).toBe(Date.UTC(year, month - 1, day))
    }), { numRuns: 500 })
  })

  it('an event increments exactly one minute, one quarter-hour, one hour and the day; one day of month and the month', () => {
    fc.assert(fc.property(time, metric, value, (t, m, v) => {
      const { daily, monthly } = eventIncrements({ metric: m, value: v, time: t })
      const { hour, minute, day } = utcParts(t)
      expect(daily.inc).toEqual({ daily: v, [`hourly.${hour}`]: v, [`quarterHourly.${hour}.${Math.floor(minute / 15)}`]: v, [minuteField(hour, minute)]: v })
      expect(monthly.inc).toEqual({ monthly: v, [`daily.${day}`]: v })
      expect(daily.date).toBe(startOfDay(t))
      expect(monthly.date).toBe(startOfMonth(t))
    }), { numRuns: 300 })
  })

  it('the minutes of a day map one-to-one onto minute fields', () => {
    const fields = new Set()
    for (let i = 0; i < 1440; i++) fields.add(minuteField(Math.floor(i / 60), i % 60))
    expect(fields.size).toBe(1440)
  })

  it('times round-trip through the accepted formats', () => {
    fc.assert(fc.property(time, fc.integer({ min: -14 * 60, max: 14 * 60 }), (t, offsetMin) => {
      expect(parseEventTime(new Date(t).toISOString())).toBe(t)
      expect(parseEventTime(t)).toBe(t)
      expect(parseQueryTime(String(t))).toBe(t)
      // the same instant written with an offset
      const local = new Date(t + offsetMin * MINUTE_MS).toISOString().slice(0, -1)
      const sign = offsetMin < 0 ? '-' : '+'
      const abs = Math.abs(offsetMin)
      const text = `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
      const parsed = parseEventTime(text)
      if (parsed !== null) expect(parsed).toBe(t) // null only where the local year leaves 0000..9999
    }), { numRuns: 300 })
  })
})

describe('ids', () => {
  it('round-trip: parseBucketId(dayId) and parseBucketId(monthId) give back the metric and the slot start', () => {
    fc.assert(fc.property(metric, time, (m, t) => {
      expect(parseBucketId(dayId(m, t))).toEqual({ metric: m, date: startOfDay(t) })
      expect(parseBucketId(monthId(m, t))).toEqual({ metric: m, date: startOfMonth(t) })
    }), { numRuns: 500 })
  })

  it('sort like time within a metric (a series is one _id range scan)', () => {
    fc.assert(fc.property(metric, time, time, (m, a, b) => {
      const [t1, t2] = a <= b ? [a, b] : [b, a]
      expect(dayId(m, t1) <= dayId(m, t2)).toBe(true)
      expect(monthId(m, t1) <= monthId(m, t2)).toBe(true)
    }), { numRuns: 300 })
  })

  it('one metric\'s id range never holds another metric\'s ids', () => {
    fc.assert(fc.property(metric, metric, time, (m1, m2, t) => {
      fc.pre(m1 !== m2)
      const lo = dayId(m1, MIN_TIME_MS)
      const hi = dayId(m1, MAX_TIME_MS)
      const other = dayId(m2, t)
      expect(other >= lo && other <= hi).toBe(false)
    }), { numRuns: 500 })
    // the adversarial cases: one name a prefix of the other
    for (const [a, b] of [['a', 'a.b'], ['a', 'a0'], ['a', 'a-b'], ['a', 'a:b'], ['a', 'a_b'], ['A', 'AZ']]) {
      const other = dayId(b, Date.UTC(2026, 0, 1))
      expect(other >= dayId(a, MIN_TIME_MS) && other <= dayId(a, MAX_TIME_MS)).toBe(false)
    }
  })
})

describe('zero documents and readers', () => {
  it('a day\'s zero document has exactly the slots events increment: daily, 24 hours, 96 quarter-hours, 1440 minutes', () => {
    const zeroFields = new Set(Object.keys(dayZeroIncrements()))
    const written = new Set(['daily'])
    for (let i = 0; i < 1440; i++) {
      const t = Date.UTC(2026, 10, 21) + i * MINUTE_MS
      for (const f of Object.keys(eventIncrements({ metric: 'z', value: 1, time: t }).daily.inc)) written.add(f)
    }
    expect(zeroFields).toEqual(written)
    expect(zeroFields.size).toBe(1 + 24 + 96 + 1440)
    // …and as a document, each a leaf the readers read
    expect(new Set(leafPaths(applyInc({}, dayZeroIncrements())))).toEqual(zeroFields)
  })

  it('a preallocated day\'s month fields are the total and exactly the field its events write, for every day', () => {
    fc.assert(fc.property(recentTime, t => {
      const zero = Object.keys(monthDayZeroIncrements(startOfDay(t))).sort()
      expect(zero).toEqual(Object.keys(eventIncrements({ metric: 'z', value: 1, time: t }).monthly.inc).sort())
      expect(monthlyZeroIncrements()).toEqual({ monthly: 0 })
    }), { numRuns: 200 })
  })

  it('readers find 0, never null, in every slot of a zero document, at every step', () => {
    fc.assert(fc.property(recentTime, (t) => {
      const day = startOfDay(t)
      const doc = { _id: dayId('z', day), ...applyInc({}, dayZeroIncrements()) }
      // a preallocated day: its daily document and its field in its month
      const monthStart = startOfMonth(t)
      const mdoc = { _id: monthId('z', monthStart), ...applyInc({}, monthDayZeroIncrements(day)) }
      for (const step of ['minute', 'quarter-hour', 'hour', 'day']) {
        const { values } = assembleSeries({ step, start: day, end: day + DAY_MS, docs: [doc], monthlyDocs: [mdoc] })
        expect(values).toHaveLength(countPoints(day, day + DAY_MS, step))
        expect(values.every(v => v === 0)).toBe(true)
        const plan = seriesReadPlan(step, day, day + DAY_MS)
        const [read, from] = plan.daily ? [plan.daily, doc] : [plan.monthly, mdoc]
        expect(Object.keys(read.projection).every(f => f in from)).toBe(true)
      }
      const { year } = utcParts(t)
      const ytd = assembleYtd({ year, asOf: t, docs: [mdoc] })
      expect(ytd.months.at(-1).total).toBe(0)
    }), { numRuns: 100 })
  })

  it('what a day\'s events write is what the readers read: per minute, per quarter-hour, per hour, per day, and the sums agree', () => {
    const dayEvents = fc.tuple(recentTime, fc.array(fc.tuple(fc.integer({ min: 0, max: DAY_MS - 1 }), value), { minLength: 1, maxLength: 40 }))
    fc.assert(fc.property(dayEvents, fc.boolean(), ([t, offsets], preallocated) => {
      const day = startOfDay(t)
      const events = offsets.map(([o, v]) => ({ metric: 'p', value: v, time: day + o }))
      const unit = buildWriteUnit(events)
      const [[id, written]] = [...unit.daily]
      const doc = applyInc({ _id: id }, preallocated ? dayZeroIncrements() : {})
      applyInc(doc, written.inc)
      const [[monthlyId, month]] = [...unit.monthly]
      const mdoc = applyInc({ _id: monthlyId }, preallocated ? monthDayZeroIncrements(day) : {})
      applyInc(mdoc, month.inc)

      const expectedMinutes = new Array(1440).fill(0)
      for (const e of events) expectedMinutes[Math.floor((e.time - day) / MINUTE_MS)] += e.value
      const read = step => assembleSeries({ step, start: day, end: day + DAY_MS, docs: [doc], monthlyDocs: [mdoc] }).values
      expect(read('minute')).toEqual(expectedMinutes)
      const hours = read('hour')
      for (let h = 0; h < 24; h++) expect(hours[h]).toBe(expectedMinutes.slice(h * 60, h * 60 + 60).reduce((a, b) => a + b, 0))
      const quarters = read('quarter-hour')
      for (let q = 0; q < 96; q++) expect(quarters[q]).toBe(expectedMinutes.slice(q * 15, q * 15 + 15).reduce((a, b) => a + b, 0))
      expect(read('day')).toEqual([events.reduce((a, e) => a + e.value, 0)])
    }), { numRuns: 150 })
  })

  it('a window has countPoints points on step boundaries, starting at from rounded down', () => {
    fc.assert(fc.property(recentTime, fc.integer({ min: 1, max: 90 * DAY_MS }), fc.constantFrom(...STEPS), (from, span, step) => {
      const to = from + span
      const { start, end, points } = seriesWindow(from, to, step)
      fc.pre(points <= 5000)
      const { timestamps } = assembleSeries({ step, start, end, docs: [] })
      expect(timestamps).toHaveLength(points)
      expect(timestamps[0]).toBe(start)
      expect(start).toBeLessThanOrEqual(from)
      expect(end).toBeGreaterThanOrEqual(to)
      expect(timestamps.at(-1)).toBeLessThan(end)
    }), { numRuns: 200 })
  })
})
