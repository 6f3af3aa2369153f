// The documents a read needs: one request per collection and query for the documents' ids, projected
// to the fields the answer needs. A read of several series (a name's tagged series, reader/tagged-reads.js)
// asks for all their documents in the same request, and each series is given its own, as its own read
// would have been.
import { DAY_MS, addMonths, dayId, monthId } from '../bucket/time.js'
import { seriesReadPlan } from '../bucket/results.js'
import { documentsByProjection } from '../bucket/range-plan.js'

// the ids a read of several series asks for at most in one request: more are asked batch by batch, each
// batch's documents used before the next one is read (a few thousand documents held at once)
export const IDS_PER_REQUEST = 2_000

/**
 * Several reads (a name's tagged series), each given its documents: the
 * reads cut into batches in order, a batch asking for at most IDS_PER_REQUEST
 * ids (idsOf(read): how many one asks for; a read is never cut), each batch's
 * documents fetched together (fetch(batch) → a read's own documents each),
 * then use(read, docs) awaited for each of its reads in order before the next
 * batch is fetched → [use's results], in the order of reads
 */
export async function readInBatches (reads, idsOf, fetch, use) {
  const results = []
  for (let first = 0; first < reads.length;) {
    let end = first + 1
    for (let ids = idsOf(reads[first]); end < reads.length && ids + idsOf(reads[end]) <= IDS_PER_REQUEST; end++) ids += idsOf(reads[end])
    const batch = reads.slice(first, end)
    const docs = await fetch(batch)
    for (let i = 0; i < batch.length; i++) results.push(await use(batch[i], docs[i]))
    first = end
  }
  return results
}

/** How many ids a range plan (bucket/range-plan.js) asks for, for readInBatches */
export const idsOfPlan = (plan) => plan.reads.daily.ids.length + plan.reads.monthly.ids.length

/** The ids of a metric's day (month) documents from first to last, inclusive */
function idsBetween (metric, first, last, monthly) {
  const ids = []
  for (let t = first; t <= last; t = monthly ? addMonths(t, 1) : t + DAY_MS) ids.push(monthly ? monthId(metric, t) : dayId(metric, t))
  return ids
}

/** Each list of ids' documents among those read (a Map by id), in its order */
const own = (byId, ids) => ids.flatMap(id => (byId.has(id) ? [byId.get(id)] : []))

/** The union of several field projections */
function unionOf (projections) {
  const union = {}
  for (const projection of projections) for (const field in projection) union[field] = 1
  return union
}

/**
 * The documents of `ids` (a list, without repeats) read with one projected
 * request (none for no id) → Map by id. The first batch may hold them all
 * (batchSize: mongod's default is 101, then a getMore round trip)
 */
export async function findByIds (collection, ids, projection) {
  const docs = ids.length === 0 ? [] : await collection.find({ _id: { $in: ids } }, { projection, batchSize: ids.length }).toArray()
  return new Map(docs.map(d => [d._id, d]))
}

export function createDocumentReader ({ collections }) {
  /**
   * Each list of ids' documents (lists: [[id]]) read together, findByIds of
   * their union: the documents' ids, listed, an exact lookup each, which
   * every backend serves from the _id index (mongo-java-server scans a
   * collection for an _id range; a range and a list read the same documents)
   * → [[docs]]
   */
  async function byIds (collection, lists, projection) {
    const byId = await findByIds(collection, [...new Set(lists.flat())], projection)
    return lists.map(list => own(byId, list))
  }

  /** The documents of several range plans (bucket/range-plan.js) → [{ daily: [docs], monthly: [docs] }], a plan's own each */
  async function plansDocs (plans) {
    const fetch = (name) => byIds(collections[name], plans.map(p => p.reads[name].ids), unionOf(plans.map(p => p.reads[name].projection)))
    const [daily, monthly] = await Promise.all([fetch('daily'), fetch('monthly')])
    return plans.map((_, i) => ({ daily: daily[i], monthly: monthly[i] }))
  }

  /**
   * The documents of many range plans, each read once however many plans
   * need it, with the fields its pieces project: per collection, the
   * documents that project the same fields (range-plan.js
   * documentsByProjection) asked together, IDS_PER_REQUEST a request, the
   * requests at once → [{ daily: [docs], monthly: [docs] }], a plan's own each
   */
  async function plansDocsOnce (plans) {
    const fetch = async (name) => {
      const requests = documentsByProjection(plans, name).flatMap(({ projection, ids }) =>
        Array.from({ length: Math.ceil(ids.length / IDS_PER_REQUEST) }, (_, i) => ({ projection, ids: ids.slice(i * IDS_PER_REQUEST, (i + 1) * IDS_PER_REQUEST) })))
      const found = await Promise.all(requests.map(({ projection, ids }) => findByIds(collections[name], ids, projection)))
      return new Map(found.flatMap(byId => [...byId]))
    }
    const [daily, monthly] = await Promise.all([fetch('daily'), fetch('monthly')])
    return plans.map(p => ({ daily: own(daily, p.reads.daily.ids), monthly: own(monthly, p.reads.monthly.ids) }))
  }

  /** The documents of several metrics' series at `step` over [start, end) → [{ docs, monthlyDocs }], a metric's own each */
  async function seriesDocsOf (metrics, step, start, end) {
    const plan = seriesReadPlan(step, start, end)
    const read = (name, monthly) => plan[name]
      ? byIds(collections[name], metrics.map(m => idsBetween(m, plan[name].first, plan[name].last, monthly)), plan[name].projection)
      : metrics.map(() => [])
    const [daily, monthlyDocs] = await Promise.all([read('daily', false), read('monthly', true)])
    // month points come from the monthly documents, as day points do
    return metrics.map((_, i) => step === 'month' ? { docs: monthlyDocs[i], monthlyDocs: [] } : { docs: daily[i], monthlyDocs: monthlyDocs[i] })
  }

  /** How many ids a metric's series at `step` over [start, end) asks for, for readInBatches */
  function idsOfSeries (step, start, end) {
    const plan = seriesReadPlan(step, start, end)
    const count = (name, monthly) => (plan[name] ? idsBetween('', plan[name].first, plan[name].last, monthly).length : 0)
    return count('daily', false) + count('monthly', true)
  }

  /** The monthly documents of January..asOf's month (≤ 12) of several metrics → [docs], a metric's own each */
  const ytdDocsOf = (metrics, year, asOf) =>
    byIds(collections.monthly, metrics.map(m => idsBetween(m, Date.UTC(year, 0, 1), asOf, true)), { monthly: 1, daily: 1 })

  return {
    /**
     * The documents a series at `step` over [start, end) reads: daily ones,
     * or monthly ones for day and month points (≤ 13 for a year of days).
     * → { docs (daily, or monthly for step month), monthlyDocs (day points) }
     */
    seriesDocs: async (metric, step, start, end) => (await seriesDocsOf([metric], step, start, end))[0],
    seriesDocsOf,
    idsOfSeries,

    /**
     * The documents a range plan (bucket/range-plan.js) needs: one projected
     * request per collection. → { daily: [docs], monthly: [docs] }
     */
    planDocs: async (plan) => (await plansDocs([plan]))[0],
    plansDocs,
    plansDocsOnce,

    /** The monthly documents of January..asOf's month (≤ 12) */
    ytdDocs: async (metric, year, asOf) => (await ytdDocsOf([metric], year, asOf))[0],
    ytdDocsOf
  }
}
