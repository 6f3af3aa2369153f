// How the drain closes the listener (src/shutdown.js), on a real server with
// raw sockets and the drain's timers faked: after the grace, new requests
// are held unanswered until no client is about to connect — no connection
// accepted lately, none accepted still to send its request, no request in
// flight but the held ones — then the listener closes and the held requests
// are answered (503 for a write). A connection accepted just before the
// grace ended is answered, not closed under its request; a write admitted
// before the drain is answered before the listener closes; a connection
// after the close is refused (never reset).
import { EventEmitter } from 'node:events'
import net from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { installShutdown } from '../src/shutdown.js'
import { fakeTimers } from './helpers/fake-timers.js'
import { testApp } from './helpers/test-app.js'

const cleanups = []
afterEach(async () => { while (cleanups.length) await cleanups.pop()().catch(() => {}) })

/** Waits (real time, polling) for a condition the sockets bring about; never for a timer of the drain */
async function until (condition, what) {
  for (let i = 0; i < 1000; i++) {
    if (await condition()) return
    await new Promise(resolve => setTimeout(resolve, 5))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** A raw HTTP/1.1 client on one connection: what it received, and whether the server closed it */
function rawClient (port) {
  const socket = net.connect(port, '127.0.0.1')
  const client = { socket, text: '', ended: false, error: null }
  socket.on('data', chunk => { client.text += chunk.toString('latin1') })
  socket.on('end', () => { client.ended = true })
  socket.on('error', err => { client.error = err.code })
  client.connected = new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
  client.post = (body) => {
    const payload = JSON.stringify(body)
    socket.write(`POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`)
  }
  cleanups.push(async () => socket.destroy())
  return client
}

/** The app listening, its drain installed on fake timers and a fake process; accepted and requests counted */
async function drainable (label, { env = {}, writerTimers } = {}) {
  const app = await testApp(label, { env: { PREALLOC_PROBABILITY: '0', ...env }, ...(writerTimers ? { timers: writerTimers } : {}) })
  cleanups.push(async () => { await writerTimers?.advance(5000); await app.close() })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const seen = { accepted: 0, requests: 0 }
  app.server.on('connection', () => { seen.accepted++ })
  app.server.on('request', () => { seen.requests++ })
  const timers = fakeTimers(0)
  const proc = Object.assign(new EventEmitter(), { exit: vi.fn() })
  const lines = []
  const log = { info: (o, msg) => lines.push(typeof o === 'string' ? o : msg), error: (o, msg) => lines.push(msg) }
  installShutdown({ app, log, graceMs: 500, drainTimeoutMs: 60_000, proc, timers })
  return { app, port: app.server.address().port, seen, timers, proc, lines }
}

const refused = port => new Promise(resolve => {
  const socket = net.connect(port, '127.0.0.1')
  socket.once('connect', () => { socket.destroy(); resolve('connected') })
  socket.once('error', err => resolve(err.code))
})

describe('closing the listener without a reset', () => {
  it('a connection accepted just before the grace ended gets an answer to the request it sends after, not a close', async () => {
    const { app, port, seen, timers, proc, lines } = await drainable('shutdownfresh')
    proc.emit('SIGTERM', 'SIGTERM')
    await timers.advance(480)
    const late = rawClient(port)
    await late.connected
    await until(() => seen.accepted === 1, 'the connection accepted')
    await timers.advance(40) // the grace is over; the connection has sent nothing yet
    expect(app.server.listening).toBe(true)
    late.post({ metric: 'sl.late', value: 1 })
    await until(() => seen.requests === 1, 'its request read')
    for (let i = 0; i < 20; i++) await new Promise(resolve => setImmediate(resolve))
    expect(late.text).toBe('') // held: unanswered while the drain's time stands still
    expect(app.server.listening).toBe(true)
    await timers.advance(30) // no connection for HOLD_QUIET_MS, none to send, none in flight: the listener closes, the held request goes on
    await until(() => late.ended, 'the answer and the close')
    expect(late.error).toBe(null)
    expect(late.text).toMatch(/^HTTP\/1\.1 503 /)
    expect(late.text).toMatch(/\r\nretry-after: 1\r\n/i)
    expect(late.text).toMatch(/\r\nconnection: close\r\n/i)
    expect(late.text).toMatch(/"outcome":"not_applied"/)
    expect(app.server.listening).toBe(false)
    expect(await refused(port)).toBe('ECONNREFUSED')
    expect(lines).toContain('stopped accepting connections after holding new requests 40 ms; answering the 1 held, each connection closing after its answer')
  })

  it('keeps listening, holding new requests, while a write admitted before the drain is in flight; at most HOLD_MAX_MS', async () => {
    const writerTimers = fakeTimers(0)
    // a flush goes out only when the writer's (fake) interval passes: the write stays in flight until the test says
    const { app, port, seen, timers, proc } = await drainable('shutdowninflight', { writerTimers, env: { FLUSH_INTERVAL_MS: '1000' } })
    const early = rawClient(port)
    await early.connected
    early.post({ metric: 'sl.early', value: 2 })
    await until(() => app.writer.stats().pendingEvents === 1, 'the write queued')
    const other = rawClient(port)
    await other.connected
    await until(() => seen.accepted === 2, 'the second connection accepted')
    proc.emit('SIGTERM', 'SIGTERM')
    await timers.advance(500)
    other.post({ metric: 'sl.other', value: 1 }) // after the grace: held
    await until(() => seen.requests === 2, 'the second request read')
    await timers.advance(300)
    expect(app.server.listening).toBe(true)
    expect(early.text).toBe('')
    expect(other.text).toBe('')

    await writerTimers.advance(1000) // the flush: the write admitted before the drain is answered 200
    await until(() => early.ended, 'the in-flight write answered')
    expect(early.text).toMatch(/^HTTP\/1\.1 200 /)
    expect(early.text).toMatch(/\r\nconnection: close\r\n/i)
    await timers.advance(100)
    await until(() => other.ended, 'the held write answered')
    expect(other.text).toMatch(/^HTTP\/1\.1 503 /)
    expect(app.server.listening).toBe(false)
    expect(await refused(port)).toBe('ECONNREFUSED')
  })

  it('a forced exit (SIGQUIT) while requests are held answers them before it goes', async () => {
    const writerTimers = fakeTimers(0)
    const { app, port, seen, timers, proc } = await drainable('shutdownforced', { writerTimers, env: { FLUSH_INTERVAL_MS: '1000' } })
    const early = rawClient(port)
    await early.connected
    early.post({ metric: 'sl.queued', value: 1 })
    await until(() => app.writer.stats().pendingEvents === 1, 'the write queued') // in flight: the listener stays open
    const late = rawClient(port)
    await late.connected
    proc.emit('SIGTERM', 'SIGTERM')
    await timers.advance(510)
    late.post({ metric: 'sl.held', value: 1 })
    await until(() => seen.requests === 2, 'the held request read')
    proc.emit('SIGQUIT', 'SIGQUIT')
    await until(() => late.ended && early.ended, 'both answered')
    expect(late.text).toMatch(/^HTTP\/1\.1 503 /)
    expect(early.text).toMatch(/^HTTP\/1\.1 503 /) // abandoned: not written
    await timers.advance(200)
    expect(proc.exit).toHaveBeenCalledWith(1)
  })

  it('closes at HOLD_MAX_MS after the grace whatever is still in flight, and answers it', async () => {
    const writerTimers = fakeTimers(0)
    const { app, port, timers, proc } = await drainable('shutdownholdmax', { writerTimers, env: { FLUSH_INTERVAL_MS: '1000' } })
    const early = rawClient(port)
    await early.connected
    early.post({ metric: 'sl.slow', value: 3 })
    await until(() => app.writer.stats().pendingEvents === 1, 'the write queued')
    proc.emit('SIGTERM', 'SIGTERM')
    await timers.advance(500 + 390)
    expect(app.server.listening).toBe(true)
    await timers.advance(30)
    expect(app.server.listening).toBe(false)
    await writerTimers.advance(1000)
    await until(() => early.ended, 'the in-flight write answered')
    expect(early.text).toMatch(/^HTTP\/1\.1 200 /)
    expect(await refused(port)).toBe('ECONNREFUSED')
  })
})
