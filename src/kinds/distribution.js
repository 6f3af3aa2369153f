// The distribution (docs/kinds/distribution.md): observed values (latencies)
// kept per tier as count, sum, min, max and a DDSketch histogram of relative
// accuracy α, so any range's percentiles merge exactly; a minute's histogram
// in a document per metric-hour. JSON `kind: 'distribution'`, StatsD `ms`,
// `h`, `d`. Pure.
import { addMinuteHistogramUpdate, buildDistributionTiers } from '../bucket/distribution-increments.js'
import { DISTRIBUTION_KIND, distributionKind } from '../bucket/metric-kinds.js'
import { distributionBucketsProblem, findInvalidDistributionEvent } from '../bucket/distribution-rules.js'
import { mergeUnitsWith } from '../bucket/increments.js'
import { addTieredDocument, addTiersToUpdate, updateOf } from '../bucket/tiered-document.js'
import { distributionUpdate, incrementUpdate } from './document-updates.js'
import {
  compareDistributionDay, dayTierGuard, holdsWholeDay, minuteVouchProjection, minutesVouched, sameStored,
  verifyDistributionDaily, verifyDistributionMonthly
} from './consistency/distribution.js'
import { QUARTER_HOUR_DETAIL } from '../bucket/increments.js'

// a flush merges the tiers of its requests straight into the updates it sends (bucket/tiered-document.js)
const tiersOperation = (id, doc) => distributionUpdate(id, updateOf(doc))

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
  unitProblem: (unit) => distributionBucketsProblem(unit.distributionDaily),
  collections: Object.freeze({ daily: 'distributionDaily', monthly: 'distributionMonthly', minutes: 'distributionMinutes' }),
  parts: Object.freeze([
    // day and month documents are kept in tiers until the flush (bucket/tiered-document.js)
    Object.freeze({ collection: 'distributionDaily', prefix: 'D:', add: addTiersToUpdate, toOperation: tiersOperation }),
    Object.freeze({ collection: 'distributionMonthly', prefix: 'M:', add: addTiersToUpdate, toOperation: tiersOperation }),
    // a minute's histogram, one document per metric-hour: $inc of buckets only
    Object.freeze({ collection: 'distributionMinutes', prefix: 'Dm:', add: addMinuteHistogramUpdate, toOperation: (id, doc) => incrementUpdate(id, doc) })
  ]),
  /**
   * events → { docs, metrics }: the values of each accuracy α (kindOf(metric),
   * the registry's kind of the metric) built with its mapping, then merged;
   * each registry entry carries its kind (written on insert); thresholdsOf(metric):
   * its declared thresholds (bucket/distribution-thresholds.js)
   */
  buildPart (events, { keepsMinutes, keepsMinuteHistograms, kindOf, thresholdsOf }) {
    const byKind = new Map() // distribution kind → its events (one per accuracy)
    for (const e of events) {
      const kind = kindOf(e.metric)
      let list = byKind.get(kind)
      if (!list) byKind.set(kind, (list = []))
      list.push(e)
    }
    const parts = [...byKind].map(([kind, list]) => {
      const part = buildDistributionTiers(list, kind.mapping, { keepsMinutes, keepsMinuteHistograms, thresholdsOf })
      for (const seen of part.metrics.values()) seen.kind = kind
      return part
    })
    const merged = mergeUnitsWith(parts, [['daily', addTieredDocument], ['monthly', addTieredDocument], ['minutes', addMinuteHistogramUpdate]])
    return { docs: { distributionDaily: merged.daily, distributionMonthly: merged.monthly, distributionMinutes: merged.minutes }, metrics: merged.metrics }
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
