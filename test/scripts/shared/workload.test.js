// What the load generator and the benchmark share (pure): metric names, the
// seeded random, percentiles.
import { describe, expect, it } from 'vitest'
import { metricNames, percentile, seededRandom } from '../../../scripts/shared/workload.js'

describe('workload', () => {
  it('names metrics with a prefix and zero-padded numbers', () => {
    expect(metricNames('lg.', 3)).toEqual(['lg.m000', 'lg.m001', 'lg.m002'])
    expect(metricNames('x', 1001).at(-1)).toBe('xm1000')
  })

  it('has a seeded random that repeats and stays in [0, 1)', () => {
    const a = seededRandom(42); const b = seededRandom(42); const c = seededRandom(43)
    const xs = Array.from({ length: 1000 }, a)
    expect(Array.from({ length: 1000 }, b)).toEqual(xs)
    expect(c()).not.toBe(xs[0])
    expect(xs.every(x => x >= 0 && x < 1)).toBe(true)
    expect(Math.abs(xs.reduce((s, x) => s + x, 0) / xs.length - 0.5)).toBeLessThan(0.05)
  })

  it('takes percentiles by the nearest rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i) // 100..1, unsorted
    expect(percentile(xs, 50)).toBe(50)
    expect(percentile(xs, 99)).toBe(99)
    expect(percentile(xs, 100)).toBe(100)
    expect(percentile(xs, 0)).toBe(1)
    expect(percentile([7], 99)).toBe(7)
    expect(percentile([], 50)).toBeNull()
    expect(percentile([3, 1, 2, 10], 50)).toBe(2)
  })
})
