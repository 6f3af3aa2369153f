// Per-minute accounting, CSV and summary arithmetic of the load generator (pure).
import { describe, expect, it } from 'vitest'
import { CSV_COLUMNS, createMinuteRecorder, endOfDayRatio, median, midnightDip, minuteRows, outOfOrderCost, rateOf, toCsv } from '../../../scripts/loadgen/minute-stats.js'
import { formatSummary, summarize, verifyTotals } from '../../../scripts/loadgen/summary.js'

const MIN = 60_000
const T = (h, m, s = 0, day = 20) => Date.UTC(2026, 10, day, h, m, s)

/** Rows of full minutes from `start`, one per rate (events/s), at speedup 300 (200 ms per minute) */
function rowsOf (start, rates) {
  return rates.map((rate, i) => {
    const t = start + i * MIN
    return { simMinute: t, minuteOfDay: (t % 86_400_000) / MIN, events: rate / 5, requests: 1, failedEvents: 0, realMs: 200, eventsPerS: rate, p50Ms: 1, p99Ms: 1, full: true }
  })
}

describe('median', () => {
  it('takes the middle, or the mean of the two middles', () => {
    expect(median([5, 1, 3])).toBe(3)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([])).toBeNull()
  })
})

describe('minute rows', () => {
  it('count acknowledged events by the simulated minute they were sent in, over the real time each minute lasted', () => {
    const rec = createMinuteRecorder()
    // run 23:59:30 → 00:01:00 at 300×: the first minute lasts 30 s simulated = 100 ms real
    rec.record(T(23, 59, 40), 10, 4, 'acked')
    rec.record(T(23, 59, 50), 10, 8, 'acked')
    rec.record(T(0, 0, 10, 21), 10, 2, 'acked')
    rec.record(T(0, 0, 20, 21), 10, 6, 'unknown')
    rec.record(T(0, 0, 30, 21), 5, 3, 'not_applied')
    const rows = minuteRows({ minutes: rec.minutes, simStart: T(23, 59, 30), simEnd: T(0, 1, 0, 21), speedup: 300 })
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatchObject({ simMinute: T(23, 59), minuteOfDay: 1439, events: 20, requests: 2, failedEvents: 0, realMs: 100, eventsPerS: 200, p50Ms: 4, p99Ms: 8, full: false })
    expect(rows[1]).toMatchObject({ simMinute: T(0, 0, 0, 21), minuteOfDay: 0, events: 10, requests: 3, failedEvents: 15, realMs: 200, eventsPerS: 50, p50Ms: 2, p99Ms: 2, full: true })
    expect(rec.totals).toMatchObject({ acked: 30, unknown: 10, not_applied: 5, rejected: 0, requests: 5, ackedRequests: 3 })
    expect(rateOf(rows)).toBeCloseTo(30 / 0.3, 9) // acknowledged events only
  })

  it('have a row for a minute in which nothing was acknowledged', () => {
    const rows = minuteRows({ minutes: new Map(), simStart: T(10, 0), simEnd: T(10, 2), speedup: 60 })
    expect(rows.map(r => [r.minuteOfDay, r.events, r.realMs, r.eventsPerS, r.p50Ms])).toEqual([[600, 0, 1000, 0, null], [601, 0, 1000, 0, null]])
  })

  it('make a CSV with one row per phase and minute', () => {
    const rec = createMinuteRecorder()
    rec.record(T(23, 59, 0), 3, 1.234567, 'acked')
    const rows = minuteRows({ minutes: rec.minutes, simStart: T(23, 59), simEnd: T(0, 1, 0, 21), speedup: 300 })
    const csv = toCsv([{ phase: 'a', rows }, { phase: 'b', rows: rows.slice(0, 1) }])
    expect(csv).toBe([
      CSV_COLUMNS.join(','),
      'a,2026-11-20T23:59Z,1439,3,1,0,200,15,1.23,1.23',
      'a,2026-11-21T00:00Z,0,0,0,0,200,0,,',
      'b,2026-11-20T23:59Z,1439,3,1,0,200,15,1.23,1.23',
      ''
    ].join('\n'))
    expect(CSV_COLUMNS).toEqual(['phase', 'sim_minute', 'minute_of_day', 'events', 'requests', 'failed_events', 'real_ms', 'events_per_s', 'p50_ms', 'p99_ms'])
  })
})

describe('summary figures', () => {
  it('end-of-day ratio: last hour ÷ first hour of one day', () => {
    const rates = Array.from({ length: 1440 }, (_, i) => (i < 60 ? 1000 : i >= 1380 ? 800 : 900))
    const eod = endOfDayRatio(rowsOf(T(0, 0), rates))
    expect(eod.ratio).toBeCloseTo(0.8, 12)
    expect(eod).toMatchObject({ day: T(0, 0), firstHour: 1000, lastHour: 800 })
    // 23:00 of one day to 01:00 of the next: not the same day
    expect(endOfDayRatio(rowsOf(T(23, 0), new Array(120).fill(5))).ratio).toBeNull()
    expect(endOfDayRatio(rowsOf(T(23, 0), new Array(120).fill(5))).reason).toMatch(/00:00–01:00 and 23:00–24:00/)
  })

  it('midnight dip: lowest of the 3 minutes after a crossed midnight ÷ the median', () => {
    // 23:50 → 00:10: median 1000, the minutes after midnight 400, 700, 1000
    const rates = [...new Array(10).fill(1000), 400, 700, ...new Array(8).fill(1000)]
    const dip = midnightDip(rowsOf(T(23, 50), rates))
    expect(dip).toMatchObject({ midnight: T(0, 0, 0, 21), lowest: 400, median: 1000 })
    expect(dip.ratio).toBeCloseTo(0.4, 12)
    // a run that starts at midnight crossed none
    expect(midnightDip(rowsOf(T(0, 0), [10, 20, 30, 40])).ratio).toBeNull()
    // nor does one that ends less than 3 minutes after it
    expect(midnightDip(rowsOf(T(23, 58), [10, 20, 30, 40])).ratio).toBeNull()
  })

  it('out-of-order cost: events/s with F ÷ without', () => {
    expect(outOfOrderCost(750, 1000)).toBe(0.75)
    expect(outOfOrderCost(750, 0)).toBeNull()
    expect(outOfOrderCost(null, 1000)).toBeNull()
  })

  it('summarizes phases and prints the three figures with their reasons', () => {
    const result = (rates, acked) => ({
      rows: rowsOf(T(23, 50), rates),
      totals: { acked, rejected: 0, not_applied: 0, unknown: 0, requests: 40, ackedRequests: 40 },
      latencies: [1, 2, 3, 4],
      simStart: T(23, 50),
      simEnd: T(0, 10, 0, 21),
      realMs: 4000
    })
    const s = summarize([
      { phase: 'ooo-0', oooFraction: 0, result: result(new Array(20).fill(1000), 4000) },
      { phase: 'ooo-0.1', oooFraction: 0.1, result: result([...new Array(10).fill(500), 250, ...new Array(9).fill(500)], 2000) }
    ], { target: 'x', metrics: 3, concurrency: 2, batch: 10, speedup: 300, prealloc: 0 })
    expect(s.outOfOrderCost).toBe(0.488) // 487.5 ÷ 1000, rounded to 3 places
    expect(s.midnightDip).toBe(0.5)
    expect(s.endOfDayRatio).toBeNull()
    const text = formatSummary(s)
    expect(text).toMatch(/out-of-order cost: 0\.488/)
    expect(text).toMatch(/midnight dip: 0\.500/)
    expect(text).toMatch(/end-of-day ratio: n\/a \(the run did not cover/)
    expect(text).toMatch(/noisy/) // 2 requests per simulated minute
  })

  it('verifies that the database gained every acknowledged event and no more than were sent', () => {
    const before = { daily: 10, monthly: 10 }
    expect(verifyTotals({ before, after: { daily: 110, monthly: 110 }, acked: 100, unknown: 0 }).ok).toBe(true)
    expect(verifyTotals({ before, after: { daily: 115, monthly: 112 }, acked: 100, unknown: 5 }).ok).toBe(true)
    const lost = verifyTotals({ before, after: { daily: 109, monthly: 110 }, acked: 100, unknown: 0 })
    expect(lost).toMatchObject({ ok: false })
    expect(lost.message).toMatch(/daily documents gained 99, fewer than the 100 acknowledged/)
    expect(verifyTotals({ before, after: { daily: 110, monthly: 111 }, acked: 100, unknown: 0 }).message).toMatch(/monthly .* more than/)
  })
})
