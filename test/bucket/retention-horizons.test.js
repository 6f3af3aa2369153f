// A metric's retention from the configuration: first matching rule (glob:
// `*` within a dot-separated part, `**` across parts), else the variables;
// and the horizons it gives at a time.
import { describe, expect, it } from 'vitest'
import { horizonsFor, retentionRulesOf, rulesFingerprint } from '../../src/bucket/retention-horizons.js'

const DAY = 86_400_000
const config = {
  minuteRetentionDays: 90,
  dailyRetentionDays: null,
  retentionRules: [
    { match: 'debug.*', minuteDays: 7, dailyDays: 30 },
    { match: 'app.**.latency', minuteDays: 14 },
    { match: 'keep.**', minuteDays: null, dailyDays: null },
    { match: 'debug.**', minuteDays: 1 }
  ]
}

describe('retention rules', () => {
  const retentionFor = retentionRulesOf(config)
  it('* matches within one part, ** across parts; the first match wins', () => {
    expect(retentionFor('debug.x')).toEqual({ minuteDays: 7, dailyDays: 30 })
    expect(retentionFor('debug.x.y')).toEqual({ minuteDays: 1, dailyDays: null }) // not debug.*: the later debug.**
    expect(retentionFor('app.api.v1.latency')).toEqual({ minuteDays: 14, dailyDays: null })
    expect(retentionFor('app.latency')).toEqual({ minuteDays: 90, dailyDays: null }) // ** between two dots needs a part
    expect(retentionFor('debugx.y')).toEqual({ minuteDays: 90, dailyDays: null }) // the dot is literal
  })

  it('a field left out follows the variable; null is forever', () => {
    expect(retentionFor('keep.all.of.it')).toEqual({ minuteDays: null, dailyDays: null })
    expect(retentionRulesOf({ ...config, dailyRetentionDays: 500 })('app.a.latency')).toEqual({ minuteDays: 14, dailyDays: 500 })
  })

  it('horizons: the first UTC day kept with minutes and with a daily document', () => {
    const now = Date.UTC(2026, 10, 21, 15, 30)
    const today = Date.UTC(2026, 10, 21)
    // no MINUTE_HISTOGRAM_DAYS in this config: minute histograms kept wherever minutes are
    expect(horizonsFor(config)('debug.x', now)).toEqual({ minuteFrom: today - 7 * DAY, minuteHistogramFrom: today - 7 * DAY, dailyFrom: today - 30 * DAY })
    expect(horizonsFor(config)('keep.x', now)).toEqual({ minuteFrom: null, minuteHistogramFrom: null, dailyFrom: null })
  })

  it('minute histograms: MINUTE_HISTOGRAM_DAYS back, never before the minutes\' own horizon', () => {
    const now = Date.UTC(2026, 10, 21, 15, 30)
    const today = Date.UTC(2026, 10, 21)
    const withHistograms = { ...config, minuteHistogramDays: 10 }
    // minutes kept 7 days (debug.*): the histograms cannot outlive them
    expect(horizonsFor(withHistograms)('debug.x', now).minuteHistogramFrom).toBe(today - 7 * DAY)
    // minutes kept forever (keep.*): the histograms 10 days
    expect(horizonsFor(withHistograms)('keep.x', now)).toEqual({ minuteFrom: null, minuteHistogramFrom: today - 10 * DAY, dailyFrom: null })
    expect(horizonsFor({ ...config, minuteHistogramDays: 0 })('keep.x', now).minuteHistogramFrom).toBe(today)
    expect(rulesFingerprint(withHistograms)).not.toBe(rulesFingerprint(config))
  })

  it('the fingerprint changes with any setting', () => {
    expect(rulesFingerprint(config)).toBe(rulesFingerprint({ ...config }))
    expect(rulesFingerprint(config)).not.toBe(rulesFingerprint({ ...config, minuteRetentionDays: 91 }))
    expect(rulesFingerprint(config)).not.toBe(rulesFingerprint({ ...config, retentionRules: config.retentionRules.slice(1) }))
  })
})

describe('RETENTION_RULES against hostile metric names', () => {
  it('matches on a linear-time engine: a rule that backtracks elsewhere answers for a 200-character name', () => {
    // with a backtracking engine this name takes longer than the test's timeout (3 s already at 60 characters)
    const rulesFor = retentionRulesOf({ retentionRules: [{ match: '**a**a**a**a**a**a**c', minuteDays: 1 }], minuteRetentionDays: 90, dailyRetentionDays: null })
    expect(rulesFor('a'.repeat(200))).toEqual({ minuteDays: 90, dailyDays: null })
    expect(rulesFor('a.a.a.a.a.a.c')).toEqual({ minuteDays: 1, dailyDays: null })
  })
})
