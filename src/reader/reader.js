// The one read path (docs/architecture.md#reads): series, total and year
// to date, each planned (reader/series-plan.js, bucket/range-plan.js,
// bucket/local-plans.js), fetched with one projected request per collection
// (reader/documents.js) and assembled (bucket/results.js), in UTC and in any
// zone. The JSON routes and the Graphite source both read through it. A
// distribution's and a gauge's reads are planned the same way and merged tier
// by tier (reader/distribution-reads.js, reader/gauge-reads.js): the
// registry's kind of the metric says which. Several series of one name (a
// read by tag) are read at once: each judged and planned as its own read,
// the documents of all fetched together, each answered by the same code.
import { BadRequestError, NotFoundError, withDetails } from '../errors.js'
import { assembleSeries, assembleYtd } from '../bucket/results.js'
import { localSeriesValues } from '../bucket/local-plans.js'
import { checkRangeEdges, evaluatePlan, planRanges } from '../bucket/range-plan.js'
import { timeZone } from '../bucket/time-zone.js'
import { createDocumentReader, idsOfPlan, readInBatches } from './documents.js'
import { createDistributionReads, rangeRefused } from './distribution-reads.js'
import { createGaugeReads } from './gauge-reads.js'
import { parseStat } from '../bucket/distribution-stats.js'
import { distribution } from '../kinds/distribution.js'
import { gauge } from '../kinds/gauge.js'
import { descriptorOf } from '../kinds/index.js'
import { planSeries, planYtd } from './series-plan.js'
import { createThresholds } from '../bucket/distribution-thresholds.js'

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

/** A read of a series gone (deleted through another instance since the tag index listed it): null, no longer one of them */
function unlessGone (err) {
  if (err instanceof NotFoundError) return null
  throw err
}

/** Pointwise sums of value arrays into `into` (null where every series is null): a counter's series merged */
function addValues (into, values) {
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== null) into[i] = (into[i] ?? 0) + values[i]
  }
  return into
}

/** The 400 of a read (total, year-to-date total, quantiles) the metric's kind has not */
function refusedRead (metric, descriptor, read) {
  const message = `metric "${metric}" is a ${descriptor.name}: ${descriptor.refusals[read]}`
  return withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
}

/**
 * collections: { daily, monthly }; registry: { describe(metric), kindOf(metric) }
 * (an unknown metric is a 404, after the request's parameters were judged);
 * horizonsOf(metric) → { minuteFrom, dailyFrom } kept now; maxPoints: MAX_POINTS;
 * maxReadBuckets: MAX_READ_BUCKETS (a distribution's read); thresholds: the declared
 * thresholds of distributions (bucket/distribution-thresholds.js createThresholds').
 */
export function createReader ({ collections, registry, horizonsOf, maxPoints, maxReadBuckets, thresholds = createThresholds() }) {
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

  /**
   * A series read judged — a bad window or stat is a 400, no such metric a
   * 404 — and planned as a counter's (reader/series-plan.js)
   * → { kind, descriptor, planned, stat (the stat read, for a kind with stats) }
   */
  async function judgeSeries (metric, { from, to, step, zone, stat }) {
    // planned as a counter's first: a bad window is a 400 before an unknown metric is a 404
    const planned = planSeries({ from, to, step, zone, maxPoints, horizons: horizonsOf(metric), metric })
    const { kind, descriptor } = await requireMetric(metric)
    if (stat !== undefined && (descriptor.stats.default === null || !answersStat(descriptor, stat))) throw refusedStat(metric, descriptor, stat)
    return { kind, descriptor, planned, stat: descriptor.stats.default === null ? undefined : stat ?? parseStat(descriptor.stats.default).stat }
  }

  /** A planned counter series' shape: { step, from, to, timestamps } */
  const counterShape = (planned) => ({
    step: planned.step,
    from: planned.start,
    to: planned.end,
    timestamps: planned.timestamps ?? assembleSeries({ step: planned.step, start: planned.start, end: planned.end, docs: [] }).timestamps
  })

  /** Counters' series planned alike (planSeries at one step), their documents read together → [values] */
  async function counterValues (metrics, planned) {
    if (metrics.length === 0) return []
    if (planned[0].plan) {
      // local hour, day and month points: one planned range each
      return readInBatches(planned, p => idsOfPlan(p.plan), batch => documents.plansDocs(batch.map(p => p.plan)), (p, docs) => localSeriesValues(p, docs))
    }
    const { step, start, end } = planned[0]
    return readInBatches(metrics, () => documents.idsOfSeries(step, start, end), batch => documents.seriesDocsOf(batch, step, start, end),
      (metric, { docs, monthlyDocs }) => assembleSeries({ step, start, end, docs, monthlyDocs }).values)
  }

  /** A total read judged (a bad edge is a 400, no such metric a 404, a kind without totals a 400) and planned → { kind, plan } */
  async function judgeTotal (metric, { from, to }) {
    let plan
    try {
      plan = planRanges(metric, [{ from, to }], horizonsOf(metric))
    } catch (err) {
      throw rangeRefused(err)
    }
    const { kind, descriptor } = await requireMetric(metric)
    if (!descriptor.reads.total) throw refusedRead(metric, descriptor, 'total')
    return { kind, plan }
  }

  /** Totals of judged reads ([{ metric, kind, plan }], one kind), their documents read together → [answer] */
  function readTotals (reads, { from, to }) {
    const { kind } = reads[0]
    if (statReads.has(kind.kind)) return statReads.get(kind.kind).totalsOf(reads.map(r => r.metric), kind, { from, to })
    return readInBatches(reads, r => idsOfPlan(r.plan), batch => documents.plansDocs(batch.map(r => r.plan)), (r, docs) => {
      const [{ value, documents: used }] = evaluatePlan(r.plan, docs)
      return { total: value ?? 0, documents: used }
    })
  }

  /** A year-to-date read judged (no such metric a 404, a kind without it a 400) → { kind } */
  async function judgeYtd (metric) {
    const { kind, descriptor } = await requireMetric(metric)
    if (!descriptor.reads.ytd) throw refusedRead(metric, descriptor, 'ytd')
    return { kind }
  }

  /** A counter's year to date from the documents its plan read */
  function counterYtd (planned, docs) {
    const values = evaluatePlan(planned.plan, docs)
    const months = planned.months.map((month, i) => ({ month, total: values[i].value }))
    return { total: months.reduce((sum, m) => sum + (m.total ?? 0), 0), months }
  }

  /** Years to date of metrics of one kind (judged), their documents read together → [answer] */
  function readYtds (metrics, kind, { year, asOf, yearStart, zone }) {
    if (statReads.has(kind.kind)) return statReads.get(kind.kind).ytdsOf(metrics, kind, { asOf, yearStart: yearStart ?? Date.UTC(year, 0, 1), zone })
    // in UTC at most 12 monthly documents a metric
    if (zone.isUtc) return readInBatches(metrics, () => 12, batch => documents.ytdDocsOf(batch, year, asOf), (metric, docs) => assembleYtd({ year, asOf, docs }))
    const planned = metrics.map(metric => planYtd(metric, { yearStart, asOf, zone, horizons: horizonsOf(metric) }))
    return readInBatches(planned, p => idsOfPlan(p.plan), batch => documents.plansDocs(batch.map(p => p.plan)), counterYtd)
  }

  /** Each of metrics judged as its own read (judge) is, those gone since the index listed them left out → [{ metric, …judged }] */
  async function presentOf (metrics, judge) {
    const judged = await Promise.all(metrics.map(metric => judge(metric).then(j => ({ metric, ...j }), unlessGone)))
    return judged.filter(j => j !== null)
  }

  /** Each metric's plan of `ranges` (a range past the metric's retention: a 400) → [{ metric, plan }] */
  function planCounterRanges (metrics, ranges) {
    try {
      return metrics.map(metric => ({ metric, plan: planRanges(metric, ranges, horizonsOf(metric)) }))
    } catch (err) {
      throw rangeRefused(err)
    }
  }

  /** Throws planCounterRanges' 400 for a range past the metric's retention */
  function checkCounterRanges (metric, ranges) {
    try {
      checkRangeEdges(ranges, horizonsOf(metric))
    } catch (err) {
      throw rangeRefused(err)
    }
  }

  /** A counter's sums over ranges judged: no such metric a 404, a kind with stats a 400 */
  async function judgeCounterTotals (metric) {
    const { descriptor } = await requireMetric(metric)
    if (descriptor.stats.default !== null) {
      const message = `metric "${metric}" is a ${descriptor.name}: an SLO counts a counter's events in this version`
      throw withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
    }
    return {}
  }

  /** A planned counter read's sums from its documents → { values (0 where nothing is held), documents } */
  const counterTotalsFrom = (plan, docs) => ({ values: evaluatePlan(plan, docs).map(r => r.value ?? 0), documents: docs.daily.length + docs.monthly.length })

  /** Planned counter ranges read, their documents together → [{ values, documents }] */
  function readCounterTotals (planned) {
    return readInBatches(planned, p => idsOfPlan(p.plan), batch => documents.plansDocs(batch.map(p => p.plan)), (p, docs) => counterTotalsFrom(p.plan, docs))
  }

  /** The ids of the documents read, each named with its collection (a day's id and a month's never mistaken) */

  /** A distribution's threshold counts judged: no such metric a 404, another kind a 400 naming the field → { kind } */
  async function judgeThresholdCounts (metric, threshold) {
    const { kind, descriptor } = await requireMetric(metric)
    if (descriptor !== distribution) {
      const path = threshold === null ? 'metric' : 'threshold'
      const message = threshold === null
        ? `metric "${metric}" is a ${descriptor.name}: its values are not counted`
        : `metric "${metric}" is a ${descriptor.name}: a threshold counts a distribution's values at most it; leave threshold out`
      throw withDetails(new BadRequestError(`${path}: ${message}`), { details: [{ path, message }] })
    }
    return { kind }
  }

  /** Which of `ranges` the threshold of `metric` counted every event of (declared by the range's start) */
  const exactRanges = (metric, ranges, threshold) => {
    const since = threshold === null ? -Infinity : thresholds.since(metric, threshold)
    return ranges.map(r => since !== undefined && r.from >= since)
  }

  /** Answers aligned with metrics from those of the present ones: null for a metric gone */
  const aligned = (metrics, present, answers) => {
    const byMetric = new Map(present.map((r, i) => [r.metric, answers[i]]))
    return metrics.map(m => byMetric.get(m) ?? null)
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
      const { kind, planned, stat: chosen } = await judgeSeries(metric, { from, to, step, zone, stat })
      if (chosen !== undefined) return statReadsOf(metric, kind).series(metric, kind, { from, to, step, zone, stat: chosen })
      const [values] = await counterValues([metric], [planned])
      return { ...counterShape(planned), values }
    },

    /**
     * A read of several series of one name (its tagged series by group,
     * reader/tagged-reads.js) planned: `name` judged as its own series read
     * is (a 400 for a bad window or stat, a 404 for no such name), giving the
     * answer's shape — step, window, timestamps, stat — without a read of its
     * documents. → { shape, read(groups: [[series]]) → [{ series (how many
     * were read), values }] }: the series read at the shape's step, the
     * documents of all of them together (one request per collection), each
     * group's merged point by point as a point merges its tiers (a counter's
     * summed); a series gone since the index listed it is left out.
     */
    async planSeriesOf (name, { from, to, step, zone = UTC, stat }) {
      const { kind, planned, stat: chosen } = await judgeSeries(name, { from, to, step, zone, stat })
      if (chosen !== undefined) {
        const reads = statReadsOf(name, kind)
        const percentile = chosen.kind === 'percentile'
        const shape = reads.seriesShape(name, { from, to, step, zone, percentile })
        const nulls = shape.timestamps.map(() => null)
        const read = async (groups) => {
          // a series the registry no longer knows is gone
          const present = groups.map(g => g.filter(s => registry.kindOf(s) !== undefined))
          const merged = await reads.mergedSeriesOfGroups(present, kind, { from, to, step: shape.step, zone, percentile })
          const answers = []
          for (let i = 0; i < present.length; i++) answers.push({ series: present[i].length, values: merged[i] === null ? nulls : await merged[i](chosen) })
          return answers
        }
        return { shape: { stat: chosen.name, ...shape }, read }
      }
      const shape = counterShape(planned)
      const read = async (groups) => {
        const present = (await presentOf(groups.flat(), requireMetric)).map(r => r.metric)
        const values = await counterValues(present, present.map(metric => planSeries({ from, to, step: shape.step, zone, maxPoints, horizons: horizonsOf(metric), metric })))
        const bySeries = new Map(present.map((s, i) => [s, values[i]]))
        return groups.map(g => {
          const read = g.filter(s => bySeries.has(s))
          return { series: read.length, values: read.reduce((into, s) => addValues(into, bySeries.get(s)), shape.timestamps.map(() => null)) }
        })
      }
      return { shape, read }
    },

    /**
     * The exact sum over [from, to) from the fewest documents → { total, documents };
     * for a distribution { total (its count), count, sum, documents }
     */
    async total (metric, { from, to }) {
      const judged = await judgeTotal(metric, { from, to })
      return (await readTotals([{ metric, ...judged }], { from, to }))[0]
    },

    /**
     * A read of the totals of several series of one name (its tagged series)
     * planned: `name` judged as its own total is (400s, a 404), its documents
     * not read. → { read(metrics) → [answer as total's, or null for a series
     * gone] }, the series' documents read together
     */
    async planTotalsOf (name, { from, to }) {
      await judgeTotal(name, { from, to })
      const read = async (metrics) => {
        const present = await presentOf(metrics, metric => judgeTotal(metric, { from, to }))
        return aligned(metrics, present, present.length ? await readTotals(present, { from, to }) : [])
      }
      return { read }
    },

    /**
     * A counter's exact sums over each of `ranges` ([{ from, to }], epoch ms),
     * planned together and read with one projected request per collection
     * (an SLO's local days and burn-rate windows: src/slos/) → { values (0
     * where nothing is held), documents }; a metric of a kind with stats is a 400
     */
    async counterTotals (metric, ranges) {
      const [planned] = planCounterRanges([metric], ranges)
      await judgeCounterTotals(metric)
      return (await readCounterTotals([planned]))[0]
    },

    /**
     * counterTotals of several series of one name (its tagged series), their
     * documents read together → [answer as counterTotals', or null for a series gone]
     */
    async counterTotalsOf (metrics, ranges) {
      const planned = planCounterRanges(metrics, ranges)
      const present = new Set((await presentOf(metrics, judgeCounterTotals)).map(r => r.metric))
      const read = planned.filter(p => present.has(p.metric))
      return aligned(metrics, read, read.length ? await readCounterTotals(read) : [])
    },

    /**
     * counterTotalsOf of many reads at once ([{ metrics, ranges }], the SLO
     * selectors of a scrape or a listing, whose burn-rate windows are the same
     * ranges), each summed over its series: a series planned once per range,
     * however many reads ask for it, and every document read once for all
     * (documents.js plansDocsOnce, a few requests) → [{ values, documents,
     * ids (of the documents read, for counting each once across reads) } |
     * { error }], error: the read's own 400 (a range past retention, a series
     * of another kind); a series gone counts nothing
     */
    async counterTotalsOfReads (reads) {
      const judged = await Promise.all(reads.map(async ({ metrics, ranges }) => {
        try {
          // a range past a series' retention is this read's 400, not the others'
          for (const metric of metrics) checkCounterRanges(metric, ranges)
          return { present: (await presentOf(metrics, judgeCounterTotals)).map(r => r.metric), ranges }
        } catch (err) {
          if (err instanceof BadRequestError) return { error: err }
          throw err
        }
      }))
      // each series' ranges, from every read that asks for it, planned together: one plan a series
      const indexes = new Map() // metric → Map range key → the range's index in the metric's plan
      const wanted = new Map() // metric → its ranges, in that order
      const keyOf = ({ from, to }) => `${from} ${to}`
      for (const j of judged) {
        if (j.error) continue
        for (const metric of j.present) {
          let own = indexes.get(metric)
          if (own === undefined) {
            indexes.set(metric, (own = new Map()))
            wanted.set(metric, [])
          }
          for (const range of j.ranges) {
            if (own.has(keyOf(range))) continue
            own.set(keyOf(range), own.size)
            wanted.get(metric).push({ from: range.from, to: range.to })
          }
        }
      }
      const used = [...wanted.keys()]
      const plans = used.map(metric => planCounterRanges([metric], wanted.get(metric))[0].plan)
      const docs = used.length ? await documents.plansDocsOnce(plans) : []
      const answers = new Map(used.map((metric, i) => [metric, evaluatePlan(plans[i], docs[i], { ids: true })]))
      return judged.map(j => {
        if (j.error) return j
        const ids = new Set()
        const values = j.ranges.map(range => j.present.reduce((n, metric) => {
          const answer = answers.get(metric)[indexes.get(metric).get(keyOf(range))]
          for (const id of answer.ids) ids.add(id)
          return n + (answer.value ?? 0)
        }, 0))
        return { values, documents: ids.size, ids: [...ids] }
      })
    },

    /**
     * A distribution's count of values ≤ threshold (null: every value, its
     * count) over each of `ranges`, planned together: exact (each tier's
     * `le.<key>`, docs/kinds/distribution.md#thresholds) for a range starting
     * once the threshold was declared, else estimated within α from the
     * histograms → { values, documents, estimated: [bool], accuracy }; a
     * counter or gauge is a 400
     */
    async thresholdCounts (metric, ranges, { threshold = null } = {}) {
      const { kind } = await judgeThresholdCounts(metric, threshold)
      const [answer] = await distributions.thresholdCountsOf([metric], kind, { ranges, threshold, exact: exactRanges(metric, ranges, threshold) })
      return { ...answer, accuracy: kind.accuracy }
    },

    /**
     * thresholdCounts of several series of one name (its tagged series, one
     * accuracy), their documents read together → [answer, or null for a series gone]
     */
    async thresholdCountsOf (metrics, ranges, { threshold = null } = {}) {
      const present = await presentOf(metrics, metric => judgeThresholdCounts(metric, threshold))
      if (present.length === 0) return metrics.map(() => null)
      const { kind } = present[0]
      const answers = await distributions.thresholdCountsOf(present.map(r => r.metric), kind, { ranges, threshold, exact: exactRanges(present[0].metric, ranges, threshold) })
      return aligned(metrics, present, answers.map(a => ({ ...a, accuracy: kind.accuracy })))
    },

    /**
     * Year to date in `zone`: year, asOf and (outside UTC) yearStart as
     * routes/query-params.js parseYtdQuery gives them → { total, months }
     */
    async ytd (metric, { year, asOf, yearStart, zone = UTC }) {
      const { kind } = await judgeYtd(metric)
      return (await readYtds([metric], kind, { year, asOf, yearStart, zone }))[0]
    },

    /**
     * A read of the years to date of several series of one name (its tagged
     * series) planned: `name` judged as its own ytd is (a 404, a 400), its
     * answer over no documents the shape (its months, each null), its
     * documents not read. → { shape, read(metrics) → [answer as ytd's, or
     * null for a series gone] }, the series' documents read together
     */
    async planYtdsOf (name, { year, asOf, yearStart, zone = UTC }) {
      const { kind } = await judgeYtd(name)
      const options = { year, asOf, yearStart, zone }
      let shape
      if (statReads.has(kind.kind)) shape = statReads.get(kind.kind).ytdShape(name, kind, { asOf, yearStart: yearStart ?? Date.UTC(year, 0, 1), zone })
      else shape = zone.isUtc ? assembleYtd({ year, asOf, docs: [] }) : counterYtd(planYtd(name, { ...options, horizons: horizonsOf(name) }), { daily: [], monthly: [] })
      const read = async (metrics) => {
        const present = await presentOf(metrics, judgeYtd)
        return aligned(metrics, present, present.length ? await readYtds(present.map(r => r.metric), present[0].kind, options) : [])
      }
      return { shape, read }
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
     * { count, sum, min, max, quantiles: [{ q, value }], relativeError, limitedBy, documents, accuracy }
     */
    async quantiles (metric, { from, to, qs }) {
      const { kind, descriptor } = await requireMetric(metric)
      if (!descriptor.reads.quantiles) throw refusedRead(metric, descriptor, 'quantiles')
      return { ...await statReads.get(kind.kind).quantiles(metric, kind, { from, to, qs }), accuracy: kind.accuracy }
    }
  }
}
