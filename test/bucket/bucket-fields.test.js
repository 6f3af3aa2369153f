import { describe, expect, it } from 'vitest'
import { bucketFields } from '../../src/bucket/bucket-fields.js'
import { MAX_INDEXED_VALUE, MIN_INDEXED_VALUE, bucketField, createMapping } from '../../src/bucket/distribution-sketch.js'

// bucketField's answer for v: its field, or the error it throws
function outcome (f, v) {
  try {
    return f(v)
  } catch (err) {
    return err.constructor.name
  }
}

describe('cached bucket fields', () => {
  it('name every index of the range, on both sides, as bucketField does', () => {
    for (const accuracy of [0.5, 0.05, 0.01, 0.001]) {
      const mapping = createMapping(accuracy)
      const fields = bucketFields(mapping)
      expect(bucketFields(mapping)).toBe(fields) // one cache per mapping
      for (let i = mapping.minIndex; i <= mapping.maxIndex; i++) {
        expect(fields.positive(i)).toBe(`positive.${i}`)
        expect(fields.negative(i)).toBe(`negative.${i}`)
        // values in bucket i and on its edges (γ^(i−1), γ^i], wherever rounding puts them
        for (const m of [Math.exp(i * mapping.lnGamma), Math.exp((i - 0.5) * mapping.lnGamma), Math.exp((i - 1) * mapping.lnGamma) * (1 + 1e-12)]) {
          for (const v of [m, -m]) expect(outcome(fields.fieldOf, v)).toBe(outcome(v => bucketField(mapping, v), v))
        }
      }
    }
  })

  it('zero, the ends of the indexed magnitudes and beyond them as bucketField does, and refuse what it refuses', () => {
    const mapping = createMapping(0.01)
    const { fieldOf } = bucketFields(mapping)
    const edges = [0, -0, 5e-324, -5e-324, 1e-12, -1e-12, MIN_INDEXED_VALUE, -MIN_INDEXED_VALUE, MIN_INDEXED_VALUE * 0.999, MAX_INDEXED_VALUE, -MAX_INDEXED_VALUE, 1, -1]
    for (const v of edges) expect(fieldOf(v)).toBe(bucketField(mapping, v))
    expect(fieldOf(0)).toBe('zero')
    for (const bad of [NaN, Infinity, -Infinity, MAX_INDEXED_VALUE * 1.0001, -1e308, '5', null, undefined]) {
      expect(() => bucketField(mapping, bad)).toThrow(RangeError)
      expect(() => fieldOf(bad)).toThrow(RangeError)
    }
  })
})
