// The local days of declared zones in the month documents (bucket/zoned-days.js):
// each event's field is its local date in each zone declared for its name,
// read from Intl (test/helpers/intl-local-time.js) as the oracle, in zones
// with 30- and 45-minute offsets and clocks changing both ways; a local day
// is read from each UTC month document it spans.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { MAX_ZONED_ZONES, createZonedDays, zonedPieces } from '../../src/bucket/zoned-days.js'
import { timeZone } from '../../src/bucket/time-zone.js'
import { startOfDay } from '../../src/bucket/time.js'
import { intlWall } from '../helpers/intl-local-time.js'

const ZONES = ['Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Santiago', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']
const pad = (n, w = 2) => String(n).padStart(w, '0')
const intlKey = (zone, t) => { const w = intlWall(zone, t); return `${pad(w.y, 4)}${pad(w.mo)}${pad(w.d)}` }

describe('zoned fields', () => {
  it('an event counts on its local date in each zone declared for its name (Intl the oracle), its series and rollups too', () => {
    const zonedOf = createZonedDays(ZONES.map(name => ({ zone: timeZone(name), metric: 'web.requests' })))
    fc.assert(fc.property(fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }), fc.constantFrom('web.requests', 'web.requests;route=/a', 'web.requests;~route;route=/a'), (time, metric) => {
      const fields = zonedOf(metric)(startOfDay(time), time)
      expect(fields).toEqual(ZONES.map(zone => `zoned.${zone}.${intlKey(zone, time)}`))
    }), { numRuns: 2000 })
  })

  it('the minutes either side of each local midnight and clock change fall on their own dates', () => {
    const zonedOf = createZonedDays(ZONES.map(name => ({ zone: timeZone(name), metric: 'm' })))('m')
    let checked = 0
    for (const name of ZONES) {
      // a year of minutes around 2026's local midnights and changes: every quarter-hour's first and last minute
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 15 * 60_000) {
        for (const at of [t, t + 14 * 60_000 + 59_999]) {
          const i = ZONES.indexOf(name)
          if (zonedOf(startOfDay(at), at)[i] !== `zoned.${name}.${intlKey(name, at)}`) throw new Error(`${name} ${new Date(at).toISOString()}`)
          checked++
        }
      }
    }
    expect(checked).toBe(ZONES.length * 365 * 96 * 2)
  }, 120_000)

  it('a name without a declared zone, and no declaration, add no field', () => {
    expect(createZonedDays([{ zone: timeZone('Asia/Kolkata'), metric: 'a' }])('b;k=v')).toBeNull()
    expect(createZonedDays([])('a')).toBeNull()
    expect(MAX_ZONED_ZONES).toBe(8)
  })
})

describe('zoned pieces', () => {
  it('a local day spanning two UTC months is read from both month documents', () => {
    // Kolkata's 1 February 2026 begins 31 January 18:30 UTC
    const from = Date.UTC(2026, 0, 31, 18, 30)
    const pieces = zonedPieces('web.requests;route=/a', { from, to: from + 86_400_000, zone: 'Asia/Kolkata', day: '2026-02-01' })
    expect(pieces.map(p => [p.id, p.path.join('.')])).toEqual([
      ['web.requests;route=%2Fa/202601', 'zoned.Asia/Kolkata.20260201'],
      ['web.requests;route=%2Fa/202602', 'zoned.Asia/Kolkata.20260201']
    ])
    // Berlin's 10 February: one month
    expect(zonedPieces('m', { from: Date.UTC(2026, 1, 9, 23), to: Date.UTC(2026, 1, 10, 23), zone: 'Europe/Berlin', day: '2026-02-10' }).map(p => p.id)).toEqual(['m/202602'])
  })
})
