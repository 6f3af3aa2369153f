// DDSketch, the part statbucket stores: the log-bucket index of a value for a
// relative accuracy α, the value a bucket stands for, the sparse histogram a
// tier of a distribution document keeps, its merge (addition: what $inc
// does), and quantiles over it. Pure. The stored shape, the index bound and
// the rank rule are argued in docs/adr/0037-distributions-ddsketch-histograms.md.
//
// A histogram, as stored at a tier and as handled here:
//   { count, sum, min, max,            // min/max absent while count is 0
//     zero: n,                         // values with |v| < MIN_INDEXED_VALUE, 0 and −0
//     positive: { '<index>': n },      // v > 0 in bucket (γ^(index−1), γ^index]
//     negative: { '<index>': n } }     // v < 0, by the index of |v|
// Every part but count and sum may be absent (sparse). Keys are canonical
// decimal integers ('-1036', '0', '17'): valid MongoDB field names (no dot, no
// leading '$'), parsed back with parseBucketKey and never sorted as strings.
import { MAX_ABS_VALUE, isEventValue } from './event-rules.js'

export const DEFAULT_ACCURACY = 0.01
// Beyond 0.5 (γ = 3) a bucket spans more than a factor of 3: no longer a percentile worth the name.
export const MAX_ACCURACY = 0.5
// Buckets per side grow as ln(MAX/MIN)/ln γ ≈ 27.6/α, and without a floor
// the range is not even finite (α = 5e-324 makes ln γ subnormal and every
// index ±Infinity). 0.01 % is finer than any latency needs; it still allows
// ~276,000 buckets per side, which the ingest budget has to bound.
export const MIN_ACCURACY = 0.0001
// The index range is bounded by the magnitudes it indexes: below this one a
// value counts in the zero bucket (DDSketch's minIndexableValue), so a
// subnormal such as 5e-324 cannot open ~37,000 buckets at α = 1 %; an estimate
// for such a value is off by less than 1e-9 absolute instead of α relative.
export const MIN_INDEXED_VALUE = 1e-9
// Above this one a value is refused (the event rule every door applies).
export const MAX_INDEXED_VALUE = MAX_ABS_VALUE

/** Why `accuracy` cannot be a relative accuracy (a message), or null */
export function accuracyProblem (accuracy) {
  if (typeof accuracy !== 'number' || !(accuracy >= MIN_ACCURACY && accuracy <= MAX_ACCURACY)) {
    return `relative accuracy must be a number from ${MIN_ACCURACY} to ${MAX_ACCURACY} (0.01 is 1 %); got ${typeof accuracy === 'number' ? accuracy : JSON.stringify(accuracy) ?? String(accuracy)}`
  }
  return null
}

/**
 * The index mapping for relative accuracy α: γ = (1+α)/(1−α), and the index
 * range [minIndex, maxIndex] that |v| in [MIN_INDEXED_VALUE, MAX_INDEXED_VALUE]
 * maps to (at α = 0.01: −1036..1727; at MIN_ACCURACY −103,616..172,694, so a key
 * has at most 7 characters), and maxBuckets, the most buckets one histogram
 * can hold (5,529 at α = 0.01). Throws RangeError for a bad α.
 */
export function createMapping (accuracy) {
  const problem = accuracyProblem(accuracy)
  if (problem) throw new RangeError(problem)
  const gammaMinusOne = 2 * accuracy / (1 - accuracy)
  // log1p keeps ln γ precise for small α, where 1 + (γ − 1) would round
  const lnGamma = Math.log1p(gammaMinusOne)
  const mapping = { accuracy, gamma: 1 + gammaMinusOne, lnGamma, minIndex: 0, maxIndex: 0, maxBuckets: 0 }
  mapping.minIndex = rawIndex(mapping, MIN_INDEXED_VALUE)
  mapping.maxIndex = rawIndex(mapping, MAX_INDEXED_VALUE)
  // the most buckets one histogram can hold: both sides' full range and the zero bucket
  mapping.maxBuckets = 2 * (mapping.maxIndex - mapping.minIndex + 1) + 1
  return Object.freeze(mapping)
}

// + 0: ceil of a small negative ratio is −0, which would read back as 0 anyway
const rawIndex = ({ lnGamma }, magnitude) => Math.ceil(Math.log(magnitude) / lnGamma) + 0

/** ceil(log_γ magnitude) for a magnitude > 0, held to [minIndex, maxIndex] (outside the indexed magnitudes, and against rounding at their ends) */
export function bucketIndex (mapping, magnitude) {
  return Math.min(mapping.maxIndex, Math.max(mapping.minIndex, rawIndex(mapping, magnitude)))
}

/**
 * The value bucket `index` stands for, 2γ^index/(γ+1): within α (relative)
 * of every magnitude in (γ^(index−1), γ^index]. (A magnitude on a bucket's
 * edge may round into its neighbour: then within α plus rounding.)
 */
export function bucketValue (mapping, index) {
  return 2 * Math.exp(index * mapping.lnGamma) / (mapping.gamma + 1)
}

/** Whether a distribution may hold `value`: finite, |value| ≤ MAX_INDEXED_VALUE (the event rule) */
export const isDistributionValue = isEventValue

export const bucketKey = (index) => String(index)
const BUCKET_KEY = /^(?:0|-?[1-9][0-9]{0,14})$/

/** The index a stored bucket key names, or null for anything but a canonical integer */
export function parseBucketKey (key) {
  return BUCKET_KEY.test(key) ? Number(key) : null
}

/**
 * Where `value` counts in a histogram, as the path below the tier:
 * 'zero', 'positive.<index>' or 'negative.<index>'. Throws RangeError for a
 * value a distribution may not hold (NaN, ±Infinity, |v| > 1e15): the doors
 * refuse those before (isDistributionValue).
 */
export function bucketField (mapping, value) {
  if (!isDistributionValue(value)) throw new RangeError(`${value} is not a distribution value (finite, |value| ≤ ${MAX_INDEXED_VALUE})`)
  if (value >= MIN_INDEXED_VALUE) return `positive.${bucketIndex(mapping, value)}`
  if (value <= -MIN_INDEXED_VALUE) return `negative.${bucketIndex(mapping, -value)}`
  return 'zero'
}

export function emptyHistogram () {
  return { count: 0, sum: 0, zero: 0, positive: {}, negative: {} }
}

/** Adds one value to `histogram` in place (see bucketField for the values refused) */
export function addValue (histogram, mapping, value) {
  const field = bucketField(mapping, value)
  const v = value === 0 ? 0 : value // −0 is stored as 0
  histogram.count += 1
  histogram.sum += v
  if (!(histogram.min <= v)) histogram.min = v
  if (!(histogram.max >= v)) histogram.max = v
  if (field === 'zero') histogram.zero = (histogram.zero ?? 0) + 1
  else {
    const [side, key] = field.split('.')
    const counts = (histogram[side] ??= {})
    counts[key] = (counts[key] ?? 0) + 1
  }
  return histogram
}

/** The histogram of `values` */
export function histogramOf (mapping, values) {
  const histogram = emptyHistogram()
  for (const v of values) addValue(histogram, mapping, v)
  return histogram
}

/**
 * The (index, count) pairs of one side of a stored histogram. A key that is
 * not a canonical integer, or a count that is not a finite number ≥ 0
 * (StatsD sample rates make fractional counts: @0.3 counts 1/0.3), is
 * a TypeError: a document is read, never trusted (and '__proto__' never
 * becomes a lookup).
 */
function sideEntries (counts) {
  const entries = []
  for (const key of Object.keys(counts ?? {})) {
    const index = parseBucketKey(key)
    const n = counts[key]
    if (index === null) throw new TypeError(`histogram bucket key ${JSON.stringify(key)} is not an integer index`)
    if (!isCount(n)) throw new TypeError(`histogram bucket ${key} holds ${n}, not a count`)
    entries.push([index, n])
  }
  return entries
}

const isCount = (n) => typeof n === 'number' && Number.isFinite(n) && n >= 0

function zeroCount (histogram) {
  const n = histogram.zero === undefined ? 0 : histogram.zero
  if (!isCount(n)) throw new TypeError(`histogram zero bucket holds ${n}, not a count`)
  return n
}

/**
 * How many values a histogram's buckets hold (zero bucket and both sides):
 * its count, where every value it counts was bucketed. Less where it counts
 * values kept without a bucket (a minute tier merged in), so its quantiles
 * would rank among some of its values only. Throws TypeError as quantiles does.
 */
export function bucketedCount (histogram) {
  let total = zeroCount(histogram)
  for (const side of ['positive', 'negative']) for (const [, n] of sideEntries(histogram[side])) total += n
  return total
}

/** A stored min or max: a finite number, or absent (fallback) */
function boundOf (histogram, name, fallback) {
  const v = histogram[name]
  if (v === undefined) return fallback
  if (!Number.isFinite(v)) throw new TypeError(`histogram ${name} is ${v}, not a finite number`)
  return v
}

function addSide (target, counts) {
  for (const [index, n] of sideEntries(counts)) {
    const key = bucketKey(index)
    target[key] = (target[key] ?? 0) + n
  }
}

/**
 * Adds b into `target` in place, as $inc of b's buckets (and $min/$max)
 * would, and returns target: target must be a histogram this module made
 * (emptyHistogram, mergeHistograms, addHistogramInto), never a stored one.
 * Costs b's buckets only, whatever target holds: a read merging many pieces
 * into one range adds each piece once instead of copying its total at
 * every piece. b is not changed.
 */
export function addHistogramInto (target, b) {
  target.count += b.count ?? 0
  target.sum += b.sum ?? 0
  target.zero += zeroCount(b)
  const min = Math.min(target.min ?? Infinity, b.min ?? Infinity)
  const max = Math.max(target.max ?? -Infinity, b.max ?? -Infinity)
  if (min !== Infinity) target.min = min
  if (max !== -Infinity) target.max = max
  addSide(target.positive, b.positive)
  addSide(target.negative, b.negative)
  // the worst error of a value placed at an OTLP bucket's representative (docs/adr/0065-otlp-quantile-accuracy.md)
  if (b.bucketError > (target.bucketError ?? 0)) target.bucketError = b.bucketError
  return target
}

/** a + b, as $inc of b's buckets onto a (and $min/$max) would leave it; the inputs are not changed. Both of one mapping. */
export function mergeHistograms (a, b) {
  return addHistogramInto(addHistogramInto(emptyHistogram(), a), b)
}

/**
 * The rank a quantile reads among n sorted values (0-based): the lower rank
 * floor(q·(n−1)), as DDSketch does: q = 0 is the minimum, q = 1 the maximum,
 * and the answer is always one of the values, never an interpolation.
 */
export const quantileRank = (q, n) => Math.floor(q * (n - 1))

/**
 * A histogram of `mapping` made ready to rank any number of quantiles:
 * its buckets in value order once (the negative side by descending index,
 * zero, the positive side by ascending index), each with the value it
 * stands for and the running count up to it. Building it walks and sorts
 * the buckets; each quantile after that is a binary search
 * (rankedQuantile), so the stats of a point share one walk. Throws
 * TypeError for a bucket key or count no histogram holds.
 */
export function rankHistogram (histogram, mapping) {
  const negative = sideEntries(histogram.negative).sort((x, y) => y[0] - x[0])
  const positive = sideEntries(histogram.positive).sort((x, y) => x[0] - y[0])
  const size = negative.length + 1 + positive.length
  const estimates = new Float64Array(size)
  const running = new Float64Array(size)
  let total = 0
  let k = 0
  const add = (estimate, n) => { total += n; estimates[k] = estimate; running[k] = total; k++ }
  for (const [index, n] of negative) add(-bucketValue(mapping, index), n)
  add(0, zeroCount(histogram))
  for (const [index, n] of positive) add(bucketValue(mapping, index), n)
  return { total, estimates, running, low: boundOf(histogram, 'min', -Infinity), high: boundOf(histogram, 'max', Infinity) }
}

/**
 * The estimate of quantile q (a number in [0, 1]) of a ranked histogram
 * (rankHistogram), as quantiles defines it; null when it holds nothing.
 */
export function rankedQuantile ({ total, estimates, running, low, high }, q) {
  if (typeof q !== 'number' || !(q >= 0 && q <= 1)) throw new RangeError(`quantile must be a number in [0, 1], got ${q}`)
  if (total === 0) return null
  // q·(total−1) unfloored: the first bucket whose running count passes it is the one at
  // quantileRank for whole counts, and the right one for fractional counts too
  const rank = q * (total - 1)
  if (rank === 0 && low !== -Infinity) return low
  if (rank === total - 1 && high !== Infinity) return high
  // the first running count > rank (running counts never fall: counts are ≥ 0)
  let lo = 0
  let hi = running.length - 1
  if (!(running[hi] > rank)) throw new Error('unreachable: rank beyond the histogram')
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (running[mid] > rank) hi = mid
    else lo = mid + 1
  }
  return Math.min(high, Math.max(low, estimates[lo]))
}

/**
 * Estimates of the quantiles `qs` (each in [0, 1]) of a histogram of
 * `mapping`, in the order given: the value its bucket stands for, clamped to
 * [min, max] (which only moves it nearer the true value); the first rank is
 * min and the last max, exactly. null for each when the histogram holds
 * nothing. Each is within α (relative) of the value at quantileRank(q, n) of
 * the values, or within MIN_INDEXED_VALUE (absolute) where that value counted
 * in the zero bucket. Ranks are taken among the buckets' counts, which a
 * consistent document keeps equal to `count`. One walk of the buckets for
 * all of qs (rankHistogram).
 */
export function quantiles (histogram, mapping, qs) {
  for (const q of qs) {
    if (typeof q !== 'number' || !(q >= 0 && q <= 1)) throw new RangeError(`quantile must be a number in [0, 1], got ${q}`)
  }
  const ranked = rankHistogram(histogram, mapping)
  return qs.map(q => rankedQuantile(ranked, q))
}

/** quantiles(histogram, mapping, [q])[0] */
export const quantile = (histogram, mapping, q) => quantiles(histogram, mapping, [q])[0]

/**
 * The values of a histogram of `mapping` at most t > 0, estimated from its
 * buckets: the zero bucket, the negative side, and each positive bucket
 * whose value (bucketValue) is ≤ t. That is the exact count at some t′ with
 * t/(1+α) < t′ ≤ t/(1−α): every bucket but the one holding t lies wholly on
 * one side of it. Linear: the estimates of several histograms add up to the
 * estimate of their merge. Throws TypeError as quantiles does.
 */
export function countAtMost (histogram, mapping, t) {
  let n = zeroCount(histogram)
  for (const [, c] of sideEntries(histogram.negative)) n += c
  for (const [index, c] of sideEntries(histogram.positive)) if (bucketValue(mapping, index) <= t) n += c
  return n
}
