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
import { parseStat } from '../bucket/distribution-stats.js'
import { distribution } from '../kinds/distribution.js'
import { gauge } from '../kinds/gauge.js'
import { descriptorOf } from '../kinds/index.js'
import { localRefusal, planSeries } from './series-plan.js'

const UTC = timeZone('UTC')

function badStat (message) {
  return withDetails(new BadRequestError(`stat: ${message}`), { details: [{ path: 'stat', message }] })
}

/** Whether a kind answers `stat` (parseStat's descriptor): one of its stats, or a percentile where it keeps histograms */
const answersStat = (descriptor, stat) => (stat.kind === 'percentile' ? descriptor.stats.percentiles : descriptor.stats.names.includes(stat.kind))

/** The 400 of a stat the metric's kind does not answer, saying what it does (kinds/*.js refusals) */
function refusedStat (metric, descriptor, stat) {
  if (descriptor.stats.default === null) return badStat(`metric "${metric}" is a ${descriptor.name}: ${descriptor.refusals.stat(stat.name)}; leave stat out`)
  return badStat(`metric "${metric}" is a ${descriptor.name}: ${descriptor.refusals.stat(stat.name)}`)
}

/** The 400 of a metric whose registry kind no descriptor reads (bucket/metric-kinds.js kindOfEntry's 'unreadable …') */
function refusedKind (metric, kind) {
  const message = `metric "${metric}" is of a kind this version cannot read (${kind.kind}); read it with the version that wrote it`
  return withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
}

/** The 400 of a read (total, year-to-date total, quantiles) the metric's kind has not */
function refusedRead (metric, descriptor, read) {
  const message = `metric "${metric}" is a ${descriptor.name}: ${descriptor.refusals[read]}`
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

  // the reads of the kinds whose points are stats of merged tiers (kinds/*.js stats), by kind name: the
  // reader's I/O per kind (docs/adr/0052-one-descriptor-per-kind.md); a counter's are this module's own
  const statReads = new Map([[distribution.name, distributions], [gauge.name, gauges]])
  function statReadsOf (metric, kind) {
    const reads = statReads.get(kind.kind)
    if (reads) return reads
    const message = `metric "${metric}" is a ${kind.kind}: it has no stats to read; read its series`
    throw withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
  }

  /**
   * The metric's registry kind (metric-kinds.js) and its descriptor (kinds/index.js); a 404 for no
   * such metric, a 400 for a kind this version cannot read (never an answer read as another kind),
   * as the other kinds' refusals of a read are
   */
  async function requireMetric (metric) {
    const kind = await registry.describe(metric)
    if (kind === null) throw new NotFoundError(`no metric named "${metric}"`)
    const descriptor = descriptorOf(kind)
    if (descriptor === undefined) throw refusedKind(metric, kind)
    return { kind, descriptor }
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
      const { kind, descriptor } = await requireMetric(metric)
      if (stat !== undefined && (descriptor.stats.default === null || !answersStat(descriptor, stat))) throw refusedStat(metric, descriptor, stat)
      if (descriptor.stats.default !== null) {
        return statReadsOf(metric, kind).series(metric, kind, { from, to, step, zone, stat: stat ?? parseStat(descriptor.stats.default).stat })
      }
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
      const { kind, descriptor } = await requireMetric(metric)
      if (!descriptor.reads.total) throw refusedRead(metric, descriptor, 'total')
      if (statReads.has(kind.kind)) return statReads.get(kind.kind).total(metric, kind, { from, to })
      const docs = await documents.planDocs(plan)
      const [{ value }] = evaluatePlan(plan, docs)
      return { total: value ?? 0, documents: docs.daily.length + docs.monthly.length }
    },

    /**
     * A counter's exact sums over each of `ranges` ([{ from, to }], epoch ms),
     * planned together and read with one projected request per collection
     * (an SLO's local days and burn-rate windows: src/slos/) → { values (0
     * where nothing is held), documents }; a metric of a kind with stats is a 400
     */
    async counterTotals (metric, ranges) {
      let plan
      try {
        plan = planRanges(metric, ranges, horizonsOf(metric))
      } catch (err) {
        throw rangeRefused(err)
      }
      const { descriptor } = await requireMetric(metric)
      if (descriptor.stats.default !== null) {
        const message = `metric "${metric}" is a ${descriptor.name}: an SLO counts a counter's events in this version`
        throw withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
      }
      const docs = await documents.planDocs(plan)
      return { values: evaluatePlan(plan, docs).map(r => r.value ?? 0), documents: docs.daily.length + docs.monthly.length }
    },

    /**
     * Year to date in `zone`: year, asOf and (outside UTC) yearStart as
     * routes/query-params.js parseYtdQuery gives them → { total, months }
     */
    async ytd (metric, { year, asOf, yearStart, zone = UTC }) {
      const { kind, descriptor } = await requireMetric(metric)
      if (!descriptor.reads.ytd) throw refusedRead(metric, descriptor, 'ytd')
      if (statReads.has(kind.kind)) return statReads.get(kind.kind).ytd(metric, kind, { asOf, yearStart: yearStart ?? Date.UTC(year, 0, 1), zone })
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

    /**
     * One stat's series of several series of one kind (a name's tagged
     * series: reader/tagged-reads.js), each point merged across them as a
     * point merges its tiers. kind: their registry kind.
     * → { step, from, to, timestamps, values }
     */
    async statSeriesOf (metrics, kind, { from, to, step, zone = UTC, stat }) {
      const descriptor = descriptorOf(kind)
      const chosen = stat ?? parseStat(descriptor.stats.default).stat
      const { values, ...shape } = await statReadsOf(metrics[0], kind).mergedSeriesOf(metrics, kind, { from, to, step, zone, percentile: chosen.kind === 'percentile' })
      return { stat: chosen.name, ...shape, values: await values(chosen) }
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
      const { kind } = await requireMetric(metric)
      return statReadsOf(metric, kind).mergedSeries(metric, kind, { from, to, step, zone: UTC, percentile, budget })
    },

    /**
     * A metric's stats over each of `ranges` ([{ from, to }], epoch ms), each
     * merged from the fewest documents (Graphite's consolidated points of a
     * stat leaf), merged once for several stats, as statSeries → { values(stat) }
     */
    async statRanges (metric, { ranges, percentile }, { budget } = {}) {
      const { kind } = await requireMetric(metric)
      return statReadsOf(metric, kind).mergedRanges(metric, kind, { ranges, percentile, budget })
    },

    /**
     * Quantiles qs over [from, to) of a distribution (a counter is a 400) →
     * { count, sum, min, max, quantiles: [{ q, value }], documents, accuracy }
     */
    async quantiles (metric, { from, to, qs }) {
      const { kind, descriptor } = await requireMetric(metric)
      if (!descriptor.reads.quantiles) throw refusedRead(metric, descriptor, 'quantiles')
      return { ...await statReads.get(kind.kind).quantiles(metric, kind, { from, to, qs }), accuracy: kind.accuracy }
    }
  }
}
