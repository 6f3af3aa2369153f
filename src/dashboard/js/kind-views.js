// What the dashboard shows of a metric, decided from its kind as GET
// /v1/kinds describes it (src/kinds/*.js, docs/adr/0053-dashboard-kinds.md):
// the panels it gets, its badge in the list, its series' label, and its y
// axis: what a point is, per which step, from 0 where points are sums. No
// kind is named here: a kind added to the service shows without a change.
// Pure.

/**
 * answer: GET /v1/kinds ({ kinds: [{ name, stats, defaultStat, percentiles,
 * reads, point, consolidation }] }, the default kind first). kindOf(name):
 * the kind of that name; the default kind for none (a registry entry
 * without a kind) or one the answer does not hold.
 */
export function kindBook ({ kinds }) {
  const byName = new Map(kinds.map(k => [k.name, k]))
  return { kinds, kindOf: name => byName.get(name) ?? kinds[0] }
}

/** The panels besides the series chart a metric of `kind` gets: the latency panel (its percentiles), the year to date */
export const panelsOf = kind => ({ latency: kind.percentiles, ytd: kind.reads.ytd })

/** The names of `names` whose kind (kindOf(name): a kind of the book) gets `panel` ('latency', 'ytd'), in their order */
export const namesWithPanel = (names, kindOf, panel) => names.filter(n => panelsOf(kindOf(n))[panel])

/** A metric's badge in the list: the kind's name, and what a point of it is */
export const badgeOf = kind => ({ text: kind.name, title: `${kind.name}: a point is its ${kind.point}` })

/** The series chart's label of a metric's default series: its default stat named, where the kind has one */
export const seriesLabel = (metric, kind) => (kind.defaultStat ? `${metric} (${kind.defaultStat})` : metric)

/** What a point of the kind's default series is at `step` ('count per minute', 'level') */
export const axisLabel = (kind, step) => kind.point.replace(/\bstep\b/, step)

/**
 * The y axes of a chart of metrics of `kinds` (one per series) at `step`:
 * one per label, in the order first used, from 0 where the points are sums
 * (and so counts); axisOf: each series' axis.
 */
export function chartAxes (kinds, step) {
  const axes = []
  const axisOf = kinds.map(kind => {
    const label = axisLabel(kind, step)
    let i = axes.findIndex(a => a.label === label)
    if (i === -1) i = axes.push({ label, fromZero: kind.consolidation === 'sum' }) - 1
    return i
  })
  return { axes, axisOf }
}
