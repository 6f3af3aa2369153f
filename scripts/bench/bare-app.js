// The benchmark's yardsticks share this route: POST /v1/events of the same
// shape as the service's — the same body schema (its own copy, from the same
// rules: src/bucket/event-rules.js) and validator options, the same answer.
// buildBareApp puts nothing behind it (no database, no hooks, no plugins);
// ./naive-app.js the writer a user would write without statbucket.
import Fastify from 'fastify'
import { MAX_ABS_VALUE, METRIC_NAME_PATTERN } from '../../src/bucket/event-rules.js'
import { ISO_WITH_ZONE_PATTERN } from '../../src/bucket/time.js'

const event = {
  type: 'object',
  required: ['metric'],
  additionalProperties: false,
  properties: {
    metric: { type: 'string', pattern: METRIC_NAME_PATTERN },
    value: { type: 'number', minimum: -MAX_ABS_VALUE, maximum: MAX_ABS_VALUE, default: 1 },
    ts: { type: ['string', 'integer'], pattern: ISO_WITH_ZONE_PATTERN, minimum: 0 }
  }
}

/** The route's schemas: a body of one event or an array of them, the answer { accepted } */
export const eventsRouteSchema = {
  body: { if: { type: 'array' }, then: { type: 'array', minItems: 1, items: event }, else: event },
  response: { 200: { type: 'object', required: ['accepted'], properties: { accepted: { type: 'integer' } } } }
}

/** A Fastify instance with the service's body limit and validator options, no route yet */
export function yardstickFastify (config) {
  return Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, allowUnionTypes: true } }
  })
}

export async function buildBareApp (config) {
  const app = yardstickFastify(config)
  app.post('/v1/events', { schema: eventsRouteSchema }, async (request) => ({ accepted: Array.isArray(request.body) ? request.body.length : 1 }))
  await app.ready()
  return app
}
