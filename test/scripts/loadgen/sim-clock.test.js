// The load generator's simulated clock and window arithmetic (pure).
import { describe, expect, it } from 'vitest'
import { checkServiceWindow, createSimClock, defaultStart, parseDuration, parseStart, simSpanMs } from '../../../scripts/loadgen/sim-clock.js'

const MIN = 60_000
const DAY = 86_400_000
const NOW = Date.UTC(2026, 10, 21, 14, 30)

function fakeReal (t = 1000) {
  return { now: () => t, advance (ms) { t += ms } }
}

describe('createSimClock', () => {
  it('runs speedup times faster than real time from start, in whole ms', () => {
    const real = fakeReal()
    const clock = createSimClock({ start: Date.UTC(2026, 10, 20, 23, 50), speedup: 300, realNow: real.now })
    expect(clock.now()).toBe(Date.UTC(2026, 10, 20, 23, 50))
    real.advance(200) // 200 ms real = 1 simulated minute at 300×
    expect(clock.now()).toBe(Date.UTC(2026, 10, 20, 23, 51))
    real.advance(2000) // 10 more simulated minutes: past midnight
    expect(clock.now()).toBe(Date.UTC(2026, 10, 21, 0, 1))
    real.advance(0.0011) // fractions of a simulated ms are floored
    expect(Number.isInteger(clock.now())).toBe(true)
    expect(clock.realElapsed()).toBeCloseTo(2200.0011, 6)
    expect(clock.realOffsetAt(Date.UTC(2026, 10, 21, 0, 0))).toBe(2000)
  })

  it('refuses a start that is not a number and a speedup that is not positive', () => {
    expect(() => createSimClock({ start: NaN, speedup: 1 })).toThrow(/start/)
    expect(() => createSimClock({ start: 0, speedup: 0 })).toThrow(/speedup/)
    expect(() => createSimClock({ start: 0, speedup: -2 })).toThrow(/speedup/)
  })
})

describe('run window', () => {
  it('spans --sim-minutes, or --seconds of real time times the speedup', () => {
    expect(simSpanMs({ simMinutes: 1450, speedup: 300 })).toBe(1450 * MIN)
    expect(simSpanMs({ seconds: 2, speedup: 300 })).toBe(600_000)
  })

  it('starts by default at 00:00 of the latest day on which the run ends by now', () => {
    expect(defaultStart({ now: NOW, spanMs: 1450 * MIN })).toBe(Date.UTC(2026, 10, 20))
    expect(defaultStart({ now: NOW, spanMs: 60 * MIN })).toBe(Date.UTC(2026, 10, 21))
    expect(defaultStart({ now: NOW, spanMs: 15 * 60 * MIN })).toBe(Date.UTC(2026, 10, 20))
  })

  it('accepts a run inside the service window and says why it refuses one outside', () => {
    const ok = { start: Date.UTC(2026, 10, 20), spanMs: DAY, now: NOW, realRunMs: 300_000, maxAgeDays: 400 }
    expect(checkServiceWindow(ok)).toBeNull()
    expect(checkServiceWindow({ ...ok, start: Date.UTC(2026, 10, 21) })).toMatch(/after now .* ahead of its clock/)
    expect(checkServiceWindow({ ...ok, start: NOW - 400 * DAY })).toMatch(/MAX_AGE_DAYS \(400\)/)
    // out-of-order events reach back: a start 399.9 days ago with a day-long window is too old
    expect(checkServiceWindow({ ...ok, start: NOW - 399.9 * DAY, spanMs: MIN, oooWindowMs: DAY })).toMatch(/older than/)
    expect(checkServiceWindow({ ...ok, start: NOW - 398 * DAY, spanMs: MIN, oooWindowMs: DAY })).toBeNull()
  })
})

describe('parsing', () => {
  it('reads durations with units, bare numbers as minutes', () => {
    expect(parseDuration('30s')).toBe(30_000)
    expect(parseDuration('90m')).toBe(90 * MIN)
    expect(parseDuration('6h')).toBe(6 * 60 * MIN)
    expect(parseDuration('1.5d')).toBe(1.5 * DAY)
    expect(parseDuration('15')).toBe(15 * MIN)
    for (const bad of ['', 'h', '-1h', '1w', '1 hour', 'abc']) expect(parseDuration(bad)).toBeNull()
  })

  it('reads --start as ISO with a zone, a date, or HH:MM of the latest day that fits', () => {
    const ctx = { now: NOW, spanMs: 30 * MIN }
    expect(parseStart('2026-11-20T23:50:00Z', ctx)).toBe(Date.UTC(2026, 10, 20, 23, 50))
    expect(parseStart('2026-11-21T00:50:00+01:00', ctx)).toBe(Date.UTC(2026, 10, 20, 23, 50))
    expect(parseStart('2026-11-19', ctx)).toBe(Date.UTC(2026, 10, 19))
    // 23:50 + 30 min does not fit today (it is 14:30): yesterday
    expect(parseStart('23:50', ctx)).toBe(Date.UTC(2026, 10, 20, 23, 50))
    // 09:00 + 30 min fits today
    expect(parseStart('09:00', ctx)).toBe(Date.UTC(2026, 10, 21, 9, 0))
    // a long run: the latest day on which it ends by now
    expect(parseStart('23:50', { now: NOW, spanMs: 2 * DAY })).toBe(Date.UTC(2026, 10, 18, 23, 50))
    for (const bad of ['24:00', '12:60', '2026-02-30', '2026-11-20T10:00:00', 'yesterday']) expect(parseStart(bad, ctx)).toBeNull()
  })
})
