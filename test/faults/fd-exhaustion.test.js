// File-descriptor exhaustion through the StatsD door: a real statbucket
// process limited to 256 descriptors (prlimit) with STATSD_TCP_MAX_CONNECTIONS
// 100 is sent 300 idle TCP connections. The cap holds (200 closed at once and
// counted), HTTP keeps accepting and answering, and every write answered 200
// is stored. Without the cap the idle connections took every descriptor and
// HTTP stopped accepting.
import { execFileSync } from 'node:child_process'
import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { freeStatsdPort } from '../../scripts/shared/child-server.js'
import { onCleanup, request, startStatbucket, storedTotals, uniqueDb, useDatabase, waitFor } from './harness.js'

const db = useDatabase()

const statsdPortOf = sb => sb.logs.find(l => l.msg === 'StatsD listening (UDP and TCP)')?.port

describe('descriptor exhaustion through StatsD TCP', () => {
  it('the connection cap leaves descriptors for HTTP and the database: HTTP answers, acknowledged = stored', async () => {
    const dbName = uniqueDb('fds')
    const sb = await startStatbucket({ MONGODB_URI: db.uri, MONGODB_DB: dbName, STATSD_PORT: String(await freeStatsdPort()), STATSD_TCP_MAX_CONNECTIONS: '100' })
    onCleanup(() => sb.stop())
    execFileSync('prlimit', [`--pid=${sb.pid}`, '--nofile=256:256'])
    const port = await waitFor(() => statsdPortOf(sb), { timeoutMs: 10_000, what: 'the StatsD port' })

    const sockets = []
    onCleanup(async () => { for (const s of sockets) s.destroy() })
    let closedByServer = 0
    for (let i = 0; i < 300; i++) {
      const socket = net.connect(port, '127.0.0.1')
      socket.on('error', () => {})
      socket.on('close', () => { closedByServer++ })
      sockets.push(socket)
    }
    await waitFor(() => closedByServer >= 200, { timeoutMs: 20_000, what: '200 connections closed by the cap' })

    let acked = 0
    for (let i = 0; i < 50; i++) {
      const res = await request(sb.port, { method: 'POST', path: '/v1/events', body: [{ metric: 'fd.a', value: 3 }], timeoutMs: 10_000 })
      expect(res.error, 'HTTP must keep accepting').toBeUndefined()
      expect([200, 503]).toContain(res.status) // never 504: a write that could not be sent is not applied
      if (res.status === 200) acked += 3
    }
    expect(acked).toBe(150)
    const metrics = await request(sb.port, { path: '/metrics' })
    expect(metrics.body).toMatch(/statbucket_statsd_tcp_connections_closed_total\{reason="connection_cap"\} (\d+)/)
    expect(Number(/connection_cap"\} (\d+)/.exec(metrics.body)[1])).toBe(200)
    expect(sb.alive()).toBe(true)
    for (const s of sockets) s.destroy()
    await sb.stop({ signal: 'SIGTERM' })
    expect((await storedTotals(db.uri, dbName)).daily['fd.a']).toBe(acked)
  }, 90_000)
})
