// POST /v1/statsd: StatsD lines as text/plain.
import { errorResponses, idempotencyKeyHeader } from './common.js'

export const postStatsdSchema = {
  summary: 'Ingest StatsD lines',
  description: 'StatsD lines (`name:value|type[|@rate][|#tags]`, one per line, packed values allowed) with Content-Type: text/plain. Counters (c) add value/rate; timers, histograms and distributions (ms, h, d) add 1/rate to name.count and value/rate to name.sum; tags are ignored. Names are sanitised as the statsd daemon does. A line that cannot be kept (a gauge, a set, an unknown type, a bad value, rate or name) rejects the whole request with 400 naming its number and text. Values are summed per metric per minute at the time of receipt; `accepted` counts those sums. Answered 200 only after MongoDB acknowledged every write, exactly as POST /v1/events.',
  tags: ['events'],
  consumes: ['text/plain'],
  headers: idempotencyKeyHeader,
  body: { type: 'string', description: 'StatsD lines separated by \\n' },
  response: {
    200: {
      type: 'object',
      required: ['accepted'],
      properties: {
        accepted: { type: 'integer', description: 'Per-minute sums written (one per metric; a timer gives two)' },
        renamed: {
          type: 'array',
          description: 'Names the sanitising changed, as sent and as stored (at most 20 listed); absent when none was changed',
          items: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string' }, to: { type: 'string' } } }
        }
      }
    },
    ...errorResponses(400, 401, 403, 409, 413, 414, 415, 422, 429, 500, 503, 504)
  }
}
