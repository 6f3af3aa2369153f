// Where /render and /metrics/find get metric names and series: the registry
// (glob expansion over its prefix range, bounded) and the reader, at the
// finest tier kept for the whole range (docs/adr/0012-graphite-native-resolution.md). A kind with stats (a distribution, a gauge) is a
// branch of stat leaves (./stat-leaves.js), each read as one stat and
// consolidated past maxDataPoints as its kind says (kinds/*.js
// consolidation): a counter's points add up, a gauge's last is the span's
// last level, min and max its extremes; a mean or a percentile is merged
// again over each consolidated point's span instead of averaged.
import { isKept } from '../bucket/detail-kept.js'
import { descriptorOf } from '../kinds/index.js'
import { MAX_TIME_MS, MIN_TIME_MS } from '../bucket/time.js'
import { statHorizons } from '../bucket/distribution-stats.js'
import { BadRequestError } from '../errors.js'
import { globParts, isGlob } from './glob.js'
import { minuteWindow } from './minute-window.js'
import { makeSeries, regroupable } from './series.js'
import { leafStat, statLeaves } from './stat-leaves.js'
import { seriesTags } from './tag-db.js'
import { nameOfSeries } from '../tags/series-name.js'
import { markRead } from './budget.js'

// trie nodes one glob may look at: a few times the largest answer it may give
const DEFAULT_MAX_VISITS = 100_000

/** The tiers a series is read at, finest first, as whisper archives: the series step and its seconds */
const TIERS = Object.freeze([
  { step: 'minute', seconds: 60, what: 'one-minute' },
  { step: 'quarter-hour', seconds: 900, what: 'quarter-hour' },
  { step: 'day', seconds: 86_400, what: 'one-day' }
])

/**
 * The tier of a fetch: the finest whose detail every metric keeps for the
 * whole window (horizons, bucket/retention-horizons.js) and whose points fit
 * in maxPoints. → { tier, start, end, points } or null
 */
function nativeTier (startTime, endTime, horizonsList, maxPoints) {
  for (const tier of TIERS) {
    const window = minuteWindow(startTime, endTime, tier.seconds)
    if (window.points > maxPoints) continue
    // kept from `from` itself, as whisper picks an archive whose retention reaches back to `from`
    if (horizonsList.every(h => isKept(tier.step, startTime * 1000, h))) return { tier, ...window }
  }
  return null
}

/**
 * How a leaf's points are consolidated (series.js CONSOLIDATIONS): a stat's
 * as its kind says (kinds/*.js consolidation: count and sum add, min and max
 * narrow, last keeps the span's last); a stat its kind merges again from the
 * documents (`merged`: mean, a percentile) is merged over the span (regroup)
 * while the series holds the points fetched, and a series a function computed
 * from them falls back to the consolidation named. A leaf without a stat (a
 * counter's) as the request says (consolidateBy, else sum).
 */
const consolidationOf = (leaf, defaultConsolidation) => (leaf.stat ? leaf.kind.consolidation[leaf.stat.kind] : defaultConsolidation)
const needsMerge = leaf => leaf.stat !== undefined && leaf.kind.merged.includes(leaf.stat.kind)

/**
 * Turns of the event loop one after another: each call resolves in a later
 * turn than the call before it. A stat leaf plans one range per point before
 * its first read (a few ms for thousands of points); started together, a
 * glob's leaves would do all that planning in one stretch of microtasks, so
 * each waits for a turn of its own (their reads still overlap).
 */
function turns () {
  let last = Promise.resolve()
  return () => (last = last.then(() => new Promise(resolve => setImmediate(resolve))))
}

/**
 * horizons(metric) → { minuteFrom, dailyFrom }: the first UTC day that keeps
 * minute detail and the first with a daily document (null: forever). A range
 * is read at the finest tier kept for all of it, never as zeros for detail
 * that was deleted.
 */
export function createMetricSource ({ registry, names, reader, maxGlobMetrics, maxPoints, maxSeries, maxReadPoints, maxVisits = DEFAULT_MAX_VISITS, horizons = () => ({ minuteFrom: null, dailyFrom: null }) }) {
  const tooMany = pattern => new BadRequestError(`${JSON.stringify(pattern)} matches more than GRAPHITE_MAX_GLOB_METRICS = ${maxGlobMetrics} metrics; narrow the pattern`)

  /** The name index's nodes under a glob (a bounded walk of the trie, ./name-index.js), a distribution's stat leaves included */
  const nodesOf = pattern => names.match(pattern, globParts(pattern), { maxVisits, statLeaves })

  /** The leaf of a metric's own name, where its kind has one (a counter's sums, a gauge's default stat), else null */
  function nameLeaf (name, kind) {
    const descriptor = descriptorOf(kind)
    if (descriptor === undefined || !descriptor.graphite.nameIsLeaf) return null
    const stat = descriptor.stats.default === null ? undefined : leafStat(descriptor.stats.default, descriptor)
    return stat === undefined ? { name, metric: name, kind: descriptor } : { name, metric: name, kind: descriptor, stat }
  }

  /** A stat leaf of a metric of registry kind `kind`, or null where its kind has no such leaf */
  function statLeaf (name, metric, kind, text) {
    const descriptor = descriptorOf(kind)
    const stat = descriptor === undefined ? null : leafStat(text, descriptor)
    return stat === null ? null : { name, metric, kind: descriptor, stat }
  }

  /**
   * A literal path, asked of the registry itself: a metric of that name (its
   * name's leaf; a distribution's is a branch, no series), else a stat leaf
   * of a metric (its name up to the last dot). → [leaf] or []
   */
  async function literalLeaves (path) {
    const own = await registry.describe(path)
    if (own !== null) return [nameLeaf(path, own)].filter(Boolean)
    const dot = path.lastIndexOf('.')
    if (dot <= 0) return []
    // asked only when no metric has the name (a counter ending in .count costs no second look-up)
    const of = await registry.describe(path.slice(0, dot))
    return of === null ? [] : [statLeaf(path, path.slice(0, dot), of, path.slice(dot + 1))].filter(Boolean)
  }

  /**
   * The leaves a path expression matches, sorted by name: [{ name, metric,
   * kind, stat? }] (kind: the metric's descriptor; stat: parseStat's
   * descriptor, for a stat leaf and a gauge's own name); 400 past maxGlobMetrics
   */
  async function expand (pattern) {
    if (!isGlob(pattern)) return literalLeaves(pattern)
    const found = nodesOf(pattern).filter(n => n.leaf)
    if (found.length > maxGlobMetrics) throw tooMany(pattern)
    const leaves = found.map(n => n.stat === undefined
      ? nameLeaf(n.path, { kind: n.kind })
      : statLeaf(n.path, n.metric, { kind: n.kind }, n.stat))
    return leaves.filter(Boolean)
  }

  /** The nodes one level below what the query matches (for /metrics/find and /metrics/expand); 400 past maxGlobMetrics */
  function findNodes (query) {
    const found = nodesOf(query)
    if (found.length > maxGlobMetrics) throw tooMany(query)
    return found
  }

  /** graphite-web fetchData for one path expression: a series per metric, sorted by name */
  async function fetch (pathExpression, ctx) {
    return readLeaves(await expand(pathExpression), pathExpression, ctx)
  }

  /**
   * seriesByTag's series (canonical tagged names, ./tag-db.js): each read as
   * its name's kind reads a name (a distribution's has no leaf of its own),
   * named by itself and carrying its tags. pathExpression: the call as written.
   */
  async function fetchTagged (seriesNames, pathExpression, ctx) {
    const leaves = seriesNames.map(series => nameLeaf(series, { kind: names.kindOf(nameOfSeries(series)) ?? 'counter' })).filter(Boolean)
    const series = await readLeaves(leaves, pathExpression, ctx)
    for (const s of series) s.tags = seriesTags(s.name)
    return series
  }

  /** The leaves' series over the window, sorted by name, the request's budget spent first */
  async function readLeaves (leaves, pathExpression, { startTime, endTime, defaultConsolidation, spent }) {
    const minutes = minuteWindow(startTime, endTime)
    if (!(minutes.start * 1000 >= MIN_TIME_MS && minutes.end * 1000 <= MAX_TIME_MS)) {
      throw new BadRequestError(`${JSON.stringify(pathExpression)}: the range ${startTime}..${endTime} (epoch seconds) lies outside the years 1970..9999`)
    }
    // a percentile reads minutes where they keep their histograms (MINUTE_HISTOGRAM_DAYS), the other stats where they are kept
    const kept = leaves.map(({ metric, stat }) => stat ? statHorizons(stat, horizons(metric)) : horizons(metric))
    const native = nativeTier(startTime, endTime, kept, maxPoints)
    if (native === null) {
      const days = minuteWindow(startTime, endTime, TIERS.at(-1).seconds).points
      throw new BadRequestError(`${JSON.stringify(pathExpression)} over this range is ${days} one-day points per series, more than MAX_POINTS = ${maxPoints}; shorten the range`)
    }
    const { tier, start, end, points } = native
    // the request's budget, spent before anything is read: series and points across all its fetches
    if (spent) {
      spent.series += leaves.length
      spent.points += leaves.length * points
      if (spent.series > maxSeries) throw new BadRequestError(`this request reads more than MAX_SERIES = ${maxSeries} series (${JSON.stringify(pathExpression)} alone matches ${leaves.length}); narrow the targets`)
      if (spent.points > maxReadPoints) throw new BadRequestError(`this request reads more than MAX_READ_POINTS = ${maxReadPoints} points (${JSON.stringify(pathExpression)}: ${leaves.length} series × ${points} points); shorten the range or narrow the targets`)
    }
    const turn = turns()
    // a metric's stat leaves share one read per metric and kind of stat, across the request's fetches
    const reads = spent?.reads ?? new Map()
    const statValues = (metric, stat) => {
      const percentile = stat.kind === 'percentile'
      const key = `${metric}\n${percentile}\n${start}\n${end}\n${tier.step}`
      if (!reads.has(key)) {
        reads.set(key, turn().then(() => reader.statSeries(metric, { from: start * 1000, to: end * 1000, step: tier.step, percentile }, { budget: spent })))
      }
      return reads.get(key).then(read => read.values(stat))
    }
    const series = await Promise.all(leaves.map(async (leaf) => {
      const { name, metric, stat } = leaf
      const { values } = stat ? { values: await statValues(metric, stat) } : await reader.series(metric, { from: start * 1000, to: end * 1000, step: tier.step })
      const made = makeSeries({ name, start, end, step: tier.seconds, values, consolidationFunc: consolidationOf(leaf, defaultConsolidation), pathExpression })
      // what regroup needs to merge a span of these points again: index i is [from + i·step, from + (i + 1)·step)
      if (needsMerge(leaf)) made.regroup = { metric, stat, values, from: start, step: tier.seconds, offset: 0 }
      return made
    }))
    // read, not made by a function: a function that passes them on makes none (./budget.js chargeMadePoints)
    if (spent) markRead(spent, series)
    return series.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  }

  /**
   * After applyMaxDataPoints (series.js): each series of a stat leaf that is
   * consolidated and still holds the points fetched (alias, aliasByNode,
   * aliasSub and timeShift keep them; a function that computed new values
   * made new ones) gets each consolidated point merged again over the span
   * of the points graphite-web groups into it — one planned range per point,
   * read from the fewest documents — instead of its mean or percentile
   * averaged. A mean point whose group is all null stays null (nothing was
   * written there). A percentile point is read even so: a minute written
   * without its histogram is a null point that holds values, and a span that
   * covers its whole quarter-hour ranks them from the quarter-hour's
   * histogram (where nothing was written the read is null anyway). → the series list
   */
  async function regroup (seriesList, { spent } = {}) {
    // the series of one metric and kind of stat grouped alike share one read (their leaves were one read too)
    const reads = new Map()
    return Promise.all(seriesList.map(async series => {
      const per = series.valuesPerPoint
      if (!(per > 1) || !regroupable(series)) return series
      const { metric, stat, from, step, offset } = series.regroup
      const n = series.values.length
      const ranges = []
      const empty = []
      for (let i = 0; i < n; i += per) {
        const last = Math.min(i + per, n)
        ranges.push({ from: (from + (offset + i) * step) * 1000, to: (from + (offset + last) * step) * 1000 })
        empty.push(stat.kind !== 'percentile' && series.values.slice(i, last).every(v => v === null))
      }
      const percentile = stat.kind === 'percentile'
      const key = `${metric}\n${percentile}\n${from}\n${step}\n${offset}\n${per}\n${n}`
      if (!reads.has(key)) reads.set(key, reader.statRanges(metric, { ranges, percentile }, { budget: spent }))
      const merged = await (await reads.get(key)).values(stat)
      return { ...series, values: merged.map((v, k) => empty[k] ? null : v), step: series.step * per, valuesPerPoint: 1, regroup: undefined }
    }))
  }

  return { expand, findNodes, fetch, fetchTagged, regroup }
}
