// POST /v1/statsd: StatsD lines over HTTP. Parsed and summed like the
// listeners' lines (src/statsd/), but a line that cannot be kept rejects the
// request; the ingest outcome is answered as POST /v1/events answers it.
import { BadRequestError, TooLargeError, withDetails } from '../errors.js'
import { postStatsdSchema } from '../schemas/statsd.js'
import { createAggregator } from '../statsd/aggregator.js'
import { losesValue, parseLine } from '../statsd/line-parser.js'
import { acceptsOnly } from './content-type.js'
import { replyToIngestOutcome } from './ingest-reply.js'

const MAX_QUOTED_LINE = 200

/** → { samplesByLine, values, tagged } or throws the 400/413 that names the line */
function parseBody (text, maxValues) {
  const lines = text.split('\n')
  const parsed = []
  let values = 0
  let tagged = 0
  for (let i = 0; i < lines.length; i++) {
    const result = parseLine(lines[i])
    const lost = result.problems.find(losesValue)
    if (lost) {
      const quoted = lines[i].length > MAX_QUOTED_LINE ? `${lines[i].slice(0, MAX_QUOTED_LINE)}…` : lines[i]
      throw withDetails(new BadRequestError(`line ${i + 1} ${JSON.stringify(quoted)}: ${lost.message}; nothing of this request was applied`), {
        details: [{ line: i + 1, text: quoted, reason: lost.reason, message: lost.message }]
      })
    }
    if (result.problems.length) tagged++
    values += result.values
    if (values > maxValues) throw new TooLargeError(`a request holds at most MAX_EVENTS_PER_REQUEST = ${maxValues} StatsD values; split the lines over several requests`)
    if (result.kept) parsed.push(result)
  }
  if (values === 0) throw new BadRequestError('the body holds no StatsD line (name:value|type, one per line)')
  return { parsed, values, tagged }
}

export default async function statsdRoutes (app) {
  const { config, clock, ingest, telemetry } = app
  const textOnly = acceptsOnly(['text/plain'], 'StatsD lines')

  app.post('/v1/statsd', { schema: postStatsdSchema, bodyLimit: config.bodyLimitBytes, onRequest: textOnly }, async (request, reply) => {
    const text = request.body
    const { parsed, values, tagged } = parseBody(text, config.maxEventsPerRequest)
    const now = clock.now()
    const sums = createAggregator()
    for (const { samples, kept } of parsed) sums.add(samples, now, kept)
    const events = sums.take().events.map(({ metric, value, time }) => ({ metric, value, time }))
    const key = request.headers['idempotency-key']
    const result = await ingest.submit(events, {
      where: (index, field) => `the sum of ${events[index]?.metric}: ${field}`,
      idempotency: key === undefined ? undefined : { key, identity: request.accessIdentity, body: text }
    })
    if (result.outcome === 'applied') {
      telemetry.publish('statsdReceived', { transport: 'http', values })
      if (tagged) telemetry.publish('statsdDropped', { transport: 'http', reason: 'tags', values: tagged })
    }
    return replyToIngestOutcome(reply, result)
  })
}
