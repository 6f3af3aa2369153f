// The day and month document ids of the metrics a service writes,
// remembered (docs/adr/0075-tagged-flush-per-document-work.md): a series
// arrives request after request, and its ids (bucketId: escaped, joined)
// are built once a day, not once a request; the same strings each time
// are hashed once. Bounded whatever clients send (../tags/bounded-cache.js).
// Pure.
import { createBoundedCache } from '../tags/bounded-cache.js'
import { bucketId } from '../bucket/time.js'

export const DOCUMENT_IDS_LIMITS = Object.freeze({ maxEntries: 20_000, maxChars: 4_000_000 })

/** → { of(metric, day) → { daily, monthly } ids (day: describeDay's) } */
export function createDocumentIds (limits = DOCUMENT_IDS_LIMITS) {
  const cache = createBoundedCache(limits)
  return {
    of (metric, day) {
      let ids = cache.get(metric)
      if (ids === undefined) cache.set(metric, (ids = { dayKey: null, daily: null, monthly: null }), 3 * metric.length)
      if (ids.dayKey !== day.dayKey) {
        // another day: its entry's ids replaced (a memo's value is the metric's ids of the day last written)
        ids.dayKey = day.dayKey
        ids.daily = bucketId(metric, day.dayKey)
        ids.monthly = bucketId(metric, day.monthKey)
      }
      return ids
    }
  }
}
