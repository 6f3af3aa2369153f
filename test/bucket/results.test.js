import { describe, expect, it } from 'vitest'
import { assembleSeries, assembleYtd, defaultStep, seriesReadPlan, seriesWindow } from '../../src/bucket/results.js'
import { hierarchicalLayout } from '../../src/bucket/layouts.js'

const layout = hierarchicalLayout

describe('assembleSeries', () => {
  const day = Date.UTC(2026, 10, 20)
  const docs = [{ _id: 'm/20261120', daily: 6, hourly: { 1: 6 }, minute: { 1: { 2: 4, 3: 2 } } }]

  it('gives null where no document exists and 0 where a slot is absent', () => {
    const start = day + 3600_000 + 60_000
    const { timestamps, values } = assembleSeries({ step: 'minute', start, end: start + 4 * 60_000, docs, layout })
    expect(timestamps).toEqual([0, 1, 2, 3].map(i => start + i * 60_000))
    expect(values).toEqual([0, 4, 2, 0])
    const days = assembleSeries({ step: 'day', start: day - 86400_000, end: day + 2 * 86400_000, docs, layout })
    expect(days.values).toEqual([null, 6, null])
  })

  it('reads hours and months', () => {
    const hours = assembleSeries({ step: 'hour', start: day, end: day + 3 * 3600_000, docs, layout })
    expect(hours.values).toEqual([0, 6, 0])
    const months = assembleSeries({
      step: 'month',
      start: Date.UTC(2026, 9, 1),
      end: Date.UTC(2027, 0, 1),
      docs: [{ _id: 'm/202611', monthly: 9 }, { _id: 'm/202612' }],
      layout
    })
    expect(months.timestamps).toEqual([Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1), Date.UTC(2026, 11, 1)])
    expect(months.values).toEqual([null, 9, 0])
  })
})

describe('windows and plans', () => {
  it('chooses the finest step within the point limit', () => {
    expect(defaultStep(0, 86400_000, 20000)).toBe('minute')
    expect(defaultStep(0, 30 * 86400_000, 20000)).toBe('hour')
    expect(defaultStep(0, 400 * 86400_000, 20000)).toBe('hour') // 9,600 hours
    expect(defaultStep(0, 1000 * 86400_000, 20000)).toBe('day') // 24,000 hours
    expect(defaultStep(0, 400 * 86400_000, 100)).toBe('month')
    expect(defaultStep(0, 400 * 86400_000, 5)).toBeNull()
  })

  it('rounds the window to the step', () => {
    expect(seriesWindow(90_000, 150_000, 'minute')).toEqual({ start: 60_000, end: 180_000, points: 2 })
  })

  it('reads only the field the step needs, over the covered days', () => {
    const start = Date.UTC(2026, 0, 1, 5)
    const end = Date.UTC(2026, 0, 3)
    expect(seriesReadPlan('hour', start, end)).toMatchObject({ kind: 'daily', first: Date.UTC(2026, 0, 1), last: Date.UTC(2026, 0, 2), projection: { hourly: 1 } })
    expect(seriesReadPlan('day', start, end).projection).toEqual({ daily: 1 })
    expect(seriesReadPlan('minute', start, end).projection).toEqual({ minute: 1 })
    expect(seriesReadPlan('month', Date.UTC(2026, 0, 1), Date.UTC(2026, 3, 1))).toMatchObject({ kind: 'monthly', first: Date.UTC(2026, 0, 1), last: Date.UTC(2026, 2, 1), projection: { monthly: 1 } })
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
