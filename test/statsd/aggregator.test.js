import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createAggregator, ingestEvents } from '../../src/statsd/aggregator.js'

const T0 = Date.UTC(2026, 0, 15, 10, 30, 0)
const dist = (metric, value, weight = 1) => ({ metric, value, kind: 'distribution', weight })

describe('createAggregator', () => {
  it('merges counter samples into one event per metric per minute, at the minute start', () => {
    const agg = createAggregator()
    agg.add([{ metric: 'a', value: 1 }], T0 + 1000)
    agg.add([{ metric: 'a', value: 2 }], T0 + 59_999)
    agg.add([{ metric: 'a', value: 4 }], T0 + 60_000)
    agg.add([{ metric: 'b', value: 1 }, { metric: 'b', value: 7 }], T0)
    expect(agg.size).toBe(3)
    expect(agg.values).toBe(5)
    const { events, values } = agg.take()
    expect(values).toBe(5)
    expect(events).toEqual(expect.arrayContaining([
      { metric: 'a', value: 3, time: T0, values: 2 },
      { metric: 'a', value: 4, time: T0 + 60_000, values: 1 },
      { metric: 'b', value: 8, time: T0, values: 2 }
    ]))
    expect(events).toHaveLength(3)
    expect(agg.size).toBe(0)
    expect(agg.take()).toEqual({ events: [], values: 0 })
  })

  it('merges distribution samples per metric, minute and value, adding their weights', () => {
    const agg = createAggregator()
    agg.add([dist('lat', 87)], T0 + 1000)
    agg.add([dist('lat', 87, 10)], T0 + 2000)
    agg.add([dist('lat', 12.5)], T0 + 3000)
    agg.add([dist('lat', 87)], T0 + 60_000)
    agg.add([dist('other', 87)], T0)
    expect(agg.size).toBe(4)
    expect(agg.values).toBe(5)
    const { events, values } = agg.take()
    expect(values).toBe(5)
    expect(events).toEqual(expect.arrayContaining([
      { metric: 'lat', value: 87, time: T0, kind: 'distribution', weight: 11, values: 2 },
      { metric: 'lat', value: 12.5, time: T0, kind: 'distribution', weight: 1, values: 1 },
      { metric: 'lat', value: 87, time: T0 + 60_000, kind: 'distribution', weight: 1, values: 1 },
      { metric: 'other', value: 87, time: T0, kind: 'distribution', weight: 1, values: 1 }
    ]))
    expect(events).toHaveLength(4)
  })

  it('the same value 10,000 times is one event of weight 10,000', () => {
    const agg = createAggregator()
    for (let i = 0; i < 10_000; i++) agg.add([dist('api.latency', 42)], T0 + i)
    expect(agg.size).toBe(1)
    expect(agg.take()).toEqual({ events: [{ metric: 'api.latency', value: 42, time: T0, kind: 'distribution', weight: 10_000, values: 10_000 }], values: 10_000 })
  })

  it('a counter and a distribution of one name in one minute stay two events', () => {
    const agg = createAggregator()
    agg.add([{ metric: 'x', value: 1 }, dist('x', 1), { metric: 'x', value: 2 }, dist('x', 1, 2)], T0)
    const { events } = agg.take()
    expect(events).toEqual(expect.arrayContaining([
      { metric: 'x', value: 3, time: T0, values: 2 },
      { metric: 'x', value: 1, time: T0, kind: 'distribution', weight: 3, values: 2 }
    ]))
    expect(events).toHaveLength(2)
  })

  it('never holds a sum or a weight beyond 1e15: a second event carries the rest', () => {
    const agg = createAggregator()
    agg.add([{ metric: 'a', value: 9e14 }], T0)
    agg.add([{ metric: 'a', value: 9e14 }], T0)
    agg.add([dist('t', 5, 9e14)], T0)
    agg.add([dist('t', 5, 9e14)], T0)
    agg.add([dist('t', 5, 1e14)], T0)
    expect(agg.size).toBe(4)
    const { events } = agg.take()
    expect(events).toEqual(expect.arrayContaining([
      { metric: 'a', value: 9e14, time: T0, values: 1 },
      { metric: 'a', value: 9e14, time: T0, values: 1 },
      { metric: 't', value: 5, time: T0, kind: 'distribution', weight: 9e14, values: 1 },
      { metric: 't', value: 5, time: T0, kind: 'distribution', weight: 1e15, values: 2 }
    ]))
  })

  it('adds() tells whether a sample would add an event: a new counter name, or a new distribution value', () => {
    const agg = createAggregator()
    expect(agg.adds({ metric: 'a', value: 1 }, T0)).toBe(true)
    agg.add([{ metric: 'a', value: 1 }], T0)
    expect(agg.adds({ metric: 'a', value: 5 }, T0 + 5)).toBe(false)
    expect(agg.adds({ metric: 'a', value: 1 }, T0 + 60_000)).toBe(true)
    expect(agg.adds(dist('a', 1), T0)).toBe(true) // a's counter is not its distribution
    agg.add([dist('t', 87)], T0)
    expect(agg.adds(dist('t', 87, 10), T0 + 5)).toBe(false)
    expect(agg.adds(dist('t', 88), T0 + 5)).toBe(true)
    expect(agg.adds(dist('t', 87), T0 + 60_000)).toBe(true)
    expect(agg.adds({ metric: 't', value: 87 }, T0)).toBe(true)
  })

  it('ingestEvents: kind and weight for a distribution, neither for a counter, never values', () => {
    const agg = createAggregator()
    agg.add([{ metric: 'c', value: 2 }, dist('d', 7, 10)], T0)
    expect(ingestEvents(agg.take().events)).toEqual([
      { metric: 'c', value: 2, time: T0 },
      { metric: 'd', value: 7, time: T0, kind: 'distribution', weight: 10 }
    ])
  })

  it('property: per (metric, minute) counter totals equal the model\'s sums, with fewer or as many events as samples', () => {
    const sample = fc.record({
      metric: fc.constantFrom('a', 'b', 'c.d'),
      value: fc.integer({ min: -1000, max: 1000 }),
      offset: fc.integer({ min: 0, max: 5 * 60_000 })
    })
    fc.assert(fc.property(fc.array(sample, { maxLength: 200 }), (samples) => {
      const agg = createAggregator()
      const model = new Map()
      for (const { metric, value, offset } of samples) {
        agg.add([{ metric, value }], T0 + offset)
        const key = `${metric}@${Math.floor(offset / 60_000)}`
        model.set(key, (model.get(key) ?? 0) + value)
      }
      const { events, values } = agg.take()
      expect(values).toBe(samples.length)
      expect(events.length).toBe(model.size)
      expect(events.reduce((n, e) => n + e.values, 0)).toBe(samples.length)
      for (const e of events) {
        expect(e.time % 60_000).toBe(0)
        expect(e.value).toBe(model.get(`${e.metric}@${(e.time - T0) / 60_000}`))
      }
    }))
  })

  it('property: distributions lose nothing: per (metric, minute) the weighted values, so count, sum, min and max, equal the model\'s', () => {
    const sample = fc.record({
      metric: fc.constantFrom('t', 'u.v'),
      value: fc.oneof(fc.constantFrom(0, 1, 87, 1e-300, -3.5, 1e15), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map(v => v === 0 ? 0 : v)),
      weight: fc.constantFrom(1, 2, 4, 10, 0.5),
      offset: fc.integer({ min: 0, max: 3 * 60_000 })
    })
    fc.assert(fc.property(fc.array(sample, { maxLength: 300 }), (samples) => {
      const agg = createAggregator()
      const model = new Map() // metric@minute → Map(value → weight)
      const distinct = new Set()
      for (const { metric, value, weight, offset } of samples) {
        agg.add([dist(metric, value, weight)], T0 + offset)
        const key = `${metric}@${Math.floor(offset / 60_000)}`
        if (!model.has(key)) model.set(key, new Map())
        const values = model.get(key)
        values.set(value, (values.get(value) ?? 0) + weight)
        distinct.add(`${key}#${value}`)
      }
      expect(agg.size).toBe(distinct.size)
      const { events, values } = agg.take()
      expect(values).toBe(samples.length)
      expect(events.length).toBe(distinct.size) // one event per distinct value, however many samples
      expect(events.reduce((n, e) => n + e.values, 0)).toBe(samples.length)
      const got = new Map()
      for (const e of events) {
        expect(e.kind).toBe('distribution')
        expect(e.time % 60_000).toBe(0)
        const key = `${e.metric}@${(e.time - T0) / 60_000}`
        if (!got.has(key)) got.set(key, new Map())
        got.get(key).set(e.value, (got.get(key).get(e.value) ?? 0) + e.weight)
      }
      // the same multiset of weighted values: every statistic of them (count, sum, min, max, any histogram) agrees
      expect(got).toEqual(model)
    }))
  })
})

describe('createAggregator: gauges', () => {
  const level = (metric, value) => ({ metric, value, kind: 'gauge' })

  it('summarises a gauge\'s levels per metric and minute: count, sum, min, max, and the last by arrival, at the latest time its values arrived', () => {
    const agg = createAggregator()
    agg.add([level('q', 5)], T0 + 1000)
    agg.add([level('q', 9), level('q', -1)], T0 + 2000)
    agg.add([level('q', 3)], T0 + 1500) // arrives last (the clock stepped back): the last level, at the latest time
    agg.add([level('q', 4)], T0 + 60_000)
    agg.add([level('other', 4), { metric: 'q', value: 2 }], T0)
    expect(agg.size).toBe(4) // q's two minutes, other, and q as a counter
    const { events, values } = agg.take()
    expect(values).toBe(7)
    expect(events).toEqual(expect.arrayContaining([
      { metric: 'q', value: 3, time: T0 + 2000, kind: 'gauge', count: 4, sum: 16, min: -1, max: 9, values: 4 },
      { metric: 'q', value: 4, time: T0 + 60_000, kind: 'gauge', count: 1, sum: 4, min: 4, max: 4, values: 1 },
      { metric: 'other', value: 4, time: T0, kind: 'gauge', count: 1, sum: 4, min: 4, max: 4, values: 1 },
      { metric: 'q', value: 2, time: T0, values: 1 }
    ]))
  })

  it('adds() is false for a gauge already held in that minute, whatever its level', () => {
    const agg = createAggregator()
    agg.add([level('q', 5)], T0)
    expect(agg.adds(level('q', 100), T0 + 59_000)).toBe(false)
    expect(agg.adds(level('q', 5), T0 + 60_000)).toBe(true)
    expect(agg.adds({ metric: 'q', value: 5 }, T0)).toBe(true)
  })

  it('ingestEvents: a single level as it is, several as a summary with their last; never values', () => {
    const agg = createAggregator()
    agg.add([level('one', 7)], T0)
    agg.add([level('many', 7), level('many', 1)], T0 + 10)
    expect(ingestEvents(agg.take().events)).toEqual([
      { metric: 'one', value: 7, time: T0, kind: 'gauge' },
      { metric: 'many', value: 1, time: T0 + 10, kind: 'gauge', summary: { count: 2, sum: 8, min: 1, max: 7 } }
    ])
  })

  it('property: per (metric, minute) the summary is the model\'s, and its last the level that arrived last', () => {
    fc.assert(fc.property(fc.array(fc.record({ metric: fc.constantFrom('a', 'b'), value: fc.integer({ min: -1e6, max: 1e6 }), at: fc.nat(180_000) }), { maxLength: 200 }), (samples) => {
      const agg = createAggregator()
      const model = new Map()
      for (const { metric, value, at } of samples) {
        agg.add([level(metric, value)], T0 + at)
        const key = `${metric} ${Math.floor(at / 60_000)}`
        const m = model.get(key) ?? { count: 0, sum: 0, min: Infinity, max: -Infinity }
        model.set(key, { count: m.count + 1, sum: m.sum + value, min: Math.min(m.min, value), max: Math.max(m.max, value), value, time: Math.max(m.time ?? -Infinity, T0 + at) })
      }
      const { events } = agg.take()
      expect(events).toHaveLength(model.size)
      for (const e of events) {
        const { values, kind, metric, ...summary } = e
        expect(summary).toEqual(model.get(`${metric} ${Math.floor((e.time - T0) / 60_000)}`))
        expect(values).toBe(summary.count)
      }
    }))
  })
})

describe('createAggregator: stampGauge', () => {
  const level = (metric, value) => ({ metric, value, kind: 'gauge' })

  it('gives each taken gauge event the time stampGauge says, and nothing else', () => {
    const stamped = []
    const agg = createAggregator({ stampGauge: (metric, time) => { stamped.push([metric, time]); return time + 1 } })
    agg.add([level('q', 9), { metric: 'c', value: 1 }, { metric: 'd', value: 1, kind: 'distribution', weight: 1 }], T0 + 5)
    expect(agg.take().events.map(e => [e.metric, e.time])).toEqual([['q', T0 + 6], ['c', T0], ['d', T0]])
    expect(stamped).toEqual([['q', T0 + 5]])
  })
})
