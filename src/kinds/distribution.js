// The distribution (docs/kinds/distribution.md): observed values (latencies)
// kept per tier as count, sum, min, max and a DDSketch histogram of relative
// accuracy α, so any range's percentiles merge exactly; a minute's histogram
// in a document per metric-hour. JSON `kind: 'distribution'`, StatsD `ms`,
// `h`, `d`. Pure.
import { DistributionTiers, DistributionValues, keepsMinuteHistogram } from '../bucket/distribution-increments.js'
import { DISTRIBUTION_KIND, distributionKind } from '../bucket/metric-kinds.js'
import { findInvalidDistributionEvent, heldBucketsProblem } from '../bucket/distribution-rules.js'
import { updateOfTiers } from '../bucket/tiered-document.js'
import { HOUR_MS, bucketId, describeDay, hourId, startOfDay } from '../bucket/time.js'
import { distributionUpdate, incrementUpdate } from './document-updates.js'
import {
  compareDistributionDay, dayTierGuard, holdsWholeDay, minuteVouchProjection, minutesVouched, sameStored,
  verifyDistributionDaily, verifyDistributionMonthly
} from './consistency/distribution.js'
import { QUARTER_HOUR_DETAIL } from '../bucket/increments.js'

// a flush's day and month documents are TieredDocuments built from its units' values (bucket/distribution-increments.js)
const tiersOperation = (id, doc) => distributionUpdate(id, updateOfTiers(doc))

/**
 * The documents of the values units hold ({ groups: [{ values, options }] },
 * buildPart's `held`), in queue order, built once for the
 * flush: each collection's Map id → document (the minute-hours' { metric, date, inc })
 */
function heldDocuments (helds) {
  const tiers = new DistributionTiers()
  for (const held of helds) for (const { values, options } of held.groups) tiers.add(values, options)
  const { daily, monthly, minutes } = tiers.documents()
  return { distributionDaily: daily, distributionMonthly: monthly, distributionMinutes: minutes }
}

export const distribution = Object.freeze({
  name: DISTRIBUTION_KIND,
  statsdTypes: Object.freeze(['ms', 'h', 'd']),
  /** JSON (POST /v1/events): a value is required */
  json: Object.freeze({ defaultValue: null, valueMissing: 'a distribution\'s event needs its value (the observation, e.g. a latency in ms)' }),
  /** A known distribution keeps its own α; a new one takes DISTRIBUTION_ACCURACY */
  askedKind: (known, { accuracy }) => (known?.kind === DISTRIBUTION_KIND ? known : distributionKind(accuracy)),
  // not preallocated: a day of a distribution is written where its values fall (docs/kinds/distribution.md)
  preallocated: false,
  findInvalidEvents: findInvalidDistributionEvent,
  /** Too many new histogram buckets in one day of a metric (MAX_BUCKETS_PER_REQUEST) */
  unitProblem: (unit) => heldBucketsProblem(unit.held?.get(DISTRIBUTION_KIND) ?? null),
  collections: Object.freeze({ daily: 'distributionDaily', monthly: 'distributionMonthly', minutes: 'distributionMinutes' }),
  // a unit holds its values and their documents' ids (buildPart); the flush builds the documents (heldDocuments):
  // no request's tiers are built, held in the queue, then merged path by path (docs/adr/0091-tiers-built-at-the-flush.md)
  held: Object.freeze({ documents: heldDocuments }),
  parts: Object.freeze([
    Object.freeze({ collection: 'distributionDaily', prefix: 'D:', toOperation: tiersOperation }),
    Object.freeze({ collection: 'distributionMonthly', prefix: 'M:', toOperation: tiersOperation }),
    // a minute's histogram, one document per metric-hour: $inc of buckets only
    Object.freeze({ collection: 'distributionMinutes', prefix: 'Dm:', toOperation: (id, doc) => incrementUpdate(id, doc) })
  ]),
  /**
   * events → { docs, metrics, held }: the values held as columns per accuracy
   * α (kindOf(metric), the registry's kind of the metric) with the options
   * the flush builds them with, and only the ids of the documents they go to
   * (docs: each collection's Set of ids, which the queue counts); each
   * registry entry carries its kind (written on insert); keepsMinutes,
   * keepsMinuteHistograms and thresholdsOf as DistributionTiers.add takes them
   */
  buildPart (events, { keepsMinutes, keepsMinuteHistograms, kindOf, thresholdsOf }) {
    const options = { keepsMinutes, keepsMinuteHistograms, thresholdsOf }
    const groups = new Map() // distribution kind → its values (one per accuracy)
    const daily = new Set()
    const monthly = new Set()
    const minutes = new Set()
    const metrics = new Map() // name → { firstSeen, lastSeen, kind }
    const counts = new Map() // name → its values (MAX_BUCKETS_PER_REQUEST: a name of fewer cannot pass it)
    const last = new Map() // name → { values, seen, dayStart, histograms, hourStart }
    for (const e of events) {
      const { metric, time } = e
      let m = last.get(metric)
      if (m === undefined) {
        const kind = kindOf(metric)
        let values = groups.get(kind)
        if (values === undefined) groups.set(kind, (values = new DistributionValues(kind.mapping)))
        const seen = { firstSeen: time, lastSeen: time, kind }
        metrics.set(metric, seen)
        m = { values, seen, count: 0, dayStart: NaN, histograms: false, hourStart: NaN }
        last.set(metric, m)
      }
      m.values.push(e)
      m.count++
      if (time < m.seen.firstSeen) m.seen.firstSeen = time
      if (time > m.seen.lastSeen) m.seen.lastSeen = time
      const dayStart = startOfDay(time)
      if (m.dayStart !== dayStart) {
        const day = describeDay(dayStart)
        daily.add(bucketId(metric, day.dayKey))
        monthly.add(bucketId(metric, day.monthKey))
        m.dayStart = dayStart
        m.histograms = keepsMinuteHistogram(options, metric, dayStart)
        m.hourStart = NaN
      }
      if (m.histograms) {
        const hourStart = time - ((time - dayStart) % HOUR_MS)
        if (m.hourStart !== hourStart) {
          m.hourStart = hourStart
          minutes.add(hourId(metric, time))
        }
      }
    }
    for (const [name, m] of last) counts.set(name, m.count)
    const held = { groups: [...groups.values()].map(values => ({ values, options })), counts }
    return { docs: { distributionDaily: daily, distributionMonthly: monthly, distributionMinutes: minutes }, metrics, held }
  },
  /** Stats a read may name (bucket/distribution-stats.js parseStat; percentiles pNN besides) */
  stats: Object.freeze({ names: Object.freeze(['count', 'sum', 'mean', 'min', 'max']), percentiles: true, default: 'count' }),
  /**
   * How a stat's points consolidate over a span (Graphite's maxDataPoints):
   * count and sum add, min and max narrow; mean and the percentiles are merged
   * again from the documents over the span (`merged`), and where a function
   * made new values, averaged (mean) or the max (a percentile: never below
   * the merged one, so no slow stretch is hidden)
   */
  consolidation: Object.freeze({ count: 'sum', sum: 'sum', min: 'min', max: 'max', mean: 'average', percentile: 'max' }),
  merged: Object.freeze(['mean', 'percentile']),
  reads: Object.freeze({ series: true, total: true, ytd: true, quantiles: true }),
  refusals: Object.freeze({
    stat: (name) => name === 'last'
      ? 'stat=last is a gauge\'s (the level of the latest event); use count, sum, mean, min, max or a percentile'
      : `stat=${name} is not one of count, sum, mean, min, max or a percentile`
  }),
  /** The dashboard: what a point of its default series (count) is */
  dashboard: Object.freeze({ point: 'values per step' }),
  /** Graphite: the name is a branch of stat leaves (graphite/stat-leaves.js), no series of its own */
  graphite: Object.freeze({ nameIsLeaf: false, statLeaves: Object.freeze(['count', 'max', 'mean', 'min', 'p50', 'p90', 'p99', 'p999', 'sum']) }),
  check: Object.freeze({
    // a distribution's day has said whether its minutes are complete since its first write: no `detail` is complete
    verifyDaily: (doc) => verifyDistributionDaily(doc, { minutesComplete: doc.detail !== QUARTER_HOUR_DETAIL }),
    verifyMonthly: verifyDistributionMonthly,
    // the day tier with what the repair adds to it; a document always has one (empty if it holds none)
    dayTotal: (doc, verifyDay) => verifyDay(doc).dayTier ?? {},
    compareDay: compareDistributionDay,
    dayRepair: (now, mismatch) => mismatch.repair,
    same: sameStored
  }),
  /** Retention: tiers are objects, judged by these rules (jobs/retention-job.js wholeTierPass) */
  retention: Object.freeze({ name: DISTRIBUTION_KIND, vouched: minutesVouched, guard: dayTierGuard, holdsWholeDay, projection: minuteVouchProjection() })
})
