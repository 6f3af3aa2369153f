// The reads of a gauge (docs/architecture.md#reads; docs/kinds/gauge.md#stats): a series of one stat — last, min, max, mean,
// count or sum — planned by the range planner as a counter's read is (one
// range per point, in UTC or any zone), fetched from the gauge collections
// with one projected request per collection, and merged tier by tier
// (bucket/gauge-stats.js) instead of summed. A gauge has no total.
import { evaluateGaugePlan, gaugeStatValue } from '../bucket/gauge-stats.js'
import { hierarchicalLayout } from '../bucket/layouts.js'
import { createDocumentReader } from './documents.js'
import { planSeriesRanges } from './series-plan.js'

// gauge documents have the hierarchical minute layout whatever BUCKET_LAYOUT is (write-unit.js)
const layout = hierarchicalLayout

/** collections: { gaugeDaily, gaugeMonthly }; horizonsOf(metric); maxPoints: MAX_POINTS */
export function createGaugeReads ({ collections, horizonsOf, maxPoints }) {
  const documents = createDocumentReader({ collections: { daily: collections.gaugeDaily, monthly: collections.gaugeMonthly }, layout })

  return {
    /**
     * A series of one stat (gauge-stats.js) of [from, to) at `step` in `zone`,
     * as a counter's series is planned (reader/series-plan.js).
     * → { stat, step, from, to, timestamps, values }
     */
    async series (metric, { from, to, step, zone, stat }) {
      const horizons = horizonsOf(metric)
      const { start, end, timestamps, plan, ...planned } = planSeriesRanges({ from, to, step, zone, maxPoints, horizons, metric, layout })
      const points = evaluateGaugePlan(plan, await documents.planDocs(plan), { strictDays: planned.step === 'day' })
      return { stat: stat.name, step: planned.step, from: start, to: end, timestamps, values: points.map(p => gaugeStatValue(p.value, stat)) }
    },

    /**
     * The stored last level of a gauge: `monthly.last` of its latest monthly
     * document (the month documents outlive the days), or null when it has
     * none. Where a StatsD delta starts from when the door does not hold the
     * level (docs/adr/0045-gauges-statsd-levels-and-deltas.md).
     */
    async storedLast (metric) {
      const [doc] = await collections.gaugeMonthly.find({ _id: { $gte: `${metric}/`, $lt: `${metric}/\uffff` } }, { projection: { 'monthly.last': 1 } })
        .sort({ _id: -1 }).limit(1).toArray()
      const v = doc?.monthly?.last?.v
      return Number.isFinite(v) ? v : null
    }
  }
}
