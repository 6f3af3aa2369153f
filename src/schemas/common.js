// Shared JSON schemas: the metric name, the error answer.

export const METRIC_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$'
export const METRIC_NAME_RE = new RegExp(METRIC_NAME_PATTERN)

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
