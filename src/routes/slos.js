// GET /v1/slos, GET /v1/slos/:name/report (docs/slos.md)
import { listSlosSchema, sloReportSchema } from '../schemas/slos.js'

export default async function slosRoutes (app) {
  const { slos } = app

  app.get('/v1/slos', { schema: listSlosSchema }, async () => {
    const list = await slos.list()
    return { slos: list, documents: list.reduce((n, s) => n + s.documents, 0) }
  })

  app.get('/v1/slos/:name/report', { schema: sloReportSchema }, async (request) => {
    return slos.report(request.params.name, request.query.period)
  })
}
