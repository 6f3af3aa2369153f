// The request trail at `debug`, not `info` (docs/adr/0029-quiet-by-default.md): Fastify's two `info` lines per request buried the startup and
// shutdown lines and cost CPU on every request. The same lines — "incoming
// request" and "request completed", with the request id — are written at
// debug, so LOG_LEVEL=debug gives the old trail. Errors keep Fastify's levels.
import { LogController } from 'fastify'

export class DebugAccessLog extends LogController {
  incomingRequest (request) {
    if (request.log.isLevelEnabled('debug')) request.log.debug({ req: request }, 'incoming request')
  }

  requestCompleted (error, request, reply) {
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    else if (reply.log.isLevelEnabled('debug')) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}
