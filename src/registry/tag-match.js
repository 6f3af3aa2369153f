// Tag filters (tags/tag-filter.js) over one name's part of the tag index
// (./tag-index.js: its series and, per key, the series of each value),
// without testing each series where the index can say
// (docs/adr/0070-tag-index-inverted-reads.md). A filter that no series
// lacking its key passes is answered from its key's values: `key=v` by v's
// series, any other by testing each distinct value once. The filter with
// the fewest series starts; each of those is tested against the others,
// each distinct value once per filter. Pure.
import { tagsOfSeries } from '../tags/series-name.js'
import { regexBudget } from '../graphite/regex.js'
import { timedMatches } from '../tags/tag-filter.js'

/** A filter's verdict on values, each value tested once → test(value|undefined); a regex's tests timed against the read's budget (graphite/regex.js) */
function remembered (filter, budget) {
  const seen = new Map()
  const matches = timedMatches(filter, budget)
  return (value) => {
    if (value === undefined) return matches(undefined)
    let verdict = seen.get(value)
    if (verdict === undefined) seen.set(value, (verdict = Boolean(matches(value))))
    return verdict
  }
}

/**
 * The series one filter admits, from its key's values (entry.keys: key → value → Set of series)
 * → { sets: [Set], size } or null where a series without the key passes (the index cannot narrow)
 */
function admitted (entry, filter, test) {
  if (test(undefined)) return null
  const values = entry.keys.get(filter.key)
  if (!values) return { sets: [], size: 0 }
  if (filter.operator === '=') {
    const held = values.get(filter.value)
    return held ? { sets: [held], size: held.size } : { sets: [], size: 0 }
  }
  const sets = []
  let size = 0
  for (const [value, held] of values) if (test(value)) { sets.push(held); size += held.size }
  return { sets, size }
}

/** How many values testing a filter on its key costs (0 for `=`: one lookup) */
const costOf = (entry, filter) => (filter.operator === '=' ? 0 : entry.keys.get(filter.key)?.size ?? 0)

/**
 * The series of entry ({ series: Set, keys }) that every filter matches,
 * unsorted. The cheapest filters to answer from the index go first; one
 * whose values cost more to test than the series already admitted is
 * left to the test of those series.
 */
export function matchingSeries (entry, filters) {
  const budget = regexBudget()
  const tests = filters.map(f => remembered(f, budget))
  let best = null // { index, sets, size }
  const order = filters.map((f, i) => i).sort((a, b) => costOf(entry, filters[a]) - costOf(entry, filters[b]))
  for (const i of order) {
    if (best !== null && best.size <= costOf(entry, filters[i])) break
    const found = admitted(entry, filters[i], tests[i])
    if (found !== null && (best === null || found.size < best.size)) best = { index: i, ...found }
    if (best?.size === 0) return []
  }
  const rest = filters.map((f, i) => i).filter(i => i !== best?.index)
  const candidates = best === null ? [entry.series] : best.sets
  const found = []
  for (const held of candidates) {
    for (const series of held) {
      if (rest.length === 0) { found.push(series); continue }
      const tags = new Map(tagsOfSeries(series))
      if (rest.every(i => tests[i](tags.get(filters[i].key)))) found.push(series)
    }
  }
  return found
}

/**
 * The values of `key` (starting with `prefix`) that a series of entry
 * every filter matches holds, unsorted: each value's series looked up
 * among the matching ones until one is
 */
export function valuesAmong (entry, key, filters, prefix = '') {
  const values = entry.keys.get(key)
  if (!values) return []
  const found = []
  const matching = filters.length ? new Set(matchingSeries(entry, filters)) : null
  for (const [value, held] of values) {
    if (!value.startsWith(prefix)) continue
    if (matching === null) { found.push(value); continue }
    if (matching.size === 0) break
    for (const series of held) if (matching.has(series)) { found.push(value); break }
  }
  return found
}
