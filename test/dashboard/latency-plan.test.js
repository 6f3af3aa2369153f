// What the dashboard's latency panel asks for (src/dashboard/js/latency-plan.js):
// the percentiles, the step for a series chart's step, what it says when
// that step is coarser, and which selected distribution it shows.
import { describe, expect, it } from 'vitest'
import { FINEST_PERCENTILE_STEP, PERCENTILES, PERCENTILE_COLORS, latencyMetric, latencyNote, latencyStep } from '../../src/dashboard/js/latency-plan.js'
import { STEPS } from '../../src/dashboard/js/step-fit.js'
import { parseStat } from '../../src/bucket/distribution-stats.js'

describe('PERCENTILES', () => {
  it('are p50, p90 and p99 as the API reads them, each with a colour of its own', () => {
    expect(PERCENTILES.map(p => parseStat(p).stat)).toEqual([
      { name: 'p50', kind: 'percentile', q: 0.5 },
      { name: 'p90', kind: 'percentile', q: 0.9 },
      { name: 'p99', kind: 'percentile', q: 0.99 }
    ])
    expect(new Set(PERCENTILE_COLORS).size).toBe(PERCENTILES.length)
  })
})

describe('latencyStep', () => {
  it('is the series chart\'s step from the quarter-hour up, and the quarter-hour under a minute chart', () => {
    expect(FINEST_PERCENTILE_STEP).toBe('quarter-hour')
    expect(STEPS.map(latencyStep)).toEqual(['quarter-hour', 'quarter-hour', 'hour', 'day', 'month'])
  })

  it('is never finer than the quarter-hour nor than the series chart\'s step, and the finest such', () => {
    const at = step => STEPS.indexOf(step)
    for (const step of STEPS) {
      const asked = latencyStep(step)
      expect(at(asked)).toBe(Math.max(at(step), at('quarter-hour')))
    }
  })

  it('refuses a step the API does not know', () => {
    expect(() => latencyStep('week')).toThrow(/unknown step week/)
  })
})

describe('latencyNote', () => {
  it('says nothing when the panel is at the series chart\'s step', () => {
    for (const step of ['quarter-hour', 'hour', 'day', 'month']) expect(latencyNote(step, step)).toBe('')
  })

  it('says why under a minute chart: minutes keep no percentiles', () => {
    expect(latencyNote('minute', 'quarter-hour')).toBe('quarter-hour points, coarser than the series chart\'s minute: minutes keep no percentiles')
  })

  it('names both steps when a refusal made the panel coarser still', () => {
    expect(latencyNote('quarter-hour', 'hour')).toBe('hour points, coarser than the series chart\'s quarter-hour')
    expect(latencyNote('minute', 'day')).toMatch(/^day points, coarser than the series chart's minute: minutes keep no percentiles$/)
  })
})

describe('latencyMetric', () => {
  it('keeps the distribution shown while it is selected', () => {
    expect(latencyMetric(['api.latency', 'db.latency'], 'db.latency')).toBe('db.latency')
  })

  it('takes the first selected distribution when none is shown or the one shown left the selection', () => {
    expect(latencyMetric(['api.latency', 'db.latency'], null)).toBe('api.latency')
    expect(latencyMetric(['api.latency', 'db.latency'], 'gone.latency')).toBe('api.latency')
  })

  it('is null without a distribution: the panel is hidden', () => {
    expect(latencyMetric([], 'api.latency')).toBe(null)
    expect(latencyMetric([], null)).toBe(null)
  })
})
