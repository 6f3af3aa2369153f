// Request ids: a client's `x-request-id` is honoured when it looks like an
// id (so a trace crosses services), otherwise a new UUID is made; the id is
// in every log line of the request (`reqId`) and echoed in the answer.
import fp from 'fastify-plugin'
import { randomUUID } from 'node:crypto'

export const REQUEST_ID_HEADER = 'x-request-id'
const ACCEPTABLE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/** Fastify's genReqId: the incoming header when acceptable, else a UUID */
export function genReqId (req) {
  const given = req.headers[REQUEST_ID_HEADER]
  return typeof given === 'string' && ACCEPTABLE_ID.test(given) ? given : randomUUID()
}

async function requestId (app) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    done()
  })
}

export default fp(requestId, { name: 'request-id' })
