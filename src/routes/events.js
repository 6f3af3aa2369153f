// POST /v1/events
import { buildWriteUnit } from '../bucket/increments.js'
import { BadRequestError, TooLargeError, UnavailableError, WriteUnknownError, withDetails } from '../errors.js'
import { postEventsSchema } from '../schemas/events.js'
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

  app.post('/v1/events', { schema: postEventsSchema, bodyLimit: config.bodyLimitBytes, preValidation: refuseLargeBatch }, async (request, reply) => {
    const list = Array.isArray(request.body) ? request.body : [request.body]
    const { events, error } = toEvents(list, clock.now(), config)
    if (error) throw withDetails(new BadRequestError(`${error.path}: ${error.message}`), { details: [error] })

    const refusal = await storage.registry.admit([...new Set(events.map(e => e.metric))])
    if (refusal) {
      throw withDetails(new BadRequestError(`the registry is full: MAX_METRICS = ${refusal.limit}; this request would add ${refusal.newMetrics} new metric(s)`), { details: [refusal] })
    }

    const answer = await storage.writer.submit(buildWriteUnit(events, storage.layout))
    if (answer.status === 200) {
      storage.preallocator.consider(events)
      return { accepted: events.length }
    }
    reply.header('retry-after', RETRY_AFTER_SECONDS)
    const ErrorType = answer.status === 503 ? UnavailableError : WriteUnknownError
    throw withDetails(new ErrorType(`${answer.reason}; outcome: ${answer.outcome}`), { outcome: answer.outcome })
  })
}
