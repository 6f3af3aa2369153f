// Turns Ajv errors into one message a client can act on, plus `details`.
import { BadRequestError, withDetails } from '../errors.js'
import { METRIC_NAME_PATTERN, SERIES_NAME_PATTERN } from '../bucket/event-rules.js'
import { IDEMPOTENCY_KEY_PATTERN } from './common.js'
import { LIMIT_PATTERN, PREFIX_PATTERN } from './queries.js'

// What each pattern asks for, in words (a client should not have to read a regex)
const PATTERN_WORDS = new Map([
  [METRIC_NAME_PATTERN, 'must be a metric name: letters, digits and _ . : - only (metric names cannot contain spaces), at most 200 characters, starting with a letter or digit'],
  [SERIES_NAME_PATTERN, 'must be a metric name: letters, digits and _ . : - only (metric names cannot contain spaces), at most 200 characters, starting with a letter or digit; then any ;key=value tags'],
  [PREFIX_PATTERN, 'must be the start of a metric name: letters, digits and _ . : - only (no spaces), at most 200 characters'],
  [LIMIT_PATTERN, 'must be a whole number from 1 to 10000'],
  [IDEMPOTENCY_KEY_PATTERN, 'must be 1 to 255 visible ASCII characters (no spaces)']
])

function where (dataVar, instancePath, bodyName) {
  const parts = instancePath.split('/').slice(1)
  if (bodyName !== null) return [dataVar === 'body' ? bodyName : dataVar, ...parts].join('.')
  if (dataVar === 'body' && parts.length > 0 && /^\d+$/.test(parts[0])) {
    return `events[${parts[0]}]${parts.slice(1).map(p => '.' + p).join('')}`
  }
  return [dataVar === 'body' ? 'event' : dataVar, ...parts].join('.')
}

function describe (error) {
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown field "${error.params.additionalProperty}"`
    case 'required':
      return `missing field "${error.params.missingProperty}"`
    case 'pattern':
      return error.instancePath.endsWith('/ts')
        ? 'must be an ISO-8601 time with Z or an offset (e.g. 2026-11-21T10:15:00Z), or epoch milliseconds'
        : PATTERN_WORDS.get(error.params.pattern) ?? `must match ${error.params.pattern}`
    case 'enum':
      return `must be one of ${error.params.allowedValues.join(', ')}`
    case 'minItems':
      return 'must hold at least one event'
    case 'type':
      return `must be ${[].concat(error.params.type).join(' or ')}`
    case 'maxLength':
      return `must be at most ${error.params.limit} characters`
    case 'maxItems':
      return `may be given at most ${error.params.limit} times`
    default:
      return error.message
  }
}

/** The formatter of a route whose body is one `bodyName` (an SLO's: '(document)'), not events */
export const schemaErrorFormatterOf = (bodyName) => (errors, dataVar) => schemaErrorFormatter(errors, dataVar, bodyName)

export function schemaErrorFormatter (errors, dataVar, bodyName = null) {
  // if/then/else adds an 'if' error of its own after the branch's errors.
  let useful = errors.filter(e => e.keyword !== 'if')
  // anyOf (a query value given once or repeated): the branch of the value's own type tells what is wrong
  if (useful.some(e => e.keyword === 'anyOf')) {
    const telling = useful.filter(e => e.keyword !== 'anyOf' && e.keyword !== 'type')
    if (telling.length > 0) useful = telling
  }
  const details = useful.map(e => ({ path: where(dataVar, e.instancePath, bodyName), message: describe(e) }))
  const first = details[0] ?? { path: dataVar, message: 'is invalid' }
  return withDetails(new BadRequestError(`${first.path}: ${first.message}`), { details })
}

/**
 * A validation error of an event body with the unknown fields of the event
 * it names, so that `{"metrc":"x"}` says more than `missing field "metric"`.
 * body: the parsed body; error: from schemaErrorFormatter. Changes the error.
 */
export function nameUnknownFields (error, body, knownFields) {
  const first = error.details?.[0]
  if (!first || !/^missing field /.test(first.message)) return error
  const m = /^events\[(\d+)\]/.exec(first.path)
  const event = m ? body?.[Number(m[1])] : body
  if (!event || typeof event !== 'object' || Array.isArray(event)) return error
  const unknown = Object.keys(event).filter(k => !knownFields.includes(k))
  if (unknown.length === 0) return error
  const hint = `; unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map(k => JSON.stringify(k)).join(', ')} (the fields are ${knownFields.join(', ')})`
  first.message += hint
  error.message += hint
  return error
}
