// Local boundaries (src/bucket/local-time.js, offsets from Luxon) against an
// independent computation (test/helpers/intl-local-time.js: the wall clock
// read from Intl minute by minute), in the zones of the design, over windows
// holding the 2026 DST changes, month ends and the year end; and properties
// of any window in any of them.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { timeZone } from '../../src/bucket/time-zone.js'
import { localBoundaries, localParts, localYearStart } from '../../src/bucket/local-time.js'
import { intlBoundaries } from '../helpers/intl-local-time.js'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
// the design's seven, and two whose clocks fall back to exactly midnight (a day must stay one point)
const ZONES = ['UTC', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'Atlantic/Azores', 'America/Havana']
// each starts a day after a month start, so the month floor is within the scan's 3 days of look-back
const WINDOWS = [
  ['March and April: New York, Havana, London, the Azores, Lord Howe and Chatham change', Date.UTC(2026, 2, 2, 12), Date.UTC(2026, 3, 12)],
  ['September to November: Chatham, Lord Howe, London, the Azores, New York and Havana change', Date.UTC(2026, 8, 2, 12), Date.UTC(2026, 10, 8)],
  ['the year end', Date.UTC(2026, 11, 2, 12), Date.UTC(2027, 0, 10)]
]
const iso = ms => new Date(ms).toISOString()

describe('local boundaries match the wall clock read from Intl', () => {
  for (const tz of ZONES) {
    it(`in ${tz}: hour, day and month points over DST changes, month ends and the year end`, () => {
      const zone = timeZone(tz)
      for (const [, from, to] of WINDOWS) {
        const oracle = intlBoundaries(tz, from - 3 * DAY, to + 40 * DAY)
        for (const step of ['hour', 'day', 'month']) {
          const all = oracle[step]
          const floor = all.filter(b => b <= from).at(-1)
          const ceil = all.find(b => b >= to)
          const expected = all.filter(b => b >= floor && b <= ceil)
          expect(localBoundaries(zone, from, to, step).map(iso), `${tz} ${step} from ${iso(from)}`).toEqual(expected.map(iso))
        }
      }
    }, 60_000)
  }
})

describe('the days and hours the tz database is known for', () => {
  const lengthOfLocalDay = (tz, utcNoon) => {
    const zone = timeZone(tz)
    const [start, end] = localBoundaries(zone, utcNoon, utcNoon + 1, 'day')
    return (end - start) / HOUR
  }
  it('a spring-forward day is one point of 23 hours, a fall-back day one of 25 (30-minute changes on Lord Howe)', () => {
    expect(lengthOfLocalDay('America/New_York', Date.UTC(2026, 2, 8, 12))).toBe(23)
    expect(lengthOfLocalDay('America/New_York', Date.UTC(2026, 10, 1, 12))).toBe(25)
    expect(lengthOfLocalDay('Europe/London', Date.UTC(2026, 2, 29, 12))).toBe(23)
    expect(lengthOfLocalDay('Europe/London', Date.UTC(2026, 9, 25, 12))).toBe(25)
    expect(lengthOfLocalDay('Australia/Lord_Howe', Date.UTC(2026, 3, 4, 20))).toBe(24.5)
    expect(lengthOfLocalDay('Australia/Lord_Howe', Date.UTC(2026, 9, 3, 20))).toBe(23.5)
    expect(lengthOfLocalDay('Pacific/Chatham', Date.UTC(2026, 3, 4, 20))).toBe(25)
    expect(lengthOfLocalDay('Pacific/Chatham', Date.UTC(2026, 8, 26, 20))).toBe(23)
    // the clock falls back from 01:00 to 00:00 (Azores) and from 01:00 to 00:00 (Havana): one day of 25 hours, not two
    expect(lengthOfLocalDay('Atlantic/Azores', Date.UTC(2026, 9, 25, 12))).toBe(25)
    expect(lengthOfLocalDay('America/Havana', Date.UTC(2026, 10, 1, 12))).toBe(25)
  })

  it('hour points fall at :30 UTC in Kolkata, at :15 in Kathmandu and in Chatham (+12:45); New York repeats 01:00 as two points', () => {
    const minutesPast = (tz, t) => new Set(localBoundaries(timeZone(tz), t, t + DAY, 'hour').map(b => new Date(b).getUTCMinutes()))
    expect(minutesPast('Asia/Kolkata', Date.UTC(2026, 5, 1))).toEqual(new Set([30]))
    expect(minutesPast('Asia/Kathmandu', Date.UTC(2026, 5, 1))).toEqual(new Set([15]))
    expect(minutesPast('Pacific/Chatham', Date.UTC(2026, 5, 1))).toEqual(new Set([15]))
    expect(minutesPast('Pacific/Chatham', Date.UTC(2026, 0, 10))).toEqual(new Set([15]))
    // 2026-11-01 in New York: 00:00 EDT, 01:00 EDT, 01:00 EST, 02:00 EST …
    const ny = localBoundaries(timeZone('America/New_York'), Date.UTC(2026, 10, 1, 4), Date.UTC(2026, 10, 1, 8), 'hour')
    expect(ny.map(iso)).toEqual(['2026-11-01T04:00:00.000Z', '2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T07:00:00.000Z', '2026-11-01T08:00:00.000Z'])
    expect(ny.map(b => localParts(timeZone('America/New_York'), b).hour)).toEqual([0, 1, 1, 2, 3])
  })

  it('a local year begins at local midnight of 1 January', () => {
    expect(iso(localYearStart(timeZone('Asia/Kathmandu'), 2027))).toBe('2026-12-31T18:15:00.000Z')
    expect(iso(localYearStart(timeZone('America/New_York'), 2027))).toBe('2027-01-01T05:00:00.000Z')
    expect(iso(localYearStart(timeZone('Pacific/Chatham'), 2027))).toBe('2026-12-31T10:15:00.000Z')
    expect(iso(localYearStart(timeZone('UTC'), 2027))).toBe('2027-01-01T00:00:00.000Z')
  })

  it('knows no zone the tz database does not name, and UTC under any of its names', () => {
    for (const name of ['Mars/Olympus', '', '+05:30', 'GMT+5:30', 'Europe/Berlin ']) expect(timeZone(name), name).toBeNull()
    expect(timeZone('Europe/Berlin')).not.toBeNull()
    // named as the tz database spells the name sent, or (a link it does not list) as the zone linked to
    const utcNames = { UTC: 'UTC', utc: 'UTC', 'Etc/UTC': 'Etc/UTC', GMT: 'UTC', 'Etc/GMT': 'Etc/GMT', 'Etc/GMT+0': 'UTC', Greenwich: 'UTC', Zulu: 'UTC' }
    for (const [name, spelled] of Object.entries(utcNames)) expect(timeZone(name), name).toMatchObject({ name: spelled, isUtc: true })
    expect(timeZone('asia/kolkata')).toMatchObject({ name: 'Asia/Kolkata', isUtc: false })
    expect(timeZone('asia/kolkata').offsetAt(Date.UTC(2026, 0, 1))).toBe(330)
  })
})

describe('any window in any zone', () => {
  const zones = [...ZONES, 'America/St_Johns', 'Asia/Tehran', 'Africa/Casablanca', 'America/Santiago', 'Pacific/Apia', 'Australia/Adelaide', 'America/Scoresbysund']
  // Chatham's spring change (02:45 → 03:45) leaves a local hour 03 of 15 minutes
  const bounds = { hour: [15 * MIN, 2 * HOUR], day: [22 * HOUR, 26 * HOUR], month: [27 * DAY, 32 * DAY] }
  it('the points partition the window, start on quarter-hours and last as long as a local hour, day or month can', () => {
    fc.assert(fc.property(
      fc.constantFrom(...zones),
      fc.constantFrom('hour', 'day', 'month'),
      fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2027, 11, 1) }),
      fc.integer({ min: 1, max: 70 * DAY }),
      (tz, step, from, span) => {
        const to = from + (step === 'hour' ? Math.min(span, 5 * DAY) : span)
        const zone = timeZone(tz)
        const b = localBoundaries(zone, from, to, step)
        expect(b[0]).toBeLessThanOrEqual(from)
        expect(b[1]).toBeGreaterThan(from)
        expect(b.at(-2)).toBeLessThan(to)
        expect(b.at(-1)).toBeGreaterThanOrEqual(to)
        for (let i = 0; i + 1 < b.length; i++) {
          expect(b[i] % (15 * MIN)).toBe(0)
          const length = b[i + 1] - b[i]
          expect(length).toBeGreaterThanOrEqual(bounds[step][0])
          expect(length).toBeLessThanOrEqual(bounds[step][1])
        }
      }
    ), { numRuns: 300 })
  })
})
