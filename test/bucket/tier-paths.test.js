import { describe, expect, it } from 'vitest'
import { DAILY_TIER, DAY_OF_MONTH_TIERS, HOURLY_TIERS, MINUTE_HISTOGRAM_TIERS, MONTHLY_TIER, QUARTER_HOURLY_TIERS, tierPaths } from '../../src/bucket/tier-paths.js'

describe('tier paths', () => {
  it('are the tier path and its stat or bucket field, one object per tier', () => {
    const tiers = [DAILY_TIER, MONTHLY_TIER, ...HOURLY_TIERS, ...QUARTER_HOURLY_TIERS, ...DAY_OF_MONTH_TIERS.slice(1), ...MINUTE_HISTOGRAM_TIERS, tierPaths('minute.13.7'), tierPaths('minute.787')]
    expect(tiers.map(t => t.path)).toEqual(['daily', 'monthly', ...Array.from({ length: 24 }, (_, h) => `hourly.${h}`),
      ...Array.from({ length: 96 }, (_, i) => `quarterHourly.${Math.floor(i / 4)}.${i % 4}`),
      ...Array.from({ length: 31 }, (_, d) => `daily.${d + 1}`), ...Array.from({ length: 60 }, (_, m) => `minute.${m}`), 'minute.13.7', 'minute.787'])
    for (const tier of tiers) {
      expect(tierPaths(tier.path)).toBe(tier)
      for (const stat of ['count', 'sum', 'min', 'max']) expect(tier[stat]).toBe(`${tier.path}.${stat}`)
      for (const field of ['zero', 'positive.0', 'positive.-1036', 'negative.1727', 'negative.-3']) {
        expect(tier.bucketPath(field)).toBe(`${tier.path}.${field}`)
        expect(tier.bucketPath(field)).toBe(`${tier.path}.${field}`) // cached: the same again
      }
    }
  })
})
