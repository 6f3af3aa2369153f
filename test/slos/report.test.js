// The report's arithmetic (src/slos/report.js): the budget's floor is exact
// where (1 − target) × total in doubles is not; burn rates and the status.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { SelectorCountError, allowedBad, buildReport, burnRate, statusOf } from '../../src/slos/report.js'

const parts = target => { const digits = target.toFixed(9).replace(/0+$/, '').slice(2); return { numerator: BigInt(digits), denominator: 10n ** BigInt(digits.length) } }

describe('allowedBad: ⌊(1 − target) × total⌋ exactly', () => {
  it.each([
    [0.9, 10, 1], // doubles: 0.09999999999999998 × 10 = 0.9999999999999998 → 0
    [0.9, 30, 3], // doubles: 2.9999999999999996 → 2
    [0.999, 1000, 1], [0.999, 999, 0], [0.99, 100, 1], [0.7, 10, 3], [0.123456789, 1_000_000_000, 876_543_211], [0.999999999, 2 ** 53 - 1, 9_007_199]
  ])('target %d, %d events: %d bad allowed', (target, total, allowed) => {
    expect(allowedBad(total, parts(target))).toBe(allowed)
  })

  it('equals the rational floor for any total and target of up to 9 decimals', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 999_999_999 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n, places, total) => {
      const den = 10 ** places
      const numerator = n % den || 1
      const target = numerator / den
      const p = parts(target)
      // the floor of (den − num) × total / den, by long division on the decimal string
      const product = BigInt(total) * (p.denominator - p.numerator)
      expect(allowedBad(total, p)).toBe(Number(product / p.denominator))
      expect(allowedBad(total, p)).toBeLessThanOrEqual(total)
    }))
  })
})

describe('burn rates and status', () => {
  it('the bad fraction ÷ the allowed fraction; null without events', () => {
    expect(burnRate(1, 1000, parts(0.999))).toBe(1)
    expect(burnRate(144, 10_000, parts(0.999))).toBe(14.4)
    expect(burnRate(0, 5, parts(0.99))).toBe(0)
    expect(burnRate(0, 0, parts(0.99))).toBe(null)
    // a window whose good passes its total for a moment (two writes landing apart): no negative rate
    expect(burnRate(-2, 5, parts(0.99))).toBe(0)
  })

  it('a period whose good passes its total, or whose bad does, is a SelectorCountError naming both counts; fractional counts within rounding are not', () => {
    const period = { label: '2026-11', days: [{ day: '2026-11-01' }, { day: '2026-11-02' }], current: false, from: 0, to: 1 }
    const report = (indicator, good, total) => buildReport({ name: 's', indicator, target: 0.99, targetParts: parts(0.99), window: { zone: 'UTC', rolling: false } }, period, [], { good, total }, 0, 0)
    expect(() => report({ good: {} }, [6, 4], [5, 4])).toThrow(new SelectorCountError('the good selector counts 10 events in 2026-11 and the total 9: it must count a subset of the total\'s events (check both selectors\' metric and tags)'))
    // a bad selector's good is total − bad: bad 12 of 9 is good −3
    expect(() => report({ bad: {} }, [-4, 1], [5, 4])).toThrow(/^the bad selector counts 12 events in 2026-11 and the total 9/)
    const rounded = report({ good: {} }, [0.1 + 0.2, 0], [0.3, 0])
    expect(rounded.good).toBeGreaterThan(rounded.total) // by rounding only: read, not refused
    expect(rounded.good).toBeCloseTo(rounded.total, 12)
  })

  it.each([
    [{ total: 0, budget: { remaining: 0 }, projectedAttainment: null, target: 0.99 }, 'no data'],
    [{ total: 10, budget: { remaining: -1 }, projectedAttainment: 0.99, target: 0.99 }, 'breached'],
    [{ total: 10, budget: { remaining: 0 }, projectedAttainment: 0.98, target: 0.99 }, 'at risk'],
    [{ total: 10, budget: { remaining: 0 }, projectedAttainment: 0.99, target: 0.99 }, 'met']
  ])('%j → %s', (report, status) => expect(statusOf(report)).toBe(status))
})
