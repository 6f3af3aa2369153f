// Limits on what a request may make the server hold, besides BODY_LIMIT_BYTES
// and MAX_EVENTS_PER_REQUEST (routes) and MAX_POINTS (queries):
//   - the HTTP server's own: header size, time to send the headers and the
//     whole request (slow clients), checked every second (serverOptions);
//   - the query string's length (414), and path parameters up to the
//     longest metric name (Fastify's maxParamLength, 414 beyond).
import fp from 'fastify-plugin'
import { errorBody } from './error-handler.js'
import { UriTooLongError } from '../errors.js'

export const MAX_QUERY_STRING_BYTES = 1024
export const MAX_HEADER_BYTES = 16 * 1024
export const MAX_PARAM_LENGTH = 200 // the longest metric name

/**
 * Fastify server options. requestTimeout bounds the time to *receive* a
 * request and is kept longer than a flush (3 × WRITE_TIMEOUT_MS), so a
 * request whose flush is in flight is never cut; headersTimeout cuts a
 * client that trickles its headers (slow loris) sooner.
 */
export function serverOptions ({ writeTimeoutMs }) {
  const requestTimeout = writeTimeoutMs * 3
  const headersTimeout = Math.min(10_000, requestTimeout)
  return {
    requestTimeout,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    http: {
      headersTimeout,
      requestTimeout,
      maxHeaderSize: MAX_HEADER_BYTES,
      // how often Node checks the two timeouts (default 30 s)
      connectionsCheckingInterval: Math.min(1000, headersTimeout)
    }
  }
}

/** The router's own refusals, in the API's error format (they bypass the error handler). */
function frameworkErrors (err, request, reply) {
  let status = err.statusCode ?? 400
  let message = err.message
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    status = 414
    message = `a path segment is longer than ${MAX_PARAM_LENGTH} characters (the longest metric name)`
  } else if (err.code === 'FST_ERR_BAD_URL') {
    message = 'the URL is malformed'
  }
  reply.code(status).send(errorBody(status, message))
}

async function requestLimits (app) {
  app.addHook('onRequest', (request, reply, done) => {
    const q = request.url.indexOf('?')
    if (q !== -1 && request.url.length - q - 1 > MAX_QUERY_STRING_BYTES) {
      return done(new UriTooLongError(`the query string is longer than ${MAX_QUERY_STRING_BYTES} bytes`))
    }
    done()
  })
}

export default fp(requestLimits, { name: 'request-limits' })
