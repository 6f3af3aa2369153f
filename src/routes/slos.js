// GET /v1/slos, GET /v1/slos/:name/report, PUT and DELETE /v1/slos/:name (docs/slos.md)
import { YAML_TYPES, deleteSloSchema, listSlosSchema, putSloSchema, sloReportSchema } from '../schemas/slos.js'
import { MAX_SLO_BODY_BYTES } from '../slos/definitions.js'
import { acceptsOnly } from './content-type.js'
import { schemaErrorFormatterOf } from '../schemas/validation-errors.js'

export default async function slosRoutes (app) {
  const { slos } = app

  app.get('/v1/slos', { schema: listSlosSchema }, async () => {
    const list = await slos.list()
    return { slos: list, documents: list.reduce((n, s) => n + s.documents, 0) }
  })

  app.get('/v1/slos/:name/report', { schema: sloReportSchema }, async (request) => {
    return slos.report(request.params.name, request.query.period)
  })

  // JSON, or the YAML of SLO_FILE, one document: with a YAML type or none (`curl -T slo.yaml`), read as text
  // and parsed within SLO_FILE's budget (but MAX_SLO_BODY_BYTES) by the service; any other type is a 415 before the body is read
  await app.register(async function putSlo (scope) {
    scope.addContentTypeParser([...YAML_TYPES, '*'], { parseAs: 'string' }, (request, body, done) => done(null, body))
    scope.put('/v1/slos/:name', {
      schema: putSloSchema,
      bodyLimit: MAX_SLO_BODY_BYTES,
      // its errors name the document, and a body that is not JSON asks for one (plugins/error-handler.js)
      schemaErrorFormatter: schemaErrorFormatterOf('(document)'),
      config: { bodyHint: 'send one OpenSLO SLO document as JSON or YAML' },
      onRequest: acceptsOnly(['application/json', ...YAML_TYPES], 'the OpenSLO document as JSON or YAML', { orNone: true })
    }, async (request) => slos.put(request.params.name, request.body))
  })

  app.delete('/v1/slos/:name', { schema: deleteSloSchema }, async (request) => slos.delete(request.params.name))
}
