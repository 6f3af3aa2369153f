// A metric's tag selection on the dashboard (docs/tags.md#reads): its tag
// filters, Graphite's `key=value`, `key!=value`, `key=~re`, `key!=~re`, sent
// as repeated `tag=`, and the keys it is grouped by, sent as `by=`; how it
// lives in the URL hash (`tag=<metric>;<filter>`, `by=<metric>;<k1>,<k2>`:
// a metric's name never holds `;`), and the lines a read's answer makes
// (one, or one per group, labelled by its tags). The server judges a
// filter; this only splits it for showing. Pure.
// docs/adr/0061-dashboard-tags.md

export const OPERATORS = ['=', '!=', '=~', '!=~']
const OPERATOR = /^([^!=~]*)(!=~|=~|!=|=)(.*)$/s
/** The longest tag value a label shows whole; past it, its start and … (the legend stays readable) */
export const LABEL_VALUE_LENGTH = 32

/** `expression` → { key, operator, value }, or null when it has no operator */
export function splitFilter (expression) {
  const m = OPERATOR.exec(expression)
  return m ? { key: m[1], operator: m[2], value: m[3] } : null
}

/** A filter's expression from its parts */
export const joinFilter = (key, operator, value) => `${key}${operator}${value}`

const empty = () => ({ filters: [], by: [] })
export const isEmpty = sel => sel.filters.length === 0 && sel.by.length === 0

/**
 * The selections in the hash's parameters `q` (URLSearchParams) of the
 * metrics `selected` → Map metric → { filters, by }: entries of a metric not
 * selected, or without `;`, are dropped; a filter given twice is kept once.
 */
export function readTagParams (q, selected) {
  const out = new Map()
  const of = metric => {
    if (!out.has(metric)) out.set(metric, empty())
    return out.get(metric)
  }
  const split = entry => {
    const i = entry.indexOf(';')
    return i > 0 && selected.includes(entry.slice(0, i)) ? [entry.slice(0, i), entry.slice(i + 1)] : null
  }
  for (const entry of q.getAll('tag')) {
    const parts = split(entry)
    if (parts && parts[1] && !of(parts[0]).filters.includes(parts[1])) of(parts[0]).filters.push(parts[1])
  }
  for (const entry of q.getAll('by')) {
    const parts = split(entry)
    if (parts) of(parts[0]).by = [...new Set(parts[1].split(',').filter(Boolean))]
  }
  for (const [metric, sel] of out) if (isEmpty(sel)) out.delete(metric)
  return out
}

/** Appends the selections (Map metric → { filters, by }) of the metrics `selected`, in their order, to `q` */
export function writeTagParams (q, selections, selected) {
  for (const metric of selected) {
    const sel = selections.get(metric)
    if (!sel) continue
    for (const filter of sel.filters) q.append('tag', `${metric};${filter}`)
    if (sel.by.length) q.append('by', `${metric};${sel.by.join(',')}`)
  }
}

/** A read's query parameters for a selection (none: {}): tag (an array, repeated), by (comma-separated) */
export function tagQuery (sel) {
  if (!sel || isEmpty(sel)) return {}
  return { ...(sel.filters.length ? { tag: sel.filters } : {}), ...(sel.by.length ? { by: sel.by.join(',') } : {}) }
}

const shortened = value => (value.length > LABEL_VALUE_LENGTH ? `${value.slice(0, LABEL_VALUE_LENGTH)}…` : value)

/** A group's tags ({ key: value | null }) as a label: `status=500, route=(none)` (null: the series lack the key) */
export const tagsLabel = tags => Object.entries(tags).map(([k, v]) => `${k}=${v === null ? '(none)' : shortened(v)}`).join(', ')

/** A metric's line label: its base label, then its filters in brackets, then its group's tags in braces (long values shortened) */
export function lineLabel (base, sel, groupTags = null) {
  let label = base
  if (sel?.filters.length) label += ` [${sel.filters.join(', ')}]` // the API takes at most 64 characters a filter
  if (groupTags) label += ` {${tagsLabel(groupTags)}}`
  return label
}

/**
 * The lines of one metric's answer: its values, or with `groups` one per
 * group → [{ key, tags, values }] (key: the metric, or the metric and the
 * group's tags: the line's identity, for its colour)
 */
export function linesOf (metric, answer) {
  if (!answer.groups) return [{ key: metric, tags: null, values: answer.values }]
  return answer.groups.map(g => ({ key: `${metric} ${JSON.stringify(g.tags)}`, tags: g.tags, values: g.values }))
}

/** A ytd answer with `groups` summed ({ total, months }): the groups partition the matching series */
export function ytdOfGroups (answer) {
  const months = answer.groups[0]?.months.map(({ month }, i) => {
    const held = answer.groups.map(g => g.months[i].total).filter(t => t !== null)
    return { month, total: held.length ? held.reduce((a, b) => a + b, 0) : null }
  }) ?? []
  return { ...answer, total: answer.groups.reduce((n, g) => n + g.total, 0), months }
}
