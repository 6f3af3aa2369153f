// One error handler: 4xx carry a message the client can act on; database
// failures answer 503 with Retry-After; other 5xx are logged and hidden.
import fp from 'fastify-plugin'
import { STATUS_CODES } from 'node:http'
import { isDatabaseError } from '../errors.js'

/** The one shape of every error answer: { statusCode, error, message, details?, outcome? } */
export function errorBody (status, message, extra = {}) {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message, ...extra }
}

async function errorHandler (app) {
  app.setErrorHandler((err, request, reply) => {
    let status = err.statusCode ?? 500
    let message = err.message
    const body = {}
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit ?? app.config.bodyLimitBytes
      // a route of its own limit (PUT /v1/slos/:name: an SLO document) names it, not BODY_LIMIT_BYTES
      message = limit === app.config.bodyLimitBytes
        ? `the body is larger than BODY_LIMIT_BYTES = ${app.config.bodyLimitBytes} bytes; split the batch`
        : `the body is larger than ${limit} bytes, the limit of ${request.method} ${request.routeOptions.url}`
    } else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      message = 'send the events as JSON with Content-Type: application/json'
    } else if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      message = `the body is empty; ${request.routeOptions?.config?.bodyHint ?? 'send one event or an array of events as JSON'}`
    } else if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (status === 400 && err instanceof SyntaxError)) {
      // Fastify's parser also refuses a __proto__ or constructor.prototype key anywhere in a body (a tag key too), under the same code
      message = `the body is not valid JSON, or holds a __proto__ key (refused anywhere); ${request.routeOptions?.config?.bodyHint ?? 'send one event or an array of events, e.g. {"metric":"api.requests","value":1}'}`
    }
    if (isDatabaseError(err)) {
      status = 503
      message = 'the database is unavailable; retry later'
      body.outcome = 'not_applied' // raised before any write of this request was sent
      reply.header('retry-after', 1)
      request.log.warn({ err }, 'database error')
    } else if (err.outcome !== undefined) {
      // an expected answer of the writer (queue full, shutting down, not acknowledged): no stack
      request.log.warn({ outcome: err.outcome, statusCode: status }, message)
    } else if (status >= 500) {
      if (status === 500) message = 'internal error'
      request.log.error({ err }, 'request failed')
    }
    // a driver error carries the fields of the server's reply: none of them is the client's
    if (!isDatabaseError(err)) {
      if (err.details !== undefined) body.details = err.details
      if (err.outcome !== undefined) body.outcome = err.outcome
    }
    reply.code(status).send(errorBody(status, message, body))
  })

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody(404, `no route ${request.method} ${request.url.split('?')[0]}`))
  })
}

export default fp(errorHandler, { name: 'error-handler' })
