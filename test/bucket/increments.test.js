import { describe, expect, it } from 'vitest'
import { eventIncrements, monthDayZeroIncrements, monthlyZeroIncrements } from '../../src/bucket/increments.js'
import { buildWriteUnit, mergeWriteUnits } from '../../src/kinds/write-unit.js'
import { dayZeroIncrements, minuteHoursProjection, minuteOfDay } from '../../src/bucket/minute-fields.js'

describe('eventIncrements', () => {
  it('increments day, hour, quarter-hour and minute, and month and day of month', () => {
    const time = Date.UTC(2026, 10, 21, 13, 7, 45)
    const inc = eventIncrements({ metric: 'cpu', value: 3, time })
    expect(inc.daily).toEqual({ id: 'cpu/20261121', date: Date.UTC(2026, 10, 21), inc: { daily: 3, 'hourly.13': 3, 'quarterHourly.13.0': 3, 'minute.13.7': 3 } })
    expect(inc.monthly).toEqual({ id: 'cpu/202611', date: Date.UTC(2026, 10, 1), inc: { monthly: 3, 'daily.21': 3 } })
  })
})

describe('zero documents', () => {
  it('has 24 hourly, 96 quarter-hourly and 1440 minute counters per day', () => {
    const zero = dayZeroIncrements()
    const keys = Object.keys(zero)
    expect(keys.filter(k => k.startsWith('hourly.'))).toHaveLength(24)
    expect(keys.filter(k => /^quarterHourly\.([0-9]|1[0-9]|2[0-3])\.[0-3]$/.test(k))).toHaveLength(96)
    expect(keys.filter(k => /^minute\.([0-9]|1[0-9]|2[0-3])\.([0-9]|[1-5][0-9])$/.test(k))).toHaveLength(1440)
    expect(zero.daily).toBe(0)
    expect(new Set(Object.values(zero))).toEqual(new Set([0]))
    expect(Object.keys(dayZeroIncrements(false)).filter(k => k.startsWith('minute.'))).toHaveLength(0)
  })

  it('a preallocated month holds its total only; a preallocated day adds its own day field', () => {
    expect(monthlyZeroIncrements()).toEqual({ monthly: 0 })
    expect(monthDayZeroIncrements(Date.UTC(2026, 1, 28))).toEqual({ monthly: 0, 'daily.28': 0 })
    expect(monthDayZeroIncrements(Date.UTC(2024, 1, 29))).toEqual({ monthly: 0, 'daily.29': 0 })
    expect(monthDayZeroIncrements(Date.UTC(2026, 11, 1))).toEqual({ monthly: 0, 'daily.1': 0 })
  })

  it('minuteOfDay reads back every minute a zero document holds', () => {
    const doc = {}
    for (const [field] of Object.entries(dayZeroIncrements())) {
      const path = field.split('.')
      let node = doc
      for (const p of path.slice(0, -1)) node = node[p] ??= {}
      node[path.at(-1)] = 0
    }
    const minutes = (d) => Array.from({ length: 1440 }, (_, i) => minuteOfDay(d, i))
    expect(minutes(doc)).toEqual(new Array(1440).fill(0))
    doc.minute[23][59] = 7
    expect(minutes(doc)[1439]).toBe(7)
    expect(minutes({})).toEqual(new Array(1440).fill(0))
  })

  it('minuteHoursProjection names the hours a window of minutes covers, of any day; all 24: every minute', () => {
    const h = (d, hour, minute = 0) => Date.UTC(2026, 0, d, hour, minute)
    expect(minuteHoursProjection(h(1, 10), h(1, 11))).toEqual({ 'minute.10': 1 })
    expect(minuteHoursProjection(h(1, 10, 30), h(1, 11, 1))).toEqual({ 'minute.10': 1, 'minute.11': 1 })
    expect(minuteHoursProjection(h(1, 23), h(2, 1))).toEqual({ 'minute.23': 1, 'minute.0': 1 })
    expect(minuteHoursProjection(h(1, 0, 1), h(2, 0))).toEqual({ minute: 1 })
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
    ])
    expect(unit.events).toBe(4)
    expect(unit.daily.get('a/20261130').inc).toEqual({ daily: 3, 'hourly.23': 3, 'quarterHourly.23.3': 3, 'minute.23.59': 3 })
    expect(unit.daily.get('a/20261201').inc).toEqual({ daily: 5, 'hourly.0': 5, 'quarterHourly.0.0': 5, 'minute.0.0': 5 })
    expect(unit.monthly.get('a/202611').inc).toEqual({ monthly: 3, 'daily.30': 3 })
    expect(unit.monthly.get('a/202612').inc).toEqual({ monthly: 5, 'daily.1': 5 })
    expect(unit.metrics.get('a')).toEqual({ firstSeen: at(30, 23, 59), lastSeen: Date.UTC(2026, 11, 1) })
    expect(unit.daily.get('b/20261130').inc).toEqual({ daily: -1, 'hourly.1': -1, 'quarterHourly.1.0': -1, 'minute.1.0': -1 })
  })

  it('merges units without changing them', () => {
    const u1 = buildWriteUnit([{ metric: 'a', value: 1, time: at(1, 0, 0) }])
    const u2 = buildWriteUnit([{ metric: 'a', value: 2, time: at(1, 0, 1) }, { metric: 'a', value: 4, time: at(2, 0, 0) }])
    const merged = mergeWriteUnits([u1, u2])
    expect(merged.events).toBe(3)
    expect(merged.daily.get('a/20261101').inc).toEqual({ daily: 3, 'hourly.0': 3, 'quarterHourly.0.0': 3, 'minute.0.0': 1, 'minute.0.1': 2 })
    expect(merged.monthly.get('a/202611').inc).toEqual({ monthly: 7, 'daily.1': 3, 'daily.2': 4 })
    expect(merged.metrics.get('a')).toEqual({ firstSeen: at(1, 0, 0), lastSeen: at(2, 0, 0) })
    expect(u1.daily.get('a/20261101').inc).toEqual({ daily: 1, 'hourly.0': 1, 'quarterHourly.0.0': 1, 'minute.0.0': 1 })
  })
})

describe('minute retention', () => {
  it('writes no minute for a day past the metric\'s minute retention; every other tier as before', () => {
    const horizon = Date.UTC(2026, 10, 10)
    const keepsMinutes = (metric, dayStart) => metric !== 'old.only' || dayStart >= horizon
    const events = [
      { metric: 'old.only', value: 2, time: Date.UTC(2026, 10, 9, 10, 31) },
      { metric: 'old.only', value: 3, time: Date.UTC(2026, 10, 10, 10, 31) },
      { metric: 'other', value: 4, time: Date.UTC(2026, 10, 9, 10, 31) }
    ]
    const unit = buildWriteUnit(events, { keepsMinutes })
    expect(unit.daily.get('old.only/20261109').inc).toEqual({ daily: 2, 'hourly.10': 2, 'quarterHourly.10.2': 2 })
    expect(unit.daily.get('old.only/20261110').inc).toEqual({ daily: 3, 'hourly.10': 3, 'quarterHourly.10.2': 3, 'minute.10.31': 3 })
    expect(unit.daily.get('other/20261109').inc).toEqual({ daily: 4, 'hourly.10': 4, 'quarterHourly.10.2': 4, 'minute.10.31': 4 })
    expect(unit.monthly.get('old.only/202611').inc).toEqual({ monthly: 5, 'daily.9': 2, 'daily.10': 3 })
    expect(eventIncrements(events[0], { keepsMinutes }).daily.inc).toEqual({ daily: 2, 'hourly.10': 2, 'quarterHourly.10.2': 2 })
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
    const horizons = fc.option(fc.integer({ min: Date.UTC(2023, 0, 1), max: Date.UTC(2027, 0, 1) }), { nil: undefined })
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 60 }), horizons, (events, horizon) => {
      // minutes kept from `horizon` on for metric 'a' only (none: every day keeps them)
      const options = horizon === undefined ? {} : { keepsMinutes: (metric, dayStart) => metric !== 'a' || dayStart >= horizon }
      const expected = { daily: new Map(), monthly: new Map() }
      for (const e of events) {
        const inc = eventIncrements(e, options)
        for (const kind of ['daily', 'monthly']) {
          const doc = expected[kind].get(inc[kind].id) ?? { metric: e.metric, date: inc[kind].date, inc: {} }
          for (const [field, v] of Object.entries(inc[kind].inc)) doc.inc[field] = (doc.inc[field] ?? 0) + v
          if (inc[kind].detail) doc.detail = inc[kind].detail // a day written without its minute says so
          expected[kind].set(inc[kind].id, doc)
        }
      }
      const unit = buildWriteUnit(events, options)
      expect(unit.daily).toEqual(expected.daily)
      expect(unit.monthly).toEqual(expected.monthly)
    }), { numRuns: 200 })
  })
})

describe('an event counted in each metric it is written to (a tagged series, its name, its rollups)', () => {
  it('the unit built with writtenTo is the unit of a copy of each event sent to each metric (the copies: the oracle)', async () => {
    const fc = (await import('fast-check')).default
    const { createRollups, parseRollupRules } = await import('../../src/tags/rollups.js')
    const { eventsWrittenTo } = await import('../../src/kinds/write-unit.js')
    const { distributionKind } = await import('../../src/bucket/metric-kinds.js')
    const { rules } = parseRollupRules(JSON.stringify([{ match: 'web.*', by: [['route'], ['route', 'status']] }]))
    const { writtenTo } = createRollups(rules)
    const counterMetric = fc.constantFrom('web.req', 'web.req;route=/a', 'web.req;route=/a;status=500', 'web.req;status=200', 'other;k=1', 'plain', 'web.req;route=/b')
    const kindMetric = { gauge: fc.constantFrom('web.level;route=/a', 'web.level', 'web.level;route=/b;status=1'), distribution: fc.constantFrom('web.lat;route=/a', 'web.lat') }
    const time = fc.integer({ min: Date.UTC(2026, 9, 28), max: Date.UTC(2026, 11, 2) })
    const event = fc.oneof(
      { weight: 6, arbitrary: fc.record({ metric: counterMetric, value: fc.integer({ min: -9, max: 9 }), time }) },
      ...Object.entries(kindMetric).map(([kind, metric]) => ({ weight: 1, arbitrary: fc.record({ metric, value: fc.integer({ min: 1, max: 99 }), time, kind: fc.constant(kind) }) }))
    )
    // minutes kept from a horizon, for some metrics only: a series and its name (or rollup) may disagree
    const horizons = fc.option(fc.tuple(time, fc.integer({ min: 1, max: 7 })), { nil: undefined })
    const kindOf = () => distributionKind(0.01)
    const { createDocumentIds } = await import('../../src/ingest/document-ids.js')
    const ids = createDocumentIds({ maxEntries: 8, maxChars: 1000 })
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 80 }), horizons, (events, horizon) => {
      const options = { kindOf }
      if (horizon) options.keepsMinutes = (metric, dayStart) => metric.length % horizon[1] !== 0 || dayStart >= horizon[0]
      // ids remembered across runs (a memo of 8: days change, entries are evicted)
      const unit = buildWriteUnit(events, { ...options, writtenTo, ids })
      const oracle = buildWriteUnit(eventsWrittenTo(events, writtenTo), options)
      expect(unit).toEqual(oracle)
      // in the same order: the registry's entries and each collection's documents as the copies make them
      for (const part of ['metrics', 'daily', 'monthly']) expect([...unit[part].keys()]).toEqual([...oracle[part].keys()])
    }), { numRuns: 300 })
  })
})
