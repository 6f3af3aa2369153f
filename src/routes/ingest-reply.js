// Where an ingest outcome (src/services/ingest.js) becomes an HTTP answer:
// status, headers and body, in one place for every HTTP door. Errors are
// thrown for the error handler, which writes the error body.
import { BadRequestError, ConflictError, UnavailableError, UnprocessableError, WriteUnknownError, withDetails } from '../errors.js'

const RETRY_AFTER_SECONDS = 1

/** → the 200 body, or throws the error that answers the outcome */
export function replyToIngestOutcome (reply, result) {
  switch (result.outcome) {
    case 'applied':
      return { accepted: result.accepted }
    case 'replayed':
      reply.header('idempotent-replayed', 'true')
      return result.body
    case 'rejected':
      throw withDetails(new BadRequestError(result.message), { details: result.details })
    case 'key_unsupported':
      throw new BadRequestError(result.message)
    case 'key_reused':
      throw new UnprocessableError('this Idempotency-Key was used before with a different body; use a new key for a new request')
    case 'key_in_flight':
      reply.header('retry-after', RETRY_AFTER_SECONDS)
      throw new ConflictError('a request with this Idempotency-Key is still in flight; retry once it is answered')
    case 'not_applied':
      reply.header('retry-after', RETRY_AFTER_SECONDS)
      throw withDetails(new UnavailableError(`${result.reason}; outcome: not_applied`), { outcome: 'not_applied' })
    case 'unknown':
      reply.header('retry-after', RETRY_AFTER_SECONDS)
      throw withDetails(new WriteUnknownError(`${result.reason}; outcome: unknown`), { outcome: 'unknown' })
    default:
      throw new TypeError(`no HTTP answer for the ingest outcome ${JSON.stringify(result.outcome)}`)
  }
}
