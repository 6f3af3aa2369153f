// GET /v1/metrics, …/series, …/total, …/ytd, …/quantiles; DELETE /v1/metrics/:metric
import { BadRequestError, NotFoundError, UnavailableError, isDatabaseError } from '../errors.js'
import { MAX_TOP, cardinalitySchema, deleteMetricSchema, listMetricsSchema, quantilesSchema, seriesSchema, tagKeysSchema, tagValuesSchema, topSchema, totalSchema, ytdSchema } from '../schemas/queries.js'
import { parseQuantilesQuery, parseSeriesQuery, parseTagSelection, parseTotalQuery, parseYtdQuery, parseZone } from './query-params.js'
import { createMetricDeletion } from '../registry/metric-deletion.js'
import { isRollupSeries } from '../tags/rollups.js'
import { isTagged, parseSeriesName } from '../tags/series-name.js'

export default async function metricsRoutes (app) {
  const { clock, registry, reader, taggedReads, writer, nameIndex } = app

  // a series name as a client writes it, its tags in any order (docs/tags.md): read and deleted as its
  // canonical name, which the answer names; one that breaks the rules is a 400 naming the rule
  app.addHook('preHandler', async (request) => {
    const metric = request.params?.metric
    if (metric === undefined || !isTagged(metric)) return
    const parsed = parseSeriesName(metric)
    if (parsed.problem) throw new BadRequestError(`metric: ${parsed.problem}`)
    request.params.metric = parsed.series
  })

  /** A 404 for a name the registry has not */
  async function requireName (metric) {
    if (!await registry.exists(metric)) throw new NotFoundError(`no metric named "${metric}"`)
  }

  // the tag listings (docs/tags.md#listings), from the in-memory tag index
  app.get('/v1/metrics/:metric/tags', { schema: tagKeysSchema }, async (request) => {
    const { metric } = request.params
    await requireName(metric)
    return { metric, series: nameIndex.tags.count(metric), keys: nameIndex.tags.keysOf(metric) }
  })

  app.get('/v1/metrics/:metric/top', { schema: topSchema }, async (request) => {
    const { metric } = request.params
    const { from, to } = parseTotalQuery(request.query)
    const k = Number(request.query.k ?? 10)
    if (k > MAX_TOP) throw new BadRequestError(`k: at most ${MAX_TOP} groups`)
    return { metric, from, to, ...await taggedReads.top(metric, { from, to }, parseTagSelection(request.query), k) }
  })

  // the names with the most series, and their keys with the most values (docs/tags.md#cardinality)
  app.get('/v1/cardinality', { schema: cardinalitySchema }, async (request) => {
    const limit = Number(request.query.limit ?? 10)
    const tags = nameIndex.tags
    const names = tags.names().sort((a, b) => b.series - a.series || (a.name < b.name ? -1 : 1)).slice(0, limit)
    return {
      metrics: registry.size(),
      series: tags.size(),
      maxMetrics: app.config.maxMetrics,
      maxSeriesPerName: app.config.maxSeriesPerName,
      names: names.map(({ name, series }) => ({ name, series, keys: tags.keysOf(name).sort((a, b) => b.values - a.values || (a.key < b.key ? -1 : 1)) }))
    }
  })

  app.get('/v1/metrics/:metric/tags/:key', { schema: tagValuesSchema }, async (request) => {
    const { metric, key } = request.params
    const { limit = '1000', after } = request.query
    await requireName(metric)
    const all = nameIndex.tags.valuesOf(metric, key)
    const start = after === undefined ? 0 : all.findIndex(v => v.value > after)
    const values = start === -1 ? [] : all.slice(start, start + Number(limit))
    const next = start !== -1 && start + values.length < all.length ? values.at(-1).value : null
    return { metric, key, values, next }
  })
  const deletion = createMetricDeletion(app.collections)

  app.get('/v1/metrics', { schema: listMetricsSchema }, async (request) => {
    const { prefix, limit = '1000', after } = request.query
    return registry.list({ prefix, limit: Number(limit), after })
  })

  app.get('/v1/metrics/:metric/series', { schema: seriesSchema }, async (request) => {
    const { metric } = request.params
    const zone = parseZone(request.query)
    const window = parseSeriesQuery(request.query, { now: clock.now() })
    const selection = parseTagSelection(request.query)
    if (selection) {
      const { step, from, to, timestamps, values, series, groups, stat, rollup } = await taggedReads.series(metric, { ...window, zone }, selection)
      return { metric, ...(stat ? { stat } : {}), step, tz: zone.name, from, to, timestamps, ...(rollup ? { rollup } : {}), ...(groups ? { groups } : { series, values }) }
    }
    const { step, from, to, timestamps, values, stat } = await reader.series(metric, { ...window, zone })
    return { metric, ...(stat ? { stat } : {}), step, tz: zone.name, from, to, timestamps, values }
  })

  app.get('/v1/metrics/:metric/quantiles', { schema: quantilesSchema }, async (request) => {
    const { metric } = request.params
    const { from, to, qs } = parseQuantilesQuery(request.query, { now: clock.now() })
    return { metric, from, to, ...await reader.quantiles(metric, { from, to, qs }) }
  })

  app.get('/v1/metrics/:metric/total', { schema: totalSchema }, async (request) => {
    const { metric } = request.params
    const { from, to } = parseTotalQuery(request.query)
    const selection = parseTagSelection(request.query)
    if (selection) return { metric, from, to, ...await taggedReads.total(metric, { from, to }, selection) }
    return { metric, from, to, ...await reader.total(metric, { from, to }) }
  })

  app.get('/v1/metrics/:metric/ytd', { schema: ytdSchema }, async (request) => {
    const { metric } = request.params
    const zone = parseZone(request.query)
    const { year, asOf, yearStart } = parseYtdQuery(request.query, { now: clock.now(), zone })
    const selection = parseTagSelection(request.query)
    if (selection) return { metric, year, tz: zone.name, asOf, ...await taggedReads.ytd(metric, { year, asOf, yearStart, zone }, selection) }
    return { metric, year, tz: zone.name, asOf, ...await reader.ytd(metric, { year, asOf, yearStart, zone }) }
  })

  app.delete('/v1/metrics/:metric', { schema: deleteMetricSchema }, async (request, reply) => {
    const { metric } = request.params
    // a gauge's level this instance's StatsD doors hold goes too: a delta after the answer starts from 0 (docs/statsd.md)
    const forgetWrites = (name) => { writer.forgetRegistryEntry(name); app.statsdGauges?.forget(name) }
    const forget = (name) => { registry.forget(name); forgetWrites(name) }
    const deleted = { registry: 0, series: 0, daily: 0, monthly: 0, minuteHours: 0 }
    try {
      // a name takes its tagged series with it (docs/tags.md#series-names): the series first, so a
      // deletion cut short leaves the name, and a DELETE sent again finds what is left; those listed
      // now, together (10,000 series one by one took minutes), and no series written since
      const series = await deletion.seriesOf(metric)
      for (const s of series) forget(s)
      const gone = await deletion.deleteSeriesOf(metric, series)
      for (const field of Object.keys(gone)) deleted[field] += gone[field]
      deleted.series = series.filter(s => !isRollupSeries(s)).length
      forget(metric)
      const own = await deletion.deleteMetric(metric)
      for (const field of Object.keys(own)) deleted[field] += own[field]
      // forgotten again, for a write of this instance's that landed meanwhile (a gauge's level, a cached
      // entry), but a name whose entry is there again, written meanwhile through any instance, stays known
      // here (the name index's looks read an entry only when it is made: it may have been made minutes ago)
      const names = [...series, metric]
      const again = await registry.learnExisting(names)
      for (const name of names) {
        forgetWrites(name)
        if (!again.has(name)) registry.forget(name)
      }
    } catch (err) {
      if (!isDatabaseError(err)) throw err
      request.log.warn({ err, metric }, 'metric deletion interrupted by a database error')
      reply.header('retry-after', 1)
      throw new UnavailableError(`the database failed while deleting "${metric}", which may be partly deleted: send the DELETE again (it is idempotent)`)
    }
    request.log.info({ metric, deleted }, 'metric deleted')
    return { metric, deleted }
  })
}
