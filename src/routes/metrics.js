// GET /v1/metrics, …/series, …/ytd
import { assembleSeries, assembleYtd } from '../bucket/results.js'
import { NotFoundError } from '../errors.js'
import { listMetricsSchema, seriesSchema, ytdSchema } from '../schemas/queries.js'
import { parseSeriesQuery, parseYtdQuery } from './query-params.js'

export default async function metricsRoutes (app) {
  const { config, clock, registry, reader, layout } = app

  async function requireMetric (metric) {
    if (!(await registry.exists(metric))) throw new NotFoundError(`no metric named "${metric}"`)
  }

  app.get('/v1/metrics', { schema: listMetricsSchema }, async (request) => {
    const { prefix, limit = '1000', after } = request.query
    return registry.list({ prefix, limit: Number(limit), after })
  })

  app.get('/v1/metrics/:metric/series', { schema: seriesSchema }, async (request) => {
    const { metric } = request.params
    const { step, start, end } = parseSeriesQuery(request.query, { now: clock.now(), maxPoints: config.maxPoints })
    await requireMetric(metric)
    const docs = await reader.seriesDocs(metric, step, start, end)
    return { metric, step, from: start, to: end, ...assembleSeries({ step, start, end, docs, layout }) }
  })

  app.get('/v1/metrics/:metric/ytd', { schema: ytdSchema }, async (request) => {
    const { metric } = request.params
    const { year, asOf } = parseYtdQuery(request.query, { now: clock.now() })
    await requireMetric(metric)
    const docs = await reader.ytdDocs(metric, year, asOf)
    return { metric, year, asOf, ...assembleYtd({ year, asOf, docs }) }
  })
}
