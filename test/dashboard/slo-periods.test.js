// The SLO page's period stepping (src/dashboard/js/slo-periods.js) against
// the server's periods (src/slos/periods.js, zone-aware): the period after a
// label begins where the label's ends, in zones with DST both ways, half-hour
// offsets and Lord Howe's half-hour change, for every duration and week start.
import { describe, expect, it } from 'vitest'
import { hasPicker, stepPeriod } from '../../src/dashboard/js/slo-periods.js'
import { periodOf } from '../../src/slos/periods.js'

const NOW = Date.UTC(2030, 0, 1)
const ZONES = ['Europe/Berlin', 'America/New_York', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'UTC']

describe('stepPeriod', () => {
  it('steps across DST days, week starts, month, quarter and year edges', () => {
    expect(stepPeriod('1d', '2026-10-24', 1)).toBe('2026-10-25') // Berlin's 25-hour day
    expect(stepPeriod('1d', '2026-03-29', -1)).toBe('2026-03-28')
    expect(stepPeriod('1d', '2028-02-28', 1)).toBe('2028-02-29')
    expect(stepPeriod('1d', '2026-12-31', 1)).toBe('2027-01-01')
    expect(stepPeriod('1w', '2026-10-19', 1)).toBe('2026-10-26') // the week holding the fall-back Sunday
    expect(stepPeriod('1w', '2026-11-22', 1)).toBe('2026-11-29') // weeks starting on Sunday stay on Sunday
    expect(stepPeriod('1w', '2026-12-28', 1)).toBe('2027-01-04')
    expect(stepPeriod('1M', '2026-11', -1)).toBe('2026-10')
    expect(stepPeriod('1M', '2026-12', 1)).toBe('2027-01')
    expect(stepPeriod('1M', '2026-01', -1)).toBe('2025-12')
    expect(stepPeriod('1Q', '2026-Q4', 1)).toBe('2027-Q1')
    expect(stepPeriod('1Q', '2026-Q1', -1)).toBe('2025-Q4')
    expect(stepPeriod('1Q', '2026-Q4', -5)).toBe('2025-Q3')
    expect(stepPeriod('1y', '2026', -1)).toBe('2025')
  })

  it('answers null for a label not of the duration\'s form', () => {
    for (const [duration, label] of [['1M', '2026-11-01'], ['1Q', '2026-Q5'], ['1y', '26'], ['1d', '2026-11'], ['28d', 'last 28d']]) {
      expect(stepPeriod(duration, label, 1)).toBeNull()
    }
  })

  // every period of 2024–2027 in each zone: the server's next period begins where the label's ends, and stepping back returns
  it.each(ZONES)('the period after each of 2024–2027 begins where it ends, in %s', zone => {
    const windows = [
      ...['1d', '1M', '1Q', '1y'].map(duration => ({ rolling: false, duration, zone, weekStart: 1 })),
      ...[0, 1, 3].map(weekStart => ({ rolling: false, duration: '1w', zone, weekStart }))
    ]
    let checked = 0
    for (const window of windows) {
      let period = periodOf(window, undefined, Date.UTC(2024, 0, 3))
      while (period.from < Date.UTC(2028, 0, 1)) {
        const next = stepPeriod(window.duration, period.label, 1)
        const after = periodOf(window, next, NOW)
        expect(after.from, `${window.duration} ${period.label} → ${next}`).toBe(period.to)
        expect(after.label).toBe(next)
        expect(stepPeriod(window.duration, next, -1)).toBe(period.label)
        period = after
        checked++
      }
    }
    expect(checked).toBeGreaterThan(4 * 365)
  })
})

describe('hasPicker', () => {
  it('is true for a calendar window, false for a rolling one', () => {
    expect(hasPicker({ duration: '1M', rolling: false })).toBe(true)
    expect(hasPicker({ duration: '1w', rolling: false })).toBe(true)
    expect(hasPicker({ duration: '28d', rolling: true })).toBe(false)
  })
})
