// Whether a chart's last point is partial (src/dashboard/js/partial.js): its
// bucket ends after now, so it holds only part of its step.
import { describe, expect, it } from 'vitest'
import { monthEnd, seriesLastPartial, ytdLastPartial } from '../../src/dashboard/js/partial.js'

const NOW = Date.UTC(2026, 10, 21, 12, 7)
const HOUR = 3_600_000
const DAY = 24 * HOUR

describe('seriesLastPartial', () => {
  const answer = (to, n = 3) => ({ to, timestamps: Array.from({ length: n }, (_, i) => to - (n - i) * DAY) })

  it('is partial when the last bucket (up to the answer\'s to, rounded up to the step) ends after now', () => {
    expect(seriesLastPartial(answer(Date.UTC(2026, 10, 22)), NOW)).toBe(true) // today, at step day
    expect(seriesLastPartial(answer(Date.UTC(2026, 11, 1)), NOW)).toBe(true) // this month, at step month
    expect(seriesLastPartial(answer(NOW + 8 * 60_000), NOW)).toBe(true) // this quarter-hour
  })

  it('is not partial when the last bucket is over, at now or before', () => {
    expect(seriesLastPartial(answer(Date.UTC(2026, 10, 21, 12)), NOW)).toBe(false)
    expect(seriesLastPartial(answer(NOW), NOW)).toBe(false) // [start, to): over at to
    expect(seriesLastPartial(answer(Date.UTC(2026, 10, 17)), NOW)).toBe(false)
  })

  it('is not partial without points', () => {
    expect(seriesLastPartial({ to: NOW + DAY, timestamps: [] }, NOW)).toBe(false)
  })
})

describe('monthEnd', () => {
  it('is the first instant of the next month in the zone', () => {
    expect(monthEnd('2026-11', 'UTC')).toBe(Date.UTC(2026, 11, 1))
    expect(monthEnd('2026-12', 'UTC')).toBe(Date.UTC(2027, 0, 1))
    expect(monthEnd('2026-11', 'Asia/Kathmandu')).toBe(Date.UTC(2026, 10, 30, 18, 15))
    expect(monthEnd('2026-12', 'America/New_York')).toBe(Date.UTC(2027, 0, 1, 5))
    expect(monthEnd('2026-03', 'America/New_York')).toBe(Date.UTC(2026, 3, 1, 4)) // EDT by then
  })
})

describe('ytdLastPartial', () => {
  const ytd = (months, tz = 'UTC') => ({ tz, months: months.map(month => ({ month, total: 1 })) })

  it('is partial when the last month ends after now', () => {
    expect(ytdLastPartial(ytd(['2026-10', '2026-11']), NOW)).toBe(true)
  })

  it('is not partial for a month over, a past year, or no months', () => {
    expect(ytdLastPartial(ytd(['2026-10']), NOW)).toBe(false)
    expect(ytdLastPartial(ytd(['2025-11', '2025-12']), NOW)).toBe(false)
    expect(ytdLastPartial(ytd([]), NOW)).toBe(false)
  })

  it('reads the month in the answer\'s zone', () => {
    const newYearUtc = Date.UTC(2027, 0, 1, 2) // 2026-12-31 21:00 in New York
    expect(ytdLastPartial(ytd(['2026-12']), newYearUtc)).toBe(false)
    expect(ytdLastPartial(ytd(['2026-12'], 'America/New_York'), newYearUtc)).toBe(true)
  })
})
