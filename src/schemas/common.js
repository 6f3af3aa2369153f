// Shared JSON schemas: the Idempotency-Key header, the error answer. The
// name and value rules they check are bucket/event-rules.js's.

export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{1,255}$'

// Idempotency-Key: visible ASCII, as in the IETF draft's examples (UUIDs, random strings).
export const idempotencyKeyHeader = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: 'Makes a retry safe: a request with a key already applied answers 200 with the first answer and applies nothing (409 while in flight, 422 if reused with another body). Needs a deployment with transactions (replica set, sharded cluster): elsewhere a key is answered 400.'
    }
  }
}

export const errorSchema = {
  $id: 'error',
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    details: {},
    outcome: { type: 'string', enum: ['not_applied', 'unknown'] }
  }
}

/** Response entries for the given error statuses */
export function errorResponses (...codes) {
  return Object.fromEntries(codes.map(code => [code, { $ref: 'error#' }]))
}
