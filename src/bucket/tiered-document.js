// A distribution document's update while a flush adds up its values: its
// tiers kept as numbers and Maps, named by tier-paths.js, a value adding to
// each tier it counts in without naming a path (distribution-increments.js
// DistributionTiers); the update it sends is made once, at the end
// (updateOfTiers): a built document's order is its tiers' (each: count,
// sum, then its buckets, a minute's at a time).

class Tier {
  constructor (paths, min, max, histogram) {
    this.paths = paths // the tier's TierPaths
    this.count = 0
    this.sum = 0
    this.min = min
    this.max = max
    // the worst relative error of a value it holds from an OTLP bucket's representative (docs/adr/0065-otlp-quantile-accuracy.md)
    this.bucketError = 0
    // bucket field → its count: a number, no object per bucket (a minute's values add theirs at each of five tiers)
    this.buckets = histogram ? new Map() : null
    // threshold field ('le.<key>') → the values ≤ it (bucket/distribution-thresholds.js); null: none declared
    this.le = null
  }
}

export class TieredDocument {
  constructor (metric, date) {
    this.metric = metric
    this.date = date
    this.detail = undefined
    this.tiers = new Map() // TierPaths → Tier
    // a daily document's values while a flush adds them up: its day's tiers and minutes (distribution-increments.js)
    this.adding = null
  }
}

/**
 * The tier at `paths` of `doc`, made (empty, min and max lo and hi) where it has none yet: a
 * batch holds on to the tiers its next values go to (addStatsToTier), one look-up per tier, not per value
 */
export function tierOf (doc, paths, lo, hi, histogram) {
  let tier = doc.tiers.get(paths)
  if (tier === undefined) {
    tier = new Tier(paths, lo, hi, histogram)
    doc.tiers.set(paths, tier)
  }
  return tier
}

/**
 * Adds one value's count, sum, min and max to a tier (tierOf): sum, lo, hi: what it adds to the sum and
 * narrows min and max to (a value's own; an OTLP histogram's bucket carries the point's exact ones,
 * docs/adr/0063-otlp-mapping.md, and its error). Its bucket goes to `tier.buckets` by the minute
 */
export function addStatsToTier (tier, weight, sum, lo, hi, bucketError) {
  tier.count += weight
  tier.sum += sum
  if (lo < tier.min) tier.min = lo
  if (hi > tier.max) tier.max = hi
  if (bucketError > tier.bucketError) tier.bucketError = bucketError
}

/** Adds `weight` to a tier's threshold counts fields[from…]: the thresholds a value is at most */
export function addThresholdsTo (tier, fields, from, weight) {
  const le = (tier.le ??= new Map())
  for (let i = from; i < fields.length; i++) le.set(fields[i], (le.get(fields[i]) ?? 0) + weight)
}

function addTierUpdate (update, { paths, count, sum, min, max, bucketError }) {
  update.inc[paths.count] = count
  update.inc[paths.sum] = sum
  update.min[paths.min] = min
  update.max[paths.max] = max
  if (bucketError > 0) update.max[paths.bucketError] = bucketError
}

/** The document's update as { metric, date, inc, min, max, detail? } (distribution-increments.js): each tier, then its buckets */
export function updateOfTiers (doc) {
  const update = { metric: doc.metric, date: doc.date, inc: {}, min: {}, max: {} }
  for (const tier of doc.tiers.values()) {
    addTierUpdate(update, tier)
    if (tier.buckets !== null) for (const [field, n] of tier.buckets) update.inc[tier.paths.bucketPath(field)] = n
    if (tier.le !== null) for (const [field, n] of tier.le) update.inc[tier.paths.bucketPath(field)] = n
  }
  if (doc.detail) update.detail = doc.detail
  return update
}
