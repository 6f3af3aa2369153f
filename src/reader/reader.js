// The one read path (docs/architecture.md, "Reads"): series, total and year
// to date, each planned (reader/series-plan.js, bucket/range-plan.js,
// bucket/local-plans.js), fetched with one projected request per collection
// (reader/documents.js) and assembled (bucket/results.js), in UTC and in any
// zone. The JSON routes and the Graphite source both read through it.
import { BadRequestError, NotFoundError, withDetails } from '../errors.js'
import { assembleSeries, assembleYtd } from '../bucket/results.js'
import { localSeriesValues, planLocalYtd } from '../bucket/local-plans.js'
import { RangeRefusal, evaluatePlan, planRanges } from '../bucket/range-plan.js'
import { timeZone } from '../bucket/time-zone.js'
import { createDocumentReader } from './documents.js'
import { localRefusal, planSeries } from './series-plan.js'

const UTC = timeZone('UTC')

/**
 * collections: { daily, monthly }; registry: { exists(metric) } (an unknown
 * metric is a 404, after the request's parameters were judged);
 * horizonsOf(metric) → { minuteFrom, dailyFrom } kept now; maxPoints: MAX_POINTS.
 */
export function createReader ({ collections, layout, registry, horizonsOf, maxPoints }) {
  const documents = createDocumentReader({ collections, layout })

  async function requireMetric (metric) {
    if (!(await registry.exists(metric))) throw new NotFoundError(`no metric named "${metric}"`)
  }

  return {
    /**
     * A series of [from, to) at `step` (undefined: the finest that fits) in
     * `zone` (default UTC). known: the caller got the name from the registry.
     * → { step, from, to, timestamps, values }: null where no document holds a
     * point's time, 0 where one does and the slot is zero.
     */
    async series (metric, { from, to, step, zone = UTC }, { known = false } = {}) {
      const horizons = horizonsOf(metric)
      const planned = planSeries({ from, to, step, zone, maxPoints, horizons, metric, layout })
      if (!known) await requireMetric(metric)
      const { start, end } = planned
      if (planned.plan) {
        // local hour, day and month points: one planned range each
        const values = localSeriesValues(planned, await documents.planDocs(planned.plan))
        return { step: planned.step, from: start, to: end, timestamps: planned.timestamps, values }
      }
      const { docs, monthlyDocs } = await documents.seriesDocs(metric, planned.step, start, end)
      return { step: planned.step, from: start, to: end, ...assembleSeries({ step: planned.step, start, end, docs, monthlyDocs, layout }) }
    },

    /** The exact sum over [from, to) from the fewest documents → { total, documents } */
    async total (metric, { from, to }) {
      let plan
      try {
        plan = planRanges(metric, [{ from, to }], horizonsOf(metric), layout)
      } catch (err) {
        if (!(err instanceof RangeRefusal)) throw err
        throw withDetails(new BadRequestError(err.message), { details: [{ path: err.param, message: err.message, before: err.before, after: err.after }] })
      }
      await requireMetric(metric)
      const docs = await documents.planDocs(plan)
      const [{ value }] = evaluatePlan(plan, docs)
      return { total: value ?? 0, documents: docs.daily.length + docs.monthly.length }
    },

    /**
     * Year to date in `zone`: year, asOf and (outside UTC) yearStart as
     * routes/query-params.js parseYtdQuery gives them → { total, months }
     */
    async ytd (metric, { year, asOf, yearStart, zone = UTC }) {
      if (zone.isUtc) {
        await requireMetric(metric)
        return assembleYtd({ year, asOf, docs: await documents.ytdDocs(metric, year, asOf) })
      }
      let planned
      try {
        planned = planLocalYtd(metric, zone, yearStart, asOf, { horizons: horizonsOf(metric), layout })
      } catch (err) {
        throw err instanceof RangeRefusal ? localRefusal(err, null, zone) : err
      }
      await requireMetric(metric)
      const values = evaluatePlan(planned.plan, await documents.planDocs(planned.plan))
      const months = planned.months.map((month, i) => ({ month, total: values[i].value }))
      return { total: months.reduce((sum, m) => sum + (m.total ?? 0), 0), months }
    }
  }
}
