// The reads of a distribution (docs/architecture.md#reads): a series of
// one stat, a total (count and sum), year to date, and quantiles over any
// range — each planned by the range planner as a counter's read is (one
// range per point, in UTC or any zone), fetched from the distribution
// collections with one projected request per collection, and merged tier by
// tier (bucket/distribution-stats.js) instead of summed. A percentile that
// reads minutes reads their histograms too (minute-histograms.js).
import { BadRequestError, withDetails } from '../errors.js'
import { addTierInto, addTotalsInto, bucketsIn, histogramHoldsCount, quantileAccuracy, statHorizons, statValue } from '../bucket/distribution-stats.js'
import { countAtMost, quantiles as rankQuantiles, rankHistogram, rankedQuantile } from '../bucket/distribution-sketch.js'
import { thresholdKey } from '../bucket/distribution-thresholds.js'
import { QUARTER_HOUR_MS } from '../bucket/time.js'
import { RangeRefusal, SKIPPED, docsById, evaluatePlan, pieceNodes, planRanges } from '../bucket/range-plan.js'
import { createDocumentReader, findByIds, idsOfPlan, readInBatches } from './documents.js'
import { distribution } from '../kinds/distribution.js'
import { graftMinuteHistograms, minutePiecesByHour } from './minute-histograms.js'
import { planSeriesRanges, planYtd } from './series-plan.js'

function bad (param, message) {
  return withDetails(new BadRequestError(`${param}: ${message}`), { details: [{ path: param, message }] })
}

/** A RangeRefusal of [from, to) → the 400 that names the nearest usable edges */
export function rangeRefused (err) {
  if (!(err instanceof RangeRefusal)) return err
  return withDetails(new BadRequestError(err.message), { details: [{ path: err.param, message: err.message, before: err.before, after: err.after }] })
}

/** The 400 of a quantiles range whose minutes hold values without their histogram: the nearest quarter-hour edges */
function minutesWithoutHistogram (from, to) {
  const edge = (t) => ({ before: Math.floor(t / QUARTER_HOUR_MS) * QUARTER_HOUR_MS, after: Math.ceil(t / QUARTER_HOUR_MS) * QUARTER_HOUR_MS })
  const param = from % QUARTER_HOUR_MS !== 0 || to % QUARTER_HOUR_MS === 0 ? 'from' : 'to'
  const message = from % QUARTER_HOUR_MS !== 0 || to % QUARTER_HOUR_MS !== 0
    ? `${param}: the minutes of this range hold values without their histogram (a write cut short), so its quantiles cannot be ranked; use quarter-hour edges`
    : `${param}: the histograms of this range do not hold the values it counts (a document written in part; npm run check reports it), so its quantiles cannot be ranked`
  return withDetails(new BadRequestError(message), { details: [{ path: param, message, ...edge(param === 'from' ? from : to) }] })
}

// histogram buckets merged or ranked between two turns of the event loop (a
// piece or a point counts one more): merging costs ~0.05 µs a bucket and
// ranking ~0.3 µs, so a turn holds the loop for a few ms to ~30 ms
export const TURN_BUCKETS = 100_000
const nextTurn = () => new Promise(resolve => setImmediate(resolve))

// A request whose reads share one budget (a Graphite render) merges at most
// this many reads' MAX_READ_BUCKETS in all, each read at most one
// (docs/adr/0024-graphite-read-budget.md): a week's latency
// panel of three services at maxDataPoints 1,200 merges ~15M buckets
export const REQUEST_BUCKETS_READS = 4

/**
 * collections: every kind's (db/collections.js; a distribution's named by kinds/distribution.js); horizonsOf(metric);
 * maxPoints: MAX_POINTS; maxReadBuckets: MAX_READ_BUCKETS, the histogram
 * buckets one read may merge; turnBuckets: the buckets merged or ranked
 * between two turns of the event loop
 */
export function createDistributionReads ({ collections, horizonsOf, maxPoints, maxReadBuckets = Infinity, turnBuckets = TURN_BUCKETS }) {
  const { daily, monthly, minutes } = distribution.collections
  const documents = createDocumentReader({ collections: { daily: collections[daily], monthly: collections[monthly] } })
  const minuteHourDocuments = collections[minutes]

  /**
   * The work of one read, or of every read sharing one budget (a Graphite
   * render's: they run together), counted in buckets before it is done:
   * pace(buckets) → null while this turn of the event loop has room for
   * them (turnBuckets), else a promise of a later turn. The reads waiting
   * resume one a turn, each with a turn's room: paced read by read, reads
   * in step (their documents come in together) each took a slice in every
   * turn, and a read smaller than a slice never yielded at all.
   */
  function pacer () {
    let since = 0
    let queue = Promise.resolve()
    return (buckets) => {
      const work = buckets + 1
      if (since + work <= turnBuckets) { since += work; return null }
      // a turn of its own: chained after the turns already taken, the next one starts a turn later
      queue = queue.then(nextTurn).then(() => { since = work })
      return queue
    }
  }
  // one pacer per budget shared by reads
  const pacers = new WeakMap()
  const pacerOf = (budget) => {
    if (budget === null) return pacer()
    if (!pacers.has(budget)) pacers.set(budget, pacer())
    return pacers.get(budget)
  }

  /**
   * The documents of several reads ([{ metric, plan }]) fetched together: one
   * request per collection, and one for the minute-hour documents of their
   * minutes where minuteHistograms (a percentile's read) → [{ daily, monthly,
   * hours (the minute-hour documents read, by id) }], a read's own each
   */
  async function fetchReads (reads, { minuteHistograms = false } = {}) {
    const hourIds = minuteHistograms ? [...new Set(reads.flatMap(({ metric, plan }) => [...minutePiecesByHour(metric, plan).keys()]))] : []
    const [docs, hours] = await Promise.all([documents.plansDocs(reads.map(r => r.plan)), findByIds(minuteHourDocuments, hourIds, { minute: 1 })])
    return docs.map(d => ({ ...d, hours }))
  }

  /** The documents of one read (fetchReads) */
  const fetchRead = async (metric, plan, options) => (await fetchReads([{ metric, plan }], options))[0]

  /**
   * evaluatePlan merging tiers (range-plan.js's walk of each range's pieces),
   * each piece added into its range's tier in place (distribution-stats.js
   * addTierInto: a piece costs its own buckets, not the range's so far; with
   * buckets false addTotalsInto, count, sum, min and max only, for a read
   * that ranks nothing), the event loop free every turnBuckets buckets, and
   * refused past maxReadBuckets merged (a 400) before it is all done.
   * budget: { buckets } shared by the reads of one request (a Graphite
   * render's), and so is their pacer; else the read's own. minuteHistograms: the minutes'
   * histograms are merged too (a percentile's read: docs, fetchReads', hold them).
   * → [{ value, documents }], with minuteHourDocuments and pace (the
   * read's pacer, or its budget's, for ranking its points: rankedPoints)
   */
  async function evaluate (metric, plan, docs, { minuteHistograms = false, strictDays = false, buckets: withBuckets = true, budget = null } = {}) {
    const pace = pacerOf(budget)
    const spent = budget ?? { buckets: 0 }
    const requestLimit = budget ? maxReadBuckets * REQUEST_BUCKETS_READS : Infinity
    // the graft walks each minute's stored buckets to judge it: paced and bounded like a merge (per read and
    // per request, counted apart from the merge), before any merge
    let walked = 0
    const chargeWalk = (buckets) => {
      walked += buckets
      spent.walked = (spent.walked ?? 0) + buckets
      if (walked > maxReadBuckets) {
        throw bad('from', `this read${budget ? ` (of ${metric})` : ''} checks more than MAX_READ_BUCKETS = ${maxReadBuckets} minute-histogram buckets; shorten the range or use a coarser step`)
      }
      if (spent.walked > requestLimit) {
        throw bad('from', `this request checks more than ${REQUEST_BUCKETS_READS} × MAX_READ_BUCKETS = ${requestLimit} minute-histogram buckets across its series; shorten the range, use a coarser step or read fewer metrics`)
      }
      return pace(buckets)
    }
    const minuteHours = minuteHistograms ? await graftMinuteHistograms(docs.hours, metric, plan, docs.daily, { charge: chargeWalk }) : 0
    const byId = docsById(docs)
    let own = 0
    const add = withBuckets ? addTierInto : addTotalsInto
    const points = []
    for (const pieces of plan.ranges) {
      let value = null
      const used = new Set()
      for (const { id, node } of pieceNodes(pieces, byId, { strictDays })) {
        used.add(id)
        if (node === SKIPPED) continue
        const buckets = withBuckets ? bucketsIn(node) : 0
        await pace(buckets)
        own += buckets
        spent.buckets = (spent.buckets ?? 0) + buckets
        if (own > maxReadBuckets) {
          throw bad('from', `this read${budget ? ` (of ${metric})` : ''} merges more than MAX_READ_BUCKETS = ${maxReadBuckets} histogram buckets; shorten the range or use a coarser step`)
        }
        if (spent.buckets > requestLimit) {
          throw bad('from', `this request merges more than ${REQUEST_BUCKETS_READS} × MAX_READ_BUCKETS = ${requestLimit} histogram buckets across its series; shorten the range, use a coarser step or read fewer metrics`)
        }
        value = add(value, node)
      }
      points.push({ value, documents: used.size })
    }
    // the minute-hour documents read, besides the documents each point counts
    points.minuteHourDocuments = minuteHours
    points.pace = pace
    return points
  }

  /**
   * Each point's histogram ranked (rankHistogram), once for every
   * percentile asked of these points, the event loop free every turnBuckets
   * buckets ranked; null where statValue has no percentile (nothing written,
   * or buckets that do not hold the values counted)
   */
  function rankedPoints (points, mapping) {
    points.ranked ??= (async () => {
      const ranked = []
      for (const { value: tier } of points) {
        await points.pace(bucketsIn(tier))
        ranked.push(tier === null || !(tier.count > 0) || !histogramHoldsCount(tier) ? null : rankHistogram(tier, mapping))
      }
      return ranked
    })()
    return points.ranked
  }

  /** One stat of each point (statValue; a percentile by a binary search of its point's ranked histogram) */
  async function statValues (points, stat, mapping) {
    if (stat.kind !== 'percentile') return points.map(p => statValue(p.value, stat, mapping))
    return (await rankedPoints(points, mapping)).map(r => r === null ? null : rankedQuantile(r, stat.q))
  }

  /** The stat descriptor a read is planned for: a percentile's horizons, or any other stat's */
  const planningStat = (percentile) => ({ kind: percentile ? 'percentile' : 'count' })

  /**
   * A series read of [from, to) at `step` in `zone` planned (planSeriesRanges
   * at the horizons of what it reads: a percentile's, or any other stat's):
   * its shape and its plan, nothing read → { step, from, to, timestamps, plan }
   */
  function seriesPlan (metric, { from, to, step, zone, percentile }) {
    const { start, end, timestamps, plan, ...planned } = planSeriesRanges({ from, to, step, zone, maxPoints, horizons: statHorizons(planningStat(percentile), horizonsOf(metric)), metric })
    return { step: planned.step, from: start, to: end, timestamps, plan }
  }

  /** How a series read evaluates its plan */
  const seriesEvaluation = (step, percentile, budget) => ({ strictDays: step === 'day', minuteHistograms: percentile, buckets: percentile, budget })

  /**
   * A series of [from, to) at `step` in `zone` merged once, for any number
   * of stats: percentile true reads the buckets (and minutes where their
   * histograms are kept), false count, sum, min and max only.
   * → { step, from, to, timestamps, values(stat) → Promise<values> }
   */
  async function mergedSeries (metric, kind, { from, to, step, zone, percentile, budget }) {
    const { plan, ...shape } = seriesPlan(metric, { from, to, step, zone, percentile })
    const points = await evaluate(metric, plan, await fetchRead(metric, plan, { minuteHistograms: percentile }), seriesEvaluation(shape.step, percentile, budget))
    return { ...shape, values: (stat) => statValues(points, stat, kind.mapping) }
  }

  /**
   * mergedSeries of groups of metrics of one mapping (a name's tagged series
   * by group, reader/tagged-reads.js), the documents of all read together,
   * each group's points merged across its metrics as evaluate adds a piece
   * into a point: the reads of a group share one budget (each at most
   * MAX_READ_BUCKETS, all REQUEST_BUCKETS_READS ×). groups: [[metric]].
   * → [values(stat) → Promise<values>, or null for an empty group]
   */
  async function mergedSeriesOfGroups (groups, kind, { from, to, step, zone, percentile }) {
    const add = percentile ? addTierInto : addTotalsInto
    const merged = groups.map(() => ({ points: null, budget: { buckets: 0 } }))
    const reads = groups.flatMap((metrics, group) => metrics.map(metric => ({ metric, group, ...seriesPlan(metric, { from, to, step, zone, percentile }) })))
    await readInBatches(reads, r => idsOfPlan(r.plan), batch => fetchReads(batch, { minuteHistograms: percentile }), async ({ metric, group, plan, step: at }, docs) => {
      const into = merged[group]
      const points = await evaluate(metric, plan, docs, seriesEvaluation(at, percentile, into.budget))
      into.points ??= points.map(() => ({ value: null }))
      points.forEach((p, i) => { if (p.value !== null) into.points[i].value = add(into.points[i].value, p.value) })
    })
    return merged.map(({ points, budget }) => {
      if (points === null) return null
      points.pace = pacerOf(budget)
      return (stat) => statValues(points, stat, kind.mapping)
    })
  }

  /** Ranges ([{ from, to }], as many as MAX_POINTS) merged once, each from the fewest documents, for any number of stats → { values(stat) } */
  async function mergedRanges (metric, kind, { ranges, percentile, budget }) {
    if (ranges.length > maxPoints) throw bad('ranges', `${ranges.length} ranges, over the limit MAX_POINTS = ${maxPoints}`)
    let plan
    try {
      plan = planRanges(metric, ranges, statHorizons(planningStat(percentile), horizonsOf(metric)))
    } catch (err) {
      throw rangeRefused(err)
    }
    const points = await evaluate(metric, plan, await fetchRead(metric, plan, { minuteHistograms: percentile }), { strictDays: true, minuteHistograms: percentile, buckets: percentile, budget })
    return { values: (stat) => statValues(points, stat, kind.mapping) }
  }

  /** count and sum over [from, to) of each metric from the fewest documents, their documents read together → [{ total (= count), count, sum, documents }] */
  async function totalsOf (metrics, kind, { from, to }) {
    const reads = metrics.map(metric => {
      try {
        return { metric, plan: planRanges(metric, [{ from, to }], horizonsOf(metric)) }
      } catch (err) {
        throw rangeRefused(err)
      }
    })
    return readInBatches(reads, r => idsOfPlan(r.plan), fetchReads, async ({ metric, plan }, docs) => {
      // count and sum only: no bucket is merged (nor counted against MAX_READ_BUCKETS)
      const [{ value, documents: used }] = await evaluate(metric, plan, docs, { buckets: false })
      const count = value?.count ?? 0
      return { total: count, count, sum: value?.sum ?? 0, documents: used }
    })
  }

  /** Plans of `ranges` per metric at `horizons(metric)` (a range past them: the 400 naming the nearest edges) */
  function planEach (metrics, ranges, horizons) {
    try {
      return metrics.map(metric => ({ metric, plan: planRanges(metric, ranges, horizons(metric)) }))
    } catch (err) {
      throw rangeRefused(err)
    }
  }

  /**
   * The counts a tier holds at `field` ('count', or a threshold's 'le.<key>')
   * over each range of several metrics, the plans projected to that field
   * alone → [{ values, documents }]
   */
  function fieldCountsOf (metrics, ranges, field) {
    const reads = planEach(metrics, ranges, horizonsOf).map(({ metric, plan }) => {
      const projections = { daily: {}, monthly: {} }
      for (const pieces of plan.ranges) for (const p of pieces) projections[p.collection][`${p.path.join('.')}.${field}`] = 1
      return { metric, plan: { ...plan, reads: { daily: { ...plan.reads.daily, projection: projections.daily }, monthly: { ...plan.reads.monthly, projection: projections.monthly } } } }
    })
    const [name, key] = field.split('.')
    const countAt = (node) => {
      const n = key === undefined ? node?.count : node?.[name]?.[key]
      return typeof n === 'number' && Number.isFinite(n) ? n : 0
    }
    return readInBatches(reads, r => idsOfPlan(r.plan), batch => documents.plansDocs(batch.map(r => r.plan)), ({ plan }, docs) => ({
      values: evaluatePlan(plan, docs, { combine: (total, node) => (total ?? 0) + countAt(node) }).map(r => r.value ?? 0),
      documents: docs.daily.length + docs.monthly.length
    }))
  }

  /**
   * The values ≤ t over each range of several metrics estimated from their
   * merged histograms (distribution-sketch.js countAtMost), read as a
   * percentile is (minute histograms included) → [{ values, documents }]
   */
  function estimatedCountsOf (metrics, kind, ranges, t) {
    const reads = planEach(metrics, ranges, metric => statHorizons({ kind: 'percentile' }, horizonsOf(metric)))
    return readInBatches(reads, r => idsOfPlan(r.plan), batch => fetchReads(batch, { minuteHistograms: true }), async ({ metric, plan }, docs) => {
      const points = await evaluate(metric, plan, docs, { minuteHistograms: true })
      const values = points.map(({ value }, i) => {
        if (value === null) return 0
        if (!histogramHoldsCount(value)) throw minutesWithoutHistogram(ranges[i].from, ranges[i].to)
        return countAtMost(value, kind.mapping, t)
      })
      return { values, documents: docs.daily.length + docs.monthly.length + points.minuteHourDocuments }
    })
  }

  /**
   * Each metric's count of values ≤ threshold (null: of every value, its
   * count) over each of `ranges`, their documents read together: exact from
   * each tier's `le.<key>` where exact[i] (the threshold counted every event
   * of the range), else estimated within α from the histograms
   * → [{ values, documents, estimated: [bool] }]
   */
  async function thresholdCountsOf (metrics, kind, { ranges, threshold = null, exact = ranges.map(() => true) }) {
    const at = (which) => ranges.map((_, i) => i).filter(i => threshold === null || exact[i] === which)
    const [exactAt, estimatedAt] = [at(true), threshold === null ? [] : at(false)]
    const field = threshold === null ? 'count' : `le.${thresholdKey(threshold)}`
    const [exactCounts, estimates] = await Promise.all([
      exactAt.length ? fieldCountsOf(metrics, exactAt.map(i => ranges[i]), field) : null,
      estimatedAt.length ? estimatedCountsOf(metrics, kind, estimatedAt.map(i => ranges[i]), threshold) : null
    ])
    return metrics.map((_, m) => {
      const values = ranges.map(() => 0)
      exactAt.forEach((r, j) => { values[r] = exactCounts[m].values[j] })
      estimatedAt.forEach((r, j) => { values[r] = estimates[m].values[j] })
      const estimated = ranges.map((_, i) => estimatedAt.includes(i))
      return { values, documents: (exactCounts?.[m].documents ?? 0) + (estimates?.[m].documents ?? 0), estimated }
    })
  }

  /** A year to date from its months' points (null: no document read) */
  function ytdAnswer (planned, points) {
    const months = planned.months.map((month, i) => {
      const tier = points?.[i].value ?? null
      return tier === null ? { month, total: null, count: null, sum: null } : { month, total: tier.count ?? 0, count: tier.count ?? 0, sum: tier.sum ?? 0 }
    })
    return {
      total: months.reduce((n, m) => n + (m.count ?? 0), 0),
      sum: months.reduce((n, m) => n + (m.sum ?? 0), 0),
      months
    }
  }

  /** Years to date in `zone` (UTC included) of several metrics, their documents read together → [answer] */
  async function ytdsOf (metrics, kind, options) {
    const reads = metrics.map(metric => ({ metric, planned: planYtd(metric, { ...options, horizons: horizonsOf(metric) }) }))
    return readInBatches(reads, r => idsOfPlan(r.planned.plan), batch => fetchReads(batch.map(r => ({ metric: r.metric, plan: r.planned.plan }))),
      async ({ metric, planned }, docs) => ytdAnswer(planned, await evaluate(metric, planned.plan, docs, { buckets: false })))
  }

  return {
    /**
     * A series of one stat (distribution-stats.js parseStat) of [from, to) at
     * `step` in `zone`, as a counter's series is planned (reader/series-plan.js);
     * a percentile of a minute from its histogram, null where the minute has
     * none that holds its values. kind: the metric's (its mapping).
     * → { stat, step, from, to, timestamps, values }
     */
    async series (metric, kind, { from, to, step, zone, stat }) {
      const { values, ...merged } = await mergedSeries(metric, kind, { from, to, step, zone, percentile: stat.kind === 'percentile' })
      return { stat: stat.name, ...merged, values: await values(stat) }
    },

    /**
     * A series merged once for several stats of one kind (Graphite's stat
     * leaves of one metric in one request): percentile true for
     * percentiles, false for the other stats; budget: { buckets } shared by
     * the request's reads. → { step, from, to, timestamps, values(stat) }
     */
    mergedSeries,
    mergedSeriesOfGroups,

    /** A series read's shape (judged as its read judges it: a 400 for a window it cannot answer), nothing read → { step, from, to, timestamps } */
    seriesShape: (metric, options) => {
      const { plan, ...shape } = seriesPlan(metric, options)
      return shape
    },

    /**
     * One stat of each of `ranges` ([{ from, to }], epoch ms, as many as
     * MAX_POINTS), each merged from the fewest documents (what a point of a
     * series would answer for a range), merged once for several stats of one
     * kind, as mergedSeries → { values(stat) }
     */
    mergedRanges,

    /** count and sum over [from, to) from the fewest documents → { total (= count), count, sum, documents } */
    total: async (metric, kind, { from, to }) => (await totalsOf([metric], kind, { from, to }))[0],

    /** total of several metrics (a name's tagged series), their documents read together → [answer] */
    totalsOf,

    thresholdCountsOf,

    /**
     * Quantiles qs (each in [0, 1]) over [from, to), merged from the fewest
     * histograms: whole months, whole days, hours, quarter-hours, and minutes
     * where the metric keeps them (a minute edge past its minute horizon is a
     * 400 naming the nearest usable edges, as for a counter); a range whose
     * minutes have no histogram that holds their values is a 400 too, naming
     * the nearest quarter-hour edges.
     * → { count, sum, min, max, quantiles: [{ q, value }], relativeError, limitedBy, documents } (null stats where nothing was written)
     */
    async quantiles (metric, kind, { from, to, qs }) {
      let plan
      try {
        plan = planRanges(metric, [{ from, to }], statHorizons({ kind: 'percentile' }, horizonsOf(metric)))
      } catch (err) {
        throw rangeRefused(err)
      }
      const points = await evaluate(metric, plan, await fetchRead(metric, plan, { minuteHistograms: true }), { minuteHistograms: true })
      const [{ value, documents: used }] = points
      if (value !== null && !histogramHoldsCount(value)) throw minutesWithoutHistogram(from, to)
      const stat = (kindName) => statValue(value, { kind: kindName }, kind.mapping)
      // every q ranked in one walk of the buckets (statValue would sort them once a q); null where nothing was written
      const ranked = value === null || !(value.count > 0) ? qs.map(() => null) : rankQuantiles(value, kind.mapping, qs)
      return {
        count: value === null ? 0 : stat('count'),
        sum: value === null ? 0 : stat('sum'),
        min: stat('min'),
        max: stat('max'),
        quantiles: qs.map((q, i) => ({ q, value: ranked[i] })),
        ...quantileAccuracy(value, kind.accuracy),
        documents: used + points.minuteHourDocuments
      }
    },

    /** Year to date in `zone` (UTC included) as local months → { total (= count), sum, months: [{ month, total, count, sum }] } */
    ytd: async (metric, kind, options) => (await ytdsOf([metric], kind, options))[0],

    /** ytd of several metrics (a name's tagged series), their documents read together → [answer] */
    ytdsOf,

    /** A year to date's answer over no documents (its months, each null), judged as ytd judges it: nothing read */
    ytdShape: (metric, kind, options) => ytdAnswer(planYtd(metric, { ...options, horizons: horizonsOf(metric) }), null)
  }
}
