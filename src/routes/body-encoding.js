// The bodies the write doors take gzip-compressed (Content-Encoding: gzip), as
// OTLP exporters, Vector's and Fluent Bit's HTTP outputs send them: inflated
// as they are read, so a route's bodyLimit bounds the inflated bytes.
import { createGunzip } from 'node:zlib'
import { UnsupportedMediaTypeError } from '../errors.js'

/** The request's Content-Encoding, lower case ('identity' where none is said) */
export function contentEncoding (request) {
  const encoding = String(request.headers['content-encoding'] ?? '').trim().toLowerCase()
  return encoding === '' ? 'identity' : encoding
}

/**
 * preParsing: a gzip body inflated as it is read (BODY_LIMIT_BYTES then bounds the inflated bytes).
 * Once the answer is sent (a 413 at the bound among them) the inflation stops: the parser no longer
 * reads it, and a 1 MB body of 1,000 MB inflated went on for seconds of CPU after its 413
 */
export function inflate (request, reply, payload, done) {
  const encoding = contentEncoding(request)
  if (encoding === 'identity') return done(null, payload)
  if (encoding !== 'gzip') return done(new UnsupportedMediaTypeError(`Content-Encoding ${encoding.slice(0, 40)} is not supported: send the body as it is or with gzip`))
  const inflated = createGunzip()
  inflated.receivedEncodedLength = 0
  payload.on('data', chunk => { inflated.receivedEncodedLength += chunk.length })
  payload.on('error', err => inflated.destroy(err))
  inflated.on('error', err => { err.statusCode = 400; err.message = `the gzip body cannot be inflated: ${err.message}` })
  payload.pipe(inflated)
  const stop = () => {
    payload.unpipe(inflated)
    inflated.destroy()
  }
  reply.raw.once('finish', stop)
  reply.raw.once('close', stop)
  done(null, inflated)
}
