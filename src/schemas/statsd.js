// POST /v1/statsd: StatsD lines as text/plain.
import { errorResponses, idempotencyKeyHeader } from './common.js'

export const postStatsdSchema = {
  summary: 'Ingest StatsD lines',
  description: 'StatsD lines (`name:value|type[|@rate][|#tags]`, one per line, packed values allowed) with Content-Type: text/plain. Counters (c) add value/rate; timers, histograms and distributions (ms, h, d) are values of a distribution named as sent, each weighing 1/rate; gauges (g) set a level, and +N or −N change it (as the statsd daemon does: applied in line order to the level this instance\'s StatsD doors hold, or to the stored last level; the rate is ignored); DogStatsD tags (`|#route:/login,status:500`) and Graphite-tagged names (`web.requests;route=/login`) name the series a value counts toward, and it counts toward the untagged name too. Names are sanitised as the statsd daemon does. A line that cannot be kept (a set, an unknown type, a bad value, rate or name, a delta that would take a gauge past 1e15) rejects the whole request with 400 naming its number and text. Values are merged per metric per minute at the time of receipt (a counter\'s summed, a distribution\'s per value, a gauge\'s levels summarised); `accepted` counts those merged events. Answered 200 only after MongoDB acknowledged every write, exactly as POST /v1/events.',
  tags: ['events'],
  consumes: ['text/plain'],
  headers: idempotencyKeyHeader,
  body: { type: 'string', description: 'StatsD lines separated by \\n' },
  response: {
    200: {
      type: 'object',
      required: ['accepted'],
      properties: {
        accepted: { type: 'integer', description: 'Merged events written (a counter\'s and a gauge\'s one per metric and minute, a distribution\'s one per distinct value)' },
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
