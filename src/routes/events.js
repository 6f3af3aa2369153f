// POST /v1/events
import { buildWriteUnit } from '../bucket/increments.js'
import { BadRequestError, ConflictError, TooLargeError, UnavailableError, UnprocessableError, WriteUnknownError, withDetails } from '../errors.js'
import { postEventsSchema } from '../schemas/events.js'
import { bodyHash, isValidKey, keyId } from '../store/idempotency-store.js'
import { toEvents } from './event-input.js'

const RETRY_AFTER_SECONDS = 1

export default async function eventsRoutes (app) {
  const { config, clock, storage } = app

  function refuseLargeBatch (request, reply, done) {
    if (Array.isArray(request.body) && request.body.length > config.maxEventsPerRequest) {
      return done(new TooLargeError(`a request holds at most MAX_EVENTS_PER_REQUEST = ${config.maxEventsPerRequest} events, got ${request.body.length}; split the batch`))
    }
    done()
  }

  // Idempotency-Key: honoured only where transactions make it true (idempotency-store.js).
  function checkKey (key) {
    if (key === undefined) return
    if (!storage.idempotency) {
      throw new BadRequestError(`Idempotency-Key needs a MongoDB deployment with transactions (a replica set or a sharded cluster); this one (${app.mongo.backend}) has none (GET /readyz: transactions false), so the key cannot be honoured: send the request without it`)
    }
    if (!isValidKey(key)) throw new BadRequestError('Idempotency-Key: must be 1 to 255 visible ASCII characters')
  }

  app.post('/v1/events', { schema: postEventsSchema, bodyLimit: config.bodyLimitBytes, preValidation: refuseLargeBatch }, async (request, reply) => {
    const key = request.headers['idempotency-key']
    checkKey(key)
    const list = Array.isArray(request.body) ? request.body : [request.body]
    const { events, error } = toEvents(list, clock.now(), config)
    if (error) throw withDetails(new BadRequestError(`${error.path}: ${error.message}`), { details: [error] })

    // the unit already holds the request's distinct metrics: admit those
    const unit = buildWriteUnit(events, storage.layout)
    const { refusal, reserved } = await storage.registry.admit([...unit.metrics.keys()])
    if (refusal) {
      throw withDetails(new BadRequestError(`the registry is full: MAX_METRICS = ${refusal.limit}; this request would add ${refusal.newMetrics} new metric(s)`), { details: [refusal] })
    }

    let answer = null
    try {
      answer = key === undefined
        ? await storage.writer.submit(unit)
        : await storage.idempotency.submitOnce({ id: keyId(request.accessIdentity, key), hash: bodyHash(request.body), unit, answer: { accepted: events.length } })
    } finally {
      // new metrics count toward MAX_METRICS once they may have been written
      storage.registry.settle(reserved, answer?.replayed || answer?.status === 200 || answer?.status === 504)
    }
    if (answer.replayed) {
      reply.header('idempotent-replayed', 'true')
      return answer.body
    }
    if (answer.status === 200) {
      storage.preallocator.consider(events)
      return { accepted: events.length }
    }
    if (answer.status === 422) throw new UnprocessableError('this Idempotency-Key was used before with a different body; use a new key for a new request')
    reply.header('retry-after', RETRY_AFTER_SECONDS)
    if (answer.status === 409) throw new ConflictError('a request with this Idempotency-Key is still in flight; retry once it is answered')
    const ErrorType = answer.status === 503 ? UnavailableError : WriteUnknownError
    throw withDetails(new ErrorType(`${answer.reason}; outcome: ${answer.outcome}`), { outcome: answer.outcome })
  })
}
