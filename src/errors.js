// The errors the API answers with. Each carries what a client needs to fix
// its request (`details`) or to decide on a retry (`outcome`, `retryAfter`).
import createError from '@fastify/error'
import { BSON, MongoError } from 'mongodb'

export const BadRequestError = createError('SB_BAD_REQUEST', '%s', 400)
export const UnauthorizedError = createError('SB_UNAUTHORIZED', '%s', 401)
export const ForbiddenError = createError('SB_FORBIDDEN', '%s', 403)
export const NotFoundError = createError('SB_NOT_FOUND', '%s', 404)
export const ConflictError = createError('SB_CONFLICT', '%s', 409)
export const TooLargeError = createError('SB_TOO_LARGE', '%s', 413)
export const UriTooLongError = createError('SB_URI_TOO_LONG', '%s', 414)
export const UnsupportedMediaTypeError = createError('SB_UNSUPPORTED_MEDIA_TYPE', '%s', 415)
export const UnprocessableError = createError('SB_UNPROCESSABLE', '%s', 422)
export const TooManyRequestsError = createError('SB_TOO_MANY_REQUESTS', '%s', 429)
export const UnavailableError = createError('SB_UNAVAILABLE', '%s', 503)
export const WriteUnknownError = createError('SB_WRITE_UNKNOWN', '%s', 504)

/** A user's text as a message quotes it: JSON, at most `max` characters of it and its length past that */
export const quoted = (text, max = 200) => (text.length > max ? `${JSON.stringify(text.slice(0, max))}… (${text.length} characters)` : JSON.stringify(text))

/** An error with extra fields for the answer body */
export function withDetails (error, fields) {
  return Object.assign(error, fields)
}

/**
 * Any error of the driver (PoolClearedOnNetworkError too, whose name lacks
 * the Mongo prefix), and a reply the driver could not parse: a cursor's
 * toArray() rejects with a BSONError (a BSONOffsetError for a truncated
 * document), not a MongoError
 */
export function isDatabaseError (err) {
  return err instanceof MongoError || BSON.BSONError.isBSONError(err)
}
