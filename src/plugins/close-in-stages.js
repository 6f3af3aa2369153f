// Closing a connection in stages (RFC 9112 §9.6), for an answer sent before
// the request's body was read (src/plugins/admission.js). Node destroys a
// socket as soon as a `Connection: close` answer is written; bytes of the
// body still arriving then meet a closed socket, whose reset can reach the
// sender before our answer does: it sees EPIPE or ECONNRESET, not the 503.
// Instead the write side closes after the answer (a FIN: the server's sockets
// are half-open) and the rest of the body is read and discarded, unparsed,
// until the sender closes, falls silent for LINGER_IDLE_MS, or LINGER_MAX_MS
// pass. A request the sender pipelines behind it is never run, and ends the
// linger (droppedBehindClose).
const LINGERING = Symbol('statbucket.lingering')

export const LINGER_IDLE_MS = 1000
export const LINGER_MAX_MS = 5000

/**
 * Marks the socket of an answer about to be sent with `Connection: close`:
 * when node closes it after the answer, it closes in stages. A socket that is
 * not a real connection's (light-my-request's) is left alone.
 */
export function closeInStages (socket, { idleMs = LINGER_IDLE_MS, maxMs = LINGER_MAX_MS } = {}) {
  if (typeof socket?.destroySoon !== 'function' || socket[LINGERING] !== undefined) return
  socket[LINGERING] = false
  // node's http server calls destroySoon once the last answer is written (resOnFinish)
  socket.destroySoon = function lingeringClose () {
    this[LINGERING] = true
    this.end() // the answer, then our FIN; what the sender still sends is read (the parser discards the body)
    this.setTimeout(idleMs) // node's server destroys a socket that times out with no request on it
    const cut = setTimeout(() => this.destroy(), maxMs)
    cut.unref()
    this.once('close', () => clearTimeout(cut))
  }
}

/**
 * For a request that arrived behind an answer closing its connection: true,
 * and it must not run (RFC 9112 §9.6); nor is the connection read further: it
 * closes at once (after that answer, if it is still being written), as node
 * closes any other. A sender pipelining past a close gets no stages;
 * unanswered, its requests would otherwise be parsed and held without bound.
 * Any other request: false, and nothing changes.
 */
export function droppedBehindClose (socket) {
  if (socket?.[LINGERING] === undefined) return false
  if (socket[LINGERING] === true) socket.destroy()
  else delete socket.destroySoon // node's own, once the answer is written
  return true
}

/** True while `request` (node's) is answered before the body it declares was all received */
export const bodyUnread = (request) =>
  !request.complete && (request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0)
