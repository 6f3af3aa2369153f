// An SLO's periods (src/slos/periods.js) against an independent reading of
// the wall clock (test/helpers/intl-local-time.js): a calendar period runs
// from the local midnight of its first date to that of the next period's,
// in zones with half-hour and 45-minute offsets and clock changes both
// ways; its days are consecutive local dates, each from midnight to
// midnight (23, 24, 24.5 or 25 hours).
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { BURN_WINDOWS, PeriodError, burnWindows, periodOf } from '../../src/slos/periods.js'
import { intlBoundaries, intlWall } from '../helpers/intl-local-time.js'

const DAY = 86_400_000
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'America/St_Johns', 'Asia/Kathmandu', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Australia/Adelaide', 'Pacific/Chatham', 'Australia/Eucla', 'America/Santiago', 'Europe/Dublin']
const pad = n => String(n).padStart(2, '0')
const label = w => `${w.y}-${pad(w.mo)}-${pad(w.d)}`

/** The instant local date (y, m, d) begins in tz, read from Intl minute by minute around it */
function intlMidnight (tz, y, m, d) {
  const around = Date.UTC(y, m - 1, d)
  const found = intlBoundaries(tz, around - DAY, around + DAY).day.find(b => label(intlWall(tz, b)) >= `${y}-${pad(m)}-${pad(d)}`)
  return found
}

const FIRST = { '1d': d => d, '1w': d => new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY), '1M': d => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)), '1Q': d => new Date(Date.UTC(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / 3) * 3, 1)), '1y': d => new Date(Date.UTC(d.getUTCFullYear(), 0, 1)) }
const NEXT = { '1d': d => new Date(d.getTime() + DAY), '1w': d => new Date(d.getTime() + 7 * DAY), '1M': d => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)), '1Q': d => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 3, 1)), '1y': d => new Date(Date.UTC(d.getUTCFullYear() + 1, 0, 1)) }

describe('calendar periods', () => {
  it('begin and end at the local midnights Intl reads; days are consecutive local dates', () => {
    fc.assert(fc.property(fc.constantFrom(...ZONES), fc.constantFrom('1d', '1w', '1M', '1Q', '1y'), fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2026, 10, 1) }), (zone, duration, t) => {
      const local = intlWall(zone, t)
      const first = FIRST[duration](new Date(Date.UTC(local.y, local.mo - 1, local.d)))
      const next = NEXT[duration](first)
      const p = periodOf({ rolling: false, duration, zone, weekStart: 1 }, undefined, t)
      expect(p.from).toBe(intlMidnight(zone, first.getUTCFullYear(), first.getUTCMonth() + 1, first.getUTCDate()))
      expect(p.to).toBe(intlMidnight(zone, next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate()))
      expect(p.days.length).toBe(Math.round((next - first) / DAY))
      p.days.forEach((d, i) => {
        expect(d.day).toBe(new Date(first.getTime() + i * DAY).toISOString().slice(0, 10))
        expect(d.from).toBe(i === 0 ? p.from : p.days[i - 1].to)
      })
      expect(p.days.at(-1).to).toBe(p.to)
      if (duration === '1d' || duration === '1w') p.days.forEach(d => expect(label(intlWall(zone, d.from))).toBe(d.day))
      // the same period by its label
      const again = periodOf({ rolling: false, duration, zone, weekStart: 1 }, p.label, t)
      expect(again).toEqual(p)
    }), { numRuns: 60 })
  })

  it.each([
    ['Europe/Berlin', '2026-10', '2026-10-25', 25], ['Europe/Berlin', '2026-03', '2026-03-29', 23],
    ['Australia/Lord_Howe', '2026-04', '2026-04-05', 24.5], ['Australia/Lord_Howe', '2026-10', '2026-10-04', 23.5],
    ['America/St_Johns', '2026-03', '2026-03-08', 23], ['Pacific/Chatham', '2026-04', '2026-04-05', 25]
  ])('%s %s: %s lasts %d hours', (zone, month, day, hours) => {
    const p = periodOf({ rolling: false, duration: '1M', zone, weekStart: 1 }, month, Date.UTC(2026, 10, 28))
    const d = p.days.find(x => x.day === day)
    expect((d.to - d.from) / 3_600_000).toBe(hours)
    expect(p.days.filter(x => x.to - x.from !== DAY)).toEqual([d])
  })

  it('weeks start on the SLO\'s weekday; labels of another form, or periods not begun, are refused', () => {
    const sunday = { rolling: false, duration: '1w', zone: 'UTC', weekStart: 0 }
    expect(periodOf(sunday, undefined, Date.UTC(2026, 10, 28)).label).toBe('2026-11-22')
    expect(() => periodOf(sunday, '2026-11-23', Date.UTC(2026, 10, 28))).toThrow(/begin on Sundays/)
    const q = { rolling: false, duration: '1Q', zone: 'UTC', weekStart: 1 }
    expect(periodOf(q, undefined, Date.UTC(2026, 10, 28)).label).toBe('2026-Q4')
    for (const bad of ['2026-Q5', '2026-11', '26-Q1', '1970-Q1']) expect(() => periodOf(q, bad, Date.UTC(2026, 10, 28))).toThrow(PeriodError)
    expect(() => periodOf(q, '2027-Q1', Date.UTC(2026, 10, 28))).toThrow(/has not begun/)
    // a label of the right form and a year out of range says which
    expect(() => periodOf(q, '1970-Q1', Date.UTC(2026, 10, 28))).toThrow(/^"1970-Q1": a period's year is 1971–9998$/)
    expect(() => periodOf({ ...q, duration: '1M' }, '9999-12', Date.UTC(2026, 10, 28))).toThrow(/^"9999-12": a period's year is 1971–9998$/)
    expect(() => periodOf({ ...q, duration: '1M' }, '2026-Q1', Date.UTC(2026, 10, 28))).toThrow(/^a 1M SLO's period is YYYY-MM \(2026-11\), got "2026-Q1"$/)
  })
})

describe('rolling periods and burn windows', () => {
  it('the last N × 24 hours and the burn windows end with the minute holding now', () => {
    const now = Date.UTC(2026, 10, 28, 12, 34, 56, 789)
    const end = Date.UTC(2026, 10, 28, 12, 35)
    const p = periodOf({ rolling: true, duration: '7d', days: 7, zone: 'UTC' }, undefined, now)
    expect(p).toMatchObject({ label: 'last 7d', from: end - 7 * DAY, to: end, current: true })
    expect(p.days.map(d => d.day)).toEqual(['2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28'])
    expect(p.days.reduce((n, d) => n + d.to - d.from, 0)).toBe(7 * DAY)
    expect(burnWindows(now)).toEqual(BURN_WINDOWS.map(([name, minutes]) => ({ name, from: end - minutes * 60_000, to: end })))
    expect(() => periodOf({ rolling: true, duration: '7d', days: 7, zone: 'UTC' }, '2026-11', now)).toThrow(/leave period out/)
  })
})
