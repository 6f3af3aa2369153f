// The reads of a distribution (docs/architecture.md, "Reads"): a series of
// one stat, a total (count and sum), year to date, and quantiles over any
// range — each planned by the range planner as a counter's read is (one
// range per point, in UTC or any zone), fetched from the distribution
// collections with one projected request per collection, and merged tier by
// tier (bucket/distribution-stats.js) instead of summed. A percentile that
// reads minutes reads their histograms too (minute-histograms.js).
import { BadRequestError, withDetails } from '../errors.js'
import { addTierInto, histogramHoldsCount, statHorizons, statValue } from '../bucket/distribution-stats.js'
import { quantiles as rankQuantiles } from '../bucket/distribution-sketch.js'
import { hierarchicalLayout } from '../bucket/layouts.js'
import { planLocalYtd } from '../bucket/local-plans.js'
import { QUARTER_HOUR_MS } from '../bucket/time.js'
import { RangeRefusal, SKIPPED, docsById, pieceNodes, planRanges } from '../bucket/range-plan.js'
import { createDocumentReader } from './documents.js'
import { graftMinuteHistograms } from './minute-histograms.js'
import { localRefusal, planSeriesRanges } from './series-plan.js'

// distribution documents have the hierarchical minute layout whatever BUCKET_LAYOUT is (write-unit.js)
const layout = hierarchicalLayout

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
    ? `${param}: the minutes of this range hold values without their histogram (written before statbucket kept minute histograms, or by a write cut short), so its quantiles cannot be ranked; use quarter-hour edges`
    : `${param}: the histograms of this range do not hold the values it counts (a document written in part; npm run check reports it), so its quantiles cannot be ranked`
  return withDetails(new BadRequestError(message), { details: [{ path: param, message, ...edge(param === 'from' ? from : to) }] })
}

// histogram buckets merged or ranked between two turns of the event loop (a
// piece or a point counts one more): merging costs ~0.05 µs a bucket and
// ranking ~0.3 µs, so a turn holds the loop for a few ms to ~30 ms
export const TURN_BUCKETS = 100_000
const bucketsOf = (node) => {
  let n = 0
  for (const side of [node?.positive, node?.negative]) if (side && typeof side === 'object') for (const _ in side) n++ // eslint-disable-line no-unused-vars
  return n
}
const nextTurn = () => new Promise(resolve => setImmediate(resolve))

/**
 * collections: { distributionDaily, distributionMonthly, distributionMinutes }; horizonsOf(metric);
 * maxPoints: MAX_POINTS; maxReadBuckets: MAX_READ_BUCKETS, the histogram
 * buckets one read may merge; turnBuckets: the buckets merged or ranked
 * between two turns of the event loop
 */
export function createDistributionReads ({ collections, horizonsOf, maxPoints, maxReadBuckets = Infinity, turnBuckets = TURN_BUCKETS }) {
  const documents = createDocumentReader({ collections: { daily: collections.distributionDaily, monthly: collections.distributionMonthly }, layout })

  /** The work of one read, counted in buckets: the event loop turns every turnBuckets */
  function pacer () {
    let since = 0
    return async (buckets) => {
      since += buckets + 1
      if (since >= turnBuckets) { since = 0; await nextTurn() }
    }
  }

  /**
   * evaluatePlan merging tiers (range-plan.js's walk of each range's pieces,
   * distribution-stats.js addTierInto), each piece added into its range's
   * tier in place (a piece costs its own buckets, not the range's so far),
   * the event loop free every turnBuckets buckets, and refused past
   * maxReadBuckets merged (a 400) before it is all done.
   * minuteHistograms: the minutes' histograms are read and merged too (a
   * percentile's read). → [{ value, documents }], with minuteHourDocuments
   * and pace (the read's pacer, for ranking its points)
   */
  async function evaluate (metric, plan, { minuteHistograms = false, strictDays = false } = {}) {
    const docs = await documents.planDocs(plan)
    const minuteHours = minuteHistograms ? await graftMinuteHistograms(collections.distributionMinutes, metric, plan, docs.daily) : 0
    const byId = docsById(docs)
    const pace = pacer()
    let merged = 0
    const points = []
    for (const pieces of plan.ranges) {
      let value = null
      const used = new Set()
      for (const { id, node } of pieceNodes(pieces, byId, { strictDays })) {
        used.add(id)
        if (node === SKIPPED) continue
        const buckets = bucketsOf(node)
        merged += buckets
        if (merged > maxReadBuckets) {
          throw bad('from', `this read merges more than MAX_READ_BUCKETS = ${maxReadBuckets} histogram buckets; shorten the range or use a coarser step`)
        }
        value = addTierInto(value, node)
        await pace(buckets)
      }
      points.push({ value, documents: used.size })
    }
    // the minute-hour documents read, besides the documents each point counts
    points.minuteHourDocuments = minuteHours
    points.pace = pace
    return points
  }

  /** One stat of each point (statValue), the event loop free every turnBuckets buckets ranked */
  async function statValues (points, stat, mapping) {
    const values = []
    for (const p of points) {
      values.push(statValue(p.value, stat, mapping))
      if (stat.kind === 'percentile') await points.pace(bucketsOf(p.value))
    }
    return values
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
      const { start, end, timestamps, plan, ...planned } = planSeriesRanges({ from, to, step, zone, maxPoints, horizons: statHorizons(stat, horizonsOf(metric)), metric, layout })
      const points = await evaluate(metric, plan, { strictDays: planned.step === 'day', minuteHistograms: stat.kind === 'percentile' })
      return { stat: stat.name, step: planned.step, from: start, to: end, timestamps, values: await statValues(points, stat, kind.mapping) }
    },

    /**
     * One stat of each of `ranges` ([{ from, to }], epoch ms, as many as
     * MAX_POINTS), each merged from the fewest documents: what a point of a series would answer for a range
     * that is not one step (Graphite's consolidated points). Days read as a
     * day series reads them (strictDays). → values, null where no document
     * holds a range
     */
    async statOfRanges (metric, kind, { ranges, stat }) {
      if (ranges.length > maxPoints) throw bad('ranges', `${ranges.length} ranges, over the limit MAX_POINTS = ${maxPoints}`)
      let plan
      try {
        plan = planRanges(metric, ranges, statHorizons(stat, horizonsOf(metric)), layout)
      } catch (err) {
        throw rangeRefused(err)
      }
      const points = await evaluate(metric, plan, { strictDays: true, minuteHistograms: stat.kind === 'percentile' })
      return statValues(points, stat, kind.mapping)
    },

    /** count and sum over [from, to) from the fewest documents → { total (= count), count, sum, documents } */
    async total (metric, kind, { from, to }) {
      let plan
      try {
        plan = planRanges(metric, [{ from, to }], horizonsOf(metric), layout)
      } catch (err) {
        throw rangeRefused(err)
      }
      const [{ value, documents: used }] = await evaluate(metric, plan)
      const count = value?.count ?? 0
      return { total: count, count, sum: value?.sum ?? 0, documents: used }
    },

    /**
     * Quantiles qs (each in [0, 1]) over [from, to), merged from the fewest
     * histograms: whole months, whole days, hours, quarter-hours, and minutes
     * where the metric keeps them (a minute edge past its minute horizon is a
     * 400 naming the nearest usable edges, as for a counter); a range whose
     * minutes have no histogram that holds their values is a 400 too, naming
     * the nearest quarter-hour edges.
     * → { count, sum, min, max, quantiles: [{ q, value }], documents } (null stats where nothing was written)
     */
    async quantiles (metric, kind, { from, to, qs }) {
      let plan
      try {
        plan = planRanges(metric, [{ from, to }], statHorizons({ kind: 'percentile' }, horizonsOf(metric)), layout)
      } catch (err) {
        throw rangeRefused(err)
      }
      const points = await evaluate(metric, plan, { minuteHistograms: true })
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
        documents: used + points.minuteHourDocuments
      }
    },

    /** Year to date in `zone` (UTC included) as local months → { total (= count), sum, months: [{ month, total, count, sum }] } */
    async ytd (metric, kind, { asOf, yearStart, zone }) {
      let planned
      try {
        planned = planLocalYtd(metric, zone, yearStart, asOf, { horizons: horizonsOf(metric), layout })
      } catch (err) {
        throw err instanceof RangeRefusal ? localRefusal(err, null, zone) : err
      }
      const points = await evaluate(metric, planned.plan)
      const months = planned.months.map((month, i) => {
        const tier = points[i].value
        return tier === null ? { month, total: null, count: null, sum: null } : { month, total: tier.count ?? 0, count: tier.count ?? 0, sum: tier.sum ?? 0 }
      })
      return {
        total: months.reduce((n, m) => n + (m.count ?? 0), 0),
        sum: months.reduce((n, m) => n + (m.sum ?? 0), 0),
        months
      }
    }
  }
}
