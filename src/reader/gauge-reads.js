// The reads of a gauge (docs/architecture.md#reads; docs/kinds/gauge.md#stats): a series of one stat — last, min, max, mean,
// count or sum — planned by the range planner as a counter's read is (one
// range per point, in UTC or any zone), fetched from the gauge collections
// with one projected request per collection, and merged tier by tier
// (bucket/gauge-stats.js) instead of summed. A gauge has no total.
import { evaluateGaugePlan, gaugeStatValue, mergeGaugeTiers } from '../bucket/gauge-stats.js'
import { BadRequestError } from '../errors.js'
import { planRanges } from '../bucket/range-plan.js'
import { createDocumentReader, idsOfPlan, readInBatches } from './documents.js'
import { gauge } from '../kinds/gauge.js'
import { metricIdPrefix } from '../bucket/time.js'
import { rangeRefused } from './distribution-reads.js'
import { planSeriesRanges } from './series-plan.js'

/** collections: every kind's (db/collections.js; a gauge's named by kinds/gauge.js); horizonsOf(metric); maxPoints: MAX_POINTS */
export function createGaugeReads ({ collections, horizonsOf, maxPoints }) {
  const daily = collections[gauge.collections.daily]
  const monthly = collections[gauge.collections.monthly]
  const documents = createDocumentReader({ collections: { daily, monthly } })

  /** A series read of [from, to) at `step` in `zone` planned, as a counter's series is (reader/series-plan.js): nothing read → { step, from, to, timestamps, plan } */
  function seriesPlan (metric, { from, to, step, zone }) {
    const { start, end, timestamps, plan, ...planned } = planSeriesRanges({ from, to, step, zone, maxPoints, horizons: horizonsOf(metric), metric })
    return { step: planned.step, from: start, to: end, timestamps, plan }
  }

  /**
   * A series of [from, to) at `step` in `zone` merged once for any number of stats.
   * → { step, from, to, timestamps, values(stat) → Promise<values> }
   */
  async function mergedSeries (metric, kind, { from, to, step, zone }) {
    const { plan, ...shape } = seriesPlan(metric, { from, to, step, zone })
    const points = evaluateGaugePlan(plan, await documents.planDocs(plan), { strictDays: shape.step === 'day' })
    return { ...shape, values: async (stat) => points.map(p => gaugeStatValue(p.value, stat)) }
  }

  /**
   * mergedSeries of groups of gauges (a name's tagged series by group,
   * reader/tagged-reads.js), the documents of all read together, each
   * group's points merged across its gauges. groups: [[metric]].
   * → [values(stat) → Promise<values>, or null for an empty group]
   */
  async function mergedSeriesOfGroups (groups, kind, { from, to, step, zone }) {
    const merged = groups.map(() => null)
    const reads = groups.flatMap((metrics, group) => metrics.map(metric => ({ group, ...seriesPlan(metric, { from, to, step, zone }) })))
    await readInBatches(reads, r => idsOfPlan(r.plan), batch => documents.plansDocs(batch.map(r => r.plan)), ({ group, plan, step: at }, docs) => {
      const points = evaluateGaugePlan(plan, docs, { strictDays: at === 'day' })
      merged[group] ??= points.map(() => null)
      points.forEach((p, i) => { if (p.value !== null) merged[group][i] = mergeGaugeTiers(merged[group][i], p.value) })
    })
    return merged.map(tiers => tiers && (async (stat) => tiers.map(tier => gaugeStatValue(tier, stat))))
  }

  return {
    mergedSeries,
    mergedSeriesOfGroups,

    /** A series read's shape (a 400 for a window it cannot answer), nothing read → { step, from, to, timestamps } */
    seriesShape: (metric, options) => {
      const { plan, ...shape } = seriesPlan(metric, options)
      return shape
    },

    /** A series of one stat (gauge-stats.js) → { stat, step, from, to, timestamps, values } */
    async series (metric, kind, { from, to, step, zone, stat }) {
      const { values, ...merged } = await mergedSeries(metric, null, { from, to, step, zone })
      return { stat: stat.name, ...merged, values: await values(stat) }
    },

    /**
     * Ranges ([{ from, to }], as many as MAX_POINTS) merged once, each from the
     * fewest documents (Graphite's consolidated points of a stat leaf), for any
     * number of stats → { values(stat) → Promise<values> }
     */
    async mergedRanges (metric, kind, { ranges }) {
      if (ranges.length > maxPoints) throw new BadRequestError(`ranges: ${ranges.length} ranges, over the limit MAX_POINTS = ${maxPoints}`)
      let plan
      try {
        plan = planRanges(metric, ranges, horizonsOf(metric))
      } catch (err) {
        throw rangeRefused(err)
      }
      const points = evaluateGaugePlan(plan, await documents.planDocs(plan), { strictDays: true })
      return { values: async (stat) => points.map(p => gaugeStatValue(p.value, stat)) }
    },

    /**
     * The stored last level of a gauge: `monthly.last` of its latest monthly
     * document (the month documents outlive the days), or null when it has
     * none. Where a StatsD delta starts from when the door does not hold the
     * level (docs/adr/0045-gauges-statsd-levels-and-deltas.md).
     */
    async storedLast (metric) {
      const prefix = metricIdPrefix(metric)
      const [doc] = await monthly.find({ _id: { $gte: prefix, $lt: `${prefix}\uffff` } }, { projection: { 'monthly.last': 1 } })
        .sort({ _id: -1 }).limit(1).toArray()
      const v = doc?.monthly?.last?.v
      return Number.isFinite(v) ? v : null
    }
  }
}
