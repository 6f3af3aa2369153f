import { describe, expect, it } from 'vitest'
import {
  ceilToStep, countPoints, dayId, describeDay, daysInMonth, floorToStep, hourId, metricOfId, monthId, namePrefixIdRange, nextStep,
  parseBucketId, parseEventTime, parseHourId, parseQueryTime, prefixUpperBound, startOfDay, utcParts
} from '../../src/bucket/time.js'
import fc from 'fast-check'

describe('the id range of a name prefix (check --prefix)', () => {
  // MongoDB orders strings by their UTF-8 bytes; JavaScript by UTF-16 code units: the range must hold in both
  const utf8 = (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
  const utf16 = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
  const inRange = (id, { $gte, $lt }, cmp) => cmp(id, $gte) >= 0 && ($lt === undefined || cmp(id, $lt) < 0)

  // UTF-16 order (mongo-java-server's) agrees wherever the prefix's last character is below the surrogates: names are ASCII, tag values mostly
  const agreesInUtf16 = (prefix) => prefix.charCodeAt(prefix.length - 1) < 0xd7ff

  it('holds exactly the ids of the metrics whose names start with the prefix, in UTF-8 order (and in UTF-16 where they agree)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '/', '%', '2', 'F', ';', '=', '\u00e9', '\uffff', '\ud7ff', '\ue000', '😀', '\u{10ffff}'), maxLength: 6 })
    fc.assert(fc.property(text, text, (prefix, rest) => {
      fc.pre(prefix.length > 0)
      const name = `${prefix}${rest}`
      for (const id of [dayId(name, Date.UTC(2026, 10, 29)), monthId(name, Date.UTC(2026, 10, 29))]) {
        expect(inRange(id, namePrefixIdRange(prefix), utf8)).toBe(true)
        if (agreesInUtf16(prefix)) expect(inRange(id, namePrefixIdRange(prefix), utf16)).toBe(true)
        expect(metricOfId(id)).toBe(name)
      }
    }), { numRuns: 2000 })
    fc.assert(fc.property(text, text, (prefix, name) => {
      fc.pre(prefix.length > 0 && !name.startsWith(prefix))
      const id = dayId(name, Date.UTC(2026, 10, 29))
      expect(inRange(id, namePrefixIdRange(prefix), utf8)).toBe(false)
      if (agreesInUtf16(prefix)) expect(inRange(id, namePrefixIdRange(prefix), utf16)).toBe(false)
    }), { numRuns: 2000 })
  })

  it('the bound above a prefix: its last character one code point up, past the surrogates and U+10FFFF', () => {
    expect(prefixUpperBound('web.req;route=')).toBe('web.req;route>')
    expect(prefixUpperBound('a\ud7ff')).toBe('a\ue000')
    expect(prefixUpperBound('a\uffff')).toBe('a\u{10000}')
    expect(prefixUpperBound('a\u{10ffff}')).toBe('b')
    expect(prefixUpperBound('\u{10ffff}')).toBe(null)
    expect(namePrefixIdRange('\u{10ffff}')).toEqual({ $gte: '\u{10ffff}' })
    // web.req;route=😀 sorts above web.req;route=\uffff in UTF-8: inside the range all the same
    expect(inRange(dayId('web.req;route=😀', 0), namePrefixIdRange('web.req;route='), utf8)).toBe(true)
    expect(inRange(dayId('web.req;route=😀', 0), { $gte: 'web.req;route=', $lt: 'web.req;route=\uffff' }, utf8)).toBe(false)
  })
})

describe('parseEventTime', () => {
  it('reads ISO-8601 with Z or an offset, and epoch ms', () => {
    expect(parseEventTime('2026-11-21T10:15:00Z')).toBe(Date.UTC(2026, 10, 21, 10, 15))
    expect(parseEventTime('2026-11-21T10:15:30.250Z')).toBe(Date.UTC(2026, 10, 21, 10, 15, 30, 250))
    expect(parseEventTime('2026-11-21T12:15:00+02:00')).toBe(Date.UTC(2026, 10, 21, 10, 15))
    expect(parseEventTime('2026-11-21T00:30:00-05:00')).toBe(Date.UTC(2026, 10, 21, 5, 30))
    expect(parseEventTime(Date.UTC(2024, 1, 29, 23, 59))).toBe(Date.UTC(2024, 1, 29, 23, 59))
  })

  it('refuses a time without a zone, an impossible date, fractions and junk', () => {
    expect(parseEventTime('2026-11-21T10:15:00')).toBeNull()
    expect(parseEventTime('2026-11-21')).toBeNull()
    expect(parseEventTime('2026-02-29T00:00:00Z')).toBeNull() // not a leap year
    expect(parseEventTime('2026-13-01T00:00:00Z')).toBeNull()
    expect(parseEventTime('2026-04-31T00:00:00Z')).toBeNull()
    expect(parseEventTime('2026-11-21T24:00:00Z')).toBeNull()
    expect(parseEventTime('yesterday')).toBeNull()
    expect(parseEventTime(1.5)).toBeNull()
    expect(parseEventTime(-1)).toBeNull()
    expect(parseEventTime(Number.NaN)).toBeNull()
  })

  it('accepts the leap day of a leap year', () => {
    expect(parseEventTime('2024-02-29T12:00:00Z')).toBe(Date.UTC(2024, 1, 29, 12))
  })

  it('reads query times: all digits are epoch ms', () => {
    expect(parseQueryTime('1700000000000')).toBe(1700000000000)
    expect(parseQueryTime('2026-01-01T00:00:00Z')).toBe(Date.UTC(2026, 0, 1))
    expect(parseQueryTime('-5')).toBeNull()
  })
})

describe('ids and calendar', () => {
  it('puts the metric first and pads the date', () => {
    const t = Date.UTC(2026, 0, 5, 3, 4)
    expect(dayId('cpu.load', t)).toBe('cpu.load/20260105')
    expect(monthId('cpu.load', t)).toBe('cpu.load/202601')
  })

  it('round-trips ids', () => {
    expect(parseBucketId('a:b/20240229')).toEqual({ metric: 'a:b', date: Date.UTC(2024, 1, 29) })
    expect(parseBucketId('x/202612')).toEqual({ metric: 'x', date: Date.UTC(2026, 11, 1) })
    expect(parseBucketId('x/20260230')).toBeNull()
  })

  it('names a minute-histogram hour by its day and hour, and reads it back', () => {
    const t = Date.UTC(2026, 0, 5, 3, 59, 59, 999)
    expect(hourId('cpu.load', t)).toBe('cpu.load/2026010503')
    expect(parseHourId('cpu.load/2026010503')).toEqual({ metric: 'cpu.load', date: Date.UTC(2026, 0, 5, 3) })
    expect(parseHourId('a:b/2024022923')).toEqual({ metric: 'a:b', date: Date.UTC(2024, 1, 29, 23) })
    for (const bad of ['x/2026010524', 'x/2026023001', 'x/20260105', 'x/202601050', '/2026010503', 'x/2026010503x']) expect(parseHourId(bad)).toBeNull()
    // a day or month id is not an hour's
    expect(parseBucketId('x/2026010503')).toBeNull()
  })

  it('knows month lengths and leap years', () => {
    expect(daysInMonth(2024, 2)).toBe(29)
    expect(daysInMonth(2026, 2)).toBe(28)
    expect(daysInMonth(1900, 2)).toBe(28)
    expect(daysInMonth(2000, 2)).toBe(29)
    expect(daysInMonth(2026, 4)).toBe(30)
    expect(daysInMonth(2026, 12)).toBe(31)
  })

  it('crosses Dec 31 → Jan 1 in UTC', () => {
    const lastMinute = Date.UTC(2026, 11, 31, 23, 59, 59, 999)
    expect(utcParts(lastMinute)).toEqual({ year: 2026, month: 12, day: 31, hour: 23, minute: 59 })
    expect(dayId('m', lastMinute + 1)).toBe('m/20270101')
    expect(startOfDay(lastMinute)).toBe(Date.UTC(2026, 11, 31))
  })
})

describe('steps', () => {
  const t = Date.UTC(2026, 10, 21, 10, 15, 30)
  it('rounds down and up to each step', () => {
    expect(floorToStep(t, 'minute')).toBe(Date.UTC(2026, 10, 21, 10, 15))
    expect(ceilToStep(t, 'minute')).toBe(Date.UTC(2026, 10, 21, 10, 16))
    expect(floorToStep(t, 'hour')).toBe(Date.UTC(2026, 10, 21, 10))
    expect(ceilToStep(t, 'day')).toBe(Date.UTC(2026, 10, 22))
    expect(floorToStep(t, 'month')).toBe(Date.UTC(2026, 10, 1))
    expect(ceilToStep(t, 'month')).toBe(Date.UTC(2026, 11, 1))
    expect(ceilToStep(Date.UTC(2026, 10, 1), 'month')).toBe(Date.UTC(2026, 10, 1))
    expect(nextStep(Date.UTC(2026, 11, 1), 'month')).toBe(Date.UTC(2027, 0, 1))
  })

  it('counts points in the rounded window', () => {
    expect(countPoints(Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 2), 'minute')).toBe(1440)
    expect(countPoints(Date.UTC(2026, 0, 1, 0, 0, 30), Date.UTC(2026, 0, 1, 0, 2, 1), 'minute')).toBe(3)
    expect(countPoints(Date.UTC(2026, 0, 15), Date.UTC(2027, 0, 15), 'month')).toBe(13)
    expect(countPoints(Date.UTC(2024, 0, 1), Date.UTC(2025, 0, 1), 'day')).toBe(366)
  })
})

describe('describeDay', () => {
  it('names each UTC day\'s keys, month start and next month start, the same frozen object for the same day, past the days it keeps', () => {
    const DAY = 86_400_000
    const first = Date.UTC(2019, 0, 1)
    const check = (dayStart) => {
      const d = new Date(dayStart)
      const y = d.getUTCFullYear()
      const m = d.getUTCMonth()
      const key = `${y}${String(m + 1).padStart(2, '0')}`
      expect(describeDay(dayStart)).toEqual({ dayKey: `${key}${String(d.getUTCDate()).padStart(2, '0')}`, monthKey: key, dayOfMonth: d.getUTCDate(), monthStart: Date.UTC(y, m, 1), nextMonthStart: Date.UTC(y, m + 1, 1) })
    }
    // 5,000 days (more than it keeps), over leap years and year ends, then the first ones again
    for (let i = 0; i < 5000; i++) check(first + i * DAY)
    for (let i = 0; i < 40; i++) check(first + i * DAY)
    expect(describeDay(Date.UTC(2024, 11, 31)).nextMonthStart).toBe(Date.UTC(2025, 0, 1))
    expect(describeDay(first)).toBe(describeDay(first))
    expect(Object.isFrozen(describeDay(first))).toBe(true)
  })
})
