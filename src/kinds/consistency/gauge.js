// What `npm run check` and the retention job verify of gauge documents
// (docs/kinds/gauge.md#retention-and-the-check): the gauge's rules
// for the one walk of ./tiers.js, where the quarter-hours are the
// truth for every hour and the day, the days for the month, a daily
// document's day tier for `monthly.daily.D`. What is particular to a gauge:
//   - every tier is { count, sum, min, max, last: { t, v } } and tiers merge
//     as they are written ($inc of count and sum, $min, $max, and $max of
//     `last`, the later (t, v));
//   - the minutes hold every field of a tier: while they hold every value of
//     their day (no `detail`) they are the truth for their quarter-hour, and
//     always hold a subset of its values (bounds inside its own, `last` no
//     later than its own).
// A repair only ever raises: the coarser tier gets what it lacks ($inc of the
// missing count and sum, $min/$max of the missing bounds, $max of a later
// `last`), and a tier that holds more than its truth anywhere (a count, a
// bound past it, a later `last`) is reported and left alone — a repair never
// lowers a count nor moves `last` back.
import { Double } from 'mongodb'
import {
  addRepair, addTotals, applyUpdate, compareTotals, dayGuard, isPlainObject, readTotals, settle, shortNumber, tierChecks
} from './tiers.js'

const isDate = v => v instanceof Date && !Number.isNaN(v.getTime())

/** Whether last a ({ t: ms, v }) is later than b, as BSON orders a stored { t, v }: t first, then v */
const later = (a, b) => a.t > b.t || (a.t === b.t && a.v > b.v)
const sameLast = (a, b) => (a === undefined ? b === undefined : b !== undefined && a.t === b.t && a.v === b.v)

/**
 * A stored gauge tier as the checks read it → { tier } or { problem }. Absent
 * (undefined/null) is the empty tier. tier: { count, sum, min?, max?, last?:
 * { t: ms, v }, scale } where scale bounds Σ|v| (for the tolerance of sums).
 */
export function readGaugeTier (node) {
  const tier = { count: 0, sum: 0, min: undefined, max: undefined, last: undefined, scale: 0 }
  if (node === undefined || node === null) return { tier }
  const totals = readTotals(node, 'a gauge tier')
  if (totals.problem) return totals
  const { last } = node
  if (last !== undefined && !(isPlainObject(last) && isDate(last.t) && typeof last.v === 'number' && Number.isFinite(last.v))) {
    return { problem: `last ${JSON.stringify(last)} is not { t: a date, v: a finite number }` }
  }
  Object.assign(tier, totals)
  if (last !== undefined) tier.last = { t: last.t.getTime(), v: last.v }
  return { tier }
}

const isEmpty = t => t.count === 0 && t.min === undefined && t.max === undefined && t.last === undefined

/** acc + t, in place (read tiers): what $inc, $min, $max and $max of `last` would leave */
function addInto (acc, t) {
  addTotals(acc, t)
  if (t.last !== undefined && (acc.last === undefined || later(t.last, acc.last))) acc.last = t.last
  return acc
}

const describeLast = l => `${l.v} at ${new Date(l.t).toISOString()}`

/** A read gauge tier in a line */
export function describeGaugeTier (t) {
  if (isEmpty(t)) return 'empty'
  const bounds = t.min === undefined && t.max === undefined ? '' : `, min ${t.min}, max ${t.max}`
  return `count ${shortNumber(t.count)}, sum ${shortNumber(t.sum)}${bounds}${t.last ? `, last ${describeLast(t.last)}` : ''}`
}

/**
 * A coarser tier against its truth (both read). bounds 'exact': the truth
 * holds every value of the coarser one (min, max and last must be equal);
 * 'cover': the truth may hold a subset (the coarser min ≤ its min, max ≥ its
 * max, last no earlier than its last).
 * → { equal, repairable, inc: { count?, sum? }, min?, max?, last?, lacking: [text], excess: [text] }
 * where inc/min/max/last are what the coarser lacks (repairable: it holds no more anywhere).
 */
export function compareGaugeTiers (coarser, truth, { bounds = 'exact' } = {}) {
  const result = compareTotals(coarser, truth, { bounds })
  if (truth.last !== undefined && (coarser.last === undefined || later(truth.last, coarser.last))) {
    result.last = truth.last
    result.lacking.push(`last ${describeLast(truth.last)}`)
  } else if (bounds === 'exact' && !sameLast(coarser.last, truth.last)) {
    result.excess.push(`last ${coarser.last ? describeLast(coarser.last) : 'none'} later than ${truth.last ? describeLast(truth.last) : 'none'}`)
  }
  return settle(result)
}

/** Adds a tier's repair (what it lacks: comparison's inc, min, max, last) at `path` into update { $inc, $min, $max } */
function addGaugeRepair (update, path, comparison) {
  addRepair(update, path, comparison, (part, n) => (part === 'sum' ? new Double(n) : n))
  // t before v: BSON compares the subdocument field by field, as the writer builds it
  if (comparison.last !== undefined) update.$max[`${path}.last`] = { t: new Date(comparison.last.t), v: comparison.last.v }
}

/** A read tier after a repair's comparison is applied to it */
function raised (t, c) {
  const out = { ...t, count: t.count + (c.inc.count ?? 0), sum: t.sum + (c.inc.sum ?? 0) }
  if (c.min !== undefined) out.min = c.min
  if (c.max !== undefined) out.max = c.max
  if (c.last !== undefined) out.last = c.last
  return out
}

const stored = l => ({ t: l.t.getTime(), v: l.v })

/** What `$max` leaves: numbers by value, a { t, v } by (t, v) */
function maxOf (old, v) {
  if (isPlainObject(v)) return old === undefined || !isPlainObject(old) || later(stored(v), stored(old)) ? { t: new Date(v.t), v: v.v } : old
  return old === undefined ? v : Math.max(old, v)
}

/** A copy of `doc` after { $inc, $min, $max } of dotted paths as MongoDB applies them ($max of a { t, v } by (t, v)) */
export const applyGaugeRepair = (doc, update) => applyUpdate(doc, update, maxOf)

/** The gauge's rules for the walk (./tiers.js, tierChecks) */
const GAUGE_TIERS = {
  noun: 'a gauge tier',
  read: readGaugeTier,
  readMinute: readGaugeTier,
  isEmpty,
  addInto,
  describe: describeGaugeTier,
  compare: compareGaugeTiers,
  compareMinutes: (quarter, minutes, bounds) => compareGaugeTiers(quarter, minutes, { bounds }),
  selfCheck: () => null,
  // complete minutes are the truth for their quarter-hour (they hold every tier's fields): it gets
  // what it lacks; otherwise a minute's values are still real ones, so only bounds and last are raised
  minuteRepair (quarter, c, minutesComplete) {
    const fix = minutesComplete && c.repairable ? c : { inc: {}, min: c.min, max: c.max, last: c.last }
    const counts = Object.keys(fix.inc).length > 0
    if (!counts && (quarter.count === 0 || (fix.min === undefined && fix.max === undefined && fix.last === undefined))) return null // nothing to raise, or no values to bound
    return fix
  },
  raise: raised,
  addRepair: addGaugeRepair,
  apply: applyGaugeRepair,
  neverLowers: 'a repair never lowers a count nor moves last back'
}

export const {
  /**
   * Whether the quarter-hours of a daily gauge document vouch for its minutes
   * (and retention may drop them): in every quarter-hour, the quarter-hour
   * holds every value its minutes hold.
   *   minutesComplete (no `detail`): its count and sum equal the minutes'
   *     (sum within rounding); its min ≤ theirs, max ≥ theirs, and its last no
   *     earlier (by (t, v)) than any minute's; a quarter-hour with values and
   *     no minutes fails;
   *   otherwise (`detail: 'quarterHour'`: the minutes hold a subset): its
   *     count ≥ theirs, min ≤, max ≥, last no earlier; the sum says nothing.
   * → { vouched, problems: [text] }
   */
  minutesVouched: gaugeMinutesVouched,
  /**
   * Whether the month document's `daily.D` (monthValue) holds the whole day tier of its
   * daily document (dayValue): count and sum equal (sum within rounding), min,
   * max and last equal. Retention deletes a daily document only then.
   */
  holdsWholeDay: holdsWholeGaugeDay,
  /**
   * Verifies one daily gauge document. minutesComplete: no `detail` (a gauge's
   * day has carried the marker since its first write).
   * → { violations, repair: { filter, update } | null, dayTier }
   */
  verifyDaily: verifyGaugeDaily,
  /** Verifies monthly = the merge of daily.D inside one monthly gauge document. → { violations, repair } */
  verifyMonthly: verifyGaugeMonthly,
  /** One day of a month across documents: `monthly.daily.D` against its daily document's day tier. → null | { violation, repair } */
  compareDay: compareGaugeDay
} = tierChecks(GAUGE_TIERS)

/** What gaugeMinutesVouched and gaugeDayGuard read of a daily document */
export function gaugeVouchProjection () {
  return { _id: 1, detail: 1, minute: 1, daily: 1, quarterHourly: 1 }
}

/** The filter that conditions a change of a daily gauge document on its day tier as read (count, sum, min, max, last) */
export function gaugeDayGuard (doc) {
  const filter = dayGuard(doc)
  const last = doc.daily?.last
  if (last === undefined) filter['daily.last'] = { $exists: false }
  else { filter['daily.last.t'] = last.t; filter['daily.last.v'] = last.v }
  return filter
}

/** Whether two stored values are the same (a day tier or day field read twice): deep, dates by time, key order ignored */
export function sameGaugeStored (a, b) {
  if (a === b) return true
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime()
  if (!isPlainObject(a) || !isPlainObject(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every(k => Object.hasOwn(b, k) && sameGaugeStored(a[k], b[k]))
}
