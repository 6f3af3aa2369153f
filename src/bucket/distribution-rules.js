// The rules a distribution's values meet beyond every event's
// (event-rules.js), whatever door they came through. Pure.
import { MAX_ABS_VALUE } from './event-rules.js'
import { DISTRIBUTION_KIND } from './metric-kinds.js'

// Distinct histogram buckets one request may add to its distributions' day
// tiers, summed over its metric-days: enough for a batch of latencies spanning
// 8 decades at 1 % (γ^2000 ≈ e^40), few enough that one request's update stays
// small (docs/decisions.md, "Distributions: no document can outgrow BSON's limit")
export const MAX_BUCKETS_PER_REQUEST = 2000

/** events as findInvalidEvent takes them → null, or the first bad weight: { index, field: 'weight', message } */
export function findInvalidDistributionEvent (events) {
  for (let i = 0; i < events.length; i++) {
    const { kind, weight } = events[i]
    if (weight === undefined) continue
    if (kind !== DISTRIBUTION_KIND) return { index: i, field: 'weight', message: 'only a distribution\'s value has a weight' }
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0 || weight > MAX_ABS_VALUE) {
      return { index: i, field: 'weight', message: `must be a finite number > 0 and ≤ ${MAX_ABS_VALUE}` }
    }
  }
  return null
}

const DAY_TIER_BUCKET = /^daily\.(?:zero$|positive\.|negative\.)/

/** A write unit's (write-unit.js) day-tier buckets over MAX_BUCKETS_PER_REQUEST → what to change, else null */
export function distributionBucketsProblem (unit) {
  let buckets = 0
  for (const { inc } of unit.distributionDaily.values()) {
    for (const path in inc) if (DAY_TIER_BUCKET.test(path)) buckets++
  }
  if (buckets <= MAX_BUCKETS_PER_REQUEST) return null
  return `the distributions' values fall in ${buckets} distinct histogram buckets (per metric and day), over the ${MAX_BUCKETS_PER_REQUEST} one request may add; split the values over several requests`
}
