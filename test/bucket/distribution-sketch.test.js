import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  MAX_INDEXED_VALUE, MIN_INDEXED_VALUE, accuracyProblem, addValue, bucketField, bucketedCount, bucketIndex, bucketValue, createMapping,
  emptyHistogram, histogramOf, isDistributionValue, mergeHistograms, parseBucketKey, quantile, quantiles
} from '../../src/bucket/distribution-sketch.js'

const QS = [0, 0.01, 0.5, 0.9, 0.99, 0.999, 1]
const ACCURACIES = [0.0001, 0.001, 0.005, 0.01, 0.02, 0.05, 0.5]

// The exact quantile, defined here on its own: the value at the lower rank floor(q·(n−1)) of the sorted values.
function exactQuantile (sorted, q) {
  return sorted[Math.floor(q * (sorted.length - 1))]
}

// Within α relative; a value that counts in the zero bucket (|v| < 1e-9) within 1e-9 absolute.
// The (1 + 1e-9) is rounding: a value on a bucket's edge may land in its neighbour (error exactly α).
function expectWithinAccuracy (estimate, exact, accuracy, what) {
  const error = Math.abs(estimate - exact)
  const bound = Math.abs(exact) < MIN_INDEXED_VALUE ? MIN_INDEXED_VALUE : accuracy * Math.abs(exact) * (1 + 1e-9)
  if (!(error <= bound)) expect.fail(`${what}: estimate ${estimate} of ${exact} is off by ${error}, more than ${bound} (α = ${accuracy})`)
}

// Values as a latency (or any distribution) may hold them, signs and zeros included.
const logUniform = fc.double({ min: -9, max: 15, noNaN: true }).map(e => 10 ** e)
const heavyTailed = fc.tuple(fc.double({ min: 1e-12, max: 1, noNaN: true }), fc.constantFrom(0.3, 0.7, 1, 2), fc.constantFrom(1e-3, 1, 87))
  .map(([u, shape, scale]) => Math.min(MAX_INDEXED_VALUE, scale * u ** (-1 / shape))) // Pareto
const clustered = fc.double({ min: 40, max: 60, noNaN: true })
const belowIndexed = fc.constantFrom(Number.MIN_VALUE, 1e-300, 1e-12, 9.99e-10)
const zero = fc.constantFrom(0, -0)
const magnitude = fc.oneof({ arbitrary: logUniform, weight: 4 }, { arbitrary: heavyTailed, weight: 3 }, { arbitrary: clustered, weight: 2 },
  { arbitrary: belowIndexed, weight: 1 }, { arbitrary: zero, weight: 1 })
const value = fc.tuple(magnitude, fc.nat(3)).map(([m, sign]) => (sign === 0 ? -m : m)) // a quarter negative
const values = fc.array(value, { minLength: 1, maxLength: 5000, size: 'max' })
const accuracy = fc.constantFrom(...ACCURACIES)

describe('the index mapping', () => {
  it('γ = (1+α)/(1−α); index ceil(log_γ v): bucket i holds (γ^(i−1), γ^i]', () => {
    const m = createMapping(0.01)
    expect(m.gamma).toBeCloseTo(1.01 / 0.99, 14)
    expect(bucketIndex(m, 1)).toBe(0)
    expect(bucketIndex(m, 1.0001)).toBe(1)
    expect(bucketIndex(m, 0.9999)).toBe(0)
    expect(Object.is(bucketIndex(m, 0.99999), 0)).toBe(true) // not −0
    expect(bucketIndex(m, m.gamma * 1.0001)).toBe(2)
    expect(bucketIndex(m, 100)).toBe(Math.ceil(Math.log(100) / Math.log(1.01 / 0.99)))
    expect(bucketField(m, 87)).toBe(`positive.${bucketIndex(m, 87)}`)
    expect(bucketField(m, -87)).toBe(`negative.${bucketIndex(m, 87)}`)
    // magnitudes beyond the indexed range are held to its ends (bucketField never asks for them)
    expect(bucketIndex(m, 1e-300)).toBe(m.minIndex)
    expect(bucketIndex(m, 1e300)).toBe(m.maxIndex)
  })

  it('the value a bucket stands for, 2γ^i/(γ+1), is within α of every value the bucket holds', () => {
    fc.assert(fc.property(accuracy, fc.double({ min: MIN_INDEXED_VALUE, max: MAX_INDEXED_VALUE, noNaN: true }), (a, v) => {
      const m = createMapping(a)
      expectWithinAccuracy(bucketValue(m, bucketIndex(m, v)), v, a, `v = ${v}`)
    }), { numRuns: 2000 })
  })

  it('accepts α from 1e-4 to 0.5 and refuses anything else, saying what it takes', () => {
    for (const a of [0.0001, 0.01, 0.5]) expect(accuracyProblem(a)).toBe(null)
    for (const a of [0, -0.01, 0.00009, 0.5000001, 1, 2, NaN, Infinity, Number.MIN_VALUE, '0.01', null, undefined, {}]) {
      expect(accuracyProblem(a)).toMatch(/relative accuracy must be a number from 0.0001 to 0.5/)
      expect(() => createMapping(a)).toThrow(RangeError)
    }
    expect(accuracyProblem(0)).toMatch(/got 0$/)
    expect(accuracyProblem('0.01')).toMatch(/got "0.01"$/)
  })
})

describe('quantiles', () => {
  it('every quantile is within α of the exact one (lower rank), for any values: log-uniform, heavy-tailed, zeros, negatives, 1..5000 of them', () => {
    fc.assert(fc.property(accuracy, values, (a, vs) => {
      const m = createMapping(a)
      const sorted = [...vs].sort((x, y) => x - y)
      const estimates = quantiles(histogramOf(m, vs), m, QS)
      QS.forEach((q, i) => expectWithinAccuracy(estimates[i], exactQuantile(sorted, q), a, `q = ${q}, n = ${vs.length}`))
    }), { numRuns: 120 })
  })

  it('estimates are clamped to [min, max]: a value seen n times is every quantile exactly; the first and last ranks are min and max', () => {
    const m = createMapping(0.02)
    for (const q of QS) expect(quantile(histogramOf(m, [1.2345, 1.2345, 1.2345]), m, q)).toBe(1.2345)
    const h = histogramOf(m, [-7.5, 3, 1000.25])
    expect(quantile(h, m, 0)).toBe(-7.5)
    expect(quantile(h, m, 1)).toBe(1000.25)
    expect(quantile(h, m, 0.49)).toBe(-7.5) // rank floor(0.49 · 2) = 0
    expect(quantile(h, m, 0.5)).not.toBe(3) // the middle rank is an estimate
    expect(quantile(h, m, 0.5)).toBeCloseTo(3, 1)
  })

  it('are in ascending order of q, in the order asked, and null for an empty histogram', () => {
    const m = createMapping(0.01)
    const h = histogramOf(m, [5, -3, 0, 12, 7, 1e-12, -1e6])
    const asked = [1, 0, 0.5, 0.25, 0.75]
    const got = quantiles(h, m, asked)
    expect(got).toEqual(asked.map(q => quantile(h, m, q)))
    const ascending = quantiles(h, m, [0, 0.25, 0.5, 0.75, 1])
    expect(ascending).toEqual([...ascending].sort((x, y) => x - y))
    expect(quantiles(emptyHistogram(), m, [0, 0.5, 1])).toEqual([null, null, null])
    expect(quantile({ count: 0, sum: 0 }, m, 0.5)).toBe(null) // a sparse stored tier: no bucket fields at all
  })

  it('refuses a q outside [0, 1]', () => {
    const m = createMapping(0.01)
    const h = histogramOf(m, [1])
    for (const q of [-0.01, 1.01, NaN, '0.5', null]) expect(() => quantile(h, m, q)).toThrow(RangeError)
  })
})

describe('merge', () => {
  // Every bucket, count, min and max equal; the sum equal but for rounding, which
  // grows with the magnitudes added (Σ|v|), not with the sum they cancel to.
  const sameBuckets = (merged, whole, vs) => {
    expect({ ...merged, sum: 0 }).toEqual({ ...whole, sum: 0 })
    const magnitude = vs.reduce((s, v) => s + Math.abs(v), 0)
    expect(Math.abs(merged.sum - whole.sum)).toBeLessThanOrEqual(1e-12 * magnitude)
  }

  it('the merge of the sketches of a partition is the sketch of the union, bucket for bucket', () => {
    fc.assert(fc.property(accuracy, fc.array(fc.tuple(value, fc.nat(7)), { minLength: 1, maxLength: 2000 }), (a, tagged) => {
      const m = createMapping(a)
      const parts = Array.from({ length: 8 }, () => [])
      for (const [v, part] of tagged) parts[part].push(v)
      const sketches = parts.map(p => histogramOf(m, p))
      const copies = structuredClone(sketches)
      const merged = sketches.reduce((x, y) => mergeHistograms(x, y), emptyHistogram())
      sameBuckets(merged, histogramOf(m, tagged.map(([v]) => v)), tagged.map(([v]) => v))
      expect(sketches).toEqual(copies) // inputs unchanged
    }), { numRuns: 150 })
  })

  it('minutes → quarter-hours → days → a month: merged histograms answer every quantile of every period within α', () => {
    const MINUTE = 60_000
    const start = Date.UTC(2026, 1, 1)
    const event = fc.record({ value, time: fc.integer({ min: start, max: start + 28 * 1440 * MINUTE - 1 }) })
    fc.assert(fc.property(accuracy, fc.array(event, { minLength: 1, maxLength: 3000, size: 'max' }), (a, events) => {
      const m = createMapping(a)
      const byPeriod = (size) => { // values per period of `size` ms
        const periods = new Map()
        for (const e of events) {
          const key = Math.floor((e.time - start) / size)
          periods.set(key, [...(periods.get(key) ?? []), e.value])
        }
        return periods
      }
      const rollUp = (finer, finerSize, size) => { // merge finer histograms into coarser ones
        const coarser = new Map()
        for (const [key, h] of finer) {
          const to = Math.floor(key * finerSize / size)
          coarser.set(to, mergeHistograms(coarser.get(to) ?? emptyHistogram(), h))
        }
        return coarser
      }
      const minutes = new Map([...byPeriod(MINUTE)].map(([k, vs]) => [k, histogramOf(m, vs)]))
      const quarters = rollUp(minutes, MINUTE, 15 * MINUTE)
      const days = rollUp(quarters, 15 * MINUTE, 1440 * MINUTE)
      const month = rollUp(days, 1440 * MINUTE, 28 * 1440 * MINUTE).get(0)
      sameBuckets(month, histogramOf(m, events.map(e => e.value)), events.map(e => e.value))
      for (const [size, merged] of [[15 * MINUTE, quarters], [1440 * MINUTE, days], [28 * 1440 * MINUTE, new Map([[0, month]])]]) {
        for (const [key, vs] of byPeriod(size)) {
          const sorted = vs.sort((x, y) => x - y)
          const estimates = quantiles(merged.get(key), m, QS)
          QS.forEach((q, i) => expectWithinAccuracy(estimates[i], exactQuantile(sorted, q), a, `period ${key} of ${size} ms, q = ${q}`))
        }
      }
    }), { numRuns: 40 })
  })

  it('reads a stored, sparse tier as it comes back from the database', () => {
    const m = createMapping(0.01)
    const stored = { count: 2, sum: 3, min: 1, max: 2, positive: { 0: 1, 35: 1 } } // no zero, no negative side
    expect(mergeHistograms(stored, { count: 1, sum: -1, min: -1, max: -1, negative: { 0: 1 } }))
      .toEqual({ count: 3, sum: 2, min: -1, max: 2, zero: 0, positive: { 0: 1, 35: 1 }, negative: { 0: 1 } })
    expect(quantile(stored, m, 1)).toBe(2)
  })

  it('bucketedCount is the values the buckets hold: count where every value was bucketed, less where a minute tier was merged in', () => {
    const m = createMapping(0.01)
    const h = histogramOf(m, [0, -3, 5, 5, 1e-12])
    expect(bucketedCount(h)).toBe(5)
    expect(bucketedCount({ count: 2, sum: 3, positive: { 0: 1, 35: 1 } })).toBe(2)
    expect(bucketedCount(mergeHistograms(h, { count: 2, sum: 4, min: 1, max: 3 }))).toBe(5)
    expect(bucketedCount({ count: 0, sum: 0 })).toBe(0)
    expect(() => bucketedCount({ count: 1, positive: { '01': 1 } })).toThrow(TypeError)
  })
})

describe('hostile values', () => {
  const m = createMapping(0.01)

  it('NaN, ±Infinity and |v| > 1e15 are refused', () => {
    for (const v of [NaN, Infinity, -Infinity, 1e308, -1e308, Number.MAX_VALUE, 1e15 * (1 + 2 ** -52), '5', null, undefined]) {
      expect(isDistributionValue(v)).toBe(false)
      expect(() => bucketField(m, v)).toThrow(RangeError)
      expect(() => addValue(emptyHistogram(), m, v)).toThrow(RangeError)
    }
  })

  it('0, −0 and |v| < 1e-9 (subnormals too) count in the zero bucket; −0 is stored as 0', () => {
    for (const v of [0, -0, Number.MIN_VALUE, -Number.MIN_VALUE, 1e-300, -9.99e-10]) expect(bucketField(m, v)).toBe('zero')
    expect(bucketField(m, 1e-9)).toBe(`positive.${m.minIndex}`)
    expect(bucketField(m, -1e15)).toBe(`negative.${m.maxIndex}`)
    const h = histogramOf(m, [-0])
    expect(Object.is(h.min, 0) && Object.is(h.max, 0) && Object.is(h.sum, 0)).toBe(true)
    expect(h.zero).toBe(1)
  })

  it('no value opens a bucket outside the stated index range (α = 1 %: −1036..1727, at most 5,529 buckets)', () => {
    expect([m.minIndex, m.maxIndex, m.maxBuckets]).toEqual([-1036, 1727, 5529])
    fc.assert(fc.property(fc.double(), v => { // every double: NaN, ±Infinity, subnormals, ±0 included
      let field
      try { field = bucketField(m, v) } catch (e) {
        expect(e).toBeInstanceOf(RangeError)
        return
      }
      if (field === 'zero') return
      const index = parseBucketKey(field.split('.')[1])
      expect(index).toBeGreaterThanOrEqual(m.minIndex)
      expect(index).toBeLessThanOrEqual(m.maxIndex)
    }), { numRuns: 5000 })
  })

  it('maxBuckets is exact: a value in every bucket of both sides and zero makes that many, and no more', () => {
    for (const a of [0.01, 0.05, 0.5]) {
      const mapping = createMapping(a)
      const fields = new Set(['zero'])
      for (let i = mapping.minIndex; i <= mapping.maxIndex; i++) {
        const v = Math.min(MAX_INDEXED_VALUE, Math.max(MIN_INDEXED_VALUE, bucketValue(mapping, i)))
        fields.add(bucketField(mapping, v)).add(bucketField(mapping, -v))
      }
      expect(fields.size).toBe(mapping.maxBuckets)
    }
  })

  it('the index range is finite for every accepted α, and its keys are short canonical integers', () => {
    fc.assert(fc.property(fc.double({ min: 0.0001, max: 0.5, noNaN: true }), a => {
      const { minIndex, maxIndex, maxBuckets } = createMapping(a)
      expect(Number.isSafeInteger(minIndex) && Number.isSafeInteger(maxIndex)).toBe(true)
      expect(maxIndex - minIndex).toBeLessThan(280_000)
      expect(maxBuckets).toBe(2 * (maxIndex - minIndex + 1) + 1)
      for (const index of [minIndex, maxIndex]) {
        expect(String(index).length).toBeLessThanOrEqual(7)
        expect(parseBucketKey(String(index))).toBe(index)
      }
    }))
  })

  it('counts may be fractional (a StatsD sample rate of 0.3 counts a value 1/0.3 times): ranks are taken among them', () => {
    const h = { count: 10 / 3 + 1, sum: 10 / 3 + 100, positive: { [bucketIndex(m, 1)]: 10 / 3, [bucketIndex(m, 100)]: 1 }, min: 1, max: 100 }
    expect(quantile(h, m, 0.5)).toBe(1)
    expect(quantile(h, m, 1)).toBe(100)
    expect(mergeHistograms(h, h).positive[bucketIndex(m, 1)]).toBeCloseTo(20 / 3, 12)
  })

  it('a stored histogram is read, not trusted: keys that are not canonical integers and counts that are not counts are refused', () => {
    for (const key of ['__proto__', 'constructor', '1.5', '01', '-0', '1e3', ' 1', '+1', '', '$inc', '9999999999999999']) {
      const h = { count: 1, sum: 1, positive: JSON.parse(`{${JSON.stringify(key)}: 1}`) }
      expect(() => quantile(h, m, 0.5), key).toThrow(TypeError)
      expect(() => mergeHistograms(emptyHistogram(), h), key).toThrow(TypeError)
    }
    for (const n of [-1, -0.5, Infinity, '3', NaN, null]) {
      expect(() => quantile({ count: 1, sum: 1, negative: { 3: n } }, m, 0.5)).toThrow(TypeError)
      expect(() => quantile({ count: 1, sum: 1, zero: n }, m, 0.5)).toThrow(TypeError)
    }
    for (const bound of [NaN, Infinity, '3', null]) {
      expect(() => quantile({ count: 1, sum: 1, zero: 1, min: bound }, m, 0.5)).toThrow(TypeError)
      expect(() => quantile({ count: 1, sum: 1, zero: 1, max: bound }, m, 0.5)).toThrow(TypeError)
    }
  })
})
