// One drain per process (docs/architecture.md, "Shutdown"): the first
// SIGTERM or SIGINT (or an uncaught error) starts it; a repeated SIGTERM —
// a supervisor signalling the whole process group reaches node twice
// through npm — is logged and ignored; so is a SIGINT within
// SAME_PRESS_MS of the drain's start: one Ctrl-C in a terminal reaches node
// twice under `npm start` (from the terminal, and passed on by npm), as
// good as together. A SIGINT later than that — the user pressing Ctrl-C
// again — or a SIGQUIT forces the exit, answering what is still queued 503
// and naming it.
//
// The drain: every answer from now on carries `Connection: close`, and a
// new write is refused (503, Retry-After: 1, src/plugins/admission.js). For
// `graceMs` (less than Retry-After) the server still listens and answers, so
// a keep-alive client, or one connecting right now, learns of the close from
// an answer instead of a reset, and by the end of it the clients told to
// retry later are not connecting. Then no new connection is accepted (one
// still queued in the kernel then would be reset: hence the grace), the
// idle connections close, each one with a request in flight ends after its
// answer, and the app closes (the writer flushed, the database released),
// within `drainTimeoutMs` or forced.
import net from 'node:net'

/** A SIGINT this soon after the drain began is the same Ctrl-C (the copies of one press arrive within milliseconds) */
export const SAME_PRESS_MS = 1000

/**
 * app: the Fastify app (beginDrain(), close(), writer); log: pino;
 * proc: the process (signals, exit); now: a monotonic clock in ms (tests
 * inject one) → { drain(reason), force(reason) } for tests
 */
export function installShutdown ({ app, log, graceMs, drainTimeoutMs, proc = process, now = () => performance.now() }) {
  let draining = null
  let drainBegan = null
  let forced = false

  function force (reason) {
    if (forced) return
    forced = true
    const { pendingEvents, queuedUnits } = app.writer.stats()
    const abandoned = app.writer.abandon(`the server was forced to stop (${reason}) before writing it`)
    log.error({ reason, abandonedEvents: abandoned.events, abandonedRequests: abandoned.units, pendingEvents, queuedUnits },
      `forced exit (${reason}): ${abandoned.events} queued events of ${abandoned.units} requests were not written (answered 503)${pendingEvents > abandoned.events ? `; ${pendingEvents - abandoned.events} events of a flush in flight may or may not be written` : ''}`)
    // let the 503s reach their sockets, then go
    setTimeout(() => proc.exit(1), 200)
  }

  async function drain ({ signal, err }) {
    const timer = setTimeout(() => force(`the drain took longer than ${drainTimeoutMs} ms`), drainTimeoutMs)
    timer.unref?.()
    if (err) log.error({ err }, 'shutting down after an error')
    const { pendingEvents } = app.writer.stats()
    let flushedEvents = 0
    app.telemetry.subscribe('flushed', ({ events }) => { flushedEvents += events })
    app.beginDrain()
    log.info({ signal, pendingEvents, graceMs }, `shutting down${signal ? ` on ${signal}` : ''}: answering with Connection: close and refusing new writes (503), closing connections in ${graceMs} ms, then flushing ${pendingEvents} queued events and answering every request received`)
    const server = app.server
    await new Promise(resolve => setTimeout(resolve, graceMs))
    if (server.listening) {
      const allClosed = new Promise(resolve => server.once('close', resolve))
      // stop accepting, then close the idle connections: a connection with a request in flight ends after its answer
      net.Server.prototype.close.call(server)
      server.closeIdleConnections()
      await allClosed
    }
    await app.close()
    clearTimeout(timer)
    if (forced) return
    log.info({ flushedEvents }, `closed: flushed ${flushedEvents} events after the signal; every request received was answered`)
    proc.exit(err ? 1 : 0)
  }

  function start (what) {
    if (draining) return draining
    drainBegan = now()
    draining = drain(what).catch(error => {
      log.error({ err: error }, 'shutdown failed')
      force('the drain failed')
    })
    return draining
  }

  const onSignal = signal => {
    if (signal === 'SIGINT' && draining && now() - drainBegan < SAME_PRESS_MS) {
      log.info({ signal }, `SIGINT again within ${SAME_PRESS_MS} ms of the first signal: the same Ctrl-C (npm passes it on too), ignored; press Ctrl-C again to force the exit`)
      return
    }
    if (signal === 'SIGQUIT' || (signal === 'SIGINT' && draining)) return force(signal)
    if (draining) {
      log.info({ signal }, `${signal} again while shutting down: ignored (a second Ctrl-C or SIGQUIT forces the exit)`)
      return
    }
    start({ signal })
  }
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGQUIT']) proc.on(signal, onSignal)
  proc.on('uncaughtException', err => (draining ? log.error({ err }, 'uncaught error while shutting down') : start({ err })))
  proc.on('unhandledRejection', err => (draining ? log.error({ err }, 'unhandled rejection while shutting down') : start({ err })))
  return { drain: start, force }
}
