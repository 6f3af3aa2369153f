// Shutdown with nothing cut: 64 keep-alive clients post as fast as they are
// answered; then SIGTERM to node alone, or to the whole process group of
// `npm start` (what systemd's KillMode=control-group sends: node gets it
// twice, once through npm). Every run: no connection reset (a request that
// found the port closed never reached the server), every answer 200 or 503
// (the clients wait a 503's Retry-After, as the contract asks),
// acknowledged = stored, one drain ("closed" logged once), and the repeated
// SIGTERM logged and ignored. SHUTDOWN_RUNS=20 repeats each (CI runs 2).
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import { createTally, onCleanup, runLoad, sleep, startStatbucket, storedTotals, total, uniqueDb, useDatabase, waitFor } from './harness.js'

const RUNS = Number(process.env.SHUTDOWN_RUNS ?? 2)
const metrics = ['sd.a', 'sd.b', 'sd.c']
const db = useDatabase()

const groupAlive = pgid => { try { process.kill(-pgid, 0); return true } catch (err) { return err.code !== 'ESRCH' } }

/** `npm start` in a process group of its own, as a supervisor starts it → { pid, logs, exited, port } */
async function npmStart (env) {
  const npm = spawn('npm', ['start'], { cwd: new URL('../../', import.meta.url), env: { PATH: process.env.PATH, HOME: process.env.HOME, STATSD_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  onCleanup(async () => { if (groupAlive(npm.pid)) process.kill(-npm.pid, 'SIGKILL') })
  const logs = []
  createInterface({ input: npm.stdout }).on('line', line => { try { logs.push(JSON.parse(line)) } catch {} })
  const exited = new Promise(resolve => npm.once('exit', resolve))
  const port = await waitFor(() => {
    for (const l of logs) { const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(l.msg ?? ''); if (m) return Number(m[1]) }
    return null
  }, { timeoutMs: 30_000, intervalMs: 50, what: 'npm start to listen' })
  return { pid: npm.pid, logs, exited, port }
}

async function underLoad (port, signal) {
  const tally = createTally()
  const load = runLoad(port, { metrics, tally, concurrency: 64, maxBatch: 10, keepAlive: true, durationMs: 30_000, timeoutMs: 15_000, honorRetryAfter: true })
  await waitFor(() => (tally.statuses[200] ?? 0) >= 200, { timeoutMs: 20_000, what: '200 acknowledged requests' })
  signal()
  return { tally, load }
}

function expectNothingCut (tally, logs, dbTotals, label) {
  for (const error of Object.keys(tally.errors)) expect(['ECONNREFUSED'], `${label}: ${JSON.stringify(tally.errors)}`).toContain(error)
  for (const status of Object.keys(tally.statuses)) expect(['200', '503'], label).toContain(status)
  expect(total(dbTotals.daily), `${label}: stored = acknowledged`).toBe(total(tally.acked))
  expect(logs.filter(l => /^shutting down on SIGTERM/.test(l.msg ?? '')), label).toHaveLength(1)
  expect(logs.filter(l => /^closed: flushed \d+ events after the signal/.test(l.msg ?? '')), label).toHaveLength(1)
  expect(logs.filter(l => l.level >= 50), label).toEqual([])
}

describe('shutdown under 64 keep-alive clients', () => {
  it(`SIGTERM to node: no reset, acknowledged = stored, one drain (${RUNS} runs)`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const dbName = uniqueDb('sdnode')
      const sb = await startStatbucket({ MONGODB_URI: db.uri, MONGODB_DB: dbName })
      onCleanup(() => sb.stop())
      const { tally, load } = await underLoad(sb.port, () => sb.kill('SIGTERM'))
      const exit = await Promise.race([sb.exited, sleep(40_000).then(() => 'hung')])
      await sleep(200)
      await load.stop()
      expect(exit).toEqual({ code: 0, signal: null })
      expectNothingCut(tally, sb.logs, await storedTotals(db.uri, dbName), `node run ${run}`)
      console.log(`SIGTERM to node, run ${run}: ${tally.requests} requests ${JSON.stringify(tally.statuses)} ${JSON.stringify(tally.errors)}; acknowledged = stored = ${total(tally.acked)}`)
    }
  }, 60_000 * RUNS)

  it(`SIGTERM to the process group of npm start: the repeat ignored, no reset, acknowledged = stored (${RUNS} runs)`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const dbName = uniqueDb('sdgroup')
      const npm = await npmStart({ MONGODB_URI: db.uri, MONGODB_DB: dbName, PORT: '0', LOG_LEVEL: 'info', PREALLOC_PROBABILITY: '0' })
      const { tally, load } = await underLoad(npm.port, () => process.kill(-npm.pid, 'SIGTERM'))
      await waitFor(() => !groupAlive(npm.pid), { timeoutMs: 40_000, intervalMs: 100, what: 'the process group to end' })
      await sleep(200)
      await load.stop()
      expectNothingCut(tally, npm.logs, await storedTotals(db.uri, dbName), `group run ${run}`)
      console.log(`SIGTERM to the group, run ${run}: ${tally.requests} requests ${JSON.stringify(tally.statuses)} ${JSON.stringify(tally.errors)}; acknowledged = stored = ${total(tally.acked)}; repeats ignored: ${npm.logs.filter(l => /^SIGTERM again while shutting down/.test(l.msg ?? '')).length}`)
    }
  }, 60_000 * RUNS)
})
