// Reads by tag (docs/tags.md#reads): a name's series that `tag=` filters
// match, read together, or grouped `by` tag keys, each group read together.
// The series of a read are read through the one read path (./reader.js) at
// once — the documents of all of them in one request per collection — and
// each group's combined: a counter's summed, a distribution's and a gauge's
// merged point by point, as a point merges its tiers (a distribution's
// percentiles from the merged histograms), so each group's answer is exact
// as one series' is. The name is judged as its own read is and gives the
// shape (and the 400 of a bad window or stat, the 404 of no such name) even
// when no series matches; its documents are not read. A read is bounded: at
// most MAX_SERIES series.
import { BadRequestError, withDetails } from '../errors.js'
import { tagsOfSeries } from '../tags/series-name.js'
import { createRollups } from '../tags/rollups.js'
import { RegexBudgetError } from '../graphite/regex.js'

function bad (param, message) {
  return withDetails(new BadRequestError(`${param}: ${message}`), { details: [{ path: param, message }] })
}

/** A match whose regex ran past its time (graphite/regex.js timeBoxed): a 400 */
function matchOrRefuse (match) {
  try {
    return match()
  } catch (err) {
    if (err instanceof RegexBudgetError) throw bad('tag', err.message)
    throw err
  }
}

/**
 * The order of groups: by the `by` keys' values in turn, each as the key's
 * values are listed (GET /v1/metrics/:name/tags/:key), a series without the key (null) last
 */
function byValues (a, b) {
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue
    if (a[i] === null) return 1
    if (b[i] === null) return -1
    return a[i] < b[i] ? -1 : 1
  }
  return 0
}

/** The sum of a field over answers; undefined where none has it (a counter's answers have no count or sum) */
const sumOf = (answers, field) => (answers.some(a => a[field] !== undefined) ? answers.reduce((n, a) => n + (a[field] ?? 0), 0) : undefined)
const defined = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined))

/** reader: ./reader.js's; registry: { describe, kindOf }; tags: the tag index (registry/tag-index.js); maxSeries: MAX_SERIES; rollups: tags/rollups.js's */
export function createTaggedReads ({ reader, registry, tags, maxSeries, rollups = createRollups() }) {
  /**
   * The series of `name` the filters match, grouped by the `by` keys (null:
   * one group), read from a window starting at `from` → { kind, rollup
   * (the keys of the declared rollup read, or null), groups: [{ tags, series: [] }] }.
   * A declared rollup holding every key the filters and `by` use, begun by
   * `from`, answers with its own series, one a group (docs/tags.md#declared-rollups).
   */
  async function groupsOf (name, { filters, by }, from) {
    const kind = await registry.describe(name)
    const used = [...new Set([...filters.map(f => f.key), ...(by ?? [])])]
    const rollup = rollups.answering(name, used, from)
    let found
    if (rollup !== null) found = matchOrRefuse(() => tags.matchRollup(name, rollup.keys, filters))
    else {
      const series = filters.length ? matchOrRefuse(() => tags.match(name, filters)) : [...tags.seriesOf(name)].sort()
      // a series' tags are read only to group it
      found = series.map(s => ({ series: s, tags: by === null ? null : new Map(tagsOfSeries(s)) }))
    }
    const param = filters.length ? 'tag' : 'by'
    if (found.length > maxSeries) throw bad(param, `the filters match ${found.length} series of "${name}", over the limit MAX_SERIES = ${maxSeries}; narrow the filters${rollup === null ? ', or declare a rollup by these keys (ROLLUP_RULES)' : ''}`)
    // a distribution's series merge their histograms: one mapping (DISTRIBUTION_ACCURACY when each was first written)
    const other = found.find(({ series: s }) => registry.kindOf(s) !== undefined && registry.kindOf(s).accuracy !== kind?.accuracy)
    if (other !== undefined) throw bad(param, `series "${other.series}" keeps its histograms at another accuracy than "${name}" (DISTRIBUTION_ACCURACY changed since): read it alone`)
    const keys = rollup === null ? null : rollup.keys
    if (by === null) return { kind, rollup: keys, groups: [{ tags: null, series: found.map(f => f.series) }] }
    const groups = new Map()
    for (const { series: s, tags: own } of found) {
      const values = by.map(k => own.get(k) ?? null)
      const key = JSON.stringify(values)
      if (!groups.has(key)) groups.set(key, { values, tags: Object.fromEntries(by.map((k, i) => [k, values[i]])), series: [] })
      groups.get(key).series.push(s)
    }
    return { kind, rollup: keys, groups: [...groups.values()].sort((a, b) => byValues(a.values, b.values)).map(({ tags, series }) => ({ tags, series })) }
  }

  /** The series a read of `ranges` sums for the filters (groupsOf's one group) */
  async function seriesMatching (name, ranges, { filters }) {
    const { groups } = await groupsOf(name, { filters, by: null }, Math.min(...ranges.map(r => r.from)))
    return groups[0].series
  }

  /** Each group's answers of its series (answers: [answer, or null for a series gone] in the order of the groups' series), combined */
  function combined (groups, answers, combine) {
    let next = 0
    return groups.map(g => {
      const read = g.series.map(() => answers[next++]).filter(a => a !== null)
      return { tags: g.tags, series: read.length, ...combine(read) }
    })
  }

  return {
    /** A series of the name's matching series together (or, with by, of each group) → the name's answer shape, or { …, groups } */
    async series (name, options, selection) {
      const { shape, read: readGroups } = await reader.planSeriesOf(name, options)
      // the read covers its first point whole: a rollup answers only if it began by that point's start
      const covered = Math.min(options.from, shape.timestamps[0] ?? options.from)
      const { rollup, groups } = await groupsOf(name, selection, covered)
      const read = await readGroups(groups.map(g => g.series))
      const answered = groups.map((g, i) => ({ tags: g.tags, ...read[i] }))
      const from = rollup === null ? {} : { rollup }
      if (selection.by === null) return { ...shape, ...from, series: answered[0].series, values: answered[0].values }
      return { ...shape, ...from, groups: answered }
    },

    /** The exact total of the matching series (or of each group) → { total, count?, sum?, documents, series } or { groups, documents } */
    async total (name, options, selection) {
      const { read } = await reader.planTotalsOf(name, options)
      const { rollup, groups } = await groupsOf(name, selection, options.from)
      const answers = await read(groups.flatMap(g => g.series))
      const summed = combined(groups, answers, (read) => defined({
        total: sumOf(read, 'total') ?? 0,
        count: sumOf(read, 'count'),
        sum: sumOf(read, 'sum'),
        documents: sumOf(read, 'documents') ?? 0
      }))
      const from = rollup === null ? {} : { rollup }
      if (selection.by === null) return { ...summed[0], ...from }
      return { ...from, groups: summed.map(({ documents, ...g }) => g), documents: summed.reduce((n, g) => n + g.documents, 0) }
    },

    /**
     * The series a read of `ranges` sums for the filters (the name's
     * matching series, or a declared rollup's answering them) → [series];
     * over MAX_SERIES a 400
     */
    seriesMatching,

    /**
     * A counter's exact sums of the matching series over each of `ranges`
     * (reader.js counterTotalsOf, their documents read together, summed) → { values, documents, series }
     */
    async counterTotals (name, ranges, { filters }) {
      const answers = (await reader.counterTotalsOf(await seriesMatching(name, ranges, { filters }), ranges)).filter(a => a !== null)
      return {
        values: ranges.map((_, i) => answers.reduce((n, a) => n + a.values[i], 0)),
        documents: answers.reduce((n, a) => n + a.documents, 0),
        series: answers.length
      }
    },

    /**
     * A distribution's count of values ≤ threshold (null: its count) of the
     * matching series over each of `ranges` (reader.js thresholdCountsOf,
     * their documents read together, summed: an estimate is linear too)
     * → { values, documents, series, estimated: [bool] }
     */
    async thresholdCounts (name, ranges, { filters, threshold = null }) {
      const answers = (await reader.thresholdCountsOf(await seriesMatching(name, ranges, { filters }), ranges, { threshold })).filter(a => a !== null)
      return {
        values: ranges.map((_, i) => answers.reduce((n, a) => n + a.values[i], 0)),
        documents: answers.reduce((n, a) => n + a.documents, 0),
        series: answers.length,
        estimated: ranges.map((_, i) => answers.some(a => a.estimated[i]))
      }
    },

    /**
     * The k groups of the matching series `by` their keys with the largest
     * exact totals over [from, to) (ties by their tags, in order) →
     * { groups: [{ tags, series, total }], of (groups in all), documents }
     */
    async top (name, options, selection, k) {
      const { groups, documents, rollup } = await this.total(name, options, selection)
      // a stable sort: ties keep the groups' order (byValues)
      const ranked = [...groups].sort((a, b) => b.total - a.total)
      return { ...(rollup === undefined ? {} : { rollup }), groups: ranked.slice(0, k), of: groups.length, documents }
    },

    /** Year to date of the matching series (or of each group) → { total, sum?, months, series } or { groups } */
    async ytd (name, options, selection) {
      const { shape, read } = await reader.planYtdsOf(name, options)
      const { rollup, groups } = await groupsOf(name, selection, options.yearStart ?? Date.UTC(options.year, 0, 1))
      const answers = await read(groups.flatMap(g => g.series))
      const summed = combined(groups, answers, (read) => {
        const months = shape.months.map(({ month }, i) => {
          const held = read.map(a => a.months[i]).filter(m => m.total !== null)
          if (held.length === 0) return defined({ month, total: null, count: shape.months[i].count === undefined ? undefined : null, sum: shape.months[i].sum === undefined ? undefined : null })
          return defined({ month, total: sumOf(held, 'total'), count: sumOf(held, 'count'), sum: sumOf(held, 'sum') })
        })
        return defined({ total: months.reduce((n, m) => n + (m.total ?? 0), 0), sum: sumOf(read, 'sum'), months })
      })
      const from = rollup === null ? {} : { rollup }
      if (selection.by === null) return { ...summed[0], ...from }
      return { ...from, groups: summed }
    }
  }
}
