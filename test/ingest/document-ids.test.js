// The remembered document ids (src/ingest/document-ids.js) are bucketId's,
// whatever order of days and metrics, however small the memo.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createDocumentIds } from '../../src/ingest/document-ids.js'
import { bucketId, describeDay, startOfDay } from '../../src/bucket/time.js'

describe('document ids, remembered', () => {
  it('are the ids bucketId builds, across days, escapes and evictions', () => {
    const ids = createDocumentIds({ maxEntries: 4, maxChars: 200 })
    const metric = fc.constantFrom('a', 'web.req;route=/a', 'web.req;route=%2F', 'web.req;route=/b%', 'x'.repeat(60), 'b', 'c')
    const time = fc.integer({ min: Date.UTC(2026, 0, 30), max: Date.UTC(2026, 2, 2) })
    fc.assert(fc.property(fc.array(fc.tuple(metric, time), { minLength: 1, maxLength: 40 }), (writes) => {
      for (const [m, t] of writes) {
        const day = describeDay(startOfDay(t))
        const { daily, monthly } = ids.of(m, day)
        expect([daily, monthly]).toEqual([bucketId(m, day.dayKey), bucketId(m, day.monthKey)])
      }
    }), { numRuns: 300 })
  })
})
