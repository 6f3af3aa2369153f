// What the load generator and the benchmark both make and measure the same
// way: metric names, a seeded random, percentiles. Pure.

/** Metric names of a run: prefix + m000, m001, … */
export function metricNames (prefix, count) {
  const width = Math.max(3, String(count - 1).length)
  return Array.from({ length: count }, (_, i) => `${prefix}m${String(i).padStart(width, '0')}`)
}

/** A small seeded PRNG (mulberry32): () => [0, 1) */
export function seededRandom (seed) {
  let a = seed >>> 0
  return function random () {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Nearest-rank percentile (p in 0..100) of an array of numbers; null when empty */
export function percentile (values, p) {
  if (values.length === 0) return null
  const sorted = Float64Array.from(values).sort()
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[Math.min(rank, sorted.length) - 1]
}
