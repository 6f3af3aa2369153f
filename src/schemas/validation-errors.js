// Turns Ajv errors into one message a client can act on, plus `details`.
import { BadRequestError, withDetails } from '../errors.js'

function where (dataVar, instancePath) {
  const parts = instancePath.split('/').slice(1)
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
        : `must match ${error.params.pattern}`
    case 'minItems':
      return 'must hold at least one event'
    case 'type':
      return `must be ${[].concat(error.params.type).join(' or ')}`
    default:
      return error.message
  }
}

export function schemaErrorFormatter (errors, dataVar) {
  // if/then/else adds an 'if' error of its own after the branch's errors.
  const useful = errors.filter(e => e.keyword !== 'if')
  const details = useful.map(e => ({ path: where(dataVar, e.instancePath), message: describe(e) }))
  const first = details[0] ?? { path: dataVar, message: 'is invalid' }
  return withDetails(new BadRequestError(`${first.path}: ${first.message}`), { details })
}
