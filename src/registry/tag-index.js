// The tag index (docs/tags.md#the-tag-index): per metric name, its tagged
// series and, per tag key, the series of each value, in memory, so a tag
// filter or a listing costs the series of that one name, never the
// registry's. Fed as the Graphite name index is (./name-index.js hands it
// every series name, ./name-index-refresh.js keeps both fresh across
// instances). Every name's keys together, key → value → series
// (./key-values.js), answer a key's listings; a filter is answered from
// its key's values where it can be (./tag-match.js). A declared rollup's
// series (tags/rollups.js) are kept apart: found by their name and subset,
// never listed or matched as series. Pure data structure.
import { nameOfSeries, tagsOfSeries } from '../tags/series-name.js'
import { isRollupSeries, parseRollupSeries } from '../tags/rollups.js'
import { createKeyValues } from './key-values.js'
import { matchingSeries, valuesAmong } from './tag-match.js'
import { regexBudget } from '../graphite/regex.js'
import { timedMatches } from '../tags/tag-filter.js'

function newName () {
  return { series: new Set(), keys: new Map() }
}

export function createTagIndex () {
  let names = new Map() // name → { series: Set, keys: Map key → Map value → Set series }
  let rollups = new Map() // `name;~keys` → Set of that rollup's series
  let everyName = createKeyValues() // key → value → series, over every name
  let size = 0
  /** A rollup series' rollup: its text up to its first tag (`name;~keys`) */
  const rollupOf = (series) => {
    const end = series.indexOf(';', series.indexOf(';~') + 2)
    return end === -1 ? series : series.slice(0, end)
  }

  return {
    /** Adds a tagged series (idempotent) */
    add (series) {
      if (isRollupSeries(series)) {
        const rollup = rollupOf(series)
        if (!rollups.has(rollup)) rollups.set(rollup, new Set())
        rollups.get(rollup).add(series)
        return
      }
      const name = nameOfSeries(series)
      let entry = names.get(name)
      if (!entry) names.set(name, (entry = newName()))
      if (entry.series.has(series)) return
      entry.series.add(series)
      size++
      for (const [key, value] of tagsOfSeries(series)) {
        let values = entry.keys.get(key)
        if (!values) entry.keys.set(key, (values = new Map()))
        let holders = values.get(value)
        if (!holders) values.set(value, (holders = new Set()))
        holders.add(series)
        everyName.add(key, value)
      }
    },
    /** Removes a series (a deleted one) */
    remove (series) {
      if (isRollupSeries(series)) {
        const held = rollups.get(rollupOf(series))
        if (held?.delete(series) && held.size === 0) rollups.delete(rollupOf(series))
        return
      }
      const name = nameOfSeries(series)
      const entry = names.get(name)
      if (!entry?.series.delete(series)) return
      size--
      for (const [key, value] of tagsOfSeries(series)) {
        const values = entry.keys.get(key)
        const holders = values.get(value)
        holders.delete(series)
        everyName.remove(key, value)
        if (holders.size === 0) values.delete(value)
        if (values.size === 0) entry.keys.delete(key)
      }
      if (entry.series.size === 0) names.delete(name)
    },
    /** The tagged series of a name (an iterable; empty for none) */
    seriesOf: (name) => names.get(name)?.series ?? [],
    /** How many tagged series a name has */
    count: (name) => names.get(name)?.series.size ?? 0,
    /** A name's tag keys, sorted, each with its number of values → [{ key, values }] */
    keysOf (name) {
      const entry = names.get(name)
      if (!entry) return []
      return [...entry.keys].map(([key, values]) => ({ key, values: values.size })).sort((a, b) => (a.key < b.key ? -1 : 1))
    },
    /** A key's values of a name, sorted, each with its number of series → [{ value, series }] */
    valuesOf (name, key) {
      const values = names.get(name)?.keys.get(key)
      if (!values) return []
      return [...values].map(([value, holders]) => ({ value, series: holders.size })).sort((a, b) => (a.value < b.value ? -1 : 1))
    },
    /** The series of a name that every filter (tags/tag-filter.js) matches, sorted (./tag-match.js) */
    match (name, filters) {
      const entry = names.get(name)
      return entry ? matchingSeries(entry, filters).sort() : []
    },
    /** The values of `key` starting with `prefix` among a name's series that every filter matches, unsorted */
    valuesAmong (name, key, filters, prefix = '') {
      const entry = names.get(name)
      return entry ? valuesAmong(entry, key, filters, prefix) : []
    },
    /** Every name's keys (unsorted) */
    allKeys: () => everyName.keys(),
    /** Whether a name's series has the key */
    hasKey: (key) => everyName.has(key),
    /** A key's values over every name, sorted by code point, with their numbers of series ({ prefix, test, limit }) → [{ value, series }] */
    allValuesOf: (key, options) => everyName.values(key, options),
    /**
     * The series of a name's rollup over `keys` (sorted) that every filter
     * matches, sorted → [{ series, tags: Map }]
     */
    matchRollup (name, keys, filters) {
      const found = []
      // the regexes' tests timed against one budget, as ./tag-match.js's
      const budget = regexBudget()
      const tests = filters.map(f => timedMatches(f, budget))
      for (const series of rollups.get(`${name};~${keys.join(',')}`) ?? []) {
        const tags = new Map(parseRollupSeries(series).tags)
        if (filters.every((f, i) => tests[i](tags.get(f.key)))) found.push({ series, tags })
      }
      return found.sort((a, b) => (a.series < b.series ? -1 : 1))
    },
    /** Every name with tagged series, with their number → [{ name, series }] */
    names: () => [...names].map(([name, entry]) => ({ name, series: entry.series.size })),
    size: () => size,
    /** Takes another index's series as its own, at once (a rebuild built beside it) */
    adopt (other) {
      ({ names, rollups, everyName } = other.state())
      size = other.size()
    },
    state: () => ({ names, rollups, everyName })
  }
}
