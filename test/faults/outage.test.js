// Database outages under load, against a real statbucket process on a
// database this file starts itself: the database frozen with
// SIGSTOP for a while, then thawed; and an H2-backed database stopped and
// restarted on the same port. Answers do not wait for the database: what was
// sent while it was down is answered (503 or 504, never 200) before it comes
// back; the process stays up with bounded memory, /readyz says 503, ingest
// recovers by itself, and acknowledged ≤ stored ≤ acknowledged + answered 504
// (+ unanswered).
import { afterAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createTally, describeErrors, describeLogs, onCleanup, request, runLoad, sleep, startDatabase, startStatbucket, stopAll, storedTotals, total, uniqueDb, waitFor } from './harness.js'

const WRITE_TIMEOUT_MS = 2000
const OUTAGE_MS = 10_000
// A client gives up on an answer only after this: a hang, not a slow answer (the order
// of answers and the database's return is what is checked, not their time)
const HANG_MS = 60_000
const RSS_BOUND_KB = 400 * 1024

const metrics = ['out.a', 'out.b', 'out.c', 'out.d']

afterAll(stopAll)

function env (uri, dbName) {
  return {
    MONGODB_URI: uri,
    MONGODB_DB: dbName,
    WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS),
    MAX_PENDING_EVENTS: '20000',
    MAX_EVENTS_PER_REQUEST: '100',
    PREALLOC_PROBABILITY: '0.05' // preallocations fail during the outage too, off the request path
  }
}

async function readyz (sb) {
  return request(sb.port, { path: '/readyz', timeoutMs: HANG_MS })
}

/**
 * The requests the load sent in phase `name` (tally.phase) were all answered
 * before the phase `back` (the database back), none of them 200: the
 * service's own bound (WRITE_TIMEOUT_MS) answered them, not the database's return
 */
function expectAnsweredWithout (tally, name, back) {
  const phase = tally.phases[name]
  expect(phase, `requests sent in phase ${name}`).toBeDefined()
  expect(phase.pending).toBe(0)
  expect(phase.answeredIn[back] ?? 0, `${name}: answered in ${JSON.stringify(phase.answeredIn)}`).toBe(0)
  for (const status of Object.keys(phase.statuses)) expect(['503', '504'], `${name}: ${JSON.stringify(phase.statuses)}`).toContain(status)
}

function expectBounds (tally, stored) {
  for (const m of metrics) {
    const acked = tally.acked[m] ?? 0
    const maybe = (tally.unknown[m] ?? 0) + (tally.failed[m] ?? 0)
    for (const view of [stored.daily, stored.monthly]) {
      expect(view[m] ?? 0, `${m}: stored ≥ acknowledged`).toBeGreaterThanOrEqual(acked)
      expect(view[m] ?? 0, `${m}: stored ≤ acknowledged + answered 504`).toBeLessThanOrEqual(acked + maybe)
    }
  }
}

describe('database outage', () => {
  it('SIGSTOP of the database for 10 s: 503/504 before it is thawed, /readyz 503, bounded memory, recovery without a restart', async () => {
    const db = await startDatabase({ heap: '384m' })
    const dbName = uniqueDb('stop')
    const sb = await startStatbucket(env(db.uri, dbName))
    onCleanup(() => sb.stop())

    const tally = createTally()
    const load = runLoad(sb.port, { metrics, tally, concurrency: 8, maxBatch: 20, durationMs: 60_000, timeoutMs: HANG_MS, keepAlive: true })
    let kinds = null
    try {
      await waitFor(() => (tally.statuses[200] ?? 0) >= 20, { timeoutMs: 20_000, what: 'some acknowledged requests before the outage' })

      // a distribution and a gauge, known before the outage: their doors and reads during it
      const timer = (value) => ({ metric: 'out.timer', kind: 'distribution', value })
      expect((await request(sb.port, { method: 'POST', path: '/v1/events', body: [timer(12), timer(80)], timeoutMs: HANG_MS })).status).toBe(200)
      expect((await request(sb.port, { method: 'POST', path: '/v1/events', body: { metric: 'out.level', kind: 'gauge', value: 7 }, timeoutMs: HANG_MS })).status).toBe(200)
      // the outage has begun once the kernel has stopped every thread of the database (state T): only then
      // are the requests below sent, so none can be answered by a thread that was still running (seen once
      // on a loaded CI machine: a read sent right after the signal came back 200)
      tally.phase = 'stopping'
      await db.freeze()
      tally.phase = 'frozen'
      const before = { ...tally.statuses }
      const quarter = Math.floor(Date.now() / 900_000) * 900_000
      kinds = await Promise.all([
        request(sb.port, { method: 'POST', path: '/v1/events', body: [timer(33)], timeoutMs: HANG_MS }),
        request(sb.port, { method: 'POST', path: '/v1/events', body: { metric: 'out.level', kind: 'gauge', value: 9 }, timeoutMs: HANG_MS }),
        request(sb.port, { path: `/v1/metrics/out.timer/quantiles?from=${quarter - 86_400_000}&to=${quarter + 900_000}`, timeoutMs: HANG_MS }),
        request(sb.port, { path: '/v1/metrics/out.level/series?stat=last&step=hour', timeoutMs: HANG_MS })
      ])
      let maxRss = 0
      let readyDuringOutage = null
      const outageEnd = Date.now() + OUTAGE_MS
      while (Date.now() < outageEnd) {
        maxRss = Math.max(maxRss, sb.rssKb() ?? 0)
        if (Date.now() > outageEnd - OUTAGE_MS / 2 && readyDuringOutage === null) {
          tally.phase = 'frozen, late' // sent from here on: maybe answered once the database is back
          readyDuringOutage = await readyz(sb)
        }
        await sleep(250)
      }
      // the database stays stopped until every request sent in the outage's first half is answered
      await waitFor(() => tally.phases.frozen.pending === 0, { timeoutMs: HANG_MS, what: 'the requests sent while the database was stopped to be answered without it' })
      const during = Object.fromEntries(Object.entries(tally.statuses).map(([k, v]) => [k, v - (before[k] ?? 0)]))
      db.thaw()
      tally.phase = 'thawed'

      expect(sb.alive(), describeLogs(sb)).toBe(true)
      // a distribution's or a gauge's write is never a 200 for data not stored; their reads are a 503, not a hang or a 500
      const [timerWrite, gaugeWrite, quantiles, gaugeSeries] = kinds
      for (const write of [timerWrite, gaugeWrite]) expect([503, 504], JSON.stringify(write.body)).toContain(write.status)
      for (const read of [quantiles, gaugeSeries]) expect(read.status, JSON.stringify(read.body)).toBe(503)
      expect(readyDuringOutage.status).toBe(503)
      expect(readyDuringOutage.body).toMatchObject({ status: 'unavailable' })
      // a flush that could not reach the server is 503 (not applied), one caught mid-flight 504
      expect(during[503] ?? 0, JSON.stringify(during)).toBeGreaterThan(0)
      // every write sent while it was stopped was answered so, before it came back
      expectAnsweredWithout(tally, 'frozen', 'thawed')
      expect(tally.phases.frozen.statuses['503'] ?? 0, JSON.stringify(tally.phases.frozen.statuses)).toBeGreaterThan(0)
      expect(maxRss).toBeLessThan(RSS_BOUND_KB)

      // ingest recovers by itself
      await waitFor(async () => {
        const res = await request(sb.port, { method: 'POST', path: '/v1/events', body: { metric: 'out.probe' }, timeoutMs: HANG_MS })
        return res.status === 200
      }, { timeoutMs: 30_000, intervalMs: 250, what: 'ingest to recover after SIGCONT' })
      const acked = tally.statuses[200] ?? 0
      await waitFor(() => (tally.statuses[200] ?? 0) >= acked + 20, { timeoutMs: 20_000, what: 'the load to be acknowledged again' })
      expect((await readyz(sb)).status).toBe(200)
    } finally {
      await load.stop()
    }

    expect(tally.errors, 'every request got an answer').toEqual({})
    expect(tally.retryAfterMissing).toBe(0)
    expect(Object.keys(tally.statuses).sort()).toEqual(expect.arrayContaining(['200']))
    for (const status of Object.keys(tally.statuses)) expect(['200', '503', '504'], `${JSON.stringify(tally.statuses)}\n${describeErrors(sb)}`).toContain(status)
    expectBounds(tally, await storedTotals(db.uri, dbName))
    // the distribution holds its 2 acknowledged values, and the one sent during the outage only if it was answered 504
    const day = Math.floor(Date.now() / 86_400_000) * 86_400_000
    const timerTotal = await request(sb.port, { path: `/v1/metrics/out.timer/total?from=${day - 86_400_000}&to=${day + 86_400_000}`, timeoutMs: HANG_MS })
    expect(timerTotal.status).toBe(200)
    expect(timerTotal.body.count).toBeGreaterThanOrEqual(2)
    expect(timerTotal.body.count).toBeLessThanOrEqual(2 + (kinds[0].status === 504 ? 1 : 0))
    expect(sb.alive()).toBe(true)
    console.log(`SIGSTOP outage: ${tally.requests} requests ${JSON.stringify(tally.statuses)}, acknowledged ${total(tally.acked)} events, answered 504 ${total(tally.unknown)}; slowest answer ${Math.round(tally.maxMs)} ms`)
  }, 150_000)

  it('an H2-backed database stopped and restarted on the same port: 503 before the restart, recovery, no acknowledged event lost', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-outage-'))
    onCleanup(async () => fs.rmSync(dir, { recursive: true, force: true }))
    const db = await startDatabase({ h2File: path.join(dir, 'outage.h2.mv.db'), heap: '384m' })
    const dbName = uniqueDb('restart')
    const sb = await startStatbucket(env(db.uri, dbName))
    onCleanup(() => sb.stop())

    const tally = createTally()
    const load = runLoad(sb.port, { metrics, tally, concurrency: 6, maxBatch: 20, durationMs: 60_000, timeoutMs: HANG_MS, keepAlive: true, pauseMs: 5 })
    try {
      await waitFor(() => (tally.statuses[200] ?? 0) >= 20, { timeoutMs: 20_000, what: 'some acknowledged requests before the outage' })
      tally.phase = 'stopping'
      await db.stop() // SIGTERM: the launcher commits H2 and exits
      tally.phase = 'down'
      const before503 = tally.statuses[503] ?? 0
      await waitFor(() => (tally.statuses[503] ?? 0) > before503, { timeoutMs: 15_000, what: 'a 503 while the database is down' })
      expect((await readyz(sb)).status).toBe(503)
      await sleep(3000)
      tally.phase = 'restarting'
      // it restarts once every request sent while it was down is answered
      await waitFor(() => tally.phases.down.pending === 0, { timeoutMs: HANG_MS, what: 'the requests sent while the database was down to be answered without it' })
      await db.start() // the same port, the same H2 file
      tally.phase = 'back'
      let probe = null
      await waitFor(async () => {
        probe = await request(sb.port, { method: 'POST', path: '/v1/events', body: { metric: 'out.probe' }, timeoutMs: HANG_MS })
        return probe.status === 200
      }, { timeoutMs: 30_000, intervalMs: 250, what: 'ingest to recover after the restart' }).catch(err => {
        throw new Error(`${err.message}; the last probe: ${probe?.status} ${JSON.stringify(probe?.body)}\n${describeLogs(sb, 60)}`)
      })
      const acked = tally.statuses[200] ?? 0
      await waitFor(() => (tally.statuses[200] ?? 0) >= acked + 20, { timeoutMs: 20_000, what: 'the load to be acknowledged again' })
    } finally {
      await load.stop()
    }
    expect(sb.alive(), describeLogs(sb)).toBe(true)
    expect(tally.errors).toEqual({})
    expectAnsweredWithout(tally, 'down', 'back')
    expect(tally.phases.down.statuses['503'] ?? 0, JSON.stringify(tally.phases.down.statuses)).toBeGreaterThan(0)
    expect(tally.retryAfterMissing).toBe(0)
    for (const status of Object.keys(tally.statuses)) expect(['200', '503', '504'], `${JSON.stringify(tally.statuses)}\n${describeErrors(sb)}`).toContain(status)
    expectBounds(tally, await storedTotals(db.uri, dbName))
    console.log(`H2 restart outage: ${tally.requests} requests ${JSON.stringify(tally.statuses)}, acknowledged ${total(tally.acked)} events, answered 504 ${total(tally.unknown)}; slowest answer ${Math.round(tally.maxMs)} ms`)
  }, 150_000)
})
