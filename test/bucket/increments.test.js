import { describe, expect, it } from 'vitest'
import { buildWriteUnit, eventIncrements, mergeWriteUnits, monthlyZeroIncrements } from '../../src/bucket/increments.js'
import { flatLayout, hierarchicalLayout } from '../../src/bucket/layouts.js'

describe('eventIncrements', () => {
  it('increments day, hour and minute, and month and day of month', () => {
    const time = Date.UTC(2026, 10, 21, 13, 7, 45)
    const inc = eventIncrements({ metric: 'cpu', value: 3, time }, hierarchicalLayout)
    expect(inc.daily).toEqual({ id: 'cpu/20261121', date: Date.UTC(2026, 10, 21), inc: { daily: 3, 'hourly.13': 3, 'minute.13.7': 3 } })
    expect(inc.monthly).toEqual({ id: 'cpu/202611', date: Date.UTC(2026, 10, 1), inc: { monthly: 3, 'daily.21': 3 } })
  })

  it('uses minute of day in the flat layout', () => {
    const inc = eventIncrements({ metric: 'cpu', value: 1, time: Date.UTC(2026, 10, 21, 23, 59) }, flatLayout)
    expect(inc.daily.inc).toEqual({ daily: 1, 'hourly.23': 1, 'minute.1439': 1 })
  })
})

describe('zero documents', () => {
  it('has 24 hourly and 1440 minute counters per day', () => {
    for (const layout of [hierarchicalLayout, flatLayout]) {
      const zero = layout.zeroIncrements()
      const keys = Object.keys(zero)
      expect(keys.filter(k => k.startsWith('hourly.'))).toHaveLength(24)
      expect(keys.filter(k => k.startsWith('minute.'))).toHaveLength(1440)
      expect(zero.daily).toBe(0)
      expect(new Set(Object.values(zero))).toEqual(new Set([0]))
    }
  })

  it('has 28 to 31 daily keys per month', () => {
    const days = t => Object.keys(monthlyZeroIncrements(t)).filter(k => k.startsWith('daily.')).length
    expect(days(Date.UTC(2026, 1, 1))).toBe(28)
    expect(days(Date.UTC(2024, 1, 1))).toBe(29)
    expect(days(Date.UTC(2026, 3, 1))).toBe(30)
    expect(days(Date.UTC(2026, 11, 1))).toBe(31)
    expect(monthlyZeroIncrements(Date.UTC(2026, 11, 1))).toHaveProperty('monthly', 0)
  })

  it('minutesOfDay reads back every minute a zero document holds', () => {
    for (const layout of [hierarchicalLayout, flatLayout]) {
      const doc = {}
      for (const [field] of Object.entries(layout.zeroIncrements())) {
        const path = field.split('.')
        let node = doc
        for (const p of path.slice(0, -1)) node = node[p] ??= {}
        node[path.at(-1)] = 0
      }
      expect(layout.minutesOfDay(doc)).toEqual(new Array(1440).fill(0))
    }
  })
})

describe('write units', () => {
  const at = (d, h, m) => Date.UTC(2026, 10, d, h, m)
  it('merges a request per document and tracks first/last seen', () => {
    const unit = buildWriteUnit([
      { metric: 'a', value: 1, time: at(30, 23, 59) },
      { metric: 'a', value: 2, time: at(30, 23, 59) },
      { metric: 'a', value: 5, time: Date.UTC(2026, 11, 1, 0, 0) },
      { metric: 'b', value: -1, time: at(30, 1, 0) }
    ], hierarchicalLayout)
    expect(unit.events).toBe(4)
    expect(unit.daily.get('a/20261130').inc).toEqual({ daily: 3, 'hourly.23': 3, 'minute.23.59': 3 })
    expect(unit.daily.get('a/20261201').inc).toEqual({ daily: 5, 'hourly.0': 5, 'minute.0.0': 5 })
    expect(unit.monthly.get('a/202611').inc).toEqual({ monthly: 3, 'daily.30': 3 })
    expect(unit.monthly.get('a/202612').inc).toEqual({ monthly: 5, 'daily.1': 5 })
    expect(unit.metrics.get('a')).toEqual({ firstSeen: at(30, 23, 59), lastSeen: Date.UTC(2026, 11, 1) })
    expect(unit.daily.get('b/20261130').inc).toEqual({ daily: -1, 'hourly.1': -1, 'minute.1.0': -1 })
  })

  it('merges units without changing them', () => {
    const u1 = buildWriteUnit([{ metric: 'a', value: 1, time: at(1, 0, 0) }], hierarchicalLayout)
    const u2 = buildWriteUnit([{ metric: 'a', value: 2, time: at(1, 0, 1) }, { metric: 'a', value: 4, time: at(2, 0, 0) }], hierarchicalLayout)
    const merged = mergeWriteUnits([u1, u2])
    expect(merged.events).toBe(3)
    expect(merged.daily.get('a/20261101').inc).toEqual({ daily: 3, 'hourly.0': 3, 'minute.0.0': 1, 'minute.0.1': 2 })
    expect(merged.monthly.get('a/202611').inc).toEqual({ monthly: 7, 'daily.1': 3, 'daily.2': 4 })
    expect(merged.metrics.get('a')).toEqual({ firstSeen: at(1, 0, 0), lastSeen: at(2, 0, 0) })
    expect(u1.daily.get('a/20261101').inc).toEqual({ daily: 1, 'hourly.0': 1, 'minute.0.0': 1 })
  })
})

describe('buildWriteUnit and eventIncrements agree', () => {
  it('a unit holds the sum of its events\' increments, over any days and metrics', async () => {
    const fc = (await import('fast-check')).default
    const event = fc.record({
      metric: fc.constantFrom('a', 'b.c', 'd:e'),
      value: fc.integer({ min: -1000, max: 1000 }),
      time: fc.integer({ min: Date.UTC(2023, 0, 1), max: Date.UTC(2027, 0, 1) })
    })
    // per metric, a minute horizon (first UTC day with minutes) or none (forever)
    const horizon = fc.option(fc.integer({ min: 0, max: 4 * 365 }).map(d => Date.UTC(2023, 0, 1) + d * 86_400_000), { nil: null })
    const horizons = fc.record({ a: horizon, 'b.c': horizon, 'd:e': horizon })
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 60 }), fc.constantFrom(hierarchicalLayout, flatLayout), fc.option(horizons, { nil: undefined }), (events, layout, byMetric) => {
      const options = byMetric ? { minuteFrom: metric => byMetric[metric] } : {}
      const expected = { daily: new Map(), monthly: new Map() }
      for (const e of events) {
        const inc = eventIncrements(e, layout, options)
        for (const kind of ['daily', 'monthly']) {
          const doc = expected[kind].get(inc[kind].id) ?? { metric: e.metric, date: inc[kind].date, inc: {} }
          for (const [field, v] of Object.entries(inc[kind].inc)) doc.inc[field] = (doc.inc[field] ?? 0) + v
          expected[kind].set(inc[kind].id, doc)
        }
      }
      const unit = buildWriteUnit(events, layout, options)
      expect(unit.daily).toEqual(expected.daily)
      expect(unit.monthly).toEqual(expected.monthly)
      // minute fields exactly on the days inside each metric's minute retention
      for (const doc of unit.daily.values()) {
        const from = byMetric?.[doc.metric] ?? null
        const hasMinute = Object.keys(doc.inc).some(f => f.startsWith('minute.'))
        if (from !== null && doc.date < from) expect(hasMinute).toBe(false)
        else expect(hasMinute).toBe(true)
      }
    }), { numRuns: 300 })
  })
})
