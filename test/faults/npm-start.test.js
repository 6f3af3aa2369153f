// `npm start` passes a signal on: SIGTERM to the npm process ends the whole
// process group once the server's drain is done (never forced at its
// drainTimeoutMs: nothing logged after the "closed" line), with every request
// that reached the server answered, keep-alive clients told to reconnect
// (Connection: close), the shutdown logged as one line when it begins and one
// when it has closed, and the expected 503s of a closing server not logged as
// errors.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import { createTally, onCleanup, runLoad, sleep, uniqueDb, useDatabase, waitFor } from './harness.js'

const db = useDatabase()

const groupAlive = (pgid) => {
  try { process.kill(-pgid, 0); return true } catch (err) { return err.code !== 'ESRCH' }
}

describe('npm start and SIGTERM', () => {
  it('SIGTERM to npm ends the process group once its drain is done, and answers every request that reached the server', async () => {
    const npm = spawn('npm', ['start'], {
      cwd: new URL('../../', import.meta.url),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MONGODB_URI: db.uri, MONGODB_DB: uniqueDb('npmstart'), PORT: '0', STATSD_PORT: '0', LOG_LEVEL: 'debug', PREALLOC_PROBABILITY: '0' }, // debug: the request trail
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true // a process group of its own, as a process manager would start it
    })
    onCleanup(async () => { if (groupAlive(npm.pid)) process.kill(-npm.pid, 'SIGKILL') })
    const logs = []
    createInterface({ input: npm.stdout }).on('line', line => { try { logs.push(JSON.parse(line)) } catch {} })
    const port = await waitFor(() => {
      for (const l of logs) { const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(l.msg ?? ''); if (m) return Number(m[1]) }
      return null
    }, { timeoutMs: 30_000, intervalMs: 50, what: 'npm start to listen' })

    const tally = createTally()
    const load = runLoad(port, { metrics: ['ns.a', 'ns.b'], tally, concurrency: 8, maxBatch: 20, keepAlive: true, durationMs: 30_000, timeoutMs: 15_000 })
    await waitFor(() => (tally.statuses[200] ?? 0) >= 50, { timeoutMs: 20_000, what: '50 acknowledged requests' })
    process.kill(npm.pid, 'SIGTERM')
    // a hang guard, not a bound: the drain's own bound is the server's (a forced exit is logged as an error)
    await waitFor(() => !groupAlive(npm.pid), { timeoutMs: 60_000, intervalMs: 100, what: 'the process group to end' })
    await sleep(300)
    await load.stop()

    // the group ended because the server's drain was done: its last word is the "closed" line, no forced exit
    expect(logs.filter(l => /^forced exit/.test(l.msg ?? ''))).toEqual([])
    expect(logs.at(-1)?.msg, JSON.stringify(logs.slice(-3))).toMatch(/^closed: flushed \d+ events after the signal/)
    // no answer only where the request never reached the server: the port closed (refused), or
    // an idle kept-alive socket closed as the request was being sent (reset)
    for (const error of Object.keys(tally.errors)) expect(['ECONNREFUSED', 'ECONNRESET']).toContain(error)
    for (const status of Object.keys(tally.statuses)) expect(['200', '503']).toContain(status)
    // every request the server received, it answered
    const received = new Set(logs.filter(l => l.msg === 'incoming request').map(l => l.reqId))
    const answered = new Set(logs.filter(l => l.msg === 'request completed').map(l => l.reqId))
    expect(received.size).toBeGreaterThan(50)
    expect([...received].filter(id => !answered.has(id))).toEqual([])
    const shutdown = logs.filter(l => /^shutting down on SIGTERM/.test(l.msg ?? ''))
    const closed = logs.filter(l => /^closed: flushed \d+ events after the signal/.test(l.msg ?? ''))
    expect(shutdown).toHaveLength(1)
    expect(closed).toHaveLength(1)
    expect(logs.filter(l => l.level >= 50), JSON.stringify(logs.filter(l => l.level >= 50)).slice(0, 500)).toEqual([])
  }, 90_000)
})

describe('npm start and Ctrl-C', () => {
  // Ctrl-C in a terminal is SIGINT to the foreground process group: node gets it from the
  // terminal and again from npm, which passes it on. One press: one drain, exit 0.
  const RUNS = 5
  it(`SIGINT to npm start's process group drains once and exits 0 (${RUNS} runs of ${RUNS})`, async () => {
    const outcomes = []
    for (let run = 0; run < RUNS; run++) {
      const npm = spawn('npm', ['start'], {
        cwd: new URL('../../', import.meta.url),
        env: { PATH: process.env.PATH, HOME: process.env.HOME, MONGODB_URI: db.uri, MONGODB_DB: uniqueDb('npmctrlc'), PORT: '0', STATSD_PORT: '0', LOG_LEVEL: 'info', PREALLOC_PROBABILITY: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true
      })
      onCleanup(async () => { if (groupAlive(npm.pid)) process.kill(-npm.pid, 'SIGKILL') })
      const exited = new Promise(resolve => npm.once('exit', (code, signal) => resolve({ code, signal })))
      const logs = []
      createInterface({ input: npm.stdout }).on('line', line => { try { logs.push(JSON.parse(line)) } catch {} })
      const port = await waitFor(() => {
        for (const l of logs) { const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(l.msg ?? ''); if (m) return Number(m[1]) }
        return null
      }, { timeoutMs: 30_000, intervalMs: 50, what: 'npm start to listen' })
      const tally = createTally()
      const load = runLoad(port, { metrics: ['nc.a'], tally, concurrency: 4, maxBatch: 10, keepAlive: true, durationMs: 30_000, timeoutMs: 15_000, honorRetryAfter: true })
      await waitFor(() => (tally.statuses[200] ?? 0) >= 20, { timeoutMs: 20_000, what: '20 acknowledged requests' })
      process.kill(-npm.pid, 'SIGINT')
      const exit = await Promise.race([exited, sleep(20_000).then(() => 'hung')])
      await load.stop()
      const forced = logs.filter(l => /^forced exit/.test(l.msg ?? '')).map(l => l.msg)
      outcomes.push({ run, exit, forced, drains: logs.filter(l => /^shutting down on SIGINT/.test(l.msg ?? '')).length, closed: logs.filter(l => /^closed: flushed/.test(l.msg ?? '')).length })
    }
    expect(outcomes).toEqual(Array.from({ length: RUNS }, (_, run) => ({ run, exit: { code: 0, signal: null }, forced: [], drains: 1, closed: 1 })))
  }, 150_000)
})
