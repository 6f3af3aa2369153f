// POST /v1/statsd: StatsD lines over HTTP (src/statsd/http-lines.js), answered
// as POST /v1/events answers: the ingest outcome through ingest-reply.js, and
// on 200 the names the statsd daemon's sanitising changed and how many lines'
// tags were dropped (also in the drop log, once a minute). Gauge deltas start
// from the levels the instance's StatsD doors hold (app.statsdGauges), the
// stored level read for a name not held; the levels a request sets are kept
// once it may have been written (200 or 504), so that a request refused or
// not applied and sent again applies its deltas to the same levels.
import { postStatsdSchema } from '../schemas/statsd.js'
import { bodyEvents, parseStatsdBody } from '../statsd/http-lines.js'
import { UnavailableError, isDatabaseError } from '../errors.js'
import { APPLIED, UNKNOWN } from '../writer/write-outcomes.js'
import { acceptsOnly } from './content-type.js'
import { replyToIngestOutcome } from './ingest-reply.js'
import { inflate } from './body-encoding.js'

export default async function statsdRoutes (app) {
  const { config, clock, ingest, telemetry, statsdGauges } = app
  const textOnly = acceptsOnly(['text/plain'], 'StatsD lines')

  /** The levels the body's deltas start from: held, or stored (read once each); a database failure is a 503 */
  async function startingLevels (names) {
    const levels = new Map()
    try {
      await Promise.all([...names].map(async name => {
        levels.set(name, statsdGauges.get(name) ?? await statsdGauges.load(name))
      }))
    } catch (err) {
      if (!isDatabaseError(err)) throw err
      throw new UnavailableError('the database could not be reached to read a gauge\'s stored level (the start of its delta); nothing was applied: send the lines again')
    }
    return levels
  }

  app.post('/v1/statsd', { schema: postStatsdSchema, bodyLimit: config.bodyLimitBytes, onRequest: textOnly, preParsing: inflate }, async (request, reply) => {
    const text = request.body
    const body = parseStatsdBody(text, { maxValues: config.maxEventsPerRequest })
    const starts = body.deltaNames.size ? await startingLevels(body.deltaNames) : null
    const { events, levels } = bodyEvents(body, { now: clock.now(), levelOf: name => starts.get(name), timeOf: statsdGauges.nextTime })
    const key = request.headers['idempotency-key']
    const result = await ingest.submit(events, {
      statsd: true,
      where: (index, field) => `the sum of ${events[index]?.metric}: ${field}`,
      idempotency: key === undefined ? undefined : { key, identity: request.accessIdentity, body: text }
    })
    if (result.outcome === APPLIED || result.outcome === UNKNOWN) for (const [name, { level, time }] of levels) statsdGauges.set(name, level, time)
    if (result.outcome === APPLIED) telemetry.publish('statsdReceived', { transport: 'http', values: body.values })
    const answer = replyToIngestOutcome(reply, result)
    if (result.outcome !== APPLIED) return answer
    return { ...answer, ...(body.renamed.length ? { renamed: body.renamed } : {}) }
  })
}
