// A route's accepted content types, checked before the body is parsed:
// anything else is a 415 that names what to send (Fastify would otherwise
// parse text/plain as a string and answer with a schema error).
import { UnsupportedMediaTypeError } from '../errors.js'

/** The media type of a Content-Type header, lowercased, without parameters */
export function mediaType (header) {
  return typeof header === 'string' ? header.split(';')[0].trim().toLowerCase() : ''
}

/** onRequest hook: types, e.g. ['application/json']; what: how to name the body in the message; orNone: a request without the header passes too */
export function acceptsOnly (types, what, { orNone = false } = {}) {
  return function checkContentType (request, reply, done) {
    const header = request.headers['content-type']
    if (types.includes(header) || (orNone && header === undefined)) return done() // the common case, exactly as named: no parsing
    const type = mediaType(header)
    if (!types.includes(type)) {
      return done(new UnsupportedMediaTypeError(`send ${what} with Content-Type: ${types.join(' or ')}${type ? ` (got ${type})` : ' (none was sent)'}`))
    }
    done()
  }
}
