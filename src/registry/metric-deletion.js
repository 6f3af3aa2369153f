// Deleting a metric (docs/api.md#delete-v1metricsmetric; docs/adr/0022-deleting-a-metric.md): its registry entry, then its daily and monthly documents (a
// counter's, a distribution's or a gauge's), a
// bounded batch of ids at a time. Ids put the metric first, and '/' occurs
// in an id only after it (bucket/time.js), so `name/` … `name/\uffff` holds exactly its documents.
// Idempotent: a second call finds nothing and deletes nothing.

import { KINDS } from '../kinds/index.js'
import { metricIdPrefix, metricOfId } from '../bucket/time.js'
import { isTagged } from '../tags/series-name.js'

const BATCH = 1000

/** The _id range of one metric's bucket documents */
export function metricIdRange (name) {
  const prefix = metricIdPrefix(name)
  return { $gte: prefix, $lt: `${prefix}\uffff` }
}

/** The _id range of a name's tagged series, in the registry and in the documents (`;` ends a name, and a series' id is its escaped name) */
const seriesIdRange = (name) => ({ $gt: `${name};`, $lt: `${name};\uffff` })

/**
 * collections: every kind's (db/collections.js) and metrics
 * → { seriesOf(name), deleteMetric(name), deleteSeriesOf(name, series) }, each deletion → { registry, daily, monthly, minuteHours }
 * (minuteHours: a distribution's minute-hour documents)
 */
export function createMetricDeletion (collections, { batchSize = BATCH } = {}) {
  /**
   * The documents of `collection` in an _id range ({ $gte, $lt } or { $gt, $lt }) that
   * `belongs(id)` keeps (all by default), read a batch of ids at a time in id order → how many
   */
  async function deleteDocuments (collection, range, belongs) {
    let deleted = 0
    for (let from = range; ;) {
      const found = await collection.find({ _id: from }, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(batchSize).toArray()
      if (found.length === 0) return deleted
      from = { $gt: found[found.length - 1]._id, $lt: range.$lt }
      const ids = found.map(d => d._id).filter(id => belongs === undefined || belongs(id))
      if (ids.length > 0) deleted += (await collection.deleteMany({ _id: { $in: ids } })).deletedCount
    }
  }

  /** Every kind's documents in an _id range (that belongs keeps), counted by their role in their kind → { daily, monthly, minuteHours } */
  async function deleteAllKinds (range, belongs) {
    // a metric has one kind, yet every kind's collections are looked at (a kind changed by
    // delete-and-rewrite leaves none behind); documents counted by their role in their kind
    const deleted = { daily: 0, monthly: 0, minutes: 0 }
    for (const kind of KINDS) {
      for (const [role, collection] of Object.entries(kind.collections)) deleted[role] += await deleteDocuments(collections[collection], range, belongs)
    }
    return { daily: deleted.daily, monthly: deleted.monthly, minuteHours: deleted.minutes }
  }

  return {
    /** The tagged series of a name the registry holds (`name;…`), for a name's deletion to take with it; none for a series */
    async seriesOf (name) {
      if (isTagged(name)) return []
      const entries = await collections.metrics.find({ _id: seriesIdRange(name) }, { projection: { _id: 1 } }).toArray()
      return entries.map(e => e._id)
    },

    async deleteMetric (name) {
      // the registry entry first: from then on the metric is not listed, and a write that
      // lands meanwhile registers it again (its documents stay with it)
      const registry = (await collections.metrics.deleteOne({ _id: name })).deletedCount
      return { registry, ...await deleteAllKinds(metricIdRange(name)) }
    },

    /**
     * The tagged series of a name a DELETE listed (seriesOf), rollups
     * included, together: their registry entries by id, a batch at a time,
     * then their documents, read in the one _id range they share (`name;` … :
     * a series' id is its escaped name, and `;` ends a name) a batch at a
     * time, and deleted where they are those series' — a round trip per
     * batch, not per series. A series written since the listing is not one
     * of them: its entry and documents stay, as a write after a deletion's
     * do. → { registry, daily, monthly, minuteHours }
     */
    async deleteSeriesOf (name, series) {
      const none = { registry: 0, daily: 0, monthly: 0, minuteHours: 0 }
      if (isTagged(name) || series.length === 0) return none
      let registry = 0
      for (let i = 0; i < series.length; i += batchSize) {
        registry += (await collections.metrics.deleteMany({ _id: { $in: series.slice(i, i + batchSize) } })).deletedCount
      }
      const listed = new Set(series)
      return { registry, ...await deleteAllKinds(seriesIdRange(name), id => listed.has(metricOfId(id))) }
    }
  }
}
