// The tag index (docs/tags.md#the-tag-index): per metric name, its tagged
// series and, per tag key, the series of each value, in memory, so a tag
// filter or a listing costs the series of that one name, never the
// registry's. Fed as the Graphite name index is (./name-index.js hands it
// every series name, ./name-index-refresh.js keeps both fresh across
// instances). A declared rollup's series (tags/rollups.js) are kept apart:
// found by their name and subset, never listed or matched as series. Pure
// data structure.
import { nameOfSeries, tagsOfSeries } from '../tags/series-name.js'
import { isRollupSeries, parseRollupSeries } from '../tags/rollups.js'

function newName () {
  return { series: new Set(), keys: new Map() }
}

export function createTagIndex () {
  let names = new Map() // name → { series: Set, keys: Map key → Map value → Set series }
  let rollups = new Map() // `name;~keys` → Set of that rollup's series
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
    /**
     * The series of a name that every filter (tags/tag-filter.js) matches,
     * sorted. A filter of an exact value starts from that value's series.
     */
    match (name, filters) {
      const entry = names.get(name)
      if (!entry) return []
      const exact = filters.find(f => f.operator === '=' && f.value !== '')
      const candidates = exact ? (entry.keys.get(exact.key)?.get(exact.value) ?? []) : entry.series
      const found = []
      for (const series of candidates) {
        const tags = new Map(tagsOfSeries(series))
        if (filters.every(f => f.matches(tags.get(f.key)))) found.push(series)
      }
      return found.sort()
    },
    /**
     * The series of a name's rollup over `keys` (sorted) that every filter
     * matches, sorted → [{ series, tags: Map }]
     */
    matchRollup (name, keys, filters) {
      const found = []
      for (const series of rollups.get(`${name};~${keys.join(',')}`) ?? []) {
        const tags = new Map(parseRollupSeries(series).tags)
        if (filters.every(f => f.matches(tags.get(f.key)))) found.push({ series, tags })
      }
      return found.sort((a, b) => (a.series < b.series ? -1 : 1))
    },
    /** Every name with tagged series, with their number → [{ name, series }] */
    names: () => [...names].map(([name, entry]) => ({ name, series: entry.series.size })),
    size: () => size,
    /** Takes another index's series as its own, at once (a rebuild built beside it) */
    adopt (other) {
      ({ names, rollups } = other.state())
      size = other.size()
    },
    state: () => ({ names, rollups })
  }
}
