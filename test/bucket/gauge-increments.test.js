import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Double } from 'mongodb'
import { buildGaugeUnit, gaugeEventUpdates, isLater, laterLast, mergeGaugeUnits } from '../../src/bucket/gauge-increments.js'
import { QUARTER_HOUR_DETAIL } from '../../src/bucket/increments.js'
import { buildWriteUnit, mergeWriteUnits } from '../../src/kinds/write-unit.js'
import { GAUGE, distributionKind } from '../../src/bucket/metric-kinds.js'
import { startOfDay } from '../../src/bucket/time.js'
import { findInvalidGaugeEvent } from '../../src/bucket/gauge-rules.js'
import { gaugeUpdate, operationsOf } from '../../src/writer/write-operations.js'
import { applyGaugeUpdate } from '../helpers/gauge-documents.js'

const start = Date.UTC(2026, 0, 30) // days on both sides of a month's end
const value = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ min: -1e15, max: 1e15, noNaN: true }),
  fc.constantFrom(0, -0, 1e15, -1e15, 5e-324, 42, 42)
)
// few distinct times: ties (equal t) are common
const event = fc.record({
  metric: fc.constantFrom('queue.depth', 'db:pool', 'x'),
  value,
  time: fc.oneof(fc.integer({ min: start, max: start + 4 * 86_400_000 - 1 }), fc.constantFrom(start + 1000, start + 1000, start + 61_000))
})
const horizon = fc.option(fc.integer({ min: start, max: start + 4 * 86_400_000 }), { nil: undefined })
const retention = (h) => (h === undefined ? {} : { keepsMinutes: (metric, dayStart) => metric !== 'queue.depth' || dayStart >= h })
const plain = (v) => (v === 0 ? 0 : v)

/** An independent model of one tier: the statistics of its events, last by (time, value) */
function modelTier (events) {
  const values = events.map(e => plain(e.value))
  const latest = events.reduce((best, e) => (best === null || e.time > best.time || (e.time === best.time && plain(e.value) > plain(best.value)) ? e : best), null)
  return { count: values.length, sum: values.reduce((a, b) => a + b, 0), min: Math.min(...values), max: Math.max(...values), last: { t: new Date(latest.time), v: plain(latest.value) } }
}

describe('one gauge value', () => {
  it('at every tier: count, sum, min, max and last { t, v }', () => {
    const time = Date.UTC(2026, 10, 21, 13, 7, 45, 250)
    const { daily, monthly } = gaugeEventUpdates({ metric: 'queue.depth', value: 17, time })
    const tiers = ['daily', 'hourly.13', 'quarterHourly.13.0', 'minute.13.7']
    const last = { t: time, v: 17 }
    expect(daily).toEqual({
      id: 'queue.depth/20261121',
      date: Date.UTC(2026, 10, 21),
      inc: Object.fromEntries(tiers.flatMap(t => [[`${t}.count`, 1], [`${t}.sum`, 17]])),
      min: Object.fromEntries(tiers.map(t => [`${t}.min`, 17])),
      max: Object.fromEntries(tiers.map(t => [`${t}.max`, 17])),
      last: Object.fromEntries(tiers.map(t => [`${t}.last`, last]))
    })
    expect(monthly).toEqual({
      id: 'queue.depth/202611',
      date: Date.UTC(2026, 10, 1),
      inc: { 'monthly.count': 1, 'monthly.sum': 17, 'daily.21.count': 1, 'daily.21.sum': 17 },
      min: { 'monthly.min': 17, 'daily.21.min': 17 },
      max: { 'monthly.max': 17, 'daily.21.max': 17 },
      last: { 'monthly.last': last, 'daily.21.last': last }
    })
  })

  it('a door\'s summary of several values: its count, sum, min and max, its value the last', () => {
    const time = Date.UTC(2026, 10, 21, 0, 0, 30)
    const { daily } = gaugeEventUpdates({ metric: 'q', value: 4, time, summary: { count: 3, sum: 9, min: -0, max: 5 } })
    expect(daily.inc['minute.0.0.count']).toBe(3)
    expect(daily.inc['minute.0.0.sum']).toBe(9)
    expect(Object.is(daily.min['daily.min'], 0)).toBe(true) // never −0
    expect(daily.max['hourly.0.max']).toBe(5)
    expect(daily.last['quarterHourly.0.0.last']).toEqual({ t: time, v: 4 })
  })

  it('−0 is stored as 0; past the minute horizon no minute, and the day says so', () => {
    const time = Date.UTC(2026, 10, 21, 13, 7)
    const { daily } = gaugeEventUpdates({ metric: 'm', value: -0, time }, { keepsMinutes: () => false })
    expect(Object.keys({ ...daily.inc, ...daily.min, ...daily.max, ...daily.last }).filter(p => p.startsWith('minute.'))).toEqual([])
    expect(daily.detail).toBe(QUARTER_HOUR_DETAIL)
    expect(Object.is(daily.last['daily.last'].v, 0) && Object.is(daily.max['daily.max'], 0)).toBe(true)
  })

  it('isLater orders by time, then by value (BSON\'s order of { t, v })', () => {
    expect(isLater({ t: 2, v: -5 }, { t: 1, v: 100 })).toBe(true)
    expect(isLater({ t: 1, v: 3 }, { t: 1, v: 2 })).toBe(true)
    expect(isLater({ t: 1, v: 2 }, { t: 1, v: 2 })).toBe(false)
    expect(laterLast(undefined, { t: 1, v: 1 })).toEqual({ t: 1, v: 1 })
    expect(laterLast({ t: 3, v: 1 }, { t: 1, v: 9 })).toEqual({ t: 3, v: 1 })
  })
})

describe('a batch of gauge values', () => {
  it('is one update per document, equal to its values\' updates added ($inc added, $min/$max narrowed, the later last)', () => {
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 300 }), horizon, (events, h) => {
      const expected = { daily: new Map(), monthly: new Map() }
      for (const e of events) {
        const updates = gaugeEventUpdates(e, retention(h))
        for (const kind of ['daily', 'monthly']) {
          const { id, date, detail, ...update } = updates[kind]
          const doc = expected[kind].get(id) ?? { metric: e.metric, date, inc: {}, min: {}, max: {}, last: {} }
          for (const [path, v] of Object.entries(update.inc)) doc.inc[path] = (doc.inc[path] ?? 0) + v
          for (const [path, v] of Object.entries(update.min)) doc.min[path] = Math.min(doc.min[path] ?? Infinity, v)
          for (const [path, v] of Object.entries(update.max)) doc.max[path] = Math.max(doc.max[path] ?? -Infinity, v)
          for (const [path, v] of Object.entries(update.last)) doc.last[path] = laterLast(doc.last[path], v)
          if (detail) doc.detail = detail
          expected[kind].set(id, doc)
        }
      }
      const unit = buildGaugeUnit(events, retention(h))
      expect(unit.daily).toEqual(expected.daily)
      expect(unit.monthly).toEqual(expected.monthly)
      expect(unit.events).toBe(events.length)
    }), { numRuns: 200 })
  })

  it('the documents it leaves hold each tier\'s statistics of its values, last by (time, value)', () => {
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 400 }), (events) => {
      const unit = buildGaugeUnit(events)
      for (const update of unit.daily.values()) {
        const doc = applyGaugeUpdate({}, update)
        const ofDay = events.filter(e => e.metric === update.metric && startOfDay(e.time) === update.date)
        // sums added in another order differ by rounding, which grows with Σ|v|
        const scale = ofDay.reduce((s, e) => s + Math.abs(e.value), 0)
        const sameTier = (tier, model) => {
          expect({ ...tier, sum: 0 }).toEqual({ ...model, sum: 0 })
          expect(Math.abs(tier.sum - model.sum)).toBeLessThanOrEqual(1e-12 * scale)
        }
        sameTier(doc.daily, modelTier(ofDay))
        for (const [hour, tier] of Object.entries(doc.hourly)) sameTier(tier, modelTier(ofDay.filter(e => new Date(e.time).getUTCHours() === Number(hour))))
        for (const [hour, minutes] of Object.entries(doc.minute)) {
          for (const [minute, tier] of Object.entries(minutes)) {
            sameTier(tier, modelTier(ofDay.filter(e => new Date(e.time).getUTCHours() === Number(hour) && new Date(e.time).getUTCMinutes() === Number(minute))))
          }
        }
      }
    }), { numRuns: 100 })
  })

  it('last does not depend on the order of the values, nor on how they are cut into flushes', () => {
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 200 }), fc.array(fc.nat(200), { maxLength: 4 }), fc.integer(), (events, cuts, seed) => {
      // a shuffle of the events, cut into units merged as a flush merges them
      let s = seed >>> 0
      const shuffled = [...events]
      for (let i = shuffled.length - 1; i > 0; i--) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0
        const j = s % (i + 1);
        [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]]
      }
      const edges = [0, ...cuts.map(c => c % (shuffled.length + 1)).sort((a, b) => a - b), shuffled.length]
      const units = edges.slice(1).map((end, i) => buildGaugeUnit(shuffled.slice(edges[i], end)))
      const copies = structuredClone(units)
      const merged = mergeGaugeUnits(units)
      const whole = buildGaugeUnit(events)
      const lasts = (u) => [...u.daily, ...u.monthly].map(([id, d]) => [id, d.last, d.min, d.max, Object.fromEntries(Object.entries(d.inc).filter(([p]) => p.endsWith('.count')))]).sort()
      expect(lasts(merged)).toEqual(lasts(whole))
      expect(merged.metrics).toEqual(whole.metrics)
      if (units.length > 1) expect(units).toEqual(copies)
    }), { numRuns: 300 })
  })

  it('writes valid field names only, and no two paths of one update in conflict', () => {
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 200 }), horizon, (events, h) => {
      const unit = buildGaugeUnit(events, retention(h))
      for (const update of [...unit.daily.values(), ...unit.monthly.values()]) {
        // $max holds max and last: one operator, so their paths are checked together with the rest
        const paths = ['inc', 'min', 'max', 'last'].flatMap(kind => Object.keys(update[kind]))
        for (const path of paths) {
          for (const name of path.split('.')) expect(name).toMatch(/^[^$.\0][^.\0]*$/)
          if (path.startsWith('minute.')) expect(path).toMatch(/^minute\.(\d+\.)?\d+\.(count|sum|min|max|last)$/)
        }
        const sorted = [...paths].sort()
        expect(new Set(sorted).size).toBe(sorted.length)
        for (let i = 1; i < sorted.length; i++) expect(sorted[i].startsWith(`${sorted[i - 1]}.`)).toBe(false)
      }
    }), { numRuns: 100 })
  })
})

describe('gauges in a write unit and a flush', () => {
  const events = [
    { metric: 'hits', value: 2, time: start + 5000 },
    { metric: 'depth', value: 7, time: start + 5000, kind: 'gauge' },
    { metric: 'depth', value: 3, time: start + 4000, kind: 'gauge' },
    { metric: 'lat', value: 12, time: start + 5000, kind: 'distribution' }
  ]
  const kindOf = () => distributionKind(0.01)

  it('buildWriteUnit puts a request\'s gauges in gaugeDaily and gaugeMonthly, their registry entries of kind gauge', () => {
    const unit = buildWriteUnit(events, { kindOf })
    expect([...unit.gaugeDaily.keys()]).toEqual(['depth/20260130'])
    expect([...unit.gaugeMonthly.keys()]).toEqual(['depth/202601'])
    expect(unit.gaugeDaily.get('depth/20260130').last['minute.0.0.last']).toEqual({ t: start + 5000, v: 7 })
    expect(unit.gaugeDaily.get('depth/20260130').min['daily.min']).toBe(3)
    expect(unit.metrics.get('depth')).toEqual({ firstSeen: start + 4000, lastSeen: start + 5000, kind: GAUGE })
    expect(unit.metrics.get('hits').kind).toBeUndefined()
    expect([...unit.daily.keys()]).toEqual(['hits/20260130'])
    expect(unit.events).toBe(4)
    // a counters-only unit has empty gauge parts
    const counters = buildWriteUnit([events[0]])
    expect(counters.gaugeDaily.size + counters.gaugeMonthly.size).toBe(0)
  })

  it('mergeWriteUnits keeps the later last of two units, whichever comes first', () => {
    const a = buildWriteUnit([events[1]])
    const b = buildWriteUnit([events[2]])
    for (const order of [[a, b], [b, a]]) {
      const merged = mergeWriteUnits(order)
      expect(merged.gaugeDaily.get('depth/20260130').last['daily.last']).toEqual({ t: start + 5000, v: 7 })
      expect(merged.gaugeDaily.get('depth/20260130').inc['daily.count']).toBe(2)
    }
  })

  it('the update: $inc with sums as BSON doubles, $min, $max holding max and last { t: Date, v } with t first, one upsert', () => {
    const unit = buildWriteUnit(events, { kindOf })
    const { updateOne } = gaugeUpdate('depth/20260130', unit.gaugeDaily.get('depth/20260130'))
    expect(updateOne.filter).toEqual({ _id: 'depth/20260130' })
    expect(updateOne.upsert).toBe(true)
    const { $inc, $min, $max, $setOnInsert } = updateOne.update
    expect($inc['daily.sum']).toBeInstanceOf(Double)
    expect($inc['daily.sum'].valueOf()).toBe(10)
    expect($inc['daily.count']).toBe(2)
    expect($min['daily.min']).toBe(3)
    expect($max['daily.max']).toBe(7)
    expect($max['daily.last']).toEqual({ t: new Date(start + 5000), v: 7 })
    expect(Object.keys($max['daily.last'])).toEqual(['t', 'v'])
    expect($setOnInsert).toEqual({ metric: 'depth', date: new Date(start) })
    // a flush's operations, of its units merged (a distribution's documents are built there)
    const flush = mergeWriteUnits([unit])
    const collections = operationsOf(flush, start).map(p => p.collection)
    expect(collections).toEqual(['daily', 'monthly', 'distributionDaily', 'distributionMonthly', 'distributionMinutes', 'gaugeDaily', 'gaugeMonthly', 'metrics'])
    const registry = operationsOf(flush, start).find(p => p.collection === 'metrics').operations.find(o => o.updateOne.filter._id === 'depth')
    // made with its kind and the time it was added (the name index's looks read it: docs/adr/0086-name-index-reads-what-was-added.md)
    expect(registry.updateOne.update.$setOnInsert).toEqual({ added: new Date(start), lastWrite: new Date(start), kind: 'gauge' })
  })
})

describe('findInvalidGaugeEvent: a door\'s summary', () => {
  const at = { metric: 'q', time: start, kind: 'gauge', value: 4 }
  it('takes a summary whose last value lies within [min, max], and events without one', () => {
    expect(findInvalidGaugeEvent([at, { ...at, summary: { count: 3, sum: 9, min: 1, max: 4 } }, { metric: 'c', value: 1, time: start }])).toBe(null)
  })

  it.each([
    [{ count: 0, sum: 0, min: 4, max: 4 }, /count/],
    [{ count: 1.5, sum: 4, min: 4, max: 4 }, /count/],
    [{ count: 2, sum: 8, min: 5, max: 9 }, /min ≤ value ≤ max/],
    [{ count: 2, sum: 8, min: 4, max: 1e308 }, /min and max/],
    [{ count: 2, sum: NaN, min: 4, max: 4 }, /sum/],
    [{ count: 2, sum: 8, min: 4 }, /min and max/],
    [null, /count, sum, min, max/]
  ])('refuses %j', (summary, message) => {
    const found = findInvalidGaugeEvent([at, { ...at, summary }])
    expect(found).toMatchObject({ index: 1, field: 'summary' })
    expect(found.message).toMatch(message)
  })

  it('refuses a summary on another kind\'s event', () => {
    expect(findInvalidGaugeEvent([{ metric: 'c', value: 1, time: start, summary: { count: 1, sum: 1, min: 1, max: 1 } }])).toMatchObject({ index: 0, message: /only a gauge/ })
  })
})
