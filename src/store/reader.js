// Reads for the queries: one _id range per query, projected to the fields
// the answer needs.
import { dayId, monthId } from '../bucket/time.js'
import { seriesReadPlan } from '../bucket/results.js'

export function createReader ({ collections }) {
  return {
    /** The documents a series at `step` over [start, end) reads */
    async seriesDocs (metric, step, start, end) {
      const plan = seriesReadPlan(step, start, end)
      const [collection, idOf] = plan.kind === 'monthly'
        ? [collections.monthly, monthId]
        : [collections.daily, dayId]
      const filter = { _id: { $gte: idOf(metric, plan.first), $lte: idOf(metric, plan.last) } }
      return collection.find(filter, { projection: plan.projection }).toArray()
    },

    /** The monthly documents of January..asOf's month (≤ 12) */
    async ytdDocs (metric, year, asOf) {
      const filter = { _id: { $gte: monthId(metric, Date.UTC(year, 0, 1)), $lte: monthId(metric, asOf) } }
      return collections.monthly.find(filter, { projection: { monthly: 1, daily: 1 } }).toArray()
    }
  }
}
