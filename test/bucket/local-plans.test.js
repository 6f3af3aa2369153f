// Local series and year to date as range plans (src/bucket/local-plans.js),
// read from documents built the way ingest writes them: every point equals
// the sum of the events between its local boundaries (found independently,
// from Intl), a local day equals the sum of its hours, and a local year to
// date reads at most 12 monthly and 14 daily documents.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { timeZone } from '../../src/bucket/time-zone.js'
import { localYearStart } from '../../src/bucket/local-time.js'
import { localSeriesValues, planLocalSeries, planLocalYtd } from '../../src/bucket/local-plans.js'
import { RangeRefusal, evaluatePlan } from '../../src/bucket/range-plan.js'
import { documentsOf } from '../helpers/documents.js'
import { intlBoundaries, intlMonthStarts } from '../helpers/intl-local-time.js'

const MIN = 60_000
const DAY = 86_400_000
const ZONES = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham']
const opts = { maxPoints: 20_000, horizons: {} }

/** Events at random minutes of [from, to) */
const eventsArb = (from, to) => fc.array(fc.record({
  metric: fc.constant('m'),
  value: fc.integer({ min: 1, max: 50 }),
  time: fc.integer({ min: from, max: to - 1 })
}), { minLength: 1, maxLength: 300 })

const sumBetween = (events, a, b) => events.filter(e => e.time >= a && e.time < b).reduce((s, e) => s + e.value, 0)

describe('local points are the sums of the events between their local boundaries', () => {
  // a window over New York's and London's spring changes and a month end; boundaries read from Intl once per zone
  const from = Date.UTC(2026, 2, 6)
  const to = Date.UTC(2026, 3, 2)
  const oracle = Object.fromEntries(ZONES.map(tz => [tz, intlBoundaries(tz, from - 35 * DAY, to + 35 * DAY)]))

  for (const step of ['hour', 'day', 'month']) {
    it(`at step ${step}, in every zone, for any events (null only where no document holds the point)`, () => {
      fc.assert(fc.property(fc.constantFrom(...ZONES), eventsArb(from, to), (tz, events) => {
        const docs = documentsOf(events)
        const planned = planLocalSeries('m', timeZone(tz), from, to, step, opts)
        const all = oracle[tz][step]
        const expected = all.filter(b => b >= all.filter(x => x <= from).at(-1) && b <= all.find(x => x >= to))
        expect(planned.timestamps).toEqual(expected.slice(0, -1))
        // the values as the reader answers them (whole UTC days of a day point only where their month holds the day)
        localSeriesValues(planned, docs).forEach((value, i) => {
          const [a, b] = [expected[i], expected[i + 1]]
          // null where no document holds the point's time: nothing written on any UTC day it touches
          const held = events.some(e => e.time >= Math.floor(a / DAY) * DAY && e.time < Math.ceil(b / DAY) * DAY)
          expect(value, `${tz} ${new Date(a).toISOString()}`).toBe(held ? sumBetween(events, a, b) : null)
        })
      }), { numRuns: step === 'hour' ? 15 : 40 })
    }, 60_000)
  }

  it('the hours of a local day add up to its day value, also where the day has 23 or 25 hours', () => {
    fc.assert(fc.property(fc.constantFrom(...ZONES), eventsArb(from, to), fc.integer({ min: 0, max: 20 }), (tz, events, d) => {
      const zone = timeZone(tz)
      const docs = documentsOf(events)
      const day = planLocalSeries('m', zone, from + d * DAY, from + d * DAY + 1, 'day', opts)
      const hours = planLocalSeries('m', zone, day.start, day.end, 'hour', opts)
      const dayValue = evaluatePlan(day.plan, docs)[0].value ?? 0
      const hourSum = evaluatePlan(hours.plan, docs).reduce((s, { value }) => s + (value ?? 0), 0)
      expect(hourSum).toBe(dayValue)
      expect(dayValue).toBe(sumBetween(events, day.start, day.end))
    }), { numRuns: 60 })
  })

  it('refuses a zone whose offset is not whole minutes (Monrovia kept -00:44:30 until 1972): its edges fall inside minutes', () => {
    const start = Date.UTC(1970, 5, 1)
    expect(() => planLocalSeries('m', timeZone('Africa/Monrovia'), start, start + DAY, 'day', opts)).toThrow(RangeRefusal)
  })
})

describe('documents a local day series reads', () => {
  it('whole UTC days from their month (a year at UTC+0: 13 monthly documents, no daily one); only days cut by the zone from daily documents', () => {
    const year = [Date.UTC(2025, 10, 21), Date.UTC(2026, 10, 21)]
    const abidjan = planLocalSeries('m', timeZone('Africa/Abidjan'), ...year, 'day', opts)
    expect(abidjan.timestamps).toHaveLength(365)
    expect(abidjan.plan.reads).toMatchObject({ monthly: { ids: expect.any(Array) }, daily: { ids: [] } })
    // each day of the month it reads, not the whole `daily` (a field per day: they never collide)
    expect(Object.keys(abidjan.plan.reads.monthly.projection).sort()).toEqual(Array.from({ length: 31 }, (_, d) => `daily.${d + 1}`).sort())
    expect(abidjan.plan.reads.monthly.ids).toHaveLength(13)
    // London: its winter days are whole UTC days (monthly documents); a summer day (UTC+1) is two UTC days' hours
    const london = planLocalSeries('m', timeZone('Europe/London'), ...year, 'day', opts)
    expect(london.plan.reads.monthly.ids).toEqual(['m/202511', 'm/202512', 'm/202601', 'm/202602', 'm/202603', 'm/202610', 'm/202611'])
    const summer = london.plan.reads.daily.ids.filter(id => id >= 'm/20260329' && id <= 'm/20261025')
    expect(london.plan.reads.daily.ids).toHaveLength(summer.length)
    // a local month of days: 1 monthly document and the 2 days cut by the zone
    const march = planLocalSeries('m', timeZone('Europe/London'), Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 29), 'day', opts)
    expect(march.plan.reads.monthly.ids).toEqual(['m/202603'])
    expect(march.plan.reads.daily.ids).toEqual([])
  })

  it('null and 0 as a UTC day series: a whole day counts where its month holds daily.D, even 0', () => {
    const planned = planLocalSeries('m', timeZone('Africa/Abidjan'), Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 4), 'day', opts)
    expect(localSeriesValues(planned, { daily: [], monthly: [{ _id: 'm/202603', monthly: 4, daily: { 1: 4, 3: 0 } }] })).toEqual([4, null, 0])
  })
})

describe('a local year to date', () => {
  it('reads at most 12 monthly and 14 daily documents, and its months are the sums of their local months', () => {
    const events = []
    for (let t = Date.UTC(2025, 11, 30); t < Date.UTC(2027, 0, 2); t += 7 * 3_600_000 + 13 * MIN) events.push({ metric: 'm', value: 1 + (t / MIN) % 7, time: t })
    const docs = documentsOf(events)
    for (const tz of ZONES) {
      const zone = timeZone(tz)
      const oracle = intlMonthStarts(tz, 2026)
      const asOf = Date.UTC(2026, 11, 31) // 31 December in every zone here
      const { months, plan } = planLocalYtd('m', zone, localYearStart(zone, 2026), asOf, opts)
      expect(months).toEqual(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map(m => `2026-${m}`))
      expect(plan.reads.monthly.ids.length).toBeLessThanOrEqual(12)
      expect(plan.reads.daily.ids.length).toBeLessThanOrEqual(14)
      const values = evaluatePlan(plan, docs).map(v => v.value)
      const dayEnd = intlBoundaries(tz, asOf - DAY, asOf + DAY).day.find(b => b > asOf)
      expect(values, tz).toEqual(oracle.slice(0, 12).map((a, i) => sumBetween(events, a, Math.min(oracle[i + 1], dayEnd))))
    }
  }, 60_000)
})
