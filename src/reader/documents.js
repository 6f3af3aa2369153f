// The documents a read needs: one request per collection and query for the documents' ids, projected
// to the fields the answer needs.
import { DAY_MS, addMonths, dayId, monthId } from '../bucket/time.js'
import { seriesReadPlan } from '../bucket/results.js'

/** The ids of a metric's day (month) documents from first to last, inclusive */
function idsBetween (metric, first, last, monthly) {
  const ids = []
  for (let t = first; t <= last; t = monthly ? addMonths(t, 1) : t + DAY_MS) ids.push(monthly ? monthId(metric, t) : dayId(metric, t))
  return ids
}

export function createDocumentReader ({ collections }) {
  // the documents' ids, listed: an exact lookup each, which every backend serves from the _id index
  // (mongo-java-server scans a collection for an _id range; a range and a list read the same documents)
  const byIds = (collection, monthly, metric, { first, last, projection }) =>
    collection.find({ _id: { $in: idsBetween(metric, first, last, monthly) } }, { projection }).toArray()

  return {
    /**
     * The documents a series at `step` over [start, end) reads: daily ones,
     * or monthly ones for day and month points (≤ 13 for a year of days).
     * → { docs (daily, or monthly for step month), monthlyDocs (day points) }
     */
    async seriesDocs (metric, step, start, end) {
      const plan = seriesReadPlan(step, start, end)
      if (step === 'month') return { docs: await byIds(collections.monthly, true, metric, plan.monthly), monthlyDocs: [] }
      const [docs, monthlyDocs] = await Promise.all([
        plan.daily ? byIds(collections.daily, false, metric, plan.daily) : [],
        plan.monthly ? byIds(collections.monthly, true, metric, plan.monthly) : []
      ])
      return { docs, monthlyDocs }
    },

    /**
     * The documents a range plan (bucket/range-plan.js) needs: one projected
     * request per collection. → { daily: [docs], monthly: [docs] }
     */
    async planDocs ({ reads }) {
      const fetch = (collection, { ids, projection }) => ids.length === 0
        ? []
        : collection.find({ _id: { $in: ids } }, { projection }).toArray()
      const [daily, monthly] = await Promise.all([fetch(collections.daily, reads.daily), fetch(collections.monthly, reads.monthly)])
      return { daily, monthly }
    },

    /** The monthly documents of January..asOf's month (≤ 12) */
    async ytdDocs (metric, year, asOf) {
      return byIds(collections.monthly, true, metric, { first: Date.UTC(year, 0, 1), last: asOf, projection: { monthly: 1, daily: 1 } })
    }
  }
}
