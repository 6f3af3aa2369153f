// Faults of the statbucket process itself, against a real child process
// (`node src/server.js`) on a database this file starts, so that
// killing statbucket does not touch its database: kill -9 under load,
// SIGTERM under load, and a client far faster than the database. The
// client's own tally of acknowledged events is compared with the
// per-metric totals in the database.
import { describe, expect, it } from 'vitest'
import { createTally, describeLogs, onCleanup, request, runLoad, sleep, startStatbucket, storedTotals, total, uniqueDb, useDatabase, waitFor } from './harness.js'

// No outage here: a roomier bound than the outage tests' keeps a slow, shared
// machine from turning a flush into a 504 and the exact totals into bounds.
const WRITE_TIMEOUT_MS = 5000
const metrics = ['pf.a', 'pf.b', 'pf.c', 'pf.d', 'pf.e']
const db = useDatabase({ heap: '512m' })

async function statbucket (label, env = {}) {
  const dbName = uniqueDb(label)
  const sb = await startStatbucket({ MONGODB_URI: db.uri, MONGODB_DB: dbName, WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS), ...env })
  onCleanup(() => sb.stop())
  return { sb, dbName }
}

describe('crash: kill -9 under load', () => {
  it('keeps every acknowledged event, adds nothing that was not sent, and a restart carries on', async () => {
    const { sb, dbName } = await statbucket('crash', { MAX_EVENTS_PER_REQUEST: '100', PREALLOC_PROBABILITY: '0.05' })
    const tally = createTally()
    const load = runLoad(sb.port, { metrics, tally, concurrency: 8, maxBatch: 40, keepAlive: true, durationMs: 60_000, timeoutMs: 15_000 })
    await waitFor(() => (tally.statuses[200] ?? 0) >= 100, { timeoutMs: 30_000, what: '100 acknowledged requests' })
    sb.kill('SIGKILL')
    expect((await sb.exited).signal).toBe('SIGKILL')
    await load.stop()

    const stored = await storedTotals(db.uri, dbName)
    for (const m of metrics) {
      for (const view of [stored.daily, stored.monthly]) {
        expect(view[m] ?? 0, `${m} ≥ acknowledged`).toBeGreaterThanOrEqual(tally.acked[m] ?? 0)
        expect(view[m] ?? 0, `${m} ≤ sent`).toBeLessThanOrEqual(tally.sent[m] ?? 0)
      }
    }
    for (const status of Object.keys(tally.statuses)) expect(['200', '503']).toContain(status)

    // A new process on the same database goes on counting from there.
    const again = await startStatbucket({ MONGODB_URI: db.uri, MONGODB_DB: dbName, WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS) })
    onCleanup(() => again.stop())
    const res = await request(again.port, { method: 'POST', path: '/v1/events', body: { metric: 'pf.a', value: 7 } })
    expect(res.status).toBe(200)
    const after = await storedTotals(db.uri, dbName)
    expect(after.daily['pf.a']).toBe((stored.daily['pf.a'] ?? 0) + 7)
    console.log(`kill -9: ${tally.requests} requests ${JSON.stringify(tally.statuses)} ${JSON.stringify(tally.errors)}; acknowledged ${total(tally.acked)}, stored ${total(stored.daily)}, sent ${total(tally.sent)} events`)
  }, 120_000)
})

describe('graceful stop: SIGTERM under load', () => {
  it('stops accepting, flushes what is queued, answers every request it received, exits 0; stored = acknowledged exactly', async () => {
    // A long flush interval keeps requests queued at the moment of SIGTERM.
    const { sb, dbName } = await statbucket('sigterm', { FLUSH_INTERVAL_MS: '200', MAX_EVENTS_PER_REQUEST: '100', LOG_LEVEL: 'debug' }) // debug: the request trail
    const tally = createTally()
    // half the clients on fresh connections, half on kept-alive ones (which may send while it closes)
    const loads = [
      runLoad(sb.port, { metrics, tally, concurrency: 6, maxBatch: 40, durationMs: 60_000, timeoutMs: 15_000 }),
      runLoad(sb.port, { metrics, tally, concurrency: 6, maxBatch: 40, durationMs: 60_000, timeoutMs: 15_000, keepAlive: true })
    ]
    await waitFor(() => (tally.statuses[200] ?? 0) >= 60, { timeoutMs: 30_000, what: '60 acknowledged requests' })
    sb.kill('SIGTERM')
    const exit = await Promise.race([sb.exited, sleep(3 * WRITE_TIMEOUT_MS + 10_000).then(() => 'hung')])
    await Promise.all(loads.map(l => l.stop()))
    expect(exit, describeLogs(sb)).toEqual({ code: 0, signal: null })

    const stored = await storedTotals(db.uri, dbName)
    for (const m of metrics) {
      expect(stored.daily[m] ?? 0, m).toBe(tally.acked[m] ?? 0)
      expect(stored.monthly[m] ?? 0, m).toBe(tally.acked[m] ?? 0)
    }
    // Answers: 200, or 503 (refused while closing); no 504. Requests that
    // found the port closed never reached it.
    for (const status of Object.keys(tally.statuses)) expect(['200', '503']).toContain(status)
    for (const error of Object.keys(tally.errors)) expect(['ECONNREFUSED', 'ECONNRESET']).toContain(error)
    expect(tally.retryAfterMissing).toBe(0)

    // Server side: every request it received was answered.
    const received = new Set(sb.logs.filter(l => l.msg === 'incoming request').map(l => l.reqId))
    const answered = new Set(sb.logs.filter(l => l.msg === 'request completed').map(l => l.reqId))
    expect(received.size).toBeGreaterThan(0)
    expect([...received].filter(id => !answered.has(id))).toEqual([])
    expect(sb.logs.filter(l => /^shutting down on SIGTERM: answering with Connection: close and refusing new writes \(503\), closing connections in \d+ ms, then flushing \d+ queued events/.test(l.msg ?? ''))).toHaveLength(1)
    expect(sb.logs.filter(l => /^closed: flushed \d+ events after the signal; every request received was answered$/.test(l.msg ?? ''))).toHaveLength(1)
    console.log(`SIGTERM: ${tally.requests} requests ${JSON.stringify(tally.statuses)} ${JSON.stringify(tally.errors)}; acknowledged = stored = ${total(tally.acked)} events; ${received.size} received, all answered`)
  }, 120_000)
})

describe('overload: a client far faster than the database', () => {
  it('refuses the excess with 503 + Retry-After, keeps pending work under MAX_PENDING_EVENTS and RSS bounded; totals exact', async () => {
    const MAX_PENDING = 300
    const { sb, dbName } = await statbucket('overload', { MAX_PENDING_EVENTS: String(MAX_PENDING), MAX_EVENTS_PER_REQUEST: '100', FLUSH_INTERVAL_MS: '50' })
    const tally = createTally()
    const load = runLoad(sb.port, { metrics, tally, concurrency: 32, maxBatch: 100, keepAlive: true, durationMs: 8000, timeoutMs: 15_000 })
    let maxRss = 0
    const pendingSamples = []
    while (tally.requests < 100000 && !(await Promise.race([load.done.then(() => true), sleep(200).then(() => false)]))) {
      maxRss = Math.max(maxRss, sb.rssKb() ?? 0)
      const res = await request(sb.port, { path: '/metrics', timeoutMs: 10_000 })
      const m = res.status === 200 && /^statbucket_pending_events (\d+)/m.exec(res.body)
      if (m) pendingSamples.push(Number(m[1]))
    }
    await load.done

    expect(sb.alive(), describeLogs(sb)).toBe(true)
    expect(tally.statuses[200] ?? 0).toBeGreaterThan(0)
    expect(tally.statuses[503] ?? 0, JSON.stringify(tally.statuses)).toBeGreaterThan(0)
    expect(tally.retryAfterMissing).toBe(0)
    for (const status of Object.keys(tally.statuses)) expect(['200', '503']).toContain(status)
    expect(tally.errors).toEqual({})
    expect(maxRss).toBeLessThan(400 * 1024)
    // The gauge comes from /metrics where that endpoint exists.
    for (const p of pendingSamples) expect(p).toBeLessThanOrEqual(MAX_PENDING)

    const stored = await storedTotals(db.uri, dbName)
    for (const m of metrics) {
      expect(stored.daily[m] ?? 0, m).toBe(tally.acked[m] ?? 0)
      expect(stored.monthly[m] ?? 0, m).toBe(tally.acked[m] ?? 0)
    }
    console.log(`overload: ${tally.requests} requests ${JSON.stringify(tally.statuses)}; acknowledged = stored = ${total(tally.acked)} events; max RSS ${Math.round(maxRss / 1024)} MiB; pending samples ${pendingSamples.length}, max ${Math.max(0, ...pendingSamples)}`)
  }, 120_000)
})
