// What the dashboard's latency panel asks for (src/dashboard/js/latency-plan.js):
// the percentiles, what it says when a refusal made its step coarser than
// the series chart's, and which selected distribution it shows. The step it
// asks (the series chart's, minutes included) is checked in the browser
// (dashboard.test.js) and in series-read.test.js.
import { describe, expect, it } from 'vitest'
import { PERCENTILES, PERCENTILE_COLORS, latencyAxisLabel, latencyMetric, latencyNote } from '../../src/dashboard/js/latency-plan.js'
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

describe('latencyNote', () => {
  it('says nothing when the panel is at the series chart\'s step, minutes included', () => {
    expect(STEPS[0]).toBe('minute')
    for (const step of STEPS) expect(latencyNote(step, step)).toBe('')
  })

  it('names both steps when a refusal made the panel coarser, and no other reason', () => {
    expect(latencyNote('minute', 'quarter-hour')).toBe('quarter-hour points, coarser than the series chart\'s minute')
    expect(latencyNote('quarter-hour', 'hour')).toBe('hour points, coarser than the series chart\'s quarter-hour')
    expect(latencyNote('minute', 'day')).toBe('day points, coarser than the series chart\'s minute')
  })

  it('refuses a step the API does not know', () => {
    expect(() => latencyNote('week', 'week')).toThrow(/unknown step week/)
    expect(() => latencyNote('minute', 'fortnight')).toThrow(/unknown step fortnight/)
  })
})

describe('latencyAxisLabel', () => {
  it('says a point is a percentile of one step\'s values', () => {
    expect(STEPS.map(latencyAxisLabel)).toEqual(['minute percentiles', 'quarter-hour percentiles', 'hour percentiles', 'day percentiles', 'month percentiles'])
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
