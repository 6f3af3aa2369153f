// The reads of a gauge (docs/architecture.md#reads; docs/kinds/gauge.md#stats): a series of one stat — last, min, max, mean,
// count or sum — planned by the range planner as a counter's read is (one
// range per point, in UTC or any zone), fetched from the gauge collections
// with one projected request per collection, and merged tier by tier
// (bucket/gauge-stats.js) instead of summed. A gauge has no total.
import { evaluateGaugePlan, gaugeStatValue, mergeGaugeTiers } from '../bucket/gauge-stats.js'
import { BadRequestError } from '../errors.js'
import { planRanges } from '../bucket/range-plan.js'
import { createDocumentReader } from './documents.js'
import { gauge } from '../kinds/gauge.js'
import { metricIdPrefix } from '../bucket/time.js'
import { rangeRefused } from './distribution-reads.js'
import { planSeriesRanges } from './series-plan.js'

/** collections: every kind's (db/collections.js; a gauge's named by kinds/gauge.js); horizonsOf(metric); maxPoints: MAX_POINTS */
export function createGaugeReads ({ collections, horizonsOf, maxPoints }) {
  const daily = collections[gauge.collections.daily]
  const monthly = collections[gauge.collections.monthly]
  const documents = createDocumentReader({ collections: { daily, monthly } })

  /**
   * A series of [from, to) at `step` in `zone`, as a counter's series is
   * planned (reader/series-plan.js), merged once for any number of stats.
   * → { step, from, to, timestamps, values(stat) → Promise<values> }
   */
  async function mergedSeries (metric, kind, { from, to, step, zone }) {
    const horizons = horizonsOf(metric)
    const { start, end, timestamps, plan, ...planned } = planSeriesRanges({ from, to, step, zone, maxPoints, horizons, metric })
    const points = evaluateGaugePlan(plan, await documents.planDocs(plan), { strictDays: planned.step === 'day' })
    return { step: planned.step, from: start, to: end, timestamps, values: async (stat) => points.map(p => gaugeStatValue(p.value, stat)) }
  }

  /** mergedSeries of several gauges (a name's tagged series, reader/tagged-reads.js), each point merged across them */
  async function mergedSeriesOf (metrics, kind, { from, to, step, zone }) {
    let shape = null
    let merged = null
    for (const metric of metrics) {
      const { start, end, timestamps, plan, ...planned } = planSeriesRanges({ from, to, step, zone, maxPoints, horizons: horizonsOf(metric), metric })
      const points = evaluateGaugePlan(plan, await documents.planDocs(plan), { strictDays: planned.step === 'day' })
      shape ??= { step: planned.step, from: start, to: end, timestamps }
      merged ??= points.map(() => null)
      points.forEach((p, i) => { if (p.value !== null) merged[i] = mergeGaugeTiers(merged[i], p.value) })
    }
    return { ...shape, values: async (stat) => merged.map(tier => gaugeStatValue(tier, stat)) }
  }

  return {
    mergedSeries,
    mergedSeriesOf,

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
