// Declared rollups (docs/tags.md#declared-rollups): for the names a rule's glob
// matches, a tagged event is also counted in one rollup series per declared
// subset of tag keys, in the same write unit as its series and its name, so a
// read grouped by that subset reads one series per group instead of summing
// every series of the name. Pure: the rules, the rollup series' names, which
// rollup answers a read (docs/adr/0062-declared-rollups.md).
//
// A rollup series is named `name;~keys` followed by the event's tags of those
// keys, canonical (`web.requests;~route,status;route=/login;status=500`); a key
// the event lacks is left out (`web.requests;~route` sums the events without a
// route). No client can write such a name: a tag key never starts with `~`.
import { ruleGlob } from '../bucket/rule-glob.js'
import { isTagged, keyProblem, MAX_TAGS, nameOfSeries, tagsOfSeries } from './series-name.js'

export const MAX_ROLLUP_RULES = 64
export const MAX_ROLLUPS_PER_RULE = 8
const MARK = ';~'
// the series whose written names are kept, and the names whose rollups are: bounded whatever clients send
const CACHE_LIMIT = 10_000

export const ROLLUP_RULE_SHAPE = '[{ "match": "glob", "by": [["key", …], …] }, …]'

/**
 * A ROLLUP_RULES value, parsed → { rules: [{ match, by: [[key…] sorted] }] } or
 * { problem } (a message naming the rule broken)
 */
export function parseRollupRules (value) {
  let rules
  try { rules = JSON.parse(value) } catch (err) { return { problem: `is not JSON (${err.message}); write ${ROLLUP_RULE_SHAPE}` } }
  if (!Array.isArray(rules)) return { problem: `must be a JSON array: ${ROLLUP_RULE_SHAPE}` }
  if (rules.length > MAX_ROLLUP_RULES) return { problem: `holds ${rules.length} rules; at most ${MAX_ROLLUP_RULES}` }
  const parsed = []
  for (const [i, rule] of rules.entries()) {
    const at = `rule ${i}`
    if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) return { problem: `${at} must be an object: ${ROLLUP_RULE_SHAPE}` }
    const extra = Object.keys(rule).find(k => k !== 'match' && k !== 'by')
    if (extra !== undefined) return { problem: `${at} has "${extra}": a rule has only "match" and "by"` }
    if (typeof rule.match !== 'string' || rule.match === '' || rule.match.length > 200) return { problem: `${at}: "match" must be a glob of 1–200 characters over metric names (* within a part, ** across parts)` }
    if (!Array.isArray(rule.by) || rule.by.length === 0 || rule.by.length > MAX_ROLLUPS_PER_RULE) return { problem: `${at}: "by" must list 1–${MAX_ROLLUPS_PER_RULE} subsets of tag keys, e.g. [["route"], ["route", "status"]]` }
    const seen = new Set()
    const by = []
    for (const [j, keys] of rule.by.entries()) {
      if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_TAGS) return { problem: `${at}: by[${j}] must be a list of 1–${MAX_TAGS} tag keys` }
      for (const key of keys) {
        const problem = keyProblem(key)
        if (problem) return { problem: `${at}: by[${j}]: ${problem}` }
      }
      const sorted = [...keys].sort()
      if (new Set(sorted).size !== sorted.length) return { problem: `${at}: by[${j}] names a key twice` }
      const text = sorted.join(',')
      if (seen.has(text)) return { problem: `${at}: by[${j}] repeats the subset [${text}]` }
      seen.add(text)
      by.push(Object.freeze(sorted))
    }
    parsed.push(Object.freeze({ match: rule.match, by: Object.freeze(by) }))
  }
  return { rules: Object.freeze(parsed) }
}

/** The id of one declared rollup: a rule's glob and one subset (what its first-write time is recorded under) */
export const rollupId = (match, keys) => `${match} by ${keys.join(',')}`

/** Whether a series name is a rollup series' */
export const isRollupSeries = (series) => series.includes(MARK)

/** A rollup series' name: of `name`, over `keys` (sorted), with the tags (a Map) of the event it counts */
export function rollupSeriesName (name, keys, tags) {
  let text = `${name}${MARK}${keys.join(',')}`
  for (const key of keys) {
    const value = tags.get(key)
    if (value !== undefined) text += `;${key}=${value}`
  }
  return text
}

/** A rollup series' name → { name, keys, tags: [[key, value]] } (the tags the group has; a missing key is absent) */
export function parseRollupSeries (series) {
  const at = series.indexOf(MARK)
  const name = series.slice(0, at)
  const rest = series.slice(at + MARK.length)
  const end = rest.indexOf(';')
  const keys = (end === -1 ? rest : rest.slice(0, end)).split(',')
  return { name, keys, tags: end === -1 ? [] : tagsOfSeries(`${name}${rest.slice(end)}`) }
}

/**
 * The declared rollups of the configuration. rules: parseRollupRules'; sinceOf(match, keys)
 * → epoch ms from which that rule's rollup holds every event (recorded when it was
 * first declared; registry/rollup-records.js), or undefined (not recorded: never read).
 */
export function createRollups (rules = [], sinceOf = () => undefined) {
  const compiled = rules.map(r => ({ ...r, re: ruleGlob(r.match) }))
  const ofName = new Map() // name → [{ keys, since }]
  const written = new Map() // series → the metrics an event of it is written to

  /** The subsets declared for a name (each once, whichever rules declare it), each with the earliest time a rule of it holds every event from */
  function subsetsOf (name) {
    let subsets = ofName.get(name)
    if (subsets !== undefined) return subsets
    const found = new Map()
    for (const rule of compiled) {
      if (!rule.re.matches(name)) continue
      for (const keys of rule.by) {
        const text = keys.join(',')
        const since = sinceOf(rule.match, keys)
        const earlier = found.get(text)
        if (earlier === undefined) found.set(text, { keys, since })
        else if (since !== undefined && (earlier.since === undefined || since < earlier.since)) earlier.since = since
      }
    }
    subsets = [...found.values()]
    if (ofName.size >= CACHE_LIMIT) ofName.clear()
    ofName.set(name, subsets)
    return subsets
  }

  return {
    declared: compiled.length > 0,
    subsetsOf,

    /**
     * The metrics an event of `metric` is counted in, itself first: an
     * untagged name alone; a tagged series, its name, and its name's
     * declared rollups (docs/tags.md#declared-rollups)
     */
    writtenTo (metric) {
      if (!isTagged(metric)) return [metric]
      let targets = written.get(metric)
      if (targets !== undefined) return targets
      const name = nameOfSeries(metric)
      targets = [metric, name]
      const subsets = compiled.length > 0 ? subsetsOf(name) : []
      if (subsets.length > 0) {
        const tags = new Map(tagsOfSeries(metric))
        for (const { keys } of subsets) targets.push(rollupSeriesName(name, keys, tags))
      }
      if (written.size >= CACHE_LIMIT) written.clear()
      written.set(metric, targets)
      return targets
    },

    /**
     * The declared rollup that answers a read of `name` whose filters and
     * grouping use `keys`, over a window from `from` (epoch ms): the smallest
     * subset holding every key, declared since `from` or earlier → { keys } or null
     */
    answering (name, keys, from) {
      let best = null
      for (const subset of subsetsOf(name)) {
        if (subset.since === undefined || subset.since > from) continue
        if (!keys.every(k => subset.keys.includes(k))) continue
        if (best === null || subset.keys.length < best.keys.length) best = subset
      }
      return best
    }
  }
}
