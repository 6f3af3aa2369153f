// The field paths a distribution tier writes ('hourly.13.count',
// 'hourly.13.positive.224', 'minute.7.zero', …), made once per tier and
// bucket instead of once per document update: a unit names every bucket of
// every tier it touches, and a flush merges those names again. Cached strings
// keep their hashes (internalized.js), so the objects they key find them at once.
import { internalized } from './internalized.js'

// The bucket paths cached, all tiers together, at most: a busy service at 1 %
// meets a few hundred buckets at each of ~180 tiers (well under this bound);
// a wide spread of values at a fine accuracy could meet far more, and past
// the bound a path is built as before rather than held (~80 bytes each).
export const MAX_CACHED_BUCKET_PATHS = 200_000
let cachedBucketPaths = 0

class TierPaths {
  constructor (path) {
    this.path = path
    this.count = internalized(`${path}.count`)
    this.sum = internalized(`${path}.sum`)
    this.min = internalized(`${path}.min`)
    this.max = internalized(`${path}.max`)
    this.bucketError = internalized(`${path}.bucketError`) // $max: docs/adr/0065-otlp-quantile-accuracy.md
    this.buckets = new Map() // bucket field → `${path}.${field}`
  }

  /** `${path}.${field}`, for a bucket field of bucket-fields.js */
  bucketPath (field) {
    let path = this.buckets.get(field)
    if (path === undefined) {
      path = `${this.path}.${field}`
      if (cachedBucketPaths >= MAX_CACHED_BUCKET_PATHS) return path
      cachedBucketPaths++
      path = internalized(path)
      this.buckets.set(field, path)
    }
    return path
  }
}

const tiers = new Map() // path → its TierPaths: the tiers of the documents' shape, a few hundred

/** The paths of the tier at `path` ('daily', 'hourly.13', 'minute.13.7', 'minute.7' …), one object per path */
export function tierPaths (path) {
  let tier = tiers.get(path)
  if (!tier) {
    tier = new TierPaths(path)
    tiers.set(path, tier)
  }
  return tier
}

export const DAILY_TIER = tierPaths('daily')
export const MONTHLY_TIER = tierPaths('monthly')
export const HOURLY_TIERS = Array.from({ length: 24 }, (_, h) => tierPaths(`hourly.${h}`))
export const QUARTER_HOURLY_TIERS = Array.from({ length: 96 }, (_, i) => tierPaths(`quarterHourly.${Math.floor(i / 4)}.${i % 4}`))
/** daily.D of a monthly document, by day of month (1–31) */
export const DAY_OF_MONTH_TIERS = Array.from({ length: 32 }, (_, d) => tierPaths(`daily.${d}`))
/** minute.M of a minute-hour document (its minutes' histograms) */
export const MINUTE_HISTOGRAM_TIERS = Array.from({ length: 60 }, (_, m) => tierPaths(`minute.${m}`))
