// What a read of a gauge answers (docs/kinds/gauge.md#stats): the tiers of a planned range merged into one — counts and sums
// added, the min of the mins, the max of the maxes, and the last value of
// the latest (t, v), as $inc, $min and $max merge them when they are written —
// and one stat of it: last, min, max, mean, count or sum. Pure.
import { evaluatePlan } from './range-plan.js'

/** The stats a gauge answers, its default first */
export const GAUGE_STAT_NAMES = Object.freeze(['last', 'min', 'max', 'mean', 'count', 'sum'])
export const GAUGE_DEFAULT_STAT = Object.freeze({ name: 'last', kind: 'last' })

const EMPTY_TIER = Object.freeze({ count: 0, sum: 0 })
const isCount = (n) => Number.isSafeInteger(n) && n >= 0

/** Why a stored node cannot be a gauge tier (a message), or null; absent parts are allowed */
function tierProblem (node) {
  if (typeof node !== 'object' || Array.isArray(node)) return `${JSON.stringify(node)} is not a gauge tier (an object with count, sum, min, max, last)`
  if (node.count !== undefined && !isCount(node.count)) return `tier count is ${node.count}, not a count`
  for (const name of ['sum', 'min', 'max']) {
    if (node[name] !== undefined && !Number.isFinite(node[name])) return `tier ${name} is ${node[name]}, not a finite number`
  }
  const { last } = node
  if (last !== undefined && (typeof last !== 'object' || last === null || !(last.t instanceof Date) || Number.isNaN(last.t.getTime()) || !Number.isFinite(last.v))) {
    return `tier last is ${JSON.stringify(last)}, not { t: a date, v: a finite number }`
  }
  return null
}

function tierOf (node) {
  if (node === undefined || node === null) return EMPTY_TIER
  const problem = tierProblem(node)
  if (problem) throw new TypeError(problem)
  return node
}

/** Whether stored last a ({ t: Date, v }) is later than b, as BSON orders them: t, then v */
export const isLaterStored = (a, b) => a.t.getTime() > b.t.getTime() || (a.t.getTime() === b.t.getTime() && a.v > b.v)

/**
 * total + node for evaluatePlan (range-plan.js's `combine`): one tier holding
 * the values of both, { count, sum, min?, max?, last? } (min, max and last
 * absent while count is 0). total is null at a range's first piece found in
 * a document; node undefined where the document lacks the tier (it adds
 * nothing). The inputs are not changed. Throws TypeError for a node that is
 * not a gauge tier (a document is read, never trusted).
 */
export function mergeGaugeTiers (total, node) {
  const a = total ?? EMPTY_TIER
  const b = tierOf(node)
  const merged = { count: (a.count ?? 0) + (b.count ?? 0), sum: (a.sum ?? 0) + (b.sum ?? 0) }
  const min = [a.min, b.min].filter(v => v !== undefined)
  const max = [a.max, b.max].filter(v => v !== undefined)
  if (min.length) merged.min = Math.min(...min)
  if (max.length) merged.max = Math.max(...max)
  const last = a.last === undefined ? b.last : b.last === undefined ? a.last : isLaterStored(b.last, a.last) ? b.last : a.last
  if (last !== undefined) merged.last = last
  return merged
}

/**
 * evaluatePlan for a gauge: each planned range's tiers merged
 * (mergeGaugeTiers) instead of summed, with the same rules: null where no
 * document holds any of its pieces; where a document exists but not the
 * tier, an empty tier (count 0); strictDays as there.
 * → [{ value: tier | null, documents }]
 */
export function evaluateGaugePlan (plan, docs, { strictDays = false } = {}) {
  return evaluatePlan(plan, docs, { strictDays, combine: mergeGaugeTiers })
}

/**
 * One stat ({ kind: last | min | max | mean | count | sum }) of a tier as
 * evaluateGaugePlan gives it. As a counter answers: null where no document
 * holds the range (tier null), count and sum 0 where one does but nothing
 * was written in it; last, min, max and mean are null there (no level was
 * reported: a 0 would be a level nobody measured, and a previous level is
 * not carried forward).
 */
export function gaugeStatValue (tier, stat) {
  if (tier === null || tier === undefined) return null
  const count = tier.count ?? 0
  switch (stat.kind) {
    case 'count': return count
    case 'sum': return tier.sum ?? 0
    case 'mean': return count === 0 ? null : tier.sum / count
    case 'min': return count === 0 ? null : tier.min ?? null
    case 'max': return count === 0 ? null : tier.max ?? null
    case 'last': return count === 0 ? null : tier.last?.v ?? null
  }
  throw new TypeError(`a gauge has no stat ${JSON.stringify(stat.kind)}`)
}

/** Whether a gauge answers this stat (parseStat's descriptor) */
export const isGaugeStat = (stat) => GAUGE_STAT_NAMES.includes(stat.kind)
