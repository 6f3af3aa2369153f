// The benchmark's yardstick: a bare Fastify route of the same shape as
// POST /v1/events — the same body schema (its own copy, from the same
// rules: src/bucket/event-rules.js) and validator options, the same answer —
// with nothing behind it (no database, no hooks, no plugins).
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

const schema = {
  body: { if: { type: 'array' }, then: { type: 'array', minItems: 1, items: event }, else: event },
  response: { 200: { type: 'object', required: ['accepted'], properties: { accepted: { type: 'integer' } } } }
}

export async function buildBareApp (config) {
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, allowUnionTypes: true } }
  })
  app.post('/v1/events', { schema }, async (request) => ({ accepted: Array.isArray(request.body) ? request.body.length : 1 }))
  await app.ready()
  return app
}
