// The rules a distribution's values meet beyond every event's
// (event-rules.js), whatever door they came through. Pure.
import { MAX_ABS_VALUE, isEventValue } from './event-rules.js'
import { DISTRIBUTION_KIND } from './metric-kinds.js'
import { startOfDay } from './time.js'

// Distinct histogram buckets one request may add to one distribution's day
// (its day tier; the hour and quarter-hour tiers hold no other buckets): enough
// for a batch of latencies spanning 8 decades at 1 % (γ^2000 ≈ e^40), few
// enough that one update of a document stays small (docs/adr/0037-distributions-ddsketch-histograms.md)
export const MAX_BUCKETS_PER_REQUEST = 2000

/**
 * Why a distribution event's summary { sum, min, max, bucketError? } cannot stand for its
 * values: what the event adds to the sum and narrows min and max to, instead
 * of value × weight and value (an OTLP histogram's bucket carries its point's
 * exact ones, docs/adr/0063-otlp-mapping.md). A message, or null.
 */
function summaryProblem (summary, weight = 1) {
  if (typeof summary !== 'object' || summary === null) return 'must be { sum, min, max }'
  const { sum, min, max } = summary
  if (!isEventValue(min) || !isEventValue(max) || !(min <= max)) return 'min and max must be values an event may carry, min ≤ max'
  if (typeof sum !== 'number' || !Number.isFinite(sum) || Math.abs(sum) > MAX_ABS_VALUE * weight) return `sum must be a finite number with |sum| ≤ ${MAX_ABS_VALUE} × weight`
  const { bucketError } = summary
  if (bucketError !== undefined && !(typeof bucketError === 'number' && bucketError >= 0)) return 'bucketError must be a relative error ≥ 0 (Infinity: unbounded)'
  return null
}

/** events as findInvalidEvent takes them → null, or the first bad weight or summary: { index, field: 'weight'|'summary', message } */
export function findInvalidDistributionEvent (events) {
  for (let i = 0; i < events.length; i++) {
    const { kind, weight, summary } = events[i]
    if (summary !== undefined && kind === DISTRIBUTION_KIND) {
      const problem = summaryProblem(summary, weight)
      if (problem) return { index: i, field: 'summary', message: problem }
    }
    if (weight === undefined) continue
    if (kind !== DISTRIBUTION_KIND) return { index: i, field: 'weight', message: 'only a distribution\'s value has a weight' }
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0 || weight > MAX_ABS_VALUE) {
      return { index: i, field: 'weight', message: `must be a finite number > 0 and ≤ ${MAX_ABS_VALUE}` }
    }
  }
  return null
}

/**
 * The metrics of the values a write unit holds (kinds/distribution.js
 * buildPart's `held`: { groups: [{ values }], counts }) one of whose
 * days would get more than MAX_BUCKETS_PER_REQUEST new buckets in its day
 * tier → { metrics: [name], message }, or null. Only a metric of more values
 * than that can: its values' buckets are counted, per day.
 */
export function heldBucketsProblem (held) {
  if (held === null) return null
  const wide = new Set()
  for (const [metric, count] of held.counts) if (count > MAX_BUCKETS_PER_REQUEST) wide.add(metric)
  if (wide.size === 0) return null
  const over = new Map() // metric → the most buckets one of its days gets
  for (const { values } of held.groups) {
    const days = new Map() // metric → day start → its buckets
    for (let i = 0; i < values.length; i++) {
      const metric = values.metric[i]
      if (!wide.has(metric)) continue
      let byDay = days.get(metric)
      if (byDay === undefined) days.set(metric, (byDay = new Map()))
      const day = startOfDay(values.time[i])
      let buckets = byDay.get(day)
      if (buckets === undefined) byDay.set(day, (buckets = new Set()))
      buckets.add(values.field[i])
    }
    for (const [metric, byDay] of days) {
      for (const { size } of byDay.values()) if (size > MAX_BUCKETS_PER_REQUEST && size > (over.get(metric) ?? 0)) over.set(metric, size)
    }
  }
  if (over.size === 0) return null
  const [metric, buckets] = over.entries().next().value
  return {
    metrics: [...over.keys()],
    message: `the values of "${metric}" fall in ${buckets} distinct histogram buckets in one day, over the ${MAX_BUCKETS_PER_REQUEST} one request may add to a day; split them over several requests`
  }
}
