// The dashboard's choice of step for `auto` (src/dashboard/js/step-fit.js),
// without a browser: its point count against the API's, the fit to a plot
// width, and the step it falls back to after each of the API's refusals.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { POINTS_PER_PX, STEPS, coarserStep, countPoints, fitStep, stepAfterRefusal } from '../../src/dashboard/js/step-fit.js'
import { STEPS as API_STEPS, countPoints as apiCountPoints } from '../../src/bucket/time.js'
import { parseSeriesQuery } from '../../src/routes/query-params.js'
import { planSeries } from '../../src/reader/series-plan.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR

const anyWindow = fc.tuple(
  fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
  fc.integer({ min: 1, max: 3 * 366 * DAY })
).map(([from, length]) => ({ from, to: from + length }))

/** The ApiError the dashboard makes of a 400 answer: status, message and details of the body */
function refusal (query, options) {
  try {
    planSeries({ ...parseSeriesQuery(query, { now: NOW }), maxPoints: 20_000, ...options })
  } catch (err) {
    return { status: err.statusCode, message: err.message, details: err.details }
  }
  throw new Error(`the API accepted ${JSON.stringify(query)}`)
}

describe('countPoints', () => {
  it('knows the API’s steps, finest first', () => {
    expect(STEPS).toEqual(API_STEPS)
  })

  it('counts what the API answers for any window and step (from rounded down, to up)', () => {
    fc.assert(fc.property(anyWindow, fc.constantFrom(...STEPS), ({ from, to }, step) => {
      expect(countPoints(from, to, step)).toBe(apiCountPoints(from, to, step))
    }), { numRuns: 2000 })
  })

  it('counts the presets', () => {
    expect(countPoints(NOW - DAY, NOW, 'minute')).toBe(1440)
    expect(countPoints(NOW - 7 * DAY, NOW, 'quarter-hour')).toBe(672)
    expect(countPoints(NOW - 30 * DAY, NOW, 'hour')).toBe(720)
    expect(countPoints(NOW - 30 * DAY, NOW, 'month')).toBe(2) // October and November
    expect(countPoints(NOW - DAY + 30_000, NOW + 30_000, 'minute')).toBe(1441) // unaligned: both edge minutes count
  })
})

describe('fitStep', () => {
  it('picks minute for 24 h, quarter-hour for 7 d and hour for 30 d on a 930 px plot', () => {
    const fit = ms => fitStep({ from: NOW - ms, to: NOW, plotWidth: 930 })
    expect(fit(HOUR)).toBe('minute')
    expect(fit(DAY)).toBe('minute') // 1440 ≤ 1860
    expect(fit(7 * DAY)).toBe('quarter-hour') // minute: 10,080 > 1860; 672
    expect(fit(30 * DAY)).toBe('hour') // quarter-hour: 2880 > 1860; 720
    expect(fit(NOW - Date.UTC(2026, 0, 1))).toBe('day') // hour: 7788 > 1860; 325
  })

  it('allows exactly POINTS_PER_PX points per pixel, not one more', () => {
    expect(POINTS_PER_PX).toBe(2)
    expect(fitStep({ from: NOW - DAY, to: NOW, plotWidth: 720 })).toBe('minute') // 1440 = 2 × 720
    expect(fitStep({ from: NOW - DAY, to: NOW, plotWidth: 719.5 })).toBe('quarter-hour') // 1440 > 1439
  })

  it('narrows the step as the plot narrows', () => {
    const window = { from: NOW - DAY, to: NOW }
    expect(fitStep({ ...window, plotWidth: 1000 })).toBe('minute')
    expect(fitStep({ ...window, plotWidth: 500 })).toBe('quarter-hour') // 1440 > 1000; 96
    expect(fitStep({ ...window, plotWidth: 40 })).toBe('hour') // 96 > 80; 24
    expect(fitStep({ ...window, plotWidth: 5 })).toBe('day') // 24 > 10; 1 (2 when unaligned)
  })

  it('answers month when even months are too many', () => {
    expect(fitStep({ from: Date.UTC(1990, 0, 1), to: NOW, plotWidth: 100 })).toBe('month') // 443 months > 200
  })

  it('is the finest step within POINTS_PER_PX per pixel: the next finer one is over it', () => {
    fc.assert(fc.property(anyWindow, fc.integer({ min: 200, max: 4000 }), ({ from, to }, plotWidth) => {
      const step = fitStep({ from, to, plotWidth })
      const i = STEPS.indexOf(step)
      if (step !== 'month') expect(countPoints(from, to, step)).toBeLessThanOrEqual(POINTS_PER_PX * plotWidth)
      if (i > 0) expect(countPoints(from, to, STEPS[i - 1])).toBeGreaterThan(POINTS_PER_PX * plotWidth)
    }), { numRuns: 2000 })
  })
})

describe('stepAfterRefusal', () => {
  it('steps to the next coarser step, and none after month', () => {
    expect(STEPS.map(coarserStep)).toEqual(['quarter-hour', 'hour', 'day', 'month', null])
    expect(() => coarserStep('week')).toThrow(/unknown step/)
  })

  it('takes the step the API names when minute detail is no longer kept', () => {
    const err = refusal({ from: String(NOW - DAY), to: String(NOW), step: 'minute' }, { horizons: { minuteFrom: NOW - 12 * HOUR, dailyFrom: null } })
    expect(err.status).toBe(400)
    expect(err.message).toMatch(/use step=quarter-hour or coarser/)
    expect(stepAfterRefusal('minute', err)).toBe('quarter-hour')
  })

  it('skips to day when the window starts before the daily documents kept (the API names day)', () => {
    const horizons = { minuteFrom: NOW - 2 * DAY, dailyFrom: NOW - 2 * DAY }
    const err = refusal({ from: String(NOW - 7 * DAY), to: String(NOW), step: 'minute' }, { horizons })
    expect(err.message).toMatch(/use step=day or coarser/)
    expect(stepAfterRefusal('minute', err)).toBe('day')
    expect(stepAfterRefusal('quarter-hour', refusal({ from: String(NOW - 7 * DAY), to: String(NOW), step: 'quarter-hour' }, { horizons }))).toBe('day')
  })

  it('steps to the next coarser step over MAX_POINTS', () => {
    const err = refusal({ from: String(NOW - 30 * DAY), to: String(NOW), step: 'minute' }, {})
    expect(err.message).toMatch(/MAX_POINTS/)
    expect(stepAfterRefusal('minute', err)).toBe('quarter-hour')
  })

  it('leaves other answers alone: a bad window, a 404, a network error, month', () => {
    const bad = refusal({ from: String(NOW), to: String(NOW - DAY), step: 'hour' }, {})
    expect(bad.details[0].path).toBe('from')
    expect(stepAfterRefusal('hour', bad)).toBe(null)
    expect(stepAfterRefusal('minute', { status: 404, message: 'no metric named "x"' })).toBe(null)
    expect(stepAfterRefusal('minute', new TypeError('Failed to fetch'))).toBe(null)
    const tooMany = refusal({ from: String(Date.UTC(1000, 0, 1)), to: String(NOW), step: 'month' }, {})
    expect(stepAfterRefusal('month', tooMany)).toBe(null)
  })
})
