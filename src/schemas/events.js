// POST /v1/events: one event or a non-empty array of events.

import { ISO_WITH_ZONE_PATTERN } from '../bucket/time.js'
import { MAX_ABS_VALUE, SERIES_NAME_PATTERN } from '../bucket/event-rules.js'
import { KIND_NAMES } from '../kinds/index.js'
import { KEY_RULE, MAX_SERIES_NAME_LENGTH, MAX_TAGS, VALUE_RULE } from '../tags/series-name.js'
import { errorResponses, idempotencyKeyHeader } from './common.js'

export const eventSchema = {
  type: 'object',
  required: ['metric'],
  additionalProperties: false,
  properties: {
    metric: {
      type: 'string',
      // a name, or a series name: the name and `;key=value` tags (src/tags/series-name.js judges the tags)
      pattern: SERIES_NAME_PATTERN,
      maxLength: MAX_SERIES_NAME_LENGTH,
      description: 'Metric name (letters, digits, _ . : -; at most 200 characters; starts with a letter or digit), or a series name: the name and ;key=value tags (web.requests;route=/login)'
    },
    tags: {
      type: 'object',
      maxProperties: MAX_TAGS,
      additionalProperties: { type: 'string' },
      description: `The series' tags, key → value (at most ${MAX_TAGS}): ${KEY_RULE}; ${VALUE_RULE}. The event counts toward the series and toward its untagged name`
    },
    value: { type: 'number', minimum: -MAX_ABS_VALUE, maximum: MAX_ABS_VALUE, description: 'A counter\'s increment (default 1), a distribution\'s observed value (required), or a gauge\'s level at ts (required)' },
    ts: {
      description: 'Event time: ISO-8601 with Z or an offset, or epoch milliseconds; default the time of receipt',
      type: ['string', 'integer'],
      pattern: ISO_WITH_ZONE_PATTERN, // applies to strings only
      minimum: 0 // applies to numbers only
    },
    kind: { type: 'string', enum: KIND_NAMES, description: 'counter (default): value is added; distribution: value is one observation (a latency), kept in a histogram for percentiles; gauge: value is a level (a queue depth), kept as min, max, sum, count and the last value by event time. A metric keeps the kind of its first write' }
  }
}

export const postEventsSchema = {
  summary: 'Ingest counter increments, distribution values and gauge levels',
  description: 'One event or an array of events. Answered 200 only after MongoDB acknowledged every write holding them.',
  tags: ['events'],
  headers: idempotencyKeyHeader,
  body: {
    if: { type: 'array' },
    then: { type: 'array', minItems: 1, items: eventSchema },
    else: eventSchema
  },
  response: {
    200: {
      type: 'object',
      required: ['accepted'],
      properties: { accepted: { type: 'integer' } }
    },
    ...errorResponses(400, 401, 403, 409, 413, 414, 415, 422, 429, 500, 503, 504)
  }
}
