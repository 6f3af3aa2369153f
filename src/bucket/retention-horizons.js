// The retention horizons of a metric at a time, from the
// configuration: the first UTC day that still has minute detail, the first
// whose distribution minutes keep their histograms, and the first that still
// has a daily document (null = forever). Pure.
import { ruleGlob } from './rule-glob.js'
import { DAY_MS } from './time.js'
import { nameOfSeries } from './event-rules.js'

/** retentionFor(metric or series) → { minuteDays, dailyDays } from config (first matching rule, else the variables) */
export function retentionRulesOf (config) {
  const rules = (config.retentionRules ?? []).map(r => ({ ...r, re: ruleGlob(r.match) }))
  const fallback = { minuteDays: config.minuteRetentionDays ?? null, dailyDays: config.dailyRetentionDays ?? null }
  // a tagged series keeps what its name keeps: the name stays the sum of its series at every tier
  return series => {
    const metric = nameOfSeries(series)
    const rule = rules.find(r => r.re.matches(metric))
    if (!rule) return fallback
    // a rule's field left out follows the variable; null means forever
    return { minuteDays: rule.minuteDays === undefined ? fallback.minuteDays : rule.minuteDays, dailyDays: rule.dailyDays === undefined ? fallback.dailyDays : rule.dailyDays }
  }
}

/** The first day whose minutes keep their histograms: MINUTE_HISTOGRAM_DAYS back, and never before minuteFrom */
function minuteHistogramFrom (minuteFrom, today, days) {
  if (days == null) return minuteFrom
  return Math.max(minuteFrom ?? -Infinity, today - days * DAY_MS)
}

/**
 * horizons(metric, now) → { minuteFrom, minuteHistogramFrom, dailyFrom }
 * (epoch ms of a UTC day, or null = forever)
 */
export function horizonsFor (config) {
  const retentionFor = retentionRulesOf(config)
  return (metric, now) => {
    const today = now - (((now % DAY_MS) + DAY_MS) % DAY_MS)
    const { minuteDays, dailyDays } = retentionFor(metric)
    const minuteFrom = minuteDays == null ? null : today - minuteDays * DAY_MS
    return {
      minuteFrom,
      minuteHistogramFrom: minuteHistogramFrom(minuteFrom, today, config.minuteHistogramDays),
      dailyFrom: dailyDays == null ? null : today - dailyDays * DAY_MS
    }
  }
}

/** dailyKeptFrom(metric) at `now`, for the check */
export function dailyKeptFromFor (config, now) {
  const horizons = horizonsFor(config)
  return metric => horizons(metric, now).dailyFrom
}

/** minuteKeptFrom(metric) at `now`, for the check: the first day whose documents ingest writes minutes to */
export function minuteKeptFromFor (config, now) {
  const horizons = horizonsFor(config)
  return metric => horizons(metric, now).minuteFrom
}

/** minuteHistogramKeptFrom(metric) at `now`, for the check: the first day whose distribution minutes ingest writes histograms for */
export function minuteHistogramKeptFromFor (config, now) {
  const horizons = horizonsFor(config)
  return metric => horizons(metric, now).minuteHistogramFrom
}

/** Names the settings in force: a change makes the next retention pass scan every metric from its first day */
export function rulesFingerprint (config) {
  return JSON.stringify([config.minuteRetentionDays ?? null, config.dailyRetentionDays ?? null, config.retentionRules ?? [], config.minuteHistogramDays ?? null])
}
