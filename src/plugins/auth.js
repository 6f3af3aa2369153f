// Access: optional bearer tokens and an optional per-token rate limit.
//
//   POST (any non-GET) /v1/…  WRITE_TOKENS
//   GET /v1/…                 READ_TOKENS
//   GET /metrics              METRICS_TOKENS, or READ_TOKENS when that is unset
//   anything else             open: /healthz, /readyz, the dashboard's static
//                             files, /docs (the page asks for a token and
//                             sends it with its API calls)
// A class whose token list is empty is open. No token: 401 with
// WWW-Authenticate; a token that is not in the list: 403. Tokens are compared
// as SHA-256 digests with crypto.timingSafeEqual, every configured token each
// time, so neither the length nor the first differing byte shows in the time
// taken. Tokens never reach the log (LOG_REDACT_PATHS).
import rateLimit from '@fastify/rate-limit'
import fp from 'fastify-plugin'
import { createHash, timingSafeEqual } from 'node:crypto'
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from '../errors.js'

/** pino `redact` paths: wherever a request's headers may be logged */
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'request.headers.authorization',
  'headers.authorization',
  '*.headers.authorization'
]

const digest = text => createHash('sha256').update(text, 'utf8').digest()

/** → (presented token) => its identity ('t:' + digest prefix) or null; constant time in the tokens' content */
export function tokenMatcher (tokens) {
  const digests = tokens.map(digest)
  return presented => {
    const candidate = digest(presented)
    let match = -1
    for (let i = 0; i < digests.length; i++) {
      if (timingSafeEqual(digests[i], candidate) && match === -1) match = i
    }
    return match === -1 ? null : 't:' + digests[match].toString('hex').slice(0, 16)
  }
}

/**
 * Which token list guards a request: 'write' | 'read' | 'metrics' | 'open'.
 * target is the pattern of the route the router matched (request.routeOptions.url),
 * never the raw URL: the router decodes paths (/%761/events is /v1/events),
 * so only the matched route says what a request reaches. Without a route
 * (a 404) it is the decoded path, so an unknown /v1 path tells a stranger nothing.
 */
export function accessClass (method, target, routeAccess) {
  if (routeAccess) return routeAccess
  if (target === '/metrics') return 'metrics'
  if (target.startsWith('/v1/') || target === '/v1') return method === 'GET' || method === 'HEAD' ? 'read' : 'write'
  return 'open'
}

function decodedPath (url) {
  const path = url.split('?')[0]
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

const accessOf = request =>
  accessClass(request.method, request.routeOptions.url ?? decodedPath(request.url), request.routeOptions.config?.access)

const BEARER = /^Bearer +([^\s]+) *$/i

async function auth (app) {
  const { config } = app
  const lists = {
    write: config.writeTokens,
    read: config.readTokens,
    metrics: config.metricsTokens ?? config.readTokens
  }
  const matchers = Object.fromEntries(Object.entries(lists).map(([k, tokens]) => [k, tokens.length ? tokenMatcher(tokens) : null]))
  const names = { write: 'WRITE_TOKENS', read: 'READ_TOKENS', metrics: config.metricsTokens ? 'METRICS_TOKENS' : 'READ_TOKENS' }

  app.decorateRequest('accessIdentity', null)

  // Synchronous (done), and not added at all where no token list is set: it runs on every request
  if (Object.values(matchers).some(Boolean)) {
    app.addHook('onRequest', (request, reply, done) => {
      const access = accessOf(request)
      const match = matchers[access]
      if (!match) return done()
      const header = request.headers.authorization
      const bearer = typeof header === 'string' ? BEARER.exec(header) : null
      if (!bearer) {
        reply.header('www-authenticate', 'Bearer realm="statbucket"')
        return done(new UnauthorizedError(`send Authorization: Bearer <token> with a token from ${names[access]}`))
      }
      const identity = match(bearer[1])
      if (!identity) {
        reply.header('www-authenticate', 'Bearer realm="statbucket", error="invalid_token"')
        return done(new ForbiddenError(`the bearer token is not one of ${names[access]}`))
      }
      request.accessIdentity = identity
      done()
    })
  }

  if (config.rateLimitPerMinute > 0) {
    // Registered after the access hook: route-level onRequest hooks run after
    // the app's, so the limit counts per token (per address where open).
    await app.register(rateLimit, {
      global: true,
      max: config.rateLimitPerMinute,
      timeWindow: 60_000,
      keyGenerator: request => request.accessIdentity ?? 'ip:' + request.ip,
      allowList: request => accessOf(request) === 'open',
      errorResponseBuilder: (request, context) =>
        new TooManyRequestsError(`more than RATE_LIMIT_PER_MINUTE = ${context.max} requests in a minute for this token; retry after ${context.after}`)
    })
  }
}

export default fp(auth, { name: 'auth' })
