// Every name's tag keys together: key → value → number of series, kept
// with the tag index (./tag-index.js), so a listing of a key's values
// (Graphite's /tags/<tag>, /tags/autoComplete/values without expressions)
// costs that key's values, never every name's
// (docs/adr/0070-tag-index-inverted-reads.md). A key's values are sorted
// by code point when first listed after a value came or went; a prefix is
// then a binary search. Pure data structure.
import { byCodePoint } from '../tags/code-point-order.js'

export function createKeyValues () {
  const keys = new Map() // key → { counts: Map value → series, sorted: [value] | null }

  /** The first index of sorted whose value is not below prefix */
  function lowerBound (sorted, prefix) {
    let lo = 0
    let hi = sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (byCodePoint(sorted[mid], prefix) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  return {
    /** A series holding key=value came */
    add (key, value) {
      let held = keys.get(key)
      if (!held) keys.set(key, (held = { counts: new Map(), sorted: null }))
      const n = held.counts.get(value) ?? 0
      if (n === 0) held.sorted = null
      held.counts.set(value, n + 1)
    },
    /** A series holding key=value went */
    remove (key, value) {
      const held = keys.get(key)
      const n = held?.counts.get(value)
      if (n === undefined) return
      if (n > 1) { held.counts.set(value, n - 1); return }
      held.counts.delete(value)
      held.sorted = null
      if (held.counts.size === 0) keys.delete(key)
    },
    /** Whether a series has the key */
    has: (key) => keys.has(key),
    /** The keys, unsorted */
    keys: () => keys.keys(),
    /**
     * A key's values, sorted by code point, starting with `prefix` and
     * passing `test`, at most `limit` → [{ value, series }]
     */
    values (key, { prefix = '', test = null, limit = Infinity } = {}) {
      const held = keys.get(key)
      if (!held) return []
      held.sorted ??= [...held.counts.keys()].sort(byCodePoint)
      const out = []
      for (let i = prefix ? lowerBound(held.sorted, prefix) : 0; i < held.sorted.length && out.length < limit; i++) {
        const value = held.sorted[i]
        if (!value.startsWith(prefix)) break
        if (test === null || test(value)) out.push({ value, series: held.counts.get(value) })
      }
      return out
    }
  }
}
