// POST /v1/statsd: StatsD lines over HTTP (src/statsd/http-lines.js), answered
// as POST /v1/events answers: the ingest outcome through ingest-reply.js, and
// on 200 the names the statsd daemon's sanitising changed.
import { postStatsdSchema } from '../schemas/statsd.js'
import { statsdBodyEvents } from '../statsd/http-lines.js'
import { APPLIED } from '../writer/write-outcomes.js'
import { acceptsOnly } from './content-type.js'
import { replyToIngestOutcome } from './ingest-reply.js'

export default async function statsdRoutes (app) {
  const { config, clock, ingest, telemetry } = app
  const textOnly = acceptsOnly(['text/plain'], 'StatsD lines')

  app.post('/v1/statsd', { schema: postStatsdSchema, bodyLimit: config.bodyLimitBytes, onRequest: textOnly }, async (request, reply) => {
    const text = request.body
    const { events, values, tagged, renamed } = statsdBodyEvents(text, { now: clock.now(), maxValues: config.maxEventsPerRequest })
    const key = request.headers['idempotency-key']
    const result = await ingest.submit(events, {
      where: (index, field) => `the sum of ${events[index]?.metric}: ${field}`,
      idempotency: key === undefined ? undefined : { key, identity: request.accessIdentity, body: text }
    })
    if (result.outcome === APPLIED) {
      telemetry.publish('statsdReceived', { transport: 'http', values })
      if (tagged) telemetry.publish('statsdDropped', { transport: 'http', reason: 'tags', values: tagged })
    }
    const answer = replyToIngestOutcome(reply, result)
    return renamed.length && result.outcome === APPLIED ? { ...answer, renamed } : answer
  })
}
