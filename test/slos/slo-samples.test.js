// sloSamples (src/slos/slo-samples.js): the SLO series of /metrics from the
// current reports — a figure a report lacks is left out, never a zero; a
// report not made is left out whole and counted by its reason.
import { describe, expect, it } from 'vitest'
import { MongoNetworkError } from 'mongodb'
import { SLO_GAUGES, sloSamples } from '../../src/slos/slo-samples.js'

const report = (fields) => ({
  target: 0.99,
  attainment: 0.995,
  good: 995,
  total: 1000,
  budget: { allowed: 10, consumed: 5, remaining: 5, remainingRatio: 0.5 },
  burnRates: { '5m': null, '30m': 2, '1h': 1.5, '6h': 0.5, '1d': 0.25, '3d': 0 },
  documents: 7,
  ...fields
})
const values = (samples, name) => samples[name].map(({ labels, value }) => [Object.values(labels).join(' '), value])

describe('sloSamples', () => {
  it('a report: each figure once, a burn window without events left out, a zero burn rate kept', () => {
    const samples = sloSamples({ outcomes: [{ name: 'a', report: report() }] })
    expect(values(samples, 'statbucket_slo_target')).toEqual([['a', 0.99]])
    expect(values(samples, 'statbucket_slo_attainment')).toEqual([['a', 0.995]])
    expect(values(samples, 'statbucket_slo_period_good_events')).toEqual([['a', 995]])
    expect(values(samples, 'statbucket_slo_period_events')).toEqual([['a', 1000]])
    expect(values(samples, 'statbucket_slo_error_budget_remaining_events')).toEqual([['a', 5]])
    expect(values(samples, 'statbucket_slo_error_budget_remaining_ratio')).toEqual([['a', 0.5]])
    expect(values(samples, 'statbucket_slo_burn_rate')).toEqual([['a 30m', 2], ['a 1h', 1.5], ['a 6h', 0.5], ['a 1d', 0.25], ['a 3d', 0]])
    expect(values(samples, 'statbucket_slo_report_errors')).toEqual([['refused', 0], ['database', 0], ['internal', 0]])
    expect(values(samples, 'statbucket_slo_documents_read')).toEqual([['', 7]])
  })

  it('no events: attainment, budget ratio and burn rates left out; the counts and the target kept', () => {
    const quiet = report({ attainment: null, good: 0, total: 0, budget: { allowed: 0, consumed: 0, remaining: 0, remainingRatio: null }, burnRates: Object.fromEntries(['5m', '30m', '1h', '6h', '1d', '3d'].map(w => [w, null])) })
    const samples = sloSamples({ outcomes: [{ name: 'q', report: quiet }] })
    const present = SLO_GAUGES.map(g => g.name).filter(name => samples[name].some(s => s.labels.slo === 'q'))
    expect(present).toEqual(['statbucket_slo_target', 'statbucket_slo_period_good_events', 'statbucket_slo_period_events', 'statbucket_slo_error_budget_remaining_events'])
  })

  it('reports not made: left out, counted as refused, database (failed, not read, or the list) or internal; documents of those made', () => {
    const samples = sloSamples({
      outcomes: [
        { name: 'ok', report: report({ documents: 3 }) },
        { name: 'dist', refused: 'metric "x" is a distribution' },
        { name: 'down', failed: new MongoNetworkError('connection reset') },
        { name: 'after', failed: null },
        { name: 'bug', failed: new TypeError('x is undefined') }
      ]
    })
    expect([...new Set(Object.values(samples).flat().map(s => s.labels.slo).filter(Boolean))]).toEqual(['ok'])
    expect(values(samples, 'statbucket_slo_report_errors')).toEqual([['refused', 1], ['database', 2], ['internal', 1]])
    expect(values(samples, 'statbucket_slo_documents_read')).toEqual([['', 3]])
    const listless = sloSamples({ outcomes: [], listFailed: new MongoNetworkError('timed out') })
    expect(values(listless, 'statbucket_slo_report_errors')).toEqual([['refused', 0], ['database', 1], ['internal', 0]])
    expect(values(listless, 'statbucket_slo_target')).toEqual([])
  })

  it('every gauge has its help and labels; the series carry exactly those labels', () => {
    const samples = sloSamples({ outcomes: [{ name: 'a', report: report() }] })
    for (const { name, help, labelNames } of SLO_GAUGES) {
      expect(help.length, name).toBeGreaterThan(20)
      for (const { labels } of samples[name]) expect(Object.keys(labels), name).toEqual(labelNames)
    }
  })
})
