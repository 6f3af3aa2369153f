// A distribution document's update while a request is added up: its tiers
// kept as numbers and Maps, named by tier-paths.js. A flush merges its
// requests' tiers straight into the { inc, min, max } it sends
// (addTiersToUpdate); a lone request's become one (updateOfTiers). A flat
// update per request names ~60 dotted paths per document; merging eight of
// them per flush walked and rebuilt those objects, where this walks the tiers.
//
// What it turns into is exactly what adding up flat updates gave: the same
// paths in the same order (an update's fields are applied in order, which
// makes the order of a new document's fields), the same values, sums added in
// the same order. A built document's order is its tiers' (each: count, sum,
// then its buckets as first met); a merged one's lists each tier and bucket
// where the flat merge first met its path: `entries`.

class Tier {
  constructor (paths, min, max, histogram) {
    this.paths = paths // the tier's TierPaths
    this.count = 0
    this.sum = 0
    this.min = min
    this.max = max
    // the worst relative error of a value it holds from an OTLP bucket's representative (docs/adr/0065-otlp-quantile-accuracy.md)
    this.bucketError = 0
    // bucket field → its count: a number, no object per bucket (a timer value adds one at each of five tiers)
    this.buckets = histogram ? new Map() : null
    // threshold field ('le.<key>') → the values ≤ it (bucket/distribution-thresholds.js); null: none declared
    this.le = null
  }
}

// A bucket's (or threshold count's) place in a merged document's order (`entries`); its count is its tier's
class BucketEntry {
  constructor (tier, field, le = false) {
    this.tier = tier // its tier's TierPaths
    this.field = field
    this.le = le // a threshold count ('le.<key>'), not a bucket
  }
}

/** The count of an entry in its tier */
const entryCount = (tier, entry) => (entry.le ? tier.le : tier.buckets).get(entry.field)

export class TieredDocument {
  constructor (metric, date) {
    this.metric = metric
    this.date = date
    this.detail = undefined
    this.tiers = new Map() // TierPaths → Tier
    this.entries = null // Tier | BucketEntry in their paths' order, once merged (null: the tiers' order)
  }
}

/**
 * Adds one value at a tier (its TierPaths) of `doc`; field: its bucket field, null at a tier without a histogram.
 * sum, lo, hi: what it adds to the sum and narrows min and max to (a value's own by default; an OTLP
 * histogram's bucket carries the point's exact ones, docs/adr/0063-otlp-mapping.md, and its error)
 */
export function addValueAt (doc, paths, value, weight, field, sum = value * weight, lo = value, hi = value, bucketError = 0) {
  addToTier(tierOf(doc, paths, lo, hi, field !== null), weight, field, sum, lo, hi, bucketError)
}

/**
 * The tier at `paths` of `doc`, made (empty, min and max lo and hi) where it has none yet: a
 * batch holds on to the tiers its next values go to (addToTier), one look-up per tier, not per value
 */
export function tierOf (doc, paths, lo, hi, histogram) {
  let tier = doc.tiers.get(paths)
  if (tier === undefined) {
    tier = new Tier(paths, lo, hi, histogram)
    doc.tiers.set(paths, tier)
  }
  return tier
}

/** Adds one value to a tier (tierOf), as addValueAt does */
export function addToTier (tier, weight, field, sum, lo, hi, bucketError) {
  tier.count += weight
  tier.sum += sum
  if (lo < tier.min) tier.min = lo
  if (hi > tier.max) tier.max = hi
  if (bucketError > tier.bucketError) tier.bucketError = bucketError
  if (field !== null) tier.buckets.set(field, (tier.buckets.get(field) ?? 0) + weight)
}

/**
 * Adds `weight` at the tier `paths` of `doc` (added by addValueAt first) to
 * the threshold counts fields[from…]: the thresholds a value is at most
 */
export function addThresholdsAt (doc, paths, fields, from, weight) {
  if (from >= fields.length) return
  addThresholdsTo(doc.tiers.get(paths), fields, from, weight)
}

/** addThresholdsAt at a tier held (tierOf) */
export function addThresholdsTo (tier, fields, from, weight) {
  const le = (tier.le ??= new Map())
  for (let i = from; i < fields.length; i++) le.set(fields[i], (le.get(fields[i]) ?? 0) + weight)
}

/**
 * Adds `doc` into `docs` (a Map id → TieredDocument) as addDistributionUpdate
 * adds its flat update: counts, sums and buckets added (0 + the first), min
 * and max narrowed (from ±Infinity). `doc` is not changed.
 */
export function addTieredDocument (docs, id, doc) {
  let into = docs.get(id)
  if (into === undefined) {
    into = new TieredDocument(doc.metric, doc.date)
    into.entries = []
    docs.set(id, into)
  }
  if (doc.entries === null) {
    // a built document (the common case): its order is its tiers', each followed by its buckets
    for (const tier of doc.tiers.values()) {
      const target = addTier(into, tier)
      if (tier.buckets !== null) for (const [field, n] of tier.buckets) addBucket(into, target, field, n)
      if (tier.le !== null) for (const [field, n] of tier.le) addBucket(into, target, field, n, true)
    }
  } else {
    for (const entry of doc.entries) {
      // a bucket's tier came before it in `doc`'s order: it is in `into` already
      if (entry instanceof Tier) addTier(into, entry)
      else addBucket(into, into.tiers.get(entry.tier), entry.field, entryCount(doc.tiers.get(entry.tier), entry), entry.le)
    }
  }
  if (doc.detail) into.detail = doc.detail
  return into
}

function addTier (into, { paths, count, sum, min, max, bucketError, buckets }) {
  let tier = into.tiers.get(paths)
  if (tier === undefined) {
    tier = new Tier(paths, Infinity, -Infinity, buckets !== null)
    into.tiers.set(paths, tier)
    into.entries.push(tier)
  }
  tier.count += count
  tier.sum += sum
  tier.min = Math.min(tier.min, min)
  tier.max = Math.max(tier.max, max)
  tier.bucketError = Math.max(tier.bucketError, bucketError)
  return tier
}

function addBucket (into, tier, field, n, le = false) {
  const counts = le ? (tier.le ??= new Map()) : tier.buckets
  const before = counts.get(field)
  if (before === undefined) into.entries.push(new BucketEntry(tier.paths, field, le))
  counts.set(field, (before ?? 0) + n)
}

/**
 * Adds `doc` into `docs` (a Map id → flat update { metric, date, inc, min,
 * max, detail? }) exactly as addDistributionUpdate (distribution-increments.js)
 * adds updateOfTiers(doc): the same paths in the same order, sums added in
 * the same order, min and max narrowed. A flush merges so, straight into the
 * updates it sends, without a merged TieredDocument of its own to build and
 * walk again. `doc` (a TieredDocument, or such a flat update) is not changed.
 */
export function addTiersToUpdate (docs, id, doc) {
  let into = docs.get(id)
  if (into === undefined) {
    into = { metric: doc.metric, date: doc.date, inc: {}, min: {}, max: {} }
    docs.set(id, into)
  }
  if (!(doc instanceof TieredDocument)) {
    mergeFlat(into, doc)
  } else if (doc.entries === null) {
    // a built document: each tier, then its buckets
    for (const tier of doc.tiers.values()) {
      narrowTier(into, tier)
      if (tier.buckets !== null) for (const [field, n] of tier.buckets) addPath(into.inc, tier.paths.bucketPath(field), n)
      if (tier.le !== null) for (const [field, n] of tier.le) addPath(into.inc, tier.paths.bucketPath(field), n)
    }
  } else {
    for (const entry of doc.entries) {
      if (entry instanceof Tier) narrowTier(into, entry)
      else addPath(into.inc, entry.tier.bucketPath(entry.field), entryCount(doc.tiers.get(entry.tier), entry))
    }
  }
  if (doc.detail) into.detail = doc.detail
}

const addPath = (inc, path, n) => { inc[path] = (inc[path] ?? 0) + n }

function narrowTier ({ inc, min, max }, tier) {
  const { paths } = tier
  addPath(inc, paths.count, tier.count)
  addPath(inc, paths.sum, tier.sum)
  min[paths.min] = Math.min(min[paths.min] ?? Infinity, tier.min)
  max[paths.max] = Math.max(max[paths.max] ?? -Infinity, tier.max)
  if (tier.bucketError > 0) max[paths.bucketError] = Math.max(max[paths.bucketError] ?? 0, tier.bucketError)
}

function mergeFlat (into, { inc, min, max }) {
  for (const path in inc) addPath(into.inc, path, inc[path])
  for (const path in min) into.min[path] = Math.min(into.min[path] ?? Infinity, min[path])
  for (const path in max) into.max[path] = Math.max(into.max[path] ?? -Infinity, max[path])
}

/** A part's entry as its flat update: a TieredDocument's tiers (updateOfTiers), or the flat update a flush merged (addTiersToUpdate) */
export const updateOf = (doc) => (doc instanceof TieredDocument ? updateOfTiers(doc) : doc)

function addTierUpdate (update, { paths, count, sum, min, max, bucketError }) {
  update.inc[paths.count] = count
  update.inc[paths.sum] = sum
  update.min[paths.min] = min
  update.max[paths.max] = max
  if (bucketError > 0) update.max[paths.bucketError] = bucketError
}

/** The document's update as { metric, date, inc, min, max, detail? } (distribution-increments.js): its tiers and buckets in the order of their paths */
export function updateOfTiers (doc) {
  const update = { metric: doc.metric, date: doc.date, inc: {}, min: {}, max: {} }
  if (doc.entries === null) {
    // a built document: each tier, then its buckets
    for (const tier of doc.tiers.values()) {
      addTierUpdate(update, tier)
      if (tier.buckets !== null) for (const [field, n] of tier.buckets) update.inc[tier.paths.bucketPath(field)] = n
      if (tier.le !== null) for (const [field, n] of tier.le) update.inc[tier.paths.bucketPath(field)] = n
    }
  } else {
    for (const entry of doc.entries) {
      if (entry instanceof Tier) addTierUpdate(update, entry)
      else update.inc[entry.tier.bucketPath(entry.field)] = entryCount(doc.tiers.get(entry.tier), entry)
    }
  }
  if (doc.detail) update.detail = doc.detail
  return update
}

/** How many buckets the tier at `paths` holds (0 where the document has none) */
export const bucketsAt = (doc, paths) => doc.tiers.get(paths)?.buckets?.size ?? 0
