// Reads by tag (docs/tags.md#reads): a name's series that `tag=` filters
// match, summed at read time, or grouped `by` tag keys, each group summed.
// Every series is read through the one read path (./reader.js), so a
// group's answer is exact as each series' is; the name's own read gives
// the shape (and the 400 of a bad window, the 404 of no such name) even
// when no series matches. A read is bounded: at most MAX_SERIES series.
import { BadRequestError, NotFoundError, withDetails } from '../errors.js'
import { descriptorOf } from '../kinds/index.js'
import { tagsOfSeries } from '../tags/series-name.js'

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

/** reader: ./reader.js's; registry: { describe }; tags: the tag index (registry/tag-index.js); maxSeries: MAX_SERIES */
export function createTaggedReads ({ reader, registry, tags, maxSeries }) {
  /** The series of `name` the filters match, grouped by the `by` keys (null: one group) → [{ tags, series: [] }] */
  async function groupsOf (name, { filters, by }) {
    const kind = await registry.describe(name)
    // a name of a kind whose reads are not sums is read series by series (docs/tags.md#reads)
    if (kind !== null && descriptorOf(kind)?.name !== 'counter') {
      throw bad(filters.length ? 'tag' : 'by', `metric "${name}" is a ${kind.kind}: tag filters and by read a counter's series in this version; read a ${kind.kind}'s series one by one (GET /v1/metrics/${name};key=value/series)`)
    }
    const series = filters.length ? tags.match(name, filters) : [...tags.seriesOf(name)].sort()
    if (series.length > maxSeries) throw bad(filters.length ? 'tag' : 'by', `the filters match ${series.length} series of "${name}", over the limit MAX_SERIES = ${maxSeries}; narrow the filters`)
    if (by === null) return [{ tags: null, series }]
    const groups = new Map()
    for (const s of series) {
      const own = new Map(tagsOfSeries(s))
      const groupTags = Object.fromEntries(by.map(k => [k, own.get(k) ?? null]))
      const key = JSON.stringify(by.map(k => groupTags[k]))
      if (!groups.has(key)) groups.set(key, { tags: groupTags, series: [] })
      groups.get(key).series.push(s)
    }
    return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g)
  }

  /**
   * Each group's reads of its series, combined. A series deleted since the
   * index listed it (through another instance) is no longer one of them.
   */
  async function perGroup (groups, read, combine) {
    const all = groups.flatMap(g => g.series)
    const results = await mapLimited(all, READS_AT_ONCE, s => read(s).catch(err => {
      if (err instanceof NotFoundError) return null
      throw err
    }))
    const bySeries = new Map(all.map((s, i) => [s, results[i]]))
    return groups.map(g => {
      const answers = g.series.map(s => bySeries.get(s)).filter(a => a !== null)
      return { tags: g.tags, series: answers.length, ...combine(answers) }
    })
  }

  return {
    /** A series of the name's matching series summed (or, with by, of each group) → the name's answer shape, values summed, or { …, groups } */
    async series (name, options, selection) {
      const shape = await reader.series(name, options)
      const groups = await groupsOf(name, selection)
      const window = { from: options.from, to: options.to, step: shape.step, zone: options.zone }
      const summed = await perGroup(groups, s => reader.series(s, window), (answers) => ({
        values: answers.reduce((into, a) => addValues(into, a.values), shape.values.map(() => null))
      }))
      const { values, ...rest } = shape
      if (selection.by === null) return { ...rest, series: summed[0].series, values: summed[0].values }
      return { ...rest, groups: summed }
    },

    /** The exact total of the matching series (or of each group) → { total, documents, series } or { groups, documents } */
    async total (name, options, selection) {
      await reader.total(name, options)
      const groups = await groupsOf(name, selection)
      const summed = await perGroup(groups, s => reader.total(s, options), (answers) => ({
        total: answers.reduce((n, a) => n + a.total, 0),
        documents: answers.reduce((n, a) => n + a.documents, 0)
      }))
      if (selection.by === null) return summed[0]
      return { groups: summed.map(({ documents, ...g }) => g), documents: summed.reduce((n, g) => n + g.documents, 0) }
    },

    /**
     * The k groups of the matching series `by` their keys with the largest
     * exact totals over [from, to) (ties by their tags, in order) →
     * { groups: [{ tags, series, total }], of (groups in all), documents }
     */
    async top (name, options, selection, k) {
      const { groups, documents } = await this.total(name, options, selection)
      const ranked = [...groups].sort((a, b) => b.total - a.total || (JSON.stringify(a.tags) < JSON.stringify(b.tags) ? -1 : 1))
      return { groups: ranked.slice(0, k), of: groups.length, documents }
    },

    /** Year to date of the matching series (or of each group) → { total, months, series } or { groups } */
    async ytd (name, options, selection) {
      const shape = await reader.ytd(name, options)
      const groups = await groupsOf(name, selection)
      const summed = await perGroup(groups, s => reader.ytd(s, options), (answers) => {
        const months = shape.months.map(({ month }, i) => {
          const totals = answers.map(a => a.months[i].total).filter(t => t !== null)
          return { month, total: totals.length ? totals.reduce((n, t) => n + t, 0) : null }
        })
        return { total: months.reduce((n, m) => n + (m.total ?? 0), 0), months }
      })
      if (selection.by === null) return summed[0]
      return { groups: summed }
    }
  }
}
