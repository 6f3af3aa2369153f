// The SLO page's figures from a report (src/dashboard/js/slo-view.js): the
// burn-down, the day bars, the days begun, the formats.
import { describe, expect, it } from 'vitest'
import { burnDown, dayBars, dayName, daysBegun, formatBurnRate, formatPercent } from '../../src/dashboard/js/slo-view.js'

// October 2026 in Berlin, asOf 2026-10-25 22:30Z (23:30 local, CET): 25 days begun
const days = Array.from({ length: 31 }, (_, i) => ({ day: `2026-10-${String(i + 1).padStart(2, '0')}`, good: 1000 - i, total: 1000 + (i % 3) }))
const total = days.reduce((n, d) => n + d.total, 0)
const report = (over = {}) => ({ timeZone: 'Europe/Berlin', asOf: Date.UTC(2026, 9, 25, 22, 30), days, budget: { allowed: Math.floor(total / 100) }, ...over })

describe('daysBegun', () => {
  it('counts the days whose local date is at most asOf\'s in the report\'s zone', () => {
    expect(daysBegun(report(), false)).toBe(25)
    expect(daysBegun(report({ asOf: Date.UTC(2026, 9, 25, 23, 0) }), false)).toBe(26) // midnight in Berlin
    expect(daysBegun(report({ timeZone: 'America/New_York' }), false)).toBe(25)
    expect(daysBegun(report({ timeZone: 'Pacific/Kiritimati' }), false)).toBe(26) // UTC+14: already the 26th
    expect(daysBegun(report({ asOf: Date.UTC(2026, 11, 1) }), false)).toBe(31) // a past period
    expect(daysBegun(report({ asOf: Date.UTC(2026, 0, 1) }), true)).toBe(31) // rolling: all
  })
})

describe('burnDown', () => {
  it('runs from 1 at the first midnight to (allowed − bad so far) ÷ allowed after each day begun, then null', () => {
    const r = report()
    const { x, remaining } = burnDown(r, 25)
    expect(x).toEqual(Array.from({ length: 32 }, (_, i) => i))
    expect(remaining[0]).toBe(1)
    let bad = 0
    for (let k = 1; k <= 31; k++) {
      bad += days[k - 1].total - days[k - 1].good
      expect(remaining[k]).toBe(k <= 25 ? (r.budget.allowed - bad) / r.budget.allowed : null)
    }
    expect(remaining[25]).toBeLessThan(0) // spent past zero: the line goes below
  })

  it('equals the report\'s remainingRatio at the last day, computed alike', () => {
    const consumed = total - days.reduce((n, d) => n + d.good, 0)
    const allowed = 7919
    expect(burnDown(report({ budget: { allowed } }), 31).remaining[31]).toBe((allowed - consumed) / allowed)
  })

  it('is all null when nothing is allowed', () => {
    expect(burnDown(report({ budget: { allowed: 0 } }), 31).remaining.every(v => v === null)).toBe(true)
  })
})

describe('dayBars', () => {
  it('puts day i at i + 0.5 with its good and bad, null once not begun', () => {
    const bars = dayBars(report(), 2)
    expect(bars.x.slice(0, 3)).toEqual([0.5, 1.5, 2.5])
    expect(bars.good.slice(0, 3)).toEqual([1000, 999, null])
    expect(bars.bad.slice(0, 3)).toEqual([0, 2, null])
  })
})

describe('dayName', () => {
  it('adds the hours of a day the clock changes in', () => {
    expect(dayName('Europe/Berlin', '2026-10-25')).toBe('2026-10-25 (25 h)')
    expect(dayName('Europe/Berlin', '2026-03-29')).toBe('2026-03-29 (23 h)')
    expect(dayName('Europe/Berlin', '2026-10-24')).toBe('2026-10-24')
    expect(dayName('Australia/Lord_Howe', '2026-04-05')).toBe('2026-04-05 (24.5 h)')
    expect(dayName('America/Sao_Paulo', '2026-12-31')).toBe('2026-12-31')
    expect(dayName('UTC', '2026-10-25')).toBe('2026-10-25')
  })
})

describe('formats', () => {
  it('truncates percentages and marks burn rates', () => {
    expect(formatPercent(0.999)).toBe('99.9%')
    expect(formatPercent(0.9999999)).toBe('99.999%')
    expect(formatPercent(-1.5)).toBe('-150%')
    expect(formatPercent(null)).toBe('no data')
    expect(formatBurnRate(14.4)).toBe('14.4×')
    expect(formatBurnRate(null)).toBe('no data')
  })
})
