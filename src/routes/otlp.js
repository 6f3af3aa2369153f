// POST /v1/metrics: OTLP/HTTP metrics (docs/otlp.md). The body, inflated
// when gzip, is decoded (src/otlp/otlp-codec.js), its points mapped to events
// (src/otlp/otlp-points.js) and handed to the ingest service per name, as the
// StatsD doors are; its outcome becomes the answer in ingest-reply.js unless
// it is applied, when the answer is OTLP's ExportMetricsServiceResponse with
// a partialSuccess counting the points not kept (a rule broken, a name the
// registry turned away or of another kind) and naming why. The cumulative
// series' last points are kept as the write starts and given back unless it
// may have happened (200 or 504), so that concurrent requests of one series
// add each step once, and a request refused or not applied and sent again
// adds the same.
import { BadRequestError, TooLargeError } from '../errors.js'
import { APPLIED, REJECTED, UNKNOWN } from '../writer/write-outcomes.js'
import { postOtlpMetricsSchema } from '../schemas/otlp.js'
import { JSON_TYPE, MAX_MESSAGES, MESSAGES_PER_POINT, MESSAGES_PER_REQUEST, PROTOBUF, decodeRequest, encodeResponse, encodeStatus } from '../otlp/otlp-codec.js'
import { pointsOf } from '../otlp/otlp-points.js'
import { createCumulativeBaselines } from '../otlp/cumulative-baselines.js'
import { nameOfSeries } from '../tags/series-name.js'
import { eventKindName } from '../bucket/metric-kinds.js'
import { acceptsOnly, mediaType } from './content-type.js'
import { replyToIngestOutcome } from './ingest-reply.js'
import { inflate } from './body-encoding.js'

const REASONS_SHOWN = 5
const YIELD_BYTES = 64 * 1024
// a name as an answer shows it: a 2 MB name is not sent back whole
const cut = (name) => (name.length > 200 ? `${name.slice(0, 200)}…` : name)
const RENAMES_SHOWN = 20

/** The partialSuccess of an answer: points not kept (Map point → reason) and names made valid, or null */
function partialSuccess (rejected, renamed) {
  const parts = []
  if (rejected.size > 0) {
    const reasons = new Map()
    for (const reason of rejected.values()) reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
    const shown = [...reasons].slice(0, REASONS_SHOWN).map(([reason, n]) => `${n} × ${reason}`)
    parts.push(`${rejected.size} point(s) not kept: ${shown.join('; ')}${reasons.size > REASONS_SHOWN ? `; and ${reasons.size - REASONS_SHOWN} more reason(s)` : ''}`)
  }
  if (renamed.size > 0) {
    const shown = [...renamed].slice(0, RENAMES_SHOWN).map(([from, to]) => `${JSON.stringify(cut(from))} → ${JSON.stringify(cut(to))}`)
    parts.push(`metric names made valid as StatsD names are: ${shown.join(', ')}${renamed.size > RENAMES_SHOWN ? ` and ${renamed.size - RENAMES_SHOWN} more` : ''}`)
  }
  return parts.length === 0 ? null : { rejectedDataPoints: rejected.size, errorMessage: parts.join('. ') }
}

/** The points whose events the ingest service turned away per name (registry full, another kind), with why */
function turnedAway (result, { events, eventPoint }, rejected, { maxMetrics, maxSeriesPerName }) {
  const refused = new Set(result.refusedMetrics ?? [])
  // a name's events of the kind asked were turned away, not those of its own kind
  const conflicts = new Map((result.kindConflicts ?? []).map(c => [`${c.metric}\n${c.asked}`, c]))
  if (refused.size === 0 && conflicts.size === 0) return
  for (let i = 0; i < events.length; i++) {
    const { metric } = events[i]
    const conflict = conflicts.get(`${nameOfSeries(metric)}\n${eventKindName(events[i])}`)
    if (refused.has(metric)) rejected.set(eventPoint[i], `series ${JSON.stringify(metric)}: the registry's limits turned it away (MAX_METRICS = ${maxMetrics}, or its name's MAX_SERIES_PER_NAME = ${maxSeriesPerName})`)
    else if (conflict) {
      rejected.set(eventPoint[i], conflict.reason === 'too_many_buckets'
        ? `metric "${conflict.metric}": too many histogram buckets in one day for one request`
        : `metric "${conflict.metric}" is a ${conflict.stored}, so it cannot take a ${conflict.asked}'s values`)
    }
  }
}

export default async function otlpRoutes (app) {
  const { config, clock, ingest, telemetry } = app
  const baselines = createCumulativeBaselines({ max: config.otlpCumulativeSeries })
  const otlpOnly = acceptsOnly([PROTOBUF, JSON_TYPE], 'OTLP metrics')
  // this plugin's own parsers (it is encapsulated): both encodings as bytes, decoded in the handler
  app.removeAllContentTypeParsers()
  app.addContentTypeParser([PROTOBUF, JSON_TYPE], { parseAs: 'buffer' }, (request, body, done) => done(null, body))

  // an error answer to a protobuf request is a google.rpc.Status in protobuf, as OTLP/HTTP says (JSON's stays ours: its `message` is Status's)
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode < 400 || typeof payload !== 'string' || mediaType(request.headers['content-type']) !== PROTOBUF) return done(null, payload)
    let message = payload
    try {
      message = JSON.parse(payload).message ?? payload
    } catch {}
    reply.type(PROTOBUF)
    done(null, encodeStatus(reply.statusCode, message))
  })

  /**
   * The request's points, decoded and mapped (pointsOf), or the 400 or 413
   * thrown. Neither the body nor its decoded message outlives this: only the
   * events wait for their write, so the rest dies young
   */
  async function mappedPoints (request, type) {
    const body = request.body ?? Buffer.alloc(0) // no body at all: the empty request
    request.body = undefined
    // a request of more points than MAX_EVENTS_PER_REQUEST, or of more messages than MESSAGES_PER_POINT a point of
    // it or MAX_MESSAGES, is refused before they are decoded: counted on the wire (docs/adr/0093-otlp-message-budget.md)
    const { request: message, problem, tooManyPoints, tooManyMessages } = decodeRequest(body, type, { maxPoints: config.maxEventsPerRequest })
    if (problem) throw new BadRequestError(problem)
    if (tooManyPoints) throw new TooLargeError(`a request holds at most MAX_EVENTS_PER_REQUEST = ${config.maxEventsPerRequest} data points, got ${type === PROTOBUF ? `more than ${config.maxEventsPerRequest}` : tooManyPoints}; export fewer at a time (the SDK's or the Collector's batch size)`)
    if (tooManyMessages) throw new TooLargeError(`the body would decode into more than ${tooManyMessages} OTLP messages (resources, scopes, metrics, points, attributes: two each, exemplars), or as many byte strings (trace and span ids): at most ${MESSAGES_PER_POINT} × MAX_EVENTS_PER_REQUEST (= ${config.maxEventsPerRequest}) + ${MESSAGES_PER_REQUEST}, and ${MAX_MESSAGES} in all; send fewer attributes or exemplars, or split the export (the SDK's or the Collector's batch size)`)
    // a large body's decoding and its mapping are two turns of the event loop, not one: other requests go on between
    if (body.length > YIELD_BYTES) await new Promise(resolve => setImmediate(resolve))
    const mapped = pointsOf(message, { now: clock.now(), config, resourceTags: config.otlpResourceTags, baselines, maxEvents: config.maxPendingEvents })
    if (mapped.tooMany) throw new TooLargeError(`the request's points make more than MAX_PENDING_EVENTS = ${config.maxPendingEvents} events (a histogram's point one per non-empty bucket), more than the writer holds; export fewer at a time`)
    return mapped
  }

  app.post('/v1/metrics', { schema: postOtlpMetricsSchema, bodyLimit: config.bodyLimitBytes, onRequest: otlpOnly, preParsing: inflate }, async (request, reply) => {
    const type = mediaType(request.headers['content-type'])
    const mapped = await mappedPoints(request, type)
    const { events, rejected, renamed } = mapped
    // kept before the write, so that a request arriving meanwhile adds from these points, not from the ones before them
    const replaced = baselines.keep(mapped.baselineUpdates)
    if (events.length > 0) {
      let result
      try {
        result = await ingest.submit(events, { admitPerName: true, where: (index, field) => `the point of ${events[index]?.metric}: ${field}` })
      } finally {
        // not written (refused, not applied, or a throw): the same points sent again add the same
        if (result?.outcome !== APPLIED && result?.outcome !== UNKNOWN) baselines.giveBack(mapped.baselineUpdates, replaced)
      }
      // every point's name turned away (another kind, the registry's limits): a partial success of none kept, as
      // when some are (docs/otlp.md#the-answer); any other refusal throws its answer: nothing kept, or unknown
      const allTurnedAway = result.outcome === REJECTED && (result.kindConflicts?.length > 0 || result.refusedMetrics?.length > 0)
      if (result.outcome !== APPLIED && !allTurnedAway) replyToIngestOutcome(reply, result)
      turnedAway(result, mapped, rejected, config)
    }
    telemetry.publish('otlpReceived', { points: mapped.points, rejected: rejected.size, exemplars: mapped.exemplars })
    const partial = partialSuccess(rejected, renamed)
    reply.type(type)
    return encodeResponse(partial === null ? {} : { partialSuccess: partial }, type)
  })
}
