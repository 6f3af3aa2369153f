// One drain per process (docs/adr/0028-shutdown-with-nothing-cut.md): the first
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
// retry later are not connecting. Then the listener must close, and a
// connection the kernel holds for node at that instant (not accepted yet)
// is reset, as is one accepted whose request has not been read when it is
// closed: a client that sends its next request as soon as it has an answer
// opens a new connection every few milliseconds, so one may always be there
// (measured by scripts/shutdown-resets.js; docs/guarantees.md).
// So before it closes, the drain holds every new request unanswered
// (app.holdRequests(), src/plugins/closing.js): a client waiting for an
// answer opens no connection. Once no connection has been accepted for
// `holdQuietMs`, none accepted is still to send its first request, and every
// request in flight but the held ones has been answered — every client is
// waiting on us, or told to retry later — the listener closes right after
// node took what the kernel held (a setImmediate after the poll), at most
// `holdMaxMs` after the grace. Then the held requests go on (writes get
// their 503), the idle connections close, each one with a request ends after
// its answer, and the app closes (the writer flushed, the database
// released), within `drainTimeoutMs` or forced.
import net from 'node:net'
import { realTimers } from './clock.js'

/** A SIGINT this soon after the drain began is the same Ctrl-C (the copies of one press arrive within milliseconds) */
export const SAME_PRESS_MS = 1000
/** Before the listener closes: no connection accepted for this long (every client is waiting for an answer) */
export const HOLD_QUIET_MS = 50
/** … and at most this long after the grace, whatever still comes (less than Retry-After: 1 minus the grace) */
export const HOLD_MAX_MS = 400
/** A connection accepted this long ago that has sent nothing is not waited for */
const FRESH_WAIT_MS = 250
const HOLD_STEP_MS = 10

/**
 * The server's connections and requests as the drain needs them, from the
 * start: when one was last accepted, the ones accepted that have not sent a
 * request yet (→ when), and the requests not yet answered
 */
function trackServer (server, now) {
  const seen = { lastAcceptAt: -Infinity, fresh: new Map(), unanswered: 0 }
  if (typeof server?.on !== 'function') return seen
  server.on('connection', socket => {
    seen.lastAcceptAt = now()
    seen.fresh.set(socket, seen.lastAcceptAt)
    socket.once('close', () => seen.fresh.delete(socket))
  })
  server.on('request', (req, res) => {
    seen.fresh.delete(req.socket)
    seen.unanswered++
    res.once('close', () => { seen.unanswered-- })
  })
  return seen
}

/**
 * app: the Fastify app (beginDrain(), holdRequests(), close(), writer, server); log: pino;
 * proc: the process (signals, exit); timers: { now, setTimeout, clearTimeout }
 * (src/clock.js; tests inject fake ones); now: the clock of the SIGINT rule
 * (default timers.now) → { drain(reason), force(reason) } for tests
 */
export function installShutdown ({ app, log, graceMs, drainTimeoutMs, proc = process, timers = realTimers, now = timers.now, holdQuietMs = HOLD_QUIET_MS, holdMaxMs = HOLD_MAX_MS }) {
  let draining = null
  let drainBegan = null
  let forced = false
  let hold = null // the requests held while the listener closes
  const seen = trackServer(app.server, timers.now)
  const freshToSend = () => [...seen.fresh.values()].filter(at => timers.now() - at < FRESH_WAIT_MS).length
  const sleep = ms => new Promise(resolve => timers.setTimeout(resolve, ms))

  function force (reason) {
    if (forced) return
    forced = true
    const { pendingEvents, queuedUnits } = app.writer.stats()
    const abandoned = app.writer.abandon(`the server was forced to stop (${reason}) before writing it`)
    log.error({ reason, abandonedEvents: abandoned.events, abandonedRequests: abandoned.units, pendingEvents, queuedUnits },
      `forced exit (${reason}): ${abandoned.events} queued events of ${abandoned.units} requests were not written (answered 503)${pendingEvents > abandoned.events ? `; ${pendingEvents - abandoned.events} events of a flush in flight may or may not be written` : ''}`)
    hold?.release() // held requests go on: a write is refused 503 like the queued ones
    // let the 503s reach their sockets, then go
    timers.setTimeout(() => proc.exit(1), 200)
  }

  /** Holds new requests until no client is about to connect (see the top), then closes the listener */
  async function closeListener (server) {
    hold = app.holdRequests()
    const heldAt = timers.now()
    for (;;) {
      await sleep(HOLD_STEP_MS)
      // after the poll phase: what the kernel held for node has been accepted and read
      await new Promise(resolve => setImmediate(resolve))
      const t = timers.now()
      const quiet = t - seen.lastAcceptAt >= holdQuietMs
      const inFlight = seen.unanswered - hold.held()
      if ((quiet && freshToSend() === 0 && inFlight === 0) || t - heldAt >= holdMaxMs) break
    }
    // the idle connections now, while their clients wait for an answer: none sends on one as it closes,
    // and each client has seen its close before it is answered
    server.closeIdleConnections()
    await sleep(HOLD_STEP_MS)
    await new Promise(resolve => setImmediate(resolve))
    net.Server.prototype.close.call(server)
    const heldMs = Math.round(timers.now() - heldAt)
    log.info({ heldRequests: hold.held(), heldMs }, `stopped accepting connections after holding new requests ${heldMs} ms; answering the ${hold.held()} held, each connection closing after its answer`)
    hold.release()
  }

  async function drain ({ signal, err }) {
    const timer = timers.setTimeout(() => force(`the drain took longer than ${drainTimeoutMs} ms`), drainTimeoutMs)
    timer?.unref?.()
    if (err) log.error({ err }, 'shutting down after an error')
    const { pendingEvents } = app.writer.stats()
    let flushedEvents = 0
    app.telemetry.subscribe('flushed', ({ events }) => { flushedEvents += events })
    app.beginDrain()
    log.info({ signal, pendingEvents, graceMs }, `shutting down${signal ? ` on ${signal}` : ''}: answering with Connection: close and refusing new writes (503), closing connections in ${graceMs} ms, then flushing ${pendingEvents} queued events and answering every request received`)
    const server = app.server
    await sleep(graceMs)
    if (server.listening) {
      const allClosed = new Promise(resolve => server.once('close', resolve))
      await closeListener(server)
      // a connection with a request ends after its answer; one accepted in the last instant is given
      // FRESH_WAIT_MS to send its request (answered, then closed), and one idle since is closed now
      while (freshToSend() > 0) await sleep(HOLD_STEP_MS)
      server.closeIdleConnections()
      await allClosed
    }
    await app.close()
    timers.clearTimeout(timer)
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
