// The StatsD sockets (docs/statsd.md): UDP datagrams and newline-framed
// TCP on one port. Each transport feeds its own pipeline; TCP stops reading
// a connection while its pipeline is full, so a fast client is slowed down,
// never dropped. TCP holds at most `maxConnections` connections (one more is
// closed at once) and closes one idle for `idleTimeoutMs`, so idle clients
// cannot take the file descriptors HTTP and the database need; a
// connection paused by backpressure is waiting on us, not idle.
import dgram from 'node:dgram'
import net from 'node:net'

/** A TCP line longer than this (in characters) is dropped (line_too_long) */
export const MAX_LINE_CHARS = 64 * 1024
/** Asked of the kernel for the UDP socket (it may grant less: net.core.rmem_max): bursts wait there instead of being lost */
const UDP_RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024

function listenTcp (server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port, host }, () => { server.off('error', reject); resolve(server.address().port) })
  })
}

function bindUdp (socket, port, host) {
  return new Promise((resolve, reject) => {
    socket.once('error', reject)
    socket.bind({ port, address: host, exclusive: true }, () => { socket.off('error', reject); resolve() })
  })
}

/** Complete lines with those longer than MAX_LINE_CHARS dropped (only text that long can hold one) */
function withoutLongLines (text, onDrop) {
  if (text.length <= MAX_LINE_CHARS) return text
  const lines = text.split('\n')
  const kept = lines.filter(line => line.length <= MAX_LINE_CHARS)
  if (kept.length < lines.length) onDrop('line_too_long', lines.length - kept.length)
  return kept.join('\n')
}

/** Reads one TCP connection into the pipeline, pausing while it is full */
function readLines (socket, pipeline, onDrop, onPause) {
  let rest = ''
  let skipping = false // inside a line that was too long: drop up to its newline
  socket.setEncoding('utf8')
  socket.on('data', (chunk) => {
    let text = rest + chunk
    if (skipping) {
      const nl = text.indexOf('\n')
      if (nl === -1) { rest = ''; return }
      text = text.slice(nl + 1)
      skipping = false
    }
    const last = text.lastIndexOf('\n')
    if (last === -1) {
      rest = text
    } else {
      rest = text.slice(last + 1)
      pipeline.accept(withoutLongLines(text.slice(0, last), onDrop))
    }
    if (rest.length > MAX_LINE_CHARS) {
      onDrop('line_too_long', 1)
      rest = ''
      skipping = true
    }
    if (pipeline.full() && !socket.isPaused()) {
      socket.pause()
      onPause?.()
      pipeline.whenRoom().then(() => { if (!socket.destroyed) socket.resume() })
    }
  })
  socket.on('end', () => {
    if (rest && !skipping) pipeline.accept(rest)
    rest = ''
  })
  socket.on('error', () => {}) // a reset connection ends like any other
}

/**
 * Starts both sockets on host:port (port 0: the same free port for both).
 * onPause(): a connection stopped reading (its pipeline was full).
 * → { port, close() }; close stops reading and releases both sockets.
 */
export async function startStatsdListeners ({ host, port, udp, tcp, onDrop, onPause, onConnectionClosed = () => {}, maxConnections = 256, idleTimeoutMs = 300_000, log }) {
  const sockets = new Set()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.setTimeout(idleTimeoutMs, () => {
      if (socket.isPaused()) return // paused by backpressure: the wait is ours (setTimeout re-arms on the next read)
      onConnectionClosed('idle_timeout')
      socket.destroy()
    })
    readLines(socket, tcp, onDrop, onPause)
  })
  // Node closes a connection past maxConnections as soon as it is accepted ('drop')
  server.maxConnections = maxConnections
  server.on('drop', () => onConnectionClosed('connection_cap'))
  const type = net.isIPv6(host) ? 'udp6' : 'udp4'
  let datagrams = null
  let bound = null
  // port 0: take a free TCP port, then the same UDP port; another program may hold it, so try a few
  for (let attempt = 0; attempt < 5 && bound === null; attempt++) {
    const tcpPort = await listenTcp(server, port, host)
    datagrams = dgram.createSocket({ type, reuseAddr: false })
    try {
      await bindUdp(datagrams, tcpPort, host)
      bound = tcpPort
    } catch (err) {
      datagrams.close()
      await new Promise(resolve => server.close(resolve))
      if (port !== 0 || attempt === 4) throw err
    }
  }
  try { datagrams.setRecvBufferSize(UDP_RECEIVE_BUFFER_BYTES) } catch (err) { log?.warn({ err }, 'StatsD UDP: could not enlarge the receive buffer') }
  datagrams.on('message', (msg) => udp.accept(msg.toString('utf8')))
  datagrams.on('error', (err) => log?.error({ err }, 'StatsD UDP socket error'))

  return {
    port: bound,
    async close () {
      const closed = new Promise(resolve => server.close(resolve))
      for (const socket of sockets) {
        socket.pause()
        socket.destroy()
      }
      await closed
      await new Promise(resolve => datagrams.close(resolve))
    }
  }
}
