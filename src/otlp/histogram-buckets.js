// An OTLP histogram point's buckets as [representative value, count]
// (docs/adr/0063-otlp-mapping.md): an explicit-bounds bucket
// (lo, hi] at its middle, the open first and last ones at the point's min and
// max (else their one bound); an exponential bucket (base^i, base^(i+1)] at
// 2·base^(i+1)/(1+base), the value of least relative error over it, as
// DDSketch places its own; the zero bucket at 0. Each value clamped to the
// point's [min, max] where it has them, with the worst relative error it makes
// for a value of its bucket (the bucket's part inside [min, max]; Infinity
// where that part reaches 0 or is open): docs/adr/0065-otlp-quantile-accuracy.md. Pure.
import { toNumber } from './otlp-codec.js'

const MAX_BUCKETS = 16_384 // more than any SDK sends (exponential: 160 by default), few enough to walk

const optional = (p, field) => (p[field] === null || p[field] === undefined ? null : p[field])
const clamp = (v, min, max) => Math.min(max ?? Infinity, Math.max(min ?? -Infinity, v))

/**
 * The worst relative error |r − x| / |x| of representing any x of the bucket (lo, hi] (null: open) inside the
 * point's [min, max] (null: unknown) by r: 0 for a bucket of one value, Infinity where x may be 0 or unbounded
 */
export function bucketError (r, lo, hi, min, max) {
  const low = Math.max(lo ?? -Infinity, min ?? -Infinity)
  const high = Math.min(hi ?? Infinity, max ?? Infinity)
  if (low === high) return low === r ? 0 : Math.abs(r - low) / Math.abs(low)
  if (!(low >= 0 || high <= 0) || low === 0 || high === 0 || !Number.isFinite(low) || !Number.isFinite(high)) return Infinity
  return Math.max(Math.abs(r - low) / Math.abs(low), Math.abs(high - r) / Math.abs(high))
}

/**
 * kindOfData: 'histogram' | 'exponentialHistogram'; p: its data point →
 * { buckets: [[value, count, key, error]] (key: the bucket's place, the same in every point of the shape; error: bucketError's),
 * count, sum, hasSum, min, max, shape, scale } (shape: what must not change between two cumulative
 * points of one series; scale: an exponential one's, which may go down: downscaledPlace), or { problem }
 */
export function histogramBuckets (kindOfData, p) {
  const count = toNumber(p.count)
  // proto3 `optional`: protobufjs leaves an absent one null (JSON: undefined)
  const sum = optional(p, 'sum')
  const min = optional(p, 'min')
  const max = optional(p, 'max')
  const buckets = kindOfData === 'histogram' ? explicitBuckets(p, min, max, sum, count) : exponentialBuckets(p, min, max)
  if (buckets.problem) return buckets
  let total = 0
  for (const [, n] of buckets.list) total += n
  if (total !== count) return { problem: `the buckets hold ${total} values, the point's count is ${count}` }
  return { buckets: buckets.list, count, sum, hasSum: sum !== null, min, max, shape: buckets.shape, scale: buckets.scale }
}

function explicitBuckets (p, min, max, sum, count) {
  const bounds = p.explicitBounds ?? []
  const counts = (p.bucketCounts ?? []).map(toNumber)
  if (counts.length === 0) {
    // no buckets: the count alone, at the mean
    const mean = clamp(sum === null ? 0 : sum / count, min, max)
    return { list: count > 0 ? [[mean, count, 0, bucketError(mean, null, null, min, max)]] : [], shape: 'none' }
  }
  if (counts.length !== bounds.length + 1) return { problem: `${counts.length} bucketCounts for ${bounds.length} explicitBounds: a histogram has one more count than bounds` }
  if (counts.length > MAX_BUCKETS) return { problem: `${counts.length} buckets: at most ${MAX_BUCKETS}` }
  for (let i = 1; i < bounds.length; i++) if (!(bounds[i] > bounds[i - 1])) return { problem: 'explicitBounds must increase' }
  const list = []
  for (let i = 0; i < counts.length; i++) {
    const lo = i === 0 ? null : bounds[i - 1]
    const hi = i === bounds.length ? null : bounds[i]
    // one bucket open on both sides (no bounds) and no min or max: its values at their mean, as without buckets
    const middle = lo === null && hi === null ? (min ?? max ?? (sum === null ? 0 : sum / count)) : lo === null ? (min ?? hi) : hi === null ? (max ?? lo) : (lo + hi) / 2
    const value = clamp(middle, min, max)
    list.push([value, counts[i], i, bucketError(value, lo, hi, min, max)])
  }
  return { list, shape: bounds.join(',') }
}

function exponentialBuckets (p, min, max) {
  const scale = p.scale ?? 0
  if (!Number.isInteger(scale) || scale < -10 || scale > 20) return { problem: `scale ${scale} is outside [-10, 20]` }
  const base = Math.pow(2, Math.pow(2, -scale))
  const list = []
  const zero = toNumber(p.zeroCount)
  // as the sketch's own zero bucket; with a zeroThreshold t it holds values in [−t, t], each 100 % off at 0
  const threshold = p.zeroThreshold ?? 0
  if (!(typeof threshold === 'number' && threshold >= 0 && Number.isFinite(threshold))) return { problem: `zeroThreshold ${threshold} is not a finite number ≥ 0` }
  if (zero > 0) list.push([0, zero, 'z', threshold === 0 || (min === 0 && max === 0) ? 0 : 1])
  const sides = [[p.positive, 1], [p.negative, -1]]
  let n = 0
  for (const [side] of sides) n += side?.bucketCounts?.length ?? 0
  if (n > MAX_BUCKETS) return { problem: `${n} buckets: at most ${MAX_BUCKETS}` }
  for (const [side, sign] of sides) {
    const offset = side?.offset ?? 0
    const counts = side?.bucketCounts ?? []
    for (let k = 0; k < counts.length; k++) {
      const c = toNumber(counts[k])
      if (c === 0) continue
      let upper = Math.pow(base, offset + k + 1)
      let lower = upper / base
      let value = clamp(sign * 2 * upper / (1 + base), min, max)
      if (!Number.isFinite(base)) {
        // scale −10: base 2^1024 is past a double; bounds and value from base's log (2·lower / (1 + 1/base) is the same value)
        const step = Math.pow(2, -scale)
        lower = Math.pow(2, (offset + k) * step)
        upper = Math.pow(2, (offset + k + 1) * step)
        value = clamp(sign * 2 * lower / (1 + Math.pow(2, -step)), min, max)
      }
      const error = sign > 0 ? bucketError(value, lower, upper, min, max) : bucketError(-value, lower, upper, max === null ? null : -max, min === null ? null : -min)
      list.push([value, c, sign * (offset + k) + (sign > 0 ? 'p' : 'n'), error])
    }
  }
  // a cumulative series' scale may go down (an SDK downscales when its values spread): its earlier points' places
  // map onto the new scale's (downscaledPlace), so the shape is the scale's sign only
  return { list, shape: 'e', scale }
}

/**
 * An exponential bucket's place (`<index>p`, `-<index>n`, `z`: exponentialBuckets') at a scale `by` lower:
 * bucket i at scale s is within bucket ⌊i / 2^by⌋ at scale s − by (OpenTelemetry's downscaling), the zero bucket the zero bucket
 */
export function downscaledPlace (place, by) {
  if (place === 'z' || by === 0) return place
  const side = place[place.length - 1]
  const index = Math.floor((side === 'p' ? 1 : -1) * Number(place.slice(0, -1)) / 2 ** by)
  return `${side === 'p' ? index : -index}${side}`
}
