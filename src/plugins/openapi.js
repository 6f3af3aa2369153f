// OpenAPI 3.0 document generated from the route schemas (@fastify/swagger),
// served as JSON at /docs/json (YAML at /docs/yaml) with Swagger UI at /docs.
//
// The runtime schemas stay as they are; this plugin only shapes what the
// document shows: the events body (if/then/else, which OpenAPI 3.0 lacks)
// becomes oneOf, and every operation gets examples and described errors.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { accessClass } from './auth.js'
import { readFileSync } from 'node:fs'
import { eventSchema } from '../schemas/events.js'
import { errorExamples, operationExamples } from './openapi-examples.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))

const ERROR_DESCRIPTIONS = {
  400: 'Bad request: the message says what to fix, `details` where',
  401: 'No bearer token, while tokens are configured',
  403: 'The bearer token is not allowed here',
  404: 'Not found',
  409: 'A request with this Idempotency-Key is still in flight; retry after Retry-After seconds',
  413: 'Too many events (MAX_EVENTS_PER_REQUEST) or too large a body (BODY_LIMIT_BYTES)',
  414: 'The URL is too long',
  415: 'Not the Content-Type this operation takes (the message names it)',
  422: 'This Idempotency-Key was used before with a different body',
  429: 'Rate limit of the token (or address) reached; retry after Retry-After seconds',
  431: 'The request line and headers are larger than 16 KiB (the HTTP server refuses it before any route)',
  500: 'Internal error (logged with the request id)',
  503: 'Nothing was applied (`outcome: "not_applied"`): queue full, waited too long, or the database is unreachable; safe to retry after Retry-After seconds',
  504: 'Sent and not acknowledged in time (`outcome: "unknown"`): may be partly applied'
}

// Statuses answered with Retry-After: true where it is always sent
const RETRY_AFTER = { 409: false, 429: true, 503: true, 504: false }

const retryAfterHeader = (required) => ({
  description: 'Seconds to wait before retrying',
  required,
  schema: { type: 'integer', minimum: 0 }
})

/** The event as OpenAPI 3.0 can say it: `ts` is a string or an integer, not both in one `type`. */
function documentedEvent () {
  const { ts, ...properties } = eventSchema.properties
  return {
    ...eventSchema,
    properties: {
      ...properties,
      ts: {
        description: ts.description,
        anyOf: [
          { type: 'string', pattern: ts.pattern },
          { type: 'integer', minimum: ts.minimum }
        ]
      }
    },
    examples: [{ metric: 'api.requests', value: 3, ts: '2026-11-21T10:15:00Z' }]
  }
}

const TOKEN_LISTS = { write: 'WRITE_TOKENS', read: 'READ_TOKENS', metrics: 'METRICS_TOKENS (else READ_TOKENS)' }

/**
 * Per route: a security requirement where a token list may guard it (the
 * same classification as the auth plugin; open routes get none), and the
 * events body as oneOf instead of if/then/else.
 */
function transformRoute ({ schema, url, route }, config) {
  const method = [].concat(route.method)[0]
  const access = accessClass(method, url, route.config?.access)
  if (schema && access !== 'open') {
    // optional: `{}` when the list is unset, a bearer token when it is set
    schema = { ...schema, security: [{}, { bearerAuth: [] }], description: `${schema.description ? schema.description + ' ' : ''}Needs a bearer token when ${TOKEN_LISTS[access]} is set.` }
  }
  return transformEventsBody({ schema, url, route }, config)
}

function transformEventsBody ({ schema, url, route }, { maxEventsPerRequest }) {
  if (!schema?.body || !(route.method === 'POST' && url === '/v1/events')) return { schema, url }
  const body = {
    oneOf: [
      { $ref: 'Event#' },
      { type: 'array', minItems: 1, maxItems: maxEventsPerRequest, items: { $ref: 'Event#' } }
    ]
  }
  return { schema: { ...schema, body }, url }
}

/** The whole document: examples, error descriptions, Retry-After. */
function decorateDocument (doc) {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const examples = operationExamples[`${method.toUpperCase()} ${path}`] ?? {}
      addParameterExamples(operation, examples.parameters)
      if (examples.requestBody && operation.requestBody) {
        // a body of several media types (JSON or YAML) may have examples of each: requestBody[type]
        for (const [type, media] of Object.entries(operation.requestBody.content)) media.examples = examples.requestBody[type] ?? examples.requestBody
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const code = Number(status)
        if (code >= 400 && response.description === 'Default Response') {
          response.description = ERROR_DESCRIPTIONS[code] ?? 'Error'
        } else if (code < 300 && response.description === 'Default Response') {
          response.description = 'OK'
        }
        if (RETRY_AFTER[code] !== undefined) response.headers = { 'Retry-After': retryAfterHeader(RETRY_AFTER[code]), ...response.headers }
        const example = examples.responses?.[status] ?? (code >= 400 ? errorExamples[status] : undefined)
        if (example !== undefined) {
          for (const media of Object.values(response.content ?? {})) {
            if (media.example === undefined && media.examples === undefined) media.example = example
          }
        }
      }
    }
  }
  return doc
}

function addParameterExamples (operation, examples = {}) {
  for (const parameter of operation.parameters ?? []) {
    if (examples[parameter.name] !== undefined) parameter.example = examples[parameter.name]
  }
}

const STATBUCKET_LOGO = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="150" height="32" viewBox="0 0 150 32"><text x="0" y="24" font-family="sans-serif" font-size="22" font-weight="bold" fill="#ffffff">statbucket</text></svg>')

async function openapi (app) {
  const { config } = app
  app.addSchema({ $id: 'Event', ...documentedEvent() })

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'statbucket',
        version: pkg.version,
        description: 'Per-minute metric counters in MongoDB (bucket + preallocation). ' +
          'Errors are JSON `{ statusCode, error, message, details?, outcome? }`; a rejected request (4xx) changes nothing. ' +
          'When READ_TOKENS / WRITE_TOKENS are set, send `Authorization: Bearer <token>`.'
      },
      tags: [
        { name: 'events', description: 'Ingest' },
        { name: 'metrics', description: 'Queries' },
        { name: 'slos', description: 'Calendar SLOs: OpenSLO definitions and their reports' },
        { name: 'health', description: 'Liveness and readiness' },
        { name: 'monitoring', description: 'Prometheus metrics' },
        { name: 'graphite', description: 'The Graphite API, for Grafana\'s Graphite data source' }
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'A READ_TOKENS token for reads, a WRITE_TOKENS token for writes; only when configured' }
        }
      },
      // no global requirement: each guarded operation names its own (transformRoute)
    },
    refResolver: {
      // Shared schemas keep their $id as name: #/components/schemas/error, …/Event
      buildLocalReference (json, baseUri, fragment, i) {
        return json.$id || `def-${i}`
      }
    },
    transform: route => transformRoute(route, config),
    transformObject: ({ openapiObject }) => decorateDocument(openapiObject)
  })

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No call to the public validator: the service may run on a closed network.
    uiConfig: { validatorUrl: null, deepLinking: true, displayRequestDuration: true },
    // statbucket's name, not Fastify's logo
    logo: { type: 'image/svg+xml', content: STATBUCKET_LOGO },
    theme: { title: 'statbucket API' },
    logLevel: 'warn'
  })
}

export default fp(openapi, { name: 'openapi' })
