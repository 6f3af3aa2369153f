// Graphite's tag functions, as graphite-web 1.1.10 computes them
// (render/functions.py seriesByTag, groupByTags; aliasByTags is aliasByNode,
// ./functions.js). seriesByTag asks the tag database (ctx.tagDb, ./tag-db.js)
// and reads the series it finds (ctx.fetchTagged, ./metric-source.js);
// groupByTags is pure.
import { TargetValueError, aggregateSeries, aggregation } from './aggregations.js'
import { tagsOf } from './series.js'
import { byCodePoint } from '../tags/code-point-order.js'

/**
 * seriesByTag('tag=spec', …): the tagged series every expression matches,
 * each named by its canonical name and carrying its tags; its path
 * expression is the call as written, as graphite-web's.
 */
export async function seriesByTag (ctx, args) {
  const expressions = args.rest(0, 'string')
  const found = await ctx.tagDb.findSeries(expressions, { maxSeries: ctx.maxSeries, what: args.raw })
  if (!found.length) return []
  return ctx.fetchTagged(found, args.raw, ctx)
}

// groupByTags' callback: an aggregation, or the series function of one (sumSeries, …)
const SERIES_FUNCTIONS = { sumSeries: 'sum', averageSeries: 'average', maxSeries: 'max', minSeries: 'min' }

/** The canonical tags of a name groupByTags made (TaggedSeries.parse); a tag without a value fails there, as in graphite-web */
function parseKey (key) {
  const [name, ...segments] = key.split(';')
  const tags = { name }
  for (const segment of segments) {
    const at = segment.indexOf('=')
    const tag = segment.slice(0, at)
    if (at === segment.length - 1) throw new TargetValueError(`groupByTags: a series of the list has no tag "${tag}", and a tag's value may not be empty (graphite-web fails here too); select only series that have it (seriesByTag('${tag}!=', …))`)
    tags[tag] = segment.slice(at + 1)
  }
  return tags
}

/**
 * groupByTags(seriesList, callback, *tags): the series grouped by their
 * values of the tags, each group aggregated by the callback into a series
 * named `name;tag=value;…` (the name: the series' common name, else the
 * callback; with the tag `name` among the tags, each series' own name), in
 * the order the groups first appear.
 */
export function groupByTags (ctx, args) {
  const seriesList = args.seriesList(0)
  const callback = args.string(1, 'callback')
  const tags = args.rest(2, 'string')
  if (!tags.length) throw new TargetValueError('groupByTags(): no tags specified')
  const aggregatedBy = Object.hasOwn(SERIES_FUNCTIONS, callback) ? SERIES_FUNCTIONS[callback] : callback
  const aggregate = aggregation(aggregatedBy)
  const byName = tags.includes('name')
  const names = new Set(seriesList.map(s => tagsOf(s).name))
  const common = names.size === 1 ? [...names][0] : callback
  const groups = new Map()
  for (const series of seriesList) {
    const own = tagsOf(series)
    const pairs = tags.filter(t => !byName || t !== 'name').map(t => `${t}=${Object.hasOwn(own, t) ? own[t] : ''}`).sort(byCodePoint)
    const key = [byName ? own.name : common, ...pairs].join(';')
    if (!groups.has(key)) groups.set(key, [])
    groups.get(key).push(series)
  }
  return [...groups].map(([key, members]) => {
    const series = aggregateSeries(members, aggregate, { name: key, consolidationFunc: ctx.defaultConsolidation, aggregatedBy })
    series.tags = parseKey(key)
    return series
  })
}
