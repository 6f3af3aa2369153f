import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createAggregator } from '../../src/statsd/aggregator.js'

const T0 = Date.UTC(2026, 0, 15, 10, 30, 0)

describe('createAggregator', () => {
  it('merges samples into one event per metric per minute, at the minute start', () => {
    const agg = createAggregator()
    agg.add([{ metric: 'a', value: 1 }], T0 + 1000)
    agg.add([{ metric: 'a', value: 2 }], T0 + 59_999)
    agg.add([{ metric: 'a', value: 4 }], T0 + 60_000)
    agg.add([{ metric: 'b.count', value: 1 }, { metric: 'b.sum', value: 7 }], T0)
    expect(agg.size).toBe(4)
    expect(agg.values).toBe(4)
    const { events, values } = agg.take()
    expect(values).toBe(4)
    expect(events).toEqual(expect.arrayContaining([
      { metric: 'a', value: 3, time: T0, values: 2 },
      { metric: 'a', value: 4, time: T0 + 60_000, values: 1 },
      { metric: 'b.count', value: 1, time: T0, values: 1 },
      { metric: 'b.sum', value: 7, time: T0, values: 0 }
    ]))
    expect(events).toHaveLength(4)
    expect(agg.size).toBe(0)
    expect(agg.take()).toEqual({ events: [], values: 0 })
  })

  it('never holds a sum beyond 1e15: a second event carries the rest', () => {
    const agg = createAggregator()
    agg.add([{ metric: 'a', value: 9e14 }], T0)
    agg.add([{ metric: 'a', value: 9e14 }], T0)
    const { events } = agg.take()
    expect(events).toEqual([{ metric: 'a', value: 9e14, time: T0, values: 1 }, { metric: 'a', value: 9e14, time: T0, values: 1 }])
  })

  it('adds() tells whether a sample would add an event', () => {
    const agg = createAggregator()
    expect(agg.adds('a', T0)).toBe(true)
    agg.add([{ metric: 'a', value: 1 }], T0)
    expect(agg.adds('a', T0 + 5)).toBe(false)
    expect(agg.adds('a', T0 + 60_000)).toBe(true)
  })

  it('property: per (metric, minute) totals equal the model\'s sums, with fewer or as many events as samples', () => {
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
})
