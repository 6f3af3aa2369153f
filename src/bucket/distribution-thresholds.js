// Declared thresholds of distributions (docs/kinds/distribution.md#thresholds):
// for the names a rule's glob matches, every tier of a distribution's
// documents keeps the exact count of values ≤ each threshold, `le.<key>`
// beside its count, written in the same $inc (its series and rollups too:
// they are matched by their name). A threshold counts only from when it was
// first declared (registry/threshold-records.js). Pure
// (docs/adr/0066-exact-latency-thresholds.md).
import { ruleGlob } from './rule-glob.js'
import { MAX_ABS_VALUE, nameOfSeries } from './event-rules.js'

export const MAX_THRESHOLD_RULES = 64
export const MAX_THRESHOLDS_PER_RULE = 8
/** distinct thresholds of all rules together: a name's tiers keep at most these (bounding its documents' size) */
export const MAX_THRESHOLDS = 16
export const THRESHOLD_RULE_SHAPE = '{ "glob": [threshold, …], … }, e.g. {"web.latency*": [100, 300, 1000]}'
// the names whose thresholds are kept: bounded whatever clients send
const CACHE_LIMIT = 10_000

/** Whether t can be a threshold: a finite number in (0, MAX_ABS_VALUE] */
export const isThreshold = (t) => typeof t === 'number' && Number.isFinite(t) && t > 0 && t <= MAX_ABS_VALUE

/** A threshold's field key: its shortest decimal, the point as `_` (a field name holds no dot): 300 → '300', 0.5 → '0_5' */
export const thresholdKey = (t) => String(t).replace('.', '_')

/** A stored key → its threshold, or null for anything thresholdKey does not make */
export function parseThresholdKey (key) {
  const t = Number(key.replace('_', '.'))
  return isThreshold(t) && thresholdKey(t) === key ? t : null
}

/**
 * A DISTRIBUTION_THRESHOLDS value parsed → { rules: [{ match, thresholds (sorted, without repeats) }] }
 * or { problem } naming the rule broken
 */
export function parseThresholdRules (value) {
  let rules
  try { rules = JSON.parse(value) } catch (err) { return { problem: `is not JSON (${err.message}); write ${THRESHOLD_RULE_SHAPE}` } }
  if (rules === null || typeof rules !== 'object' || Array.isArray(rules)) return { problem: `must be a JSON object: ${THRESHOLD_RULE_SHAPE}` }
  const entries = Object.entries(rules)
  if (entries.length > MAX_THRESHOLD_RULES) return { problem: `holds ${entries.length} rules; at most ${MAX_THRESHOLD_RULES}` }
  const parsed = []
  for (const [match, list] of entries) {
    const at = `rule ${JSON.stringify(match.slice(0, 60))}`
    if (match === '' || match.length > 200) return { problem: `${at}: a glob is 1–200 characters over metric names (* within a part, ** across parts)` }
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_THRESHOLDS_PER_RULE) return { problem: `${at} must list 1–${MAX_THRESHOLDS_PER_RULE} thresholds, e.g. [100, 300, 1000]` }
    const bad = list.find(t => !isThreshold(t))
    if (bad !== undefined) return { problem: `${at}: ${typeof bad === 'number' ? String(bad) : JSON.stringify(bad)} is not a threshold: a number above 0, at most ${MAX_ABS_VALUE}` }
    parsed.push(Object.freeze({ match, thresholds: Object.freeze([...new Set(list)].sort((a, b) => a - b)) }))
  }
  const distinct = new Set(parsed.flatMap(r => r.thresholds)).size
  if (distinct > MAX_THRESHOLDS) return { problem: `declares ${distinct} distinct thresholds in all; at most ${MAX_THRESHOLDS} (a name's every tier keeps one count each)` }
  return { rules: Object.freeze(parsed) }
}

/** The field keys of every threshold the rules declare (what a tier may hold at most, for the largest document's size) */
export const thresholdKeysOf = (rules) => [...new Set(rules.flatMap(r => r.thresholds))].map(thresholdKey)

/** The id of one declared threshold: a rule's glob and the threshold (what its first declaration is recorded under) */
export const thresholdId = (match, t) => `${match} ≤ ${thresholdKey(t)}`

/**
 * The declared thresholds of the configuration. rules: parseThresholdRules';
 * sinceOf(match, t) → epoch ms from which that rule's threshold counts every
 * event (recorded when first declared), or undefined.
 */
export function createThresholds (rules = [], sinceOf = () => undefined) {
  const compiled = rules.map(r => ({ ...r, re: ruleGlob(r.match) }))
  const ofName = new Map() // name → { values, fields, since } or null

  function declaredFor (name) {
    let declared = ofName.get(name)
    if (declared !== undefined) return declared
    const since = new Map() // threshold → the earliest since of the rules declaring it
    for (const rule of compiled) {
      if (!rule.re.matches(name)) continue
      for (const t of rule.thresholds) {
        const s = sinceOf(rule.match, t)
        const earlier = since.get(t)
        if (!since.has(t) || (s !== undefined && (earlier === undefined || s < earlier))) since.set(t, s)
      }
    }
    const values = [...since.keys()].sort((a, b) => a - b)
    declared = values.length === 0 ? null : Object.freeze({ values, fields: values.map(t => `le.${thresholdKey(t)}`), since })
    if (ofName.size >= CACHE_LIMIT) ofName.clear()
    ofName.set(name, declared)
    return declared
  }

  return {
    declared: compiled.length > 0,
    /** The thresholds a distribution event of `metric` (a name, series or rollup) counts at: { values (ascending), fields ('le.<key>') } or null */
    of: (metric) => (compiled.length === 0 ? null : declaredFor(nameOfSeries(metric))),
    /** From when `name`'s threshold t counts every event (epoch ms), or undefined: not declared, so not exact */
    since: (name, t) => (compiled.length === 0 ? undefined : declaredFor(nameOfSeries(name))?.since.get(t))
  }
}

/** The index of the first threshold ≥ v in ascending `values` (values.length where none): v counts at it and every one after */
export function firstAtLeast (values, v) {
  let i = 0
  while (i < values.length && values[i] < v) i++
  return i
}
