// The one read path (docs/architecture.md#reads): series, total and year
// to date, each planned (reader/series-plan.js, bucket/range-plan.js,
// bucket/local-plans.js), fetched with one projected request per collection
// (reader/documents.js) and assembled (bucket/results.js), in UTC and in any
// zone. The JSON routes and the Graphite source both read through it. A
// distribution's and a gauge's reads are planned the same way and merged tier
// by tier (reader/distribution-reads.js, reader/gauge-reads.js): the
// registry's kind of the metric says which.
import { BadRequestError, NotFoundError, withDetails } from '../errors.js'
import { assembleSeries, assembleYtd } from '../bucket/results.js'
import { localSeriesValues, planLocalYtd } from '../bucket/local-plans.js'
import { RangeRefusal, evaluatePlan, planRanges } from '../bucket/range-plan.js'
import { timeZone } from '../bucket/time-zone.js'
import { createDocumentReader } from './documents.js'
import { createDistributionReads, rangeRefused } from './distribution-reads.js'
import { createGaugeReads } from './gauge-reads.js'
import { DISTRIBUTION_KIND, GAUGE_KIND } from '../bucket/metric-kinds.js'
import { LAST_STAT_NAME, parseStat } from '../bucket/distribution-stats.js'
import { GAUGE_DEFAULT_STAT, GAUGE_STAT_NAMES, isGaugeStat } from '../bucket/gauge-stats.js'
import { localRefusal, planSeries } from './series-plan.js'

const UTC = timeZone('UTC')
// what a distribution's series answers when no stat is asked: how many values each point holds
const DEFAULT_STAT = parseStat('count').stat

function badStat (message) {
  return withDetails(new BadRequestError(`stat: ${message}`), { details: [{ path: 'stat', message }] })
}

const counterRefusesStat = (metric, stat) => badStat(`metric "${metric}" is a counter: its points are sums, and stat=${stat.name} is for distributions and gauges; leave stat out`)
const distributionRefusesLast = (metric) => badStat(`metric "${metric}" is a distribution: stat=${LAST_STAT_NAME} is a gauge's (the level of the latest event); use count, sum, mean, min, max or a percentile`)
const gaugeRefusesStat = (metric, stat) => badStat(`metric "${metric}" is a gauge: it keeps no histogram, so stat=${stat.name} is a distribution's; use ${GAUGE_STAT_NAMES.join(', ')}`)

function gaugeHasNoTotal (metric, what) {
  const message = `metric "${metric}" is a gauge: a gauge has no ${what} (its levels do not add up); read …/series?stat=last, min, max, mean, count or sum, with step=day or step=month for long ranges`
  return withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
}

function notADistribution (metric, kind) {
  const message = `metric "${metric}" is a ${kind.kind}: quantiles are kept for distributions only (values sent with "kind": "distribution", or StatsD ms, h and d)`
  return withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
}

/**
 * collections: { daily, monthly }; registry: { exists(metric) } (an unknown
 * metric is a 404, after the request's parameters were judged);
 * horizonsOf(metric) → { minuteFrom, dailyFrom } kept now; maxPoints: MAX_POINTS;
 * maxReadBuckets: MAX_READ_BUCKETS (a distribution's read).
 */
export function createReader ({ collections, registry, horizonsOf, maxPoints, maxReadBuckets }) {
  const documents = createDocumentReader({ collections })
  const distributions = createDistributionReads({ collections, horizonsOf, maxPoints, maxReadBuckets })
  const gauges = createGaugeReads({ collections, horizonsOf, maxPoints })

  // the reads of the kinds whose points are stats of merged tiers (kinds/*.js stats), by kind name
  const statReads = new Map([[DISTRIBUTION_KIND, distributions], [GAUGE_KIND, gauges]])
  function statReadsOf (metric, kind) {
    const reads = statReads.get(kind.kind)
    if (reads) return reads
    const message = `metric "${metric}" is a ${kind.kind}: it has no stats to read; read its series`
    throw withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
  }

  /** The metric's kind (metric-kinds.js), or a 404 */
  async function requireMetric (metric) {
    const kind = await registry.describe(metric)
    if (kind === null) throw new NotFoundError(`no metric named "${metric}"`)
    return kind
  }

  return {
    /**
     * A series of [from, to) at `step` (undefined: the finest that fits) in
     * `zone` (default UTC); stat (distribution-stats.js parseStat) for a
     * distribution (default count) or a gauge (default last), refused for a counter.
     * → { step, from, to, timestamps, values }: null where no document holds a
     * point's time, 0 where one does and the slot is zero.
     */
    async series (metric, { from, to, step, zone = UTC, stat }) {
      const horizons = horizonsOf(metric)
      // planned as a counter's first: a bad window is a 400 before an unknown metric is a 404
      const planned = planSeries({ from, to, step, zone, maxPoints, horizons, metric })
      const kind = await requireMetric(metric)
      if (kind.kind === DISTRIBUTION_KIND) {
        if (stat?.kind === LAST_STAT_NAME) throw distributionRefusesLast(metric)
        return distributions.series(metric, kind, { from, to, step, zone, stat: stat ?? DEFAULT_STAT })
      }
      if (kind.kind === GAUGE_KIND) {
        if (stat !== undefined && !isGaugeStat(stat)) throw gaugeRefusesStat(metric, stat)
        return gauges.series(metric, { from, to, step, zone, stat: stat ?? GAUGE_DEFAULT_STAT })
      }
      if (stat !== undefined) throw counterRefusesStat(metric, stat)
      const { start, end } = planned
      if (planned.plan) {
        // local hour, day and month points: one planned range each
        const values = localSeriesValues(planned, await documents.planDocs(planned.plan))
        return { step: planned.step, from: start, to: end, timestamps: planned.timestamps, values }
      }
      const { docs, monthlyDocs } = await documents.seriesDocs(metric, planned.step, start, end)
      return { step: planned.step, from: start, to: end, ...assembleSeries({ step: planned.step, start, end, docs, monthlyDocs }) }
    },

    /**
     * The exact sum over [from, to) from the fewest documents → { total, documents };
     * for a distribution { total (its count), count, sum, documents }
     */
    async total (metric, { from, to }) {
      let plan
      try {
        plan = planRanges(metric, [{ from, to }], horizonsOf(metric))
      } catch (err) {
        throw rangeRefused(err)
      }
      const kind = await requireMetric(metric)
      if (kind.kind === DISTRIBUTION_KIND) return distributions.total(metric, kind, { from, to })
      if (kind.kind === GAUGE_KIND) throw gaugeHasNoTotal(metric, 'total')
      const docs = await documents.planDocs(plan)
      const [{ value }] = evaluatePlan(plan, docs)
      return { total: value ?? 0, documents: docs.daily.length + docs.monthly.length }
    },

    /**
     * Year to date in `zone`: year, asOf and (outside UTC) yearStart as
     * routes/query-params.js parseYtdQuery gives them → { total, months }
     */
    async ytd (metric, { year, asOf, yearStart, zone = UTC }) {
      const kind = await requireMetric(metric)
      if (kind.kind === GAUGE_KIND) throw gaugeHasNoTotal(metric, 'year-to-date total')
      if (kind.kind === DISTRIBUTION_KIND) return distributions.ytd(metric, kind, { asOf, yearStart: yearStart ?? Date.UTC(year, 0, 1), zone })
      if (zone.isUtc) {
        return assembleYtd({ year, asOf, docs: await documents.ytdDocs(metric, year, asOf) })
      }
      let planned
      try {
        planned = planLocalYtd(metric, zone, yearStart, asOf, { horizons: horizonsOf(metric) })
      } catch (err) {
        throw err instanceof RangeRefusal ? localRefusal(err, null, zone) : err
      }
      const values = evaluatePlan(planned.plan, await documents.planDocs(planned.plan))
      const months = planned.months.map((month, i) => ({ month, total: values[i].value }))
      return { total: months.reduce((sum, m) => sum + (m.total ?? 0), 0), months }
    },

    /** The stored last level of a gauge (reader/gauge-reads.js storedLast), or null: where a StatsD delta starts */
    gaugeLevel: (metric) => gauges.storedLast(metric),

    /**
     * A series of a metric whose kind has stats (a distribution, a gauge)
     * merged once for several stats (Graphite's stat leaves of one metric in
     * one request): percentile true reads a distribution's buckets; budget:
     * { buckets } shared by the request's reads (REQUEST_BUCKETS_READS ×
     * MAX_READ_BUCKETS across them, each at most MAX_READ_BUCKETS). A counter is a 400.
     * → { step, from, to, timestamps, values(stat) → Promise<values> }
     */
    async statSeries (metric, { from, to, step, percentile }, { budget } = {}) {
      const kind = await requireMetric(metric)
      return statReadsOf(metric, kind).mergedSeries(metric, kind, { from, to, step, zone: UTC, percentile, budget })
    },

    /**
     * A metric's stats over each of `ranges` ([{ from, to }], epoch ms), each
     * merged from the fewest documents (Graphite's consolidated points of a
     * stat leaf), merged once for several stats, as statSeries → { values(stat) }
     */
    async statRanges (metric, { ranges, percentile }, { budget } = {}) {
      const kind = await requireMetric(metric)
      return statReadsOf(metric, kind).mergedRanges(metric, kind, { ranges, percentile, budget })
    },

    /**
     * Quantiles qs over [from, to) of a distribution (a counter is a 400) →
     * { count, sum, min, max, quantiles: [{ q, value }], documents, accuracy }
     */
    async quantiles (metric, { from, to, qs }) {
      const kind = await requireMetric(metric)
      if (kind.kind !== DISTRIBUTION_KIND) throw notADistribution(metric, kind)
      return { ...await distributions.quantiles(metric, kind, { from, to, qs }), accuracy: kind.accuracy }
    }
  }
}
