// Where an ingest outcome (src/ingest/ingest.js) becomes an HTTP answer:
// status, headers and body, in one place for every HTTP door. Errors are
// thrown for the error handler, which writes the error body.
import { BadRequestError, ConflictError, UnavailableError, UnprocessableError, WriteUnknownError, withDetails } from '../errors.js'
import { APPLIED, KEY_IN_FLIGHT, KEY_REUSED, KEY_UNSUPPORTED, NOT_APPLIED, REJECTED, REPLAYED, UNKNOWN } from '../writer/write-outcomes.js'

const RETRY_AFTER_SECONDS = 1

/** → the 200 body, or throws the error that answers the outcome */
export function replyToIngestOutcome (reply, result) {
  switch (result.outcome) {
    case APPLIED:
      return { accepted: result.accepted }
    case REPLAYED:
      reply.header('idempotent-replayed', 'true')
      return result.body
    case REJECTED:
      throw withDetails(new BadRequestError(result.message), { details: result.details })
    case KEY_UNSUPPORTED:
      throw new BadRequestError(result.message)
    case KEY_REUSED:
      throw new UnprocessableError('this Idempotency-Key was used before with a different body; use a new key for a new request')
    case KEY_IN_FLIGHT:
      reply.header('retry-after', RETRY_AFTER_SECONDS)
      throw new ConflictError('a request with this Idempotency-Key is still in flight; retry once it is answered')
    case NOT_APPLIED:
      reply.header('retry-after', RETRY_AFTER_SECONDS)
      throw withDetails(new UnavailableError(`${result.reason}; outcome: not_applied`), { outcome: NOT_APPLIED })
    case UNKNOWN:
      reply.header('retry-after', RETRY_AFTER_SECONDS)
      throw withDetails(new WriteUnknownError(`${result.reason}; outcome: unknown`), { outcome: UNKNOWN })
    default:
      throw new TypeError(`no HTTP answer for the ingest outcome ${JSON.stringify(result.outcome)}`)
  }
}
