// A write refused before its body is read (here: while the server drains)
// closes its connection in stages (RFC 9112 §9.6): the sender, still writing
// the body, reads the whole 503 and then the server's close, never a reset
// (so does one refused a 401 while the server drains);
// a request pipelined behind it is not run, and ends the reading (a flood
// of them is not parsed); and a sender that never finishes is cut, silent or
// trickling, long before the server's request timeout.
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { directDb, testApp, uniqueDbName } from '../helpers/test-app.js'
import { LINGER_IDLE_MS, LINGER_MAX_MS } from '../../src/plugins/close-in-stages.js'

const WRITE = 'w'.repeat(16)
const WRITE_TIMEOUT_MS = 10_000 // the server's request timeout is 3 × this: 30 s, past every test's own
let app, port, client, db
const serverSockets = new Map() // the client's local port → the server's socket of that connection
const requestsSeen = new Map() // the client's local port → the requests node's server parsed on its connection

beforeAll(async () => {
  const dbName = uniqueDbName('closeinstages')
  app = await testApp('closeinstages', { env: { MONGODB_DB: dbName, WRITE_TOKENS: WRITE, PREALLOC_PROBABILITY: '0', WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS) } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  port = app.server.address().port
  app.server.on('connection', socket => serverSockets.set(socket.remotePort, socket))
  app.server.on('request', req => requestsSeen.set(req.socket.remotePort, (requestsSeen.get(req.socket.remotePort) ?? 0) + 1))
  ;({ client, db } = await directDb(dbName))
  const seeded = await app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric: 'cis.kept', value: 3 }], headers: { authorization: `Bearer ${WRITE}` } })
  expect(seeded.statusCode).toBe(200)
  app.beginDrain() // from now on every write is refused before its body is read
})
afterAll(async () => { await app?.close(); await client?.close() })

const head = length => `POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${WRITE}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

/**
 * A raw connection that records what it reads, its errors, the server's FIN, and when the server's
 * side of it closed (serverClosed; a client whose own side stays open sees no more than the FIN)
 */
function connect () {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
  const seen = { data: '', errors: [], ended: false, serverClosed: null }
  socket.on('data', d => { seen.data += d })
  socket.on('error', err => seen.errors.push(err.code))
  socket.on('end', () => { seen.ended = true })
  const closed = new Promise(resolve => socket.on('close', resolve))
  const opened = new Promise(resolve => socket.once('connect', resolve))
  const serverClosed = opened.then(async () => {
    for (let i = 0; i < 100 && !serverSockets.has(socket.localPort); i++) await new Promise(resolve => setTimeout(resolve, 10))
    const own = serverSockets.get(socket.localPort)
    if (!own.destroyed) await new Promise(resolve => own.once('close', resolve))
    seen.serverClosed = Date.now()
  })
  return { socket, seen, closed, opened, serverClosed }
}

/** Resolves once the whole first answer (headers and the body its Content-Length gives) was read */
async function wholeAnswer (seen) {
  for (let i = 0; i < 500; i++) {
    const end = seen.data.indexOf('\r\n\r\n')
    const length = Number(/content-length: (\d+)/i.exec(seen.data)?.[1])
    if (end !== -1 && Buffer.byteLength(seen.data) >= end + 4 + length) return
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  throw new Error(`no whole answer in 5 s: ${JSON.stringify(seen.data.slice(0, 200))}`)
}

/**
 * Sends headOf(1 MB) and the body's first 1,000 bytes, reads the whole answer (with `Connection: close`),
 * then writes the rest of the body and closes: → what the connection saw, which had no error and the server's FIN
 */
async function answeredMidBody (headOf) {
  const body = Buffer.alloc(1_000_000, ' ')
  const { socket, seen, closed, opened } = connect()
  await opened
  socket.write(headOf(body.length) + body.subarray(0, 1000).toString())
  await wholeAnswer(seen)
  expect(seen.data).toMatch(/\r\nconnection: close\r\n/i)
  // node destroyed the socket right after the answer: whatever was sent then met a closed socket (RST)
  await new Promise(resolve => setTimeout(resolve, 50))
  await new Promise(resolve => socket.write(body.subarray(1000), resolve))
  socket.end()
  await closed
  expect(seen.errors).toEqual([])
  expect(seen.ended).toBe(true)
  return seen
}

describe('a write refused before its body is read', () => {
  it('is answered 503 while its sender still writes the body; the sender then writes the rest and reads the close, never a reset', async () => {
    const seen = await answeredMidBody(head)
    expect(seen.data).toMatch(/^HTTP\/1\.1 503 /)
    expect(seen.data).toMatch(/\r\nretry-after: 1\r\n/i)
    expect(seen.data.match(/HTTP\/1\.1 /g)).toHaveLength(1)
  })

  it('as any answer the draining server sends before the body was all received: a sender without a token reads its 401, never a reset', async () => {
    const seen = await answeredMidBody(length => `POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`)
    expect(seen.data).toMatch(/^HTTP\/1\.1 401 /)
  })

  it('runs no request pipelined behind it: a DELETE sent after it on the same connection deletes nothing', async () => {
    const { socket, seen, closed, opened } = connect()
    await opened
    const events = JSON.stringify([{ metric: 'cis.refused' }])
    socket.write(head(Buffer.byteLength(events)) + events + `DELETE /v1/metrics/cis.kept HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${WRITE}\r\n\r\n`)
    await wholeAnswer(seen)
    await new Promise(resolve => setTimeout(resolve, 500)) // time enough for the DELETE to run, were it let
    socket.end() // the sender's FIN: the server's close follows
    await closed
    expect(seen.errors).toEqual([])
    expect(seen.data.match(/HTTP\/1\.1 /g)).toEqual(['HTTP/1.1 '])
    expect(seen.data).toMatch(/^HTTP\/1\.1 503 /)
    expect(await db.collection('daily').countDocuments({ _id: { $regex: '^cis\\.kept/' } })).toBe(1)
    expect(await db.collection('daily').countDocuments({ _id: { $regex: '^cis\\.refused/' } })).toBe(0)
    // the same DELETE on a connection of its own runs
    expect((await app.inject({ method: 'DELETE', url: '/v1/metrics/cis.kept', headers: { authorization: `Bearer ${WRITE}` } })).statusCode).toBe(200)
    expect(await db.collection('daily').countDocuments({ _id: { $regex: '^cis\\.kept/' } })).toBe(0)
  })

  it('stops reading a connection that pipelines requests behind it: of 20,000, what one read holds is parsed, none answered, and it closes', async () => {
    const { socket, seen, opened, serverClosed } = connect()
    await opened
    const events = JSON.stringify([{ metric: 'cis.flood' }])
    socket.write(head(Buffer.byteLength(events)) + events + 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20_000))
    const localPort = socket.localPort
    await serverClosed
    socket.destroy()
    const parsed = requestsSeen.get(localPort)
    console.log(`pipelined behind the refusal: ${parsed - 1} of 20,000 parsed`)
    // node reads 64 KiB at a time: ~1,900 of these requests a read
    expect(parsed - 1).toBeLessThan(5000)
    // no answer but the refusal's (which a sender pipelining past a close may lose to the reset of unread requests)
    expect(seen.data.match(/HTTP\/1\.1 /g)?.length ?? 0).toBeLessThanOrEqual(1)
    expect(seen.data === '' || /^HTTP\/1\.1 503 /.test(seen.data)).toBe(true)
  })

  it(`is closed by the server when its sender falls silent (${LINGER_IDLE_MS} ms) or keeps trickling (${LINGER_MAX_MS} ms), well before the request timeout`, async () => {
    const silent = connect()
    const trickling = connect()
    await Promise.all([silent.opened, trickling.opened])
    const started = Date.now()
    silent.socket.write(head(10_000_000) + '[')
    trickling.socket.write(head(10_000_000) + '[')
    const trickle = setInterval(() => trickling.socket.write(' '.repeat(100)), 100)
    try {
      await Promise.all([wholeAnswer(silent.seen), wholeAnswer(trickling.seen)])
      await Promise.all([silent.serverClosed, trickling.serverClosed])
    } finally {
      clearInterval(trickle)
      silent.socket.destroy()
      trickling.socket.destroy()
    }
    for (const { seen } of [silent, trickling]) {
      expect(seen.data).toMatch(/^HTTP\/1\.1 503 /)
      expect(seen.ended).toBe(true) // the server's FIN came first
      // the server's request timeout is 30 s: only the linger's bounds close them this soon
      expect(seen.serverClosed - started).toBeLessThan(3 * WRITE_TIMEOUT_MS)
    }
    console.log(`closed after ${silent.seen.serverClosed - started} ms (silent), ${trickling.seen.serverClosed - started} ms (trickling)`)
    // the silent one by its idle bound (1 s, with room for a loaded machine), the trickling one by the whole linger's, not before
    expect(silent.seen.serverClosed - started).toBeLessThan(LINGER_MAX_MS - 1000)
    expect(trickling.seen.serverClosed - started).toBeGreaterThanOrEqual(LINGER_MAX_MS - 50)
  }, 20_000)
})
