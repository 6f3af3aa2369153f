// POST /v1/events: parses JSON events and hands them to the ingest service;
// its outcome becomes the answer in routes/ingest-reply.js.
import { BadRequestError, TooLargeError, withDetails } from '../errors.js'
import { eventSchema, postEventsSchema } from '../schemas/events.js'
import { nameUnknownFields } from '../schemas/validation-errors.js'
import { acceptsOnly } from './content-type.js'
import { eventPath, toEvents } from './event-input.js'
import { replyToIngestOutcome } from './ingest-reply.js'
import { inflate } from './body-encoding.js'

export default async function eventsRoutes (app) {
  const { config, clock, ingest } = app

  function refuseLargeBatch (request, reply, done) {
    if (Array.isArray(request.body) && request.body.length > config.maxEventsPerRequest) {
      return done(new TooLargeError(`a request holds at most MAX_EVENTS_PER_REQUEST = ${config.maxEventsPerRequest} events, got ${request.body.length}; split the batch`))
    }
    done()
  }

  const jsonOnly = acceptsOnly(['application/json'], 'the events as JSON')
  const eventFields = Object.keys(eventSchema.properties)

  /**
   * The body's events submitted → the ingest outcome's promise. Nothing
   * holds the parsed body or its events while the write waits for its flush
   * (but a keyed request's, whose body the key keeps): not this function's
   * frame, which has returned, nor the request, so a batch's objects die young
   */
  function submitBody (request) {
    if (request.validationError) throw nameUnknownFields(request.validationError, request.body, eventFields)
    const list = Array.isArray(request.body) ? request.body : [request.body]
    const { events, error } = toEvents(list, clock.now(), ingest.seriesNames)
    if (error) throw withDetails(new BadRequestError(`${error.path}: ${error.message}`), { details: [error] })
    const key = request.headers['idempotency-key']
    const idempotency = key === undefined ? undefined : { key, identity: request.accessIdentity, body: request.body }
    if (idempotency === undefined) {
      request.sentEvents = list.length // what /metrics counts of a refused body (plugins/prometheus.js)
      request.body = undefined
    }
    return ingest.submit(events, { where: eventPath(list.length), idempotency })
  }

  app.post('/v1/events', { schema: postEventsSchema, bodyLimit: config.bodyLimitBytes, onRequest: jsonOnly, preParsing: inflate, preValidation: refuseLargeBatch, attachValidation: true }, async (request, reply) => {
    return replyToIngestOutcome(reply, await submitBody(request))
  })
}
