// What `npm run check` and the retention job verify of distribution
// documents (docs/kinds/distribution.md#retention-and-the-check):
// the distribution's rules for the one walk of ./tiers.js, where
// the quarter-hours are the truth for every hour and the day, the days for
// the month, a daily document's day tier for `monthly.daily.D`. What is
// particular to a distribution:
//   - a tier is { count, sum, min, max } and, from the quarter-hour up, a
//     histogram (zero, positive, negative buckets) whose buckets add up to
//     its count — a tier whose buckets do not is no truth for a coarser one;
//   - the minutes keep no histogram: they are the truth for each
//     quarter-hour's count and sum only while they hold every value of their
//     day, and always hold a subset of its values (min and max inside its
//     own); a repair takes a minute's bound into its quarter-hour, never its
//     count or sum, which cannot be rebuilt without buckets;
//   - every tier, minutes included, may keep threshold counts `le.<key>`
//     (docs/kinds/distribution.md#thresholds), each at most its count, added
//     up as its buckets are.
// A repair only ever adds: the coarser tier gets what it lacks ($inc of the
// missing count, sum and buckets, $min/$max of the missing bounds), and a
// tier that holds more than its truth anywhere is reported and left alone —
// a repair never lowers a count.
import { parseBucketKey } from '../../bucket/distribution-sketch.js'
import { parseThresholdKey } from '../../bucket/distribution-thresholds.js'
import { sameTotal } from './counter.js'
import {
  HOURS, QUARTERS, addRepair, addTotals, applyUpdate, compareTotals, dayGuard, isCount, isPlainObject, readTotals, shortNumber, tierChecks
} from './tiers.js'

const SIDES = ['positive', 'negative']

/**
 * A stored tier as the checks read it → { tier } or { problem }. Absent
 * (undefined/null) is the empty tier. tier: { count, sum, min?, max?, scale,
 * parts: Map<'zero' | 'positive.K' | 'negative.K', n> } where scale bounds
 * Σ|v| (count × the larger |bound|), for the tolerance of sums; parts
 * also holds the threshold counts, 'le.<key>'.
 * histogram false: a minute tier (count, sum, min, max and threshold counts only).
 */
export function readTier (node, { histogram = true } = {}) {
  const tier = { count: 0, sum: 0, min: undefined, max: undefined, scale: 0, parts: new Map() }
  if (node === undefined || node === null) return { tier }
  const totals = readTotals(node, 'a tier')
  if (totals.problem) return totals
  Object.assign(tier, totals)
  if (node.le !== undefined) {
    if (!isPlainObject(node.le)) return { problem: 'le is not an object of threshold counts' }
    for (const key of Object.keys(node.le)) {
      if (parseThresholdKey(key) === null) return { problem: `le has a key ${JSON.stringify(key)} that is not a threshold` }
      if (!isCount(node.le[key])) return { problem: `le.${key} ${JSON.stringify(node.le[key])} is not a count` }
      if (node.le[key] !== 0) tier.parts.set(`le.${key}`, node.le[key])
    }
  }
  if (!histogram) return { tier }
  if (node.zero !== undefined) {
    if (!isCount(node.zero)) return { problem: `zero ${JSON.stringify(node.zero)} is not a count` }
    if (node.zero !== 0) tier.parts.set('zero', node.zero)
  }
  for (const side of SIDES) {
    const counts = node[side]
    if (counts === undefined) continue
    if (!isPlainObject(counts)) return { problem: `${side} is not an object of bucket counts` }
    for (const key of Object.keys(counts)) {
      if (parseBucketKey(key) === null) return { problem: `${side} has a bucket key ${JSON.stringify(key)} that is not a canonical integer` }
      if (!isCount(counts[key])) return { problem: `${side}.${key} ${JSON.stringify(counts[key])} is not a count` }
      if (counts[key] !== 0) tier.parts.set(`${side}.${key}`, counts[key])
    }
  }
  return { tier }
}

const isEmpty = (t) => t.count === 0 && t.min === undefined && t.parts.size === 0

/** acc + t, in place (read tiers): what $inc of t's counts and $min/$max of its bounds would leave */
function addInto (acc, t) {
  addTotals(acc, t)
  for (const [part, n] of t.parts) acc.parts.set(part, (acc.parts.get(part) ?? 0) + n)
  return acc
}

const isThresholdPart = (part) => part.startsWith('le.')

/** What a histogram tier's buckets hold in all */
const bucketed = (t) => { let n = 0; for (const [part, v] of t.parts) if (!isThresholdPart(part)) n += v; return n }

/** Whether a read histogram tier's buckets add up to its count (within rounding: counts may be fractional) */
export const bucketsAddUp = (t) => sameTotal(bucketed(t), t.count)

/** A read tier in a line: count, sum, min, max and how many buckets */
export function describeTier (t) {
  if (isEmpty(t)) return 'empty'
  const bounds = t.min === undefined ? '' : `, min ${t.min}, max ${t.max}`
  const thresholds = [...t.parts].filter(([part]) => isThresholdPart(part))
  const le = thresholds.map(([part, n]) => `, ${part} ${shortNumber(n)}`).join('')
  const buckets = t.parts.size - thresholds.length
  return `count ${shortNumber(t.count)}, sum ${shortNumber(t.sum)}${bounds}, ${buckets} bucket${buckets === 1 ? '' : 's'}${le}`
}

/**
 * A coarser tier against its truth (both read). bounds 'exact': the truth
 * holds every value of the coarser one (its min and max must be equal);
 * 'cover': the truth may hold a subset (the coarser min ≤ its min, max ≥ its max).
 * → { equal, repairable, inc: { part: n }, min?, max?, lacking: [text], excess: [text] }
 * where inc/min/max are what the coarser lacks (only when repairable: it holds no more anywhere).
 * histogram false compares count, sum and bounds only.
 */
export function compareTiers (coarser, truth, { bounds = 'exact', histogram = true } = {}) {
  const parts = [...new Set([...coarser.parts.keys(), ...truth.parts.keys()])].filter(p => histogram || isThresholdPart(p))
  return compareTotals(coarser, truth, { bounds, parts })
}

/** Buckets that do not add up to the tier's count, or a threshold count above it: a violation, or null */
function bucketViolation (id, field, t) {
  const over = [...t.parts].find(([part, n]) => isThresholdPart(part) && n > t.count && !sameTotal(n, t.count))
  if (over) return { id, field, expected: `threshold counts at most its count ${shortNumber(t.count)}`, found: `${over[0]} ${shortNumber(over[1])}`, rule: 'thresholds' }
  if (bucketsAddUp(t)) return null
  return { id, field, expected: `buckets adding up to its count ${shortNumber(t.count)}`, found: `buckets holding ${shortNumber(bucketed(t))}`, rule: 'buckets' }
}

/** The distribution's rules for the walk (./tiers.js, tierChecks) */
const DISTRIBUTION_TIERS = {
  noun: 'a distribution tier',
  read: readTier,
  // a minute keeps no histogram; the retention's vouching reads the quarter-hours likewise (minuteVouchProjection)
  readMinute: node => readTier(node, { histogram: false }),
  isEmpty,
  addInto,
  describe: describeTier,
  compare: compareTiers,
  compareMinutes: (quarter, minutes, bounds) => compareTiers(quarter, minutes, { bounds, histogram: false }),
  selfCheck: bucketViolation,
  // a minute's value is a real one: a quarter-hour missing its bound takes it ($min/$max); its
  // count, sum and buckets cannot be rebuilt from minutes, which keep no histogram
  minuteRepair (quarter, c) {
    const bounds = { inc: {}, min: c.min, max: c.max }
    return quarter.count > 0 && (bounds.min !== undefined || bounds.max !== undefined) ? bounds : null
  },
  raise: (t, fix) => ({ ...t, min: fix.min ?? t.min, max: fix.max ?? t.max }),
  addRepair,
  apply: applyUpdate,
  neverLowers: 'a repair never lowers a count'
}

export const {
  /**
   * Whether the quarter-hours of a daily distribution document vouch for its
   * minutes (and retention may drop them): in every quarter-hour (so in every
   * hour), the quarter-hour holds every value its minutes hold.
   *   minutesComplete (no `detail`): its count and sum equal the minutes' count
   *     and sum (within rounding), its min ≤ theirs and max ≥ theirs;
   *   otherwise (`detail: 'quarterHour'`: values were written past the horizon
   *     without their minute): its count ≥ theirs, min ≤ theirs, max ≥ theirs
   *     (the minutes hold a subset; its sum says nothing).
   * Reads only count, sum, min and max of each quarter-hour (minuteVouchProjection).
   * → { vouched, problems: [text] }
   */
  minutesVouched,
  /**
   * Whether `monthly.daily.D` (monthValue) holds the whole day tier of its
   * daily document (dayValue): count, sum, every bucket equal (within rounding),
   * min and max equal. Retention deletes a daily document only then.
   */
  holdsWholeDay,
  /**
   * Verifies one daily distribution document. minutesComplete as for
   * counters (no `detail`, and the day inside the minute horizon: the caller
   * knows it). → { violations, repair: { filter, update } | null, dayTier }
   */
  verifyDaily: verifyDistributionDaily,
  /** Verifies monthly = Σ daily.D inside one monthly distribution document, and every tier's buckets. → { violations, repair } */
  verifyMonthly: verifyDistributionMonthly,
  /** One day of a month across documents: `monthly.daily.D` against its daily document's day tier. → null | { violation, repair } */
  compareDay: compareDistributionDay
} = tierChecks(DISTRIBUTION_TIERS)

/** A copy of `doc` after { $inc, $min, $max } of dotted paths, as MongoDB applies it (no filter) */
export { applyUpdate }

/** The filter that conditions a change of a daily distribution document on its day tier as read (count, sum, min, max) */
export const dayTierGuard = dayGuard

/** The projection minutesVouched and dayTierGuard need: the minutes, and count, sum, min, max (and threshold counts) of the day and each quarter-hour (not their histograms) */
export function minuteVouchProjection () {
  const projection = { _id: 1, detail: 1, minute: 1, 'daily.count': 1, 'daily.sum': 1, 'daily.min': 1, 'daily.max': 1 }
  for (const h of HOURS) for (const q of QUARTERS) for (const s of ['count', 'sum', 'min', 'max', 'le']) projection[`quarterHourly.${h}.${q}.${s}`] = 1
  return projection
}

/** Whether two stored values are the same (a day tier or day field read twice): deep, key order ignored */
export function sameStored (a, b) {
  if (a === b) return true
  if (!isPlainObject(a) || !isPlainObject(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every(k => Object.hasOwn(b, k) && sameStored(a[k], b[k]))
}
