import { describe, expect, it } from 'vitest'
import { parseAtTime, parseOffsetSeconds } from '../../src/graphite/attime.js'
import { timeZone } from '../../src/bucket/time-zone.js'

// Expected values printed by graphite-web 1.1.10's render/attime.py parseATTime
// (TIME_ZONE UTC, now=1741600830 = 2025-03-10T09:00:30Z, a Monday).
const NOW = 1741600830
const GRAPHITE_WEB = {
  now: 1741600830,
  '-6h': 1741579230,
  '-7d': 1740996030,
  '-1mon': 1739008830,
  '-1y': 1710064830,
  'now-2h30min': 1741591830,
  '12:00_20250101': 1735732800,
  20250101: 1735689600,
  1700000000: 1700000000,
  noon: 1741608000,
  yesterday: 1741478400,
  tomorrow: 1741651200,
  today: 1741564800,
  '3pm': 1741618800,
  '9am+1h': 1741600800,
  'midnight-1d': 1741478400,
  '03/10/2025': 1741564800,
  '03/10/25': 1741564800,
  jan5: 1736035200,
  mar10: 1741564800,
  monday: 1741564800,
  sunday: 1741478400,
  teatime: 1741622400,
  '-5min': 1741600530,
  '+2h': 1741608030,
  20251301: 20251301, // not a date (month 13): epoch seconds
  '12:30pm_20250310': 1741566600
}

// The same, parseATTime(text, pytz.timezone(zone), now) for a request's tz: wall times of the zone;
// a wall time the zone skips (02:30 on 2025-03-30 in Berlin) or reads twice takes the standard offset (pytz localize)
const IN_ZONES = {
  'Europe/Berlin': { noon: 1741604400, yesterday: 1741474800, today: 1741561200, monday: 1741561200, 20250308: 1741388400, '20:00_20250308': 1741460400, '02:30_20250330': 1743298200, '02:30_20251026': 1761442200, '02:30_20250309': 1741483800, '01:30_20251102': 1762043400, mar10: 1741561200, '3pm': 1741615200, '-6h': 1741579230, 1700000000: 1700000000 },
  'America/New_York': { noon: 1741622400, yesterday: 1741496400, today: 1741579200, monday: 1741579200, 20250308: 1741410000, '20:00_20250308': 1741482000, '02:30_20250330': 1743316200, '02:30_20251026': 1761460200, '02:30_20250309': 1741505400, '01:30_20251102': 1762065000, mar10: 1741579200, '3pm': 1741633200, '-6h': 1741579230, 1700000000: 1700000000 }
}

describe('parseAtTime', () => {
  for (const [zone, table] of Object.entries(IN_ZONES)) {
    it(`reads absolute times as wall times of ${zone}, as graphite-web with tz`, () => {
      const read = Object.fromEntries(Object.keys(table).map(text => [text, parseAtTime(text, NOW, timeZone(zone))]))
      expect(read).toEqual(table)
    })
  }

  for (const [text, expected] of Object.entries(GRAPHITE_WEB)) {
    it(`${text} → ${expected} as graphite-web`, () => {
      expect(parseAtTime(text, NOW)).toBe(expected)
    })
  }

  it('refuses what graphite-web refuses, naming the text', () => {
    expect(() => parseAtTime('-1m', NOW)).toThrow(/"-1m".*offset unit "m"/)
    expect(() => parseAtTime('bogus', NOW)).toThrow(/unknown day reference "bogus"/)
    expect(() => parseAtTime('feb', NOW)).toThrow(/day of the month/)
    expect(() => parseAtTime('20250230', NOW)).toThrow(/no date 2025-2-30/)
  })

  it('reads intervals for summarize and timeShift', () => {
    expect(parseOffsetSeconds('1h')).toBe(3600)
    expect(parseOffsetSeconds('-1d')).toBe(-86400)
    expect(parseOffsetSeconds('5min')).toBe(300)
    expect(parseOffsetSeconds('1h30min')).toBe(5400)
    expect(() => parseOffsetSeconds('')).toThrow(/empty interval/)
  })
})
