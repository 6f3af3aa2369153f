// The `metrics` registry's in-process side: which metric names exist, the
// MAX_METRICS admission of new names, and the paged listing.
//
// Admission counts the names this instance has loaded or admitted, so with
// several instances the limit can be overshot by the names admitted at the
// same moment elsewhere; the registry itself is written by the writer's flush.
import { COUNTER, kindOfEntry } from '../bucket/metric-kinds.js'
import { isTagged, nameOfSeries } from '../tags/series-name.js'
import { isRollupSeries } from '../tags/rollups.js'
import { READ_BATCH } from './name-index-refresh.js'

// a name's tagged series, as MAX_SERIES_PER_NAME counts them: its declared rollups' series are not (they are as many as its series at most)
const isCountedSeries = (series) => isTagged(series) && !isRollupSeries(series)

/** Smallest string greater than every string starting with prefix */
function prefixEnd (prefix) {
  return prefix + '\uffff'
}

/**
 * names: the Graphite name index (src/registry/name-index.js), told of the names known here and of deleted metrics; optional.
 * maxSeriesPerName: MAX_SERIES_PER_NAME, the tagged series one name may have (docs/tags.md#cardinality)
 */
export function createMetricRegistry ({ collection, maxMetrics, maxSeriesPerName = Infinity, statsdNewPerMinute = Infinity, statsdShare = 1, names = null }) {
  // the StatsD doors admit at most statsdNewPerMinute new names and series a minute, and fill at most statsdShare of
  // MAX_METRICS: one unauthenticated sender cannot take the registry from the HTTP writers (docs/tags.md#cardinality)
  const statsdLimit = Math.floor(maxMetrics * statsdShare)
  let statsdMinute = { minute: null, admitted: 0 }
  const known = new Map() // name → its kind: loaded from the database, or written (maybe written) by a request here
  const confirmed = new Set() // seen in the database
  const held = new Map() // new name → { holders, kind }: requests in flight holding it, counted, not known yet
  const seriesOf = new Map() // name → its tagged series known here, counted
  const heldSeriesOf = new Map() // name → its new tagged series held by requests in flight, counted
  const KIND_PROJECTION = { _id: 1, kind: 1, accuracy: 1 }

  const countInto = (counts, series, by) => {
    if (!isCountedSeries(series)) return
    const name = nameOfSeries(series)
    const n = (counts.get(name) ?? 0) + by
    if (n === 0) counts.delete(name)
    else counts.set(name, n)
  }
  const know = (name, kind) => {
    if (!known.has(name)) countInto(seriesOf, name, 1)
    known.set(name, kind)
  }
  const learn = (entry) => { know(entry._id, kindOfEntry(entry)); confirmed.add(entry._id) }

  /**
   * The new series (names not known or held here) past MAX_SERIES_PER_NAME,
   * in order: → { over: Set, refusal } (refusal: the first name over, for a
   * request that is all or nothing)
   */
  function seriesOverLimit (fresh) {
    if (maxSeriesPerName === Infinity) return null
    const room = new Map()
    const over = new Set()
    let refusal = null
    for (const series of fresh) {
      if (!isCountedSeries(series)) continue
      const name = nameOfSeries(series)
      if (!room.has(name)) room.set(name, maxSeriesPerName - (seriesOf.get(name) ?? 0) - (heldSeriesOf.get(name) ?? 0))
      const left = room.get(name)
      room.set(name, left - 1)
      if (left > 0) continue
      over.add(series)
      if (refusal === null) refusal = { name, limit: maxSeriesPerName, series: (seriesOf.get(name) ?? 0) + (heldSeriesOf.get(name) ?? 0), over: 0 }
      if (refusal.name === name) refusal.over++
    }
    return over.size === 0 ? null : { over, refusal }
  }
  const askedKind = (kinds, n) => kinds?.get(n) ?? COUNTER

  /** The names whose kind (known, or held by a request in flight) is not the one asked → [{ metric, stored, asked }] */
  function conflictsOf (names, kinds) {
    const conflicts = []
    for (const n of names) {
      const stored = known.get(n) ?? held.get(n)?.kind
      const asked = askedKind(kinds, n)
      if (stored !== undefined && stored.kind !== asked.kind) conflicts.push({ metric: n, stored: stored.kind, asked: asked.kind })
    }
    return conflicts
  }

  return {
    /**
     * Every entry read once, `READ_BATCH` a round trip; visit(entry) sees each
     * too (the boot builds the Graphite name index from the same read) → entries known
     */
    async load (visit = null) {
      const cursor = collection.find({}, { projection: KIND_PROJECTION, batchSize: READ_BATCH })
      for await (const entry of cursor) {
        learn(entry)
        visit?.(entry)
      }
      return known.size
    },

    /**
     * Whether every name is known here with the kind asked (kinds: Map name →
     * kind, null when all are counters): admit() would reserve nothing (the
     * synchronous path of a request)
     */
    knowsAll (requested, kinds = null) {
      for (const n of requested) {
        const k = known.get(n)
        if (k === undefined || k.kind !== (kinds === null ? 'counter' : askedKind(kinds, n).kind)) return false
      }
      return true
    },

    /** Registry entries (names and series) known here, as MAX_METRICS counts them */
    size: () => known.size,

    /** The tagged series of a name known here */
    seriesCount: (name) => seriesOf.get(name) ?? 0,

    /** The kind of a name known or held here (after admit()), else undefined */
    kindOf: (name) => known.get(name) ?? held.get(name)?.kind,

    /**
     * Admits a request's metric names of the kinds asked (kinds: Map name →
     * kind, null or absent = counters). → { refusal } when they would pass
     * MAX_METRICS, { conflicts: [{ metric, stored, asked }] } when a name has
     * another kind, else { reserved }: the new names, held until the request
     * is answered — then settle() them. With `partial` (the StatsD doors),
     * a full registry admits as many new names as it has room for, in order,
     * and names the rest, and names of another kind are turned away alone:
     * → { reserved, refused, conflicts }.
     */
    async admit (requested, { partial = false, kinds = null, statsd = false, now = 0 } = {}) {
      let unknown = requested.filter(n => !known.has(n))
      const lookup = unknown.filter(n => !held.has(n))
      if (lookup.length > 0) {
        const found = await collection.find({ _id: { $in: lookup } }, { projection: KIND_PROJECTION }).toArray()
        for (const entry of found) { learn(entry); names?.add(entry._id, kindOfEntry(entry).kind) }
      }
      const conflicts = conflictsOf(requested, kinds)
      if (conflicts.length > 0) {
        if (!partial) return { conflicts }
        const wrong = new Set(conflicts.map(c => c.metric))
        unknown = unknown.filter(n => !wrong.has(n))
      }
      if (unknown.length === 0) return partial ? { reserved: [], refused: [], conflicts } : { reserved: [] }
      let reserved = unknown.filter(n => !known.has(n))
      let fresh = reserved.filter(n => !held.has(n))
      let refused = []
      const manySeries = seriesOverLimit(fresh)
      if (manySeries) {
        if (!partial) return { refusal: manySeries.refusal }
        // per series (the StatsD doors): the new series past their name's limit are turned away alone
        refused = [...manySeries.over]
        reserved = reserved.filter(n => !manySeries.over.has(n))
        fresh = fresh.filter(n => !manySeries.over.has(n))
      }
      const limit = statsd ? statsdLimit : maxMetrics
      const room = limit - (known.size + held.size)
      let rateRoom = Infinity
      if (statsd) {
        const minute = Math.floor(now / 60_000)
        if (statsdMinute.minute !== minute) statsdMinute = { minute, admitted: 0 }
        rateRoom = statsdNewPerMinute - statsdMinute.admitted
      }
      let rateLimited = []
      if (fresh.length > Math.min(room, rateRoom)) {
        const byRate = rateRoom < room
        if (!partial) {
          return byRate
            ? { refusal: { perMinute: statsdNewPerMinute, newMetrics: fresh.length } }
            : { refusal: { limit, newMetrics: fresh.length, known: known.size + held.size, ...(statsd ? { share: statsdShare } : {}) } }
        }
        const turnedAway = new Set(fresh.slice(Math.max(0, Math.min(room, rateRoom))))
        if (byRate) rateLimited = [...turnedAway]
        else refused = refused.concat([...turnedAway])
        reserved = reserved.filter(n => !turnedAway.has(n))
        fresh = fresh.filter(n => !turnedAway.has(n))
      }
      if (statsd) statsdMinute.admitted += fresh.length
      // a StatsD door's new name holds its minute's place until it is known; written by no request, it gives it back (settle)
      const rateMinute = statsd ? statsdMinute.minute : null
      for (const n of reserved) {
        const h = held.get(n)
        if (h) h.holders++
        else { held.set(n, { holders: 1, kind: askedKind(kinds, n), rateMinute }); countInto(heldSeriesOf, n, 1) }
      }
      return partial ? { reserved, refused, conflicts, rateLimited } : { reserved }
    },

    /**
     * Ends a request's hold on its new names. maybeWritten (its answer was
     * 200 or 504): the names count from now on; otherwise they give their
     * places back once no other request holds them — in MAX_METRICS, and in
     * STATSD_NEW_METRICS_PER_MINUTE while their minute lasts.
     */
    settle (settled, maybeWritten) {
      for (const n of settled) {
        const h = held.get(n)
        if (maybeWritten) { know(n, h.kind); names?.add(n, h.kind.kind) }
        if (--h.holders === 0) {
          held.delete(n)
          countInto(heldSeriesOf, n, -1)
          if (!known.has(n) && h.rateMinute !== null && h.rateMinute === statsdMinute.minute) statsdMinute.admitted--
        }
      }
    },

    /** A deleted metric: no longer counted or known here (a later write admits it again) */
    forget (name) {
      if (known.has(name)) countInto(seriesOf, name, -1)
      known.delete(name)
      confirmed.delete(name)
      names?.remove(name)
    },

    /**
     * Of `ids` (names), those in the registry now, known again here and in the
     * name index (a DELETE's last step: a name written again meanwhile,
     * through any instance, stays known) → Set of them
     */
    async learnExisting (ids) {
      const found = new Set()
      for (let i = 0; i < ids.length; i += READ_BATCH) {
        const entries = await collection.find({ _id: { $in: ids.slice(i, i + READ_BATCH) } }, { projection: KIND_PROJECTION }).toArray()
        for (const entry of entries) {
          if (!held.has(entry._id)) learn(entry) // a request holding it knows it when it settles
          names?.add(entry._id, kindOfEntry(entry).kind)
          found.add(entry._id)
        }
      }
      return found
    },

    /** Whether a metric is in the registry (positive answers cached) */
    async exists (name) {
      return (await this.describe(name)) !== null
    },

    /** A metric's kind ({ kind, accuracy? }) as the registry holds it, or null when it is not there (positive answers cached) */
    async describe (name) {
      if (confirmed.has(name) && known.has(name)) return known.get(name)
      const entry = await collection.findOne({ _id: name }, { projection: KIND_PROJECTION })
      if (!entry) return null
      learn(entry)
      return known.get(name)
    },

    /**
     * One page of the registry sorted by name, without rollup series; `next`
     * is the cursor for the following page (null: the last): the page's last
     * name, a listed one, so a client can send it back as `after`. A declared
     * rollup's series are the service's own, never listed: the query leaves
     * them out, so a page is `limit` metrics unless it is the last (a run of
     * rollup series costs the database a scan of their _id keys, not a page).
     */
    async list ({ prefix = '', limit, after }) {
      const range = {}
      if (prefix) { range.$gte = prefix; range.$lt = prefixEnd(prefix) }
      if (after !== undefined && (range.$gte === undefined || after >= range.$gte)) {
        delete range.$gte
        range.$gt = after
      }
      const filter = { _id: { ...range, $not: /;~/ } } // tags/rollups.js: a rollup series' name holds `;~`, no other name does
      const docs = await collection.find(filter, { projection: { firstSeen: 1, lastSeen: 1, kind: 1, accuracy: 1 } })
        .sort({ _id: 1 }).limit(limit + 1).toArray()
      const page = docs.slice(0, limit)
      return {
        metrics: page.map(d => ({ name: d._id, kind: kindOfEntry(d).kind, firstSeen: d.firstSeen?.toISOString() ?? null, lastSeen: d.lastSeen?.toISOString() ?? null })),
        next: docs.length > limit ? page[limit - 1]._id : null
      }
    }
  }
}
