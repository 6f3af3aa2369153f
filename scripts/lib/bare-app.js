// The benchmark's yardstick: a bare Fastify route of the same shape as
// POST /v1/events — the same body schema and validator options, the same
// answer — with nothing behind it (no database, no hooks, no plugins).
import Fastify from 'fastify'
import { errorSchema } from '../../src/schemas/common.js'
import { postEventsSchema } from '../../src/schemas/events.js'

export async function buildBareApp (config) {
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, allowUnionTypes: true } }
  })
  app.addSchema(errorSchema)
  app.post('/v1/events', { schema: postEventsSchema }, async (request) => ({ accepted: Array.isArray(request.body) ? request.body.length : 1 }))
  await app.ready()
  return app
}
