// The `metrics` registry's in-process side: which metric names exist, the
// MAX_METRICS admission of new names, and the paged listing.
//
// Admission counts the names this instance has loaded or admitted, so with
// several instances the limit can be overshot by the names admitted at the
// same moment elsewhere; the registry itself is written by the writer's flush.

/** Smallest string greater than every string starting with prefix */
function prefixEnd (prefix) {
  return prefix + '\uffff'
}

/** names: the Graphite name index (src/registry/name-index.js), told of the names known here and of deleted metrics; optional */
export function createMetricRegistry ({ collection, maxMetrics, names = null }) {
  const known = new Set() // loaded from the database, or written (maybe written) by a request here
  const confirmed = new Set() // seen in the database
  const held = new Map() // new name → requests in flight holding it: counted, not known yet

  return {
    async load () {
      const cursor = collection.find({}, { projection: { _id: 1 } })
      for await (const { _id } of cursor) {
        known.add(_id)
        confirmed.add(_id)
      }
      return known.size
    },

    /** Whether every name is known here: admit() would reserve nothing (the synchronous path of a request) */
    knowsAll (requested) {
      for (const n of requested) if (!known.has(n)) return false
      return true
    },

    /**
     * Admits a request's metric names. → { refusal } when they would pass
     * MAX_METRICS, else { reserved }: the new names, held until the request
     * is answered — then settle() them. With `partial` (the StatsD doors),
     * a full registry admits as many new names as it has room for, in order,
     * and names the rest: → { reserved, refused }.
     */
    async admit (requested, { partial = false } = {}) {
      const unknown = requested.filter(n => !known.has(n))
      if (unknown.length === 0) return partial ? { reserved: [], refused: [] } : { reserved: [] }
      const lookup = unknown.filter(n => !held.has(n))
      if (lookup.length > 0) {
        const found = await collection.find({ _id: { $in: lookup } }, { projection: { _id: 1 } }).toArray()
        for (const { _id } of found) { known.add(_id); confirmed.add(_id); names?.add(_id) }
      }
      let reserved = unknown.filter(n => !known.has(n))
      const fresh = reserved.filter(n => !held.has(n))
      const room = maxMetrics - (known.size + held.size)
      let refused = []
      if (fresh.length > room) {
        if (!partial) return { refusal: { limit: maxMetrics, newMetrics: fresh.length, known: known.size + held.size } }
        const turnedAway = new Set(fresh.slice(Math.max(0, room)))
        refused = [...turnedAway]
        reserved = reserved.filter(n => !turnedAway.has(n))
      }
      for (const n of reserved) held.set(n, (held.get(n) ?? 0) + 1)
      return partial ? { reserved, refused } : { reserved }
    },

    /**
     * Ends a request's hold on its new names. maybeWritten (its answer was
     * 200 or 504): the names count from now on; otherwise they give their
     * places back once no other request holds them.
     */
    settle (settled, maybeWritten) {
      for (const n of settled) {
        if (maybeWritten) { known.add(n); names?.add(n) }
        const holders = held.get(n) - 1
        if (holders > 0) held.set(n, holders)
        else held.delete(n)
      }
    },

    /** A deleted metric: no longer counted or known here (a later write admits it again) */
    forget (name) {
      known.delete(name)
      confirmed.delete(name)
      names?.remove(name)
    },

    /** Whether a metric is in the registry (positive answers cached) */
    async exists (name) {
      if (confirmed.has(name)) return true
      const doc = await collection.findOne({ _id: name }, { projection: { _id: 1 } })
      if (doc) confirmed.add(name)
      return Boolean(doc)
    },

    /** One page of the registry sorted by name; `next` is the cursor for the following page. */
    async list ({ prefix = '', limit, after }) {
      const range = {}
      if (prefix) { range.$gte = prefix; range.$lt = prefixEnd(prefix) }
      if (after !== undefined && (range.$gte === undefined || after >= range.$gte)) {
        delete range.$gte
        range.$gt = after
      }
      const filter = Object.keys(range).length ? { _id: range } : {}
      const docs = await collection.find(filter, { projection: { firstSeen: 1, lastSeen: 1 } })
        .sort({ _id: 1 }).limit(limit + 1).toArray()
      const page = docs.slice(0, limit)
      return {
        metrics: page.map(d => ({ name: d._id, firstSeen: d.firstSeen?.toISOString() ?? null, lastSeen: d.lastSeen?.toISOString() ?? null })),
        next: docs.length > limit ? page[page.length - 1]._id : null
      }
    }
  }
}
