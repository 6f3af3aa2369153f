// A Graphite time series and what graphite-web does to every series
// (render/datalib.py TimeSeries): consolidation by valuesPerPoint and the
// [value, timestamp] pairs of the JSON answer. Pure; times in epoch seconds.

export const CONSOLIDATIONS = {
  sum: values => values.reduce((a, b) => a + b, 0),
  average: values => values.reduce((a, b) => a + b, 0) / values.length,
  avg: values => values.reduce((a, b) => a + b, 0) / values.length,
  avg_zero: values => values.reduce((a, b) => a + b, 0) / values.length,
  max: values => Math.max(...values),
  min: values => Math.min(...values),
  first: values => values[0],
  last: values => values[values.length - 1]
}

// graphite-web's TimeSeries without tags: a name that looks like a call is its tag `name`; any other
// is parsed as carbon's `name;tag=value;…` (TaggedSeries.parse_carbon), and is its tag `name` where that fails
// (Python's re.match('^[a-z]+[(].+[)]$', name, re.IGNORECASE): . stops at \n, $ may precede a last \n)
const CALL_RE = /^[a-z]+[(][^\n]+[)]\n?$/iu

/** The tags graphite-web gives a series made under `name` without tags (render/datalib.py TimeSeries.__init__) */
export function nameTags (name) {
  if (CALL_RE.test(name)) return { name }
  const [metric, ...segments] = name.split(';')
  const tags = new Map()
  for (const segment of segments) {
    const at = segment.indexOf('=')
    const value = segment.slice(at + 1)
    if (at < 1 || value === '' || /[!^]/.test(segment.slice(0, at)) || value[0] === '~') return { name }
    tags.set(segment.slice(0, at), value)
  }
  const sanitized = metric.replace(/^~+/, '')
  if (sanitized === '') return { name }
  tags.set('name', sanitized)
  // fromEntries: a tag such as __proto__ is a tag like any other
  return Object.fromEntries(tags)
}

/**
 * tags: { name, …tags } of a tagged series (seriesByTag, groupByTags, an
 * aggregate); without them, the tags graphite-web gives its name (nameTags).
 * A series keeps its tags through the functions, as graphite-web's: an alias
 * renames it, not its tag `name` (withTags adds a function's own).
 */
export function makeSeries ({ name, start, end, step, values, consolidationFunc, pathExpression, tags }) {
  return { name, start, end, step, values, consolidationFunc, valuesPerPoint: 1, pathExpression: pathExpression ?? name, tags: tags ?? nameTags(name) }
}

/** A series' tags as graphite-web's JSON answer carries them */
export const tagsOf = series => series.tags ?? nameTags(series.name)

/**
 * The tags of `series` with the function's added, each value a string as
 * graphite-web's Tags stores it (`series.tags['summarize'] = intervalString`);
 * a new object, never the series' own (an evaluation may be shared)
 */
export const withTags = (series, added) => {
  const tags = { ...tagsOf(series) }
  for (const [tag, value] of Object.entries(added)) tags[tag] = String(value)
  return tags
}

/**
 * Whether a series still holds the points a distribution's stat leaf fetched
 * (metric-source.js): its `regroup` describes exactly its values. A function
 * that computes new values makes a new array, so the description no longer
 * applies; consolidateBy drops it.
 */
export const regroupable = series => series.regroup !== undefined && series.regroup.values === series.values

/** series.copy(): a new series (its pathExpression is its name, as in graphite-web) */
export function copySeries (series, changes) {
  const copy = { ...series, ...changes, valuesPerPoint: 1 }
  copy.pathExpression = copy.name
  return copy
}

/** The values as graphite-web iterates them: consolidated by valuesPerPoint, xFilesFactor 0 */
export function valuesOf (series) {
  const per = series.valuesPerPoint
  if (per <= 1) return series.values
  const cf = CONSOLIDATIONS[series.consolidationFunc]
  const out = []
  for (let i = 0; i < series.values.length; i += per) {
    const chunk = series.values.slice(i, i + per)
    const usable = series.consolidationFunc === 'avg_zero' ? chunk.map(v => v ?? 0) : chunk.filter(v => v !== null)
    out.push(chunk.some(v => v !== null) ? cf(usable) : null)
  }
  return out
}

/** [[value, timestamp]…]: values zipped with range(start, end + 1, step × valuesPerPoint) */
export function datapoints (series) {
  const values = valuesOf(series)
  const stride = series.step * series.valuesPerPoint
  const points = []
  // a value that overflowed (±Infinity, NaN from Infinity − Infinity) has no JSON number: it is null
  for (let i = 0, t = series.start; i < values.length && t <= series.end; i++, t += stride) points.push([Number.isFinite(values[i]) ? values[i] : null, t])
  return points
}

/**
 * maxDataPoints as render/views.py renderViewJson applies it: every series
 * consolidated so the common time range has at most maxDataPoints points,
 * start nudged so bands align from call to call.
 */
export function applyMaxDataPoints (seriesList, maxDataPoints) {
  if (!seriesList.length || !maxDataPoints) return seriesList
  const startTime = Math.min(...seriesList.map(s => s.start))
  const endTime = Math.max(...seriesList.map(s => s.end))
  const timeRange = endTime - startTime
  return seriesList.map(original => {
    const series = { ...original, values: [...original.values] }
    // a stat leaf's description follows its points: the copy, less the values dropped below
    const keepRegroup = (dropped) => { if (regroupable(original)) series.regroup = { ...original.regroup, values: series.values, offset: original.regroup.offset + dropped } }
    if (maxDataPoints === 1) {
      series.valuesPerPoint = series.values.length
      keepRegroup(0)
      return series
    }
    const numberOfDataPoints = timeRange / series.step
    if (maxDataPoints < numberOfDataPoints) {
      const valuesPerPoint = Math.ceil(numberOfDataPoints / maxDataPoints)
      const secondsPerPoint = Math.trunc(valuesPerPoint * series.step)
      const nudge = secondsPerPoint + pyMod(series.start, series.step) - pyMod(series.start, secondsPerPoint)
      series.start += nudge
      const valuesToLose = Math.trunc(nudge / series.step)
      // graphite-web deletes valuesToLose - 1 values (range(1, valuesToLose))
      if (valuesToLose > 1) series.values.splice(0, valuesToLose - 1)
      series.valuesPerPoint = valuesPerPoint
      keepRegroup(Math.max(0, valuesToLose - 1))
    }
    return series
  })
}

export const pyMod = (a, b) => ((a % b) + b) % b
