// Reads by tag (docs/tags.md#reads): a name's series that `tag=` filters
// match, read together, or grouped `by` tag keys, each group read together.
// A counter's series are read through the one read path (./reader.js) and
// summed; a distribution's and a gauge's are merged point by point, as a
// point merges its tiers (a distribution's percentiles from the merged
// histograms), so each group's answer is exact as one series' is. The
// name's own read gives the shape (and the 400 of a bad window or stat, the
// 404 of no such name) even when no series matches. A read is bounded: at
// most MAX_SERIES series.
import { BadRequestError, NotFoundError, withDetails } from '../errors.js'
import { descriptorOf } from '../kinds/index.js'
import { tagsOfSeries } from '../tags/series-name.js'
import { createRollups } from '../tags/rollups.js'

const READS_AT_ONCE = 8

function bad (param, message) {
  return withDetails(new BadRequestError(`${param}: ${message}`), { details: [{ path: param, message }] })
}

/** fn over every item, at most `width` at once, results in order */
async function mapLimited (items, width, fn) {
  const results = new Array(items.length)
  let next = 0
  const worker = async () => { while (next < items.length) { const i = next++; results[i] = await fn(items[i]) } }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker))
  return results
}

/** Pointwise sums of value arrays (null where every series is null) */
function addValues (into, values) {
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== null) into[i] = (into[i] ?? 0) + values[i]
  }
  return into
}

/** The sum of a field over answers; undefined where none has it (a counter's answers have no count or sum) */
const sumOf = (answers, field) => (answers.some(a => a[field] !== undefined) ? answers.reduce((n, a) => n + (a[field] ?? 0), 0) : undefined)
const defined = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined))

/** A series read of a missing series (deleted through another instance since the index listed it): no longer one of them */
const unlessGone = (err) => {
  if (err instanceof NotFoundError) return null
  throw err
}

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
    if (rollup !== null) found = tags.matchRollup(name, rollup.keys, filters)
    else {
      const series = filters.length ? tags.match(name, filters) : [...tags.seriesOf(name)].sort()
      found = series.map(s => ({ series: s, tags: new Map(tagsOfSeries(s)) }))
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
      const groupTags = Object.fromEntries(by.map(k => [k, own.get(k) ?? null]))
      const key = JSON.stringify(by.map(k => groupTags[k]))
      if (!groups.has(key)) groups.set(key, { tags: groupTags, series: [] })
      groups.get(key).series.push(s)
    }
    return { kind, rollup: keys, groups: [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g) }
  }

  /** Each group's reads of its series, one read a series, combined */
  async function perSeries (groups, read, combine) {
    const all = groups.flatMap(g => g.series)
    const results = await mapLimited(all, READS_AT_ONCE, s => read(s).catch(unlessGone))
    const bySeries = new Map(all.map((s, i) => [s, results[i]]))
    return groups.map(g => {
      const answers = g.series.map(s => bySeries.get(s)).filter(a => a !== null)
      return { tags: g.tags, series: answers.length, ...combine(answers) }
    })
  }

  return {
    /** A series of the name's matching series together (or, with by, of each group) → the name's answer shape, or { …, groups } */
    async series (name, options, selection) {
      const shape = await reader.series(name, options)
      const { kind, rollup, groups } = await groupsOf(name, selection, options.from)
      const window = { from: options.from, to: options.to, step: shape.step, zone: options.zone }
      const nulls = () => shape.values.map(() => null)
      let read
      if (descriptorOf(kind).stats.default === null) {
        // a counter: its series summed
        read = await perSeries(groups, s => reader.series(s, window), (answers) => ({ values: answers.reduce((into, a) => addValues(into, a.values), nulls()) }))
      } else {
        // a kind with stats: each group's series merged point by point
        const stat = options.stat
        read = []
        for (const g of groups) {
          const present = g.series.filter(s => registry.kindOf(s) !== undefined)
          const values = present.length ? (await reader.statSeriesOf(present, kind, { ...window, stat })).values : nulls()
          read.push({ tags: g.tags, series: present.length, values })
        }
      }
      const { values, ...rest } = shape
      const from = rollup === null ? {} : { rollup }
      if (selection.by === null) return { ...rest, ...from, series: read[0].series, values: read[0].values }
      return { ...rest, ...from, groups: read }
    },

    /** The exact total of the matching series (or of each group) → { total, count?, sum?, documents, series } or { groups, documents } */
    async total (name, options, selection) {
      await reader.total(name, options)
      const { rollup, groups } = await groupsOf(name, selection, options.from)
      const summed = await perSeries(groups, s => reader.total(s, options), (answers) => defined({
        total: sumOf(answers, 'total') ?? 0,
        count: sumOf(answers, 'count'),
        sum: sumOf(answers, 'sum'),
        documents: sumOf(answers, 'documents') ?? 0
      }))
      const from = rollup === null ? {} : { rollup }
      if (selection.by === null) return { ...summed[0], ...from }
      return { ...from, groups: summed.map(({ documents, ...g }) => g), documents: summed.reduce((n, g) => n + g.documents, 0) }
    },

    /**
     * The k groups of the matching series `by` their keys with the largest
     * exact totals over [from, to) (ties by their tags, in order) →
     * { groups: [{ tags, series, total }], of (groups in all), documents }
     */
    async top (name, options, selection, k) {
      const { groups, documents, rollup } = await this.total(name, options, selection)
      const ranked = [...groups].sort((a, b) => b.total - a.total || (JSON.stringify(a.tags) < JSON.stringify(b.tags) ? -1 : 1))
      return { ...(rollup === undefined ? {} : { rollup }), groups: ranked.slice(0, k), of: groups.length, documents }
    },

    /** Year to date of the matching series (or of each group) → { total, sum?, months, series } or { groups } */
    async ytd (name, options, selection) {
      const shape = await reader.ytd(name, options)
      const { rollup, groups } = await groupsOf(name, selection, options.yearStart ?? Date.UTC(options.year, 0, 1))
      const summed = await perSeries(groups, s => reader.ytd(s, options), (answers) => {
        const months = shape.months.map(({ month }, i) => {
          const held = answers.map(a => a.months[i]).filter(m => m.total !== null)
          if (held.length === 0) return defined({ month, total: null, count: shape.months[i].count === undefined ? undefined : null, sum: shape.months[i].sum === undefined ? undefined : null })
          return defined({ month, total: sumOf(held, 'total'), count: sumOf(held, 'count'), sum: sumOf(held, 'sum') })
        })
        return defined({ total: months.reduce((n, m) => n + (m.total ?? 0), 0), sum: sumOf(answers, 'sum'), months })
      })
      const from = rollup === null ? {} : { rollup }
      if (selection.by === null) return { ...summed[0], ...from }
      return { ...from, groups: summed }
    }
  }
}
