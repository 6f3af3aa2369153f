// Bucket field names ('zero', 'positive.<index>', 'negative.<index>') made
// once per mapping index instead of once per value: the write path names a
// value's bucket at every tier of every value it adds, and a cached string
// also keeps its hash, so the Maps and objects it keys find it at once.
// The same names as distribution-sketch.js's bucketField, which stays the
// definition (the test compares the two over a mapping's whole index range).
import { MAX_INDEXED_VALUE, MIN_INDEXED_VALUE, bucketField, bucketIndex } from './distribution-sketch.js'
import { internalized } from './internalized.js'

const caches = new WeakMap() // mapping → its fields

/**
 * The bucket fields of `mapping`: fieldOf(value) → bucketField(mapping, value)
 * (a RangeError for the same values), and positive(index) / negative(index),
 * the field of an index of [minIndex, maxIndex] on each side.
 */
export function bucketFields (mapping) {
  let fields = caches.get(mapping)
  if (!fields) {
    fields = makeFields(mapping)
    caches.set(mapping, fields)
  }
  return fields
}

function makeFields (mapping) {
  const { minIndex } = mapping
  // filled as values arrive: a mapping of fine accuracy has ~276,000 indices a side, of which a service meets few
  const positives = []
  const negatives = []
  const positive = (index) => (positives[index - minIndex] ??= internalized(`positive.${index}`))
  const negative = (index) => (negatives[index - minIndex] ??= internalized(`negative.${index}`))
  function fieldOf (value) {
    if (typeof value === 'number') {
      // bucketField's tests, in its order: NaN and ±Infinity fail both
      if (value >= MIN_INDEXED_VALUE && value <= MAX_INDEXED_VALUE) return positive(bucketIndex(mapping, value))
      if (value <= -MIN_INDEXED_VALUE && value >= -MAX_INDEXED_VALUE) return negative(bucketIndex(mapping, -value))
    }
    // 'zero', and every value bucketField refuses (it throws the RangeError)
    return bucketField(mapping, value)
  }
  return Object.freeze({ fieldOf, positive, negative })
}
