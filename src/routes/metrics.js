// GET /v1/metrics, …/series, …/total, …/ytd; DELETE /v1/metrics/:metric
import { assembleSeries, assembleYtd } from '../bucket/results.js'
import { BadRequestError, NotFoundError, UnavailableError, isDatabaseError, withDetails } from '../errors.js'
import { horizonsFor } from '../bucket/retention-horizons.js'
import { deleteMetricSchema, listMetricsSchema, seriesSchema, totalSchema, ytdSchema } from '../schemas/queries.js'
import { parseSeriesQuery, parseTotalQuery, parseYtdQuery, parseZone, ytdRefusal } from './query-params.js'
import { localSeriesValues, planLocalYtd } from '../bucket/local-plans.js'
import { RangeRefusal, evaluatePlan, planRanges } from '../bucket/range-plan.js'
import { createMetricDeletion } from '../store/metric-deletion.js'

export default async function metricsRoutes (app) {
  const { config, clock, registry, reader, layout, writer } = app
  const horizonsOf = horizonsFor(config)
  const deletion = createMetricDeletion(app.collections)

  async function requireMetric (metric) {
    if (!(await registry.exists(metric))) throw new NotFoundError(`no metric named "${metric}"`)
  }

  app.get('/v1/metrics', { schema: listMetricsSchema }, async (request) => {
    const { prefix, limit = '1000', after } = request.query
    return registry.list({ prefix, limit: Number(limit), after })
  })

  app.get('/v1/metrics/:metric/series', { schema: seriesSchema }, async (request) => {
    const { metric } = request.params
    const horizons = horizonsOf(metric, clock.now())
    const zone = parseZone(request.query)
    const query = parseSeriesQuery(request.query, { now: clock.now(), maxPoints: config.maxPoints, horizons, zone, metric, layout })
    const { step, start, end, timestamps, plan } = query
    await requireMetric(metric)
    if (plan) {
      // local hour, day and month points: one planned range each (docs/architecture.md, "Local time")
      const values = localSeriesValues(query, await reader.planDocs(plan))
      return { metric, step, tz: zone.name, from: start, to: end, timestamps, values }
    }
    const { docs, monthlyDocs } = await reader.seriesDocs(metric, step, start, end, horizons)
    return { metric, step, tz: zone.name, from: start, to: end, ...assembleSeries({ step, start, end, docs, monthlyDocs, dailyFrom: horizons.dailyFrom, layout }) }
  })

  app.get('/v1/metrics/:metric/total', { schema: totalSchema }, async (request) => {
    const { metric } = request.params
    const { from, to } = parseTotalQuery(request.query)
    let plan
    try {
      plan = planRanges(metric, [{ from, to }], horizonsOf(metric, clock.now()), layout)
    } catch (err) {
      if (!(err instanceof RangeRefusal)) throw err
      throw withDetails(new BadRequestError(err.message), { details: [{ path: err.param, message: err.message, before: err.before, after: err.after }] })
    }
    await requireMetric(metric)
    const docs = await reader.planDocs(plan)
    const [{ value }] = evaluatePlan(plan, docs)
    return { metric, from, to, total: value ?? 0, documents: docs.daily.length + docs.monthly.length }
  })

  app.get('/v1/metrics/:metric/ytd', { schema: ytdSchema }, async (request) => {
    const { metric } = request.params
    const zone = parseZone(request.query)
    const { year, asOf, yearStart } = parseYtdQuery(request.query, { now: clock.now(), zone })
    if (zone.isUtc) {
      await requireMetric(metric)
      const docs = await reader.ytdDocs(metric, year, asOf)
      return { metric, year, tz: zone.name, asOf, ...assembleYtd({ year, asOf, docs }) }
    }
    let planned
    try {
      planned = planLocalYtd(metric, zone, yearStart, asOf, { horizons: horizonsOf(metric, clock.now()), layout })
    } catch (err) {
      throw err instanceof RangeRefusal ? ytdRefusal(err, zone) : err
    }
    await requireMetric(metric)
    const values = evaluatePlan(planned.plan, await reader.planDocs(planned.plan))
    const months = planned.months.map((month, i) => ({ month, total: values[i].value }))
    return { metric, year, tz: zone.name, asOf, total: months.reduce((sum, m) => sum + (m.total ?? 0), 0), months }
  })

  app.delete('/v1/metrics/:metric', { schema: deleteMetricSchema }, async (request, reply) => {
    const { metric } = request.params
    registry.forget(metric)
    writer.forgetRegistryEntry(metric)
    let deleted
    try {
      deleted = await deletion.deleteMetric(metric)
    } catch (err) {
      if (!isDatabaseError(err)) throw err
      request.log.warn({ err, metric }, 'metric deletion interrupted by a database error')
      reply.header('retry-after', 1)
      throw new UnavailableError(`the database failed while deleting "${metric}", which may be partly deleted: send the DELETE again (it is idempotent)`)
    }
    // forgotten again: a write of this instance's that landed meanwhile may have cached it
    registry.forget(metric)
    writer.forgetRegistryEntry(metric)
    request.log.info({ metric, deleted }, 'metric deleted')
    return { metric, deleted }
  })
}
