// What a read of a distribution answers (docs/kinds/distribution.md#stats):
// the tier objects of a planned range merged into one (the range planner's
// pieces, added as $inc would add them), and one stat of it: count, sum,
// mean, min, max or a percentile, and the names a stat is asked by. Pure.
//
// A percentile needs a histogram in every piece: a minute's is in its hour's
// document (reader/minute-histograms.js puts it into the minute tier), and a
// tier whose buckets hold fewer or more values than it counts has no
// percentile (null): its minutes were written without one.
import { addHistogramInto, bucketedCount, emptyHistogram, mergeHistograms, quantile } from './distribution-sketch.js'
import { evaluatePlan } from './range-plan.js'

/** The stats asked by name; a percentile is asked as p<percent> (parseStat) */
export const STAT_NAMES = Object.freeze(['count', 'sum', 'mean', 'min', 'max'])
// the longest stat text read: p99.99999999 (eight decimals of a percent) is finer than any histogram answers
export const MAX_STAT_LENGTH = 12
/** What parseStat accepts, as its refusals say it */
export const STATS_ACCEPTED = `${STAT_NAMES.join(', ')}, or a percentile: p0 to p100 (p50, p99), with decimals (p99.9), or in Graphite's form, where the digits after the first two are decimals (p999 is the 99.9th, p9999 the 99.99th); for a gauge last, min, max, mean, count or sum`
/** A gauge's stat besides STAT_NAMES (bucket/gauge-stats.js): the level of the latest event */
export const LAST_STAT_NAME = 'last'

// p + a whole percent 0..100, or its decimal form; no leading zero (p05 could be either form)
const PERCENT = /^p(0|[1-9][0-9]?|100)(?:\.([0-9]+))?$/
// Graphite's form (Dropwizard's p999, Finagle's p9990): three digits or more, the first two the whole percent
const GRAPHITE_PERCENT = /^p([1-9][0-9])([0-9]+)$/

/** q in [0, 1] of a percent written as whole and fraction digits, read as a decimal (99.9 → 0.999, not 99.9 / 100) */
function quantileOf (whole, fraction) {
  const digits = whole + fraction
  const point = whole.length - 2
  return Number(point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : `${digits.slice(0, point)}.${digits.slice(point)}`)
}

const shown = (text) => JSON.stringify(text.length > 20 ? `${text.slice(0, 20)}…` : text)

/** What to write instead of a refused percentile that is nearly one */
function hintFor (text) {
  if (/^p0[0-9]/.test(text)) return ` (no leading zero: p${text.slice(2)}, or p0.${text.slice(2)})`
  if (/^p10[0-9]+$/.test(text)) return ` (ambiguous: 10.${text.slice(3)} % in Graphite's form, yet it reads as ${text.slice(1)} %: write p10.${text.slice(3)}, or p100)`
  return ''
}

/**
 * The stat `text` asks for → { stat: { name, kind, q? } } (kind count, sum,
 * mean, min, max, last (a gauge's) or percentile, q in [0, 1] for a
 * percentile), or
 * { problem } saying what is accepted. A percentile is p and its percent:
 * p50, p99.9, p0 (the minimum: rank 0) and p100 (the maximum: rank n−1);
 * three digits or more without a point are Graphite's form, the first two
 * the whole percent: p999 = p99.9, p9999 = p99.99. Refused: anything else,
 * a percent over 100, a leading zero (p05), p10… of three digits or more but
 * p100 itself (p1000 would be 10.00 in Graphite's form; write p10.00), and
 * text over MAX_STAT_LENGTH characters.
 */
export function parseStat (text) {
  if (typeof text !== 'string') return { problem: `stat must be text: use ${STATS_ACCEPTED}` }
  if (text.length > MAX_STAT_LENGTH) return { problem: `stat ${shown(text)} is longer than ${MAX_STAT_LENGTH} characters; use ${STATS_ACCEPTED}` }
  if (STAT_NAMES.includes(text) || text === LAST_STAT_NAME) return { stat: { name: text, kind: text } }
  let q = null
  const percent = PERCENT.exec(text)
  if (percent) {
    const [, whole, fraction = ''] = percent
    if (whole !== '100' || /^0*$/.test(fraction)) q = quantileOf(whole, fraction)
  } else {
    const graphite = GRAPHITE_PERCENT.exec(text)
    if (graphite && graphite[1] !== '10') q = quantileOf(graphite[1], graphite[2])
  }
  if (q === null) return { problem: `stat ${shown(text)} is not a stat${hintFor(text)}; use ${STATS_ACCEPTED}` }
  return { stat: { name: text, kind: 'percentile', q } }
}

const EMPTY_TIER = Object.freeze({ count: 0, sum: 0 })

// a count may be fractional: a StatsD sample rate of 0.3 counts a value 1/0.3 times
const isCount = (n) => typeof n === 'number' && Number.isFinite(n) && n >= 0

/** Why a stored node cannot be a distribution tier (a message), or null; absent parts are allowed */
function tierProblem (node) {
  if (typeof node !== 'object' || Array.isArray(node)) return `${JSON.stringify(node)} is not a distribution tier (an object with count, sum, min, max)`
  if (node.count !== undefined && !isCount(node.count)) return `tier count is ${node.count}, not a count`
  for (const name of ['sum', 'min', 'max']) {
    if (node[name] !== undefined && !Number.isFinite(node[name])) return `tier ${name} is ${node[name]}, not a finite number`
  }
  if (node.bucketError !== undefined && !(typeof node.bucketError === 'number' && node.bucketError >= 0)) return `tier bucketError is ${node.bucketError}, not a relative error`
  return null
}

/**
 * How accurate a quantile of a merged tier is (docs/adr/0065-otlp-quantile-accuracy.md): within the sketch's α of
 * the value it placed, which is within the tier's bucketError (0 where no OTLP bucket fed it) of the value recorded
 * → { relativeError: (1 + e)(1 + α) − 1, or α where e is 0, null where unbounded; limitedBy: 'buckets' where e > α, else 'sketch' }
 */
export function quantileAccuracy (tier, alpha) {
  const e = tier?.bucketError ?? 0
  return {
    relativeError: e === 0 ? alpha : Number.isFinite(e) ? (1 + e) * (1 + alpha) - 1 : null,
    limitedBy: e > alpha ? 'buckets' : 'sketch'
  }
}

function tierOf (node) {
  if (node === undefined || node === null) return EMPTY_TIER
  const problem = tierProblem(node)
  if (problem) throw new TypeError(problem)
  return node
}

/**
 * a + b for stored tier objects, as one tier holding the values of both:
 * { count, sum, zero, positive, negative, min?, max? } (min and max absent
 * while count is 0). Either may be undefined or null (nothing), or a minute
 * tier, which holds no histogram: the merge then counts values its buckets do
 * not (bucketedCount < count), and statValue refuses it a percentile. The
 * inputs are not changed. Throws TypeError for a node that is not a tier, or
 * holds a bucket key or count a histogram cannot (a document is read, never
 * trusted).
 */
export function mergeTiers (a, b) {
  return mergeHistograms(tierOf(a), tierOf(b))
}

/**
 * total + node as mergeTiers merges them, adding node into total in place:
 * total is null at a range's first piece (a fresh tier is made) or what this
 * function returned before, never a stored tier. Costs node's buckets only,
 * whatever total holds (mergeTiers copies total at every piece: a range of
 * many small pieces after one full histogram cost its size at each). Throws
 * TypeError as mergeTiers does.
 */
export function addTierInto (total, node) {
  return addHistogramInto(total ?? emptyHistogram(), tierOf(node))
}

/**
 * addTierInto for a read that ranks nothing: count, sum, min and max only,
 * the buckets left out (a count, sum, mean, min or max costs its pieces, not
 * their histograms). statValue answers every stat but a percentile of it as
 * of addTierInto's tier. Throws TypeError as mergeTiers does for a node that
 * is not a tier.
 */
export function addTotalsInto (total, node) {
  const tier = total ?? { count: 0, sum: 0 }
  const { count = 0, sum = 0, min, max } = tierOf(node)
  tier.count += count
  tier.sum += sum
  if (min !== undefined && !(tier.min <= min)) tier.min = min
  if (max !== undefined && !(tier.max >= max)) tier.max = max
  return tier
}

/**
 * evaluatePlan for a distribution: each planned range's tiers merged
 * (mergeTiers) instead of summed, with the same rules: null where no document
 * holds any of its pieces; where a document exists but not the tier, an empty
 * tier (count 0); `documents` the distinct documents used; strictDays as
 * there (a monthly document holds only the days with a daily document).
 * → [{ value: tier | null, documents }]
 */
export function evaluateDistributionPlan (plan, docs, { strictDays = false } = {}) {
  return evaluatePlan(plan, docs, { strictDays, combine: mergeTiers })
}

/**
 * One stat (parseStat's descriptor) of a tier as
 * evaluateDistributionPlan gives it. As a counter answers: null where no
 * document holds the range (tier null or undefined), and count and sum 0 where
 * one does but nothing was written to it (count 0); mean, min, max and the
 * percentiles are null there, having no value to stand for. mean = sum/count;
 * min and max exact; a percentile is the value at rank floor(q·(n−1)) within
 * the mapping's α (quantiles). A percentile is null too where the tier's
 * histogram does not hold exactly the values it counts (histogramHoldsCount):
 * ranked among some of them, it would be a value nobody measured.
 */
export function statValue (tier, stat, mapping) {
  if (tier === null || tier === undefined) return null
  const count = tier.count ?? 0
  switch (stat.kind) {
    case 'count': return count
    case 'sum': return tier.sum ?? 0
    case 'mean': return count === 0 ? null : tier.sum / count
    case 'min': return count === 0 ? null : tier.min ?? null
    case 'max': return count === 0 ? null : tier.max ?? null
    case 'percentile': return count === 0 || !histogramHoldsCount(tier) ? null : quantile(tier, mapping, stat.q)
  }
  throw new TypeError(`unknown stat kind ${JSON.stringify(stat.kind)}`)
}

/**
 * The horizons a read of `stat` is planned with (retention-horizons.js): a
 * percentile reads minutes only where they keep their histograms
 * (minuteHistogramFrom: MINUTE_HISTOGRAM_DAYS, never past the minutes), and
 * its refusal of a minute edge before that says so; every other stat reads
 * minutes wherever they are kept.
 */
export function statHorizons (stat, horizons = {}) {
  if (stat.kind !== 'percentile' || horizons.minuteHistogramFrom === undefined || horizons.minuteHistogramFrom === horizons.minuteFrom) return horizons
  const from = horizons.minuteHistogramFrom
  return { ...horizons, minuteFrom: from, minutesNote: `minute histograms, which a minute's percentile is read from, are kept from ${new Date(from).toISOString().slice(0, 10)} on (MINUTE_HISTOGRAM_DAYS)` }
}

// equal up to the rounding of another order of additions (1e-9 of the larger magnitude)
const near = (a, b, magnitude = 0) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b), magnitude)

/** The buckets of a tier or stored histogram (its positive and negative sides' keys): what a walk of it costs */
export function bucketsIn (node) {
  let n = 0
  for (const side of [node?.positive, node?.negative]) if (side && typeof side === 'object') for (const _ in side) n++ // eslint-disable-line no-unused-vars
  return n
}

/**
 * Whether an hour document's minute (a minute-hour document: { count, sum,
 * zero, positive, negative }) holds exactly the values its day document's
 * minute tier counts: the same count, the same sum (within 1e-9 of count ×
 * the larger |min|, |max|), and buckets adding up to that count. The one rule
 * a read grafts a minute's histogram by (reader/minute-histograms.js) and
 * the check judges it by (kinds/consistency/minute-histogram.js). Two flushes
 * of one minute cut in opposite ways and both retried leave equal counts of
 * other values: their sums tell them apart. Throws TypeError as
 * bucketedCount does for a key or count no histogram holds.
 */
export function minuteHoldsDay (hourMinute, dayMinute) {
  const isNumber = (v) => typeof v === 'number' && Number.isFinite(v)
  if (!isNumber(hourMinute.count) || !isNumber(hourMinute.sum) || !isNumber(dayMinute.count)) return false
  const count = dayMinute.count
  const sum = isNumber(dayMinute.sum) ? dayMinute.sum : 0
  const scale = count * Math.max(Math.abs(dayMinute.min ?? 0), Math.abs(dayMinute.max ?? 0))
  return near(hourMinute.count, count) && near(hourMinute.sum, sum, scale) && near(bucketedCount(hourMinute), count)
}

/**
 * Whether a merged tier's buckets hold exactly the values it counts: not
 * where a minute merged in had no histogram (its histogram write lost) or
 * another one (a flush cut between its day's
 * document and its hour's). Fractional counts (sample rates) are added in
 * another order in the buckets than in count: equal up to rounding.
 */
export function histogramHoldsCount (tier) {
  const count = tier.count ?? 0
  return Math.abs(bucketedCount(tier) - count) <= 1e-9 * count
}
