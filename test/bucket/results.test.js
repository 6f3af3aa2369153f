import { describe, expect, it } from 'vitest'
import { assembleSeries, assembleYtd, seriesReadPlan, seriesWindow } from '../../src/bucket/results.js'
import { defaultStep, finestKeptStep } from '../../src/bucket/detail-kept.js'

describe('assembleSeries', () => {
  const day = Date.UTC(2026, 10, 20)
  const docs = [{ _id: 'm/20261120', daily: 6, hourly: { 1: 6 }, minute: { 1: { 2: 4, 3: 2 } } }]

  it('gives null where no document exists and 0 where a slot is absent', () => {
    const start = day + 3600_000 + 60_000
    const { timestamps, values } = assembleSeries({ step: 'minute', start, end: start + 4 * 60_000, docs })
    expect(timestamps).toEqual([0, 1, 2, 3].map(i => start + i * 60_000))
    expect(values).toEqual([0, 4, 2, 0])
    // day points from the month's daily.D: present (even 0) exactly when the day has a daily document
    const days = assembleSeries({ step: 'day', start: day - 86400_000, end: day + 3 * 86400_000, docs: [], monthlyDocs: [{ _id: 'm/202611', daily: { 20: 6, 22: 0 } }] })
    expect(days.values).toEqual([null, 6, null, 0])
  })

  it('reads hours and months', () => {
    const hours = assembleSeries({ step: 'hour', start: day, end: day + 3 * 3600_000, docs })
    expect(hours.values).toEqual([0, 6, 0])
    const months = assembleSeries({
      step: 'month',
      start: Date.UTC(2026, 9, 1),
      end: Date.UTC(2027, 0, 1),
      docs: [{ _id: 'm/202611', monthly: 9 }, { _id: 'm/202612' }]
    })
    expect(months.timestamps).toEqual([Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1), Date.UTC(2026, 11, 1)])
    expect(months.values).toEqual([null, 9, 0])
  })
})

describe('windows and plans', () => {
  it('chooses the finest step within the point limit whose detail is kept for the whole window', () => {
    const forever = { minuteFrom: null, dailyFrom: null }
    expect(defaultStep(0, 86400_000, 20000, forever)).toBe('minute')
    expect(defaultStep(0, 7 * 86400_000, 20000, forever)).toBe('minute') // 10,080 points
    expect(defaultStep(0, 30 * 86400_000, 20000, forever)).toBe('quarter-hour') // 2,880 points
    expect(defaultStep(0, 300 * 86400_000, 20000, forever)).toBe('hour') // 28,800 quarter-hours: too many
    expect(defaultStep(0, 1000 * 86400_000, 20000, forever)).toBe('day') // 24,000 hours
    expect(defaultStep(0, 400 * 86400_000, 100, forever)).toBe('month')
    expect(defaultStep(0, 400 * 86400_000, 5, forever)).toBeNull()
    // minutes kept from day 20, daily documents from day 10
    const kept = { minuteFrom: 20 * 86400_000, dailyFrom: 10 * 86400_000 }
    expect(defaultStep(21 * 86400_000, 22 * 86400_000, 20000, kept)).toBe('minute')
    expect(defaultStep(19 * 86400_000, 22 * 86400_000, 20000, kept)).toBe('quarter-hour')
    expect(defaultStep(9 * 86400_000, 12 * 86400_000, 20000, kept)).toBe('day')
    expect(finestKeptStep(9 * 86400_000, kept)).toBe('day')
    expect(finestKeptStep(19 * 86400_000, kept)).toBe('quarter-hour')
    expect(finestKeptStep(25 * 86400_000, kept)).toBe('minute')
  })

  it('rounds the window to the step', () => {
    expect(seriesWindow(90_000, 150_000, 'minute')).toEqual({ start: 60_000, end: 180_000, points: 2 })
  })

  it('reads only the field the step needs, over the covered days', () => {
    const start = Date.UTC(2026, 0, 1, 5)
    const end = Date.UTC(2026, 0, 3)
    expect(seriesReadPlan('hour', start, end)).toEqual({ monthly: null, daily: { first: Date.UTC(2026, 0, 1), last: Date.UTC(2026, 0, 2), projection: { hourly: 1 } } })
    expect(seriesReadPlan('quarter-hour', start, end).daily.projection).toEqual({ quarterHourly: 1 })
    expect(seriesReadPlan('day', start, end)).toEqual({ daily: null, monthly: { first: Date.UTC(2026, 0, 1), last: Date.UTC(2026, 0, 1), projection: { daily: 1 } } })
    expect(seriesReadPlan('minute', start, end).daily.projection).toEqual({ minute: 1 })
    expect(seriesReadPlan('minute', Date.UTC(2026, 0, 1, 23, 30), Date.UTC(2026, 0, 2, 0, 30)).daily).toEqual({ first: Date.UTC(2026, 0, 1), last: Date.UTC(2026, 0, 2), projection: { 'minute.23': 1, 'minute.0': 1 } })
    expect(seriesReadPlan('month', Date.UTC(2026, 0, 1), Date.UTC(2026, 3, 1))).toEqual({ daily: null, monthly: { first: Date.UTC(2026, 0, 1), last: Date.UTC(2026, 2, 1), projection: { monthly: 1 } } })
  })

  it('reads day points from the monthly documents only, one per month (13 for any year of days), inside the daily horizon or past it', () => {
    expect(seriesReadPlan('day', Date.UTC(2026, 0, 20), Date.UTC(2026, 1, 15))).toEqual({
      daily: null,
      monthly: { first: Date.UTC(2026, 0, 1), last: Date.UTC(2026, 1, 1), projection: { daily: 1 } }
    })
    const year = seriesReadPlan('day', Date.UTC(2025, 10, 21), Date.UTC(2026, 10, 21))
    expect(year.daily).toBeNull()
    expect([year.monthly.first, year.monthly.last]).toEqual([Date.UTC(2025, 10, 1), Date.UTC(2026, 10, 1)]) // 13 months
    const { values } = assembleSeries({
      step: 'day',
      start: Date.UTC(2026, 1, 8),
      end: Date.UTC(2026, 1, 12),
      docs: [],
      monthlyDocs: [{ _id: 'm/202602', daily: { 8: 3, 10: 0, 11: 7 } }]
    })
    // Feb 9 not in its month (no daily document that day): null; Feb 10 a day of 0
    expect(values).toEqual([3, null, 0, 7])
  })
})

describe('assembleYtd', () => {
  it('sums whole months and the asOf month up to its day', () => {
    const docs = [
      { _id: 'm/202601', monthly: 10, daily: { 1: 10 } },
      { _id: 'm/202603', monthly: 7, daily: { 4: 3, 5: 4, 20: 100 } }
    ]
    const { total, months } = assembleYtd({ year: 2026, asOf: Date.UTC(2026, 2, 5, 12), docs })
    expect(months).toEqual([{ month: '2026-01', total: 10 }, { month: '2026-02', total: null }, { month: '2026-03', total: 7 }])
    expect(total).toBe(17)
  })
})
