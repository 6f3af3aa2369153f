// Starts ./bench-server.js as a child process (../shared/child-server.js)
// and talks to it over IPC. Its log lines go to this process's stderr: the
// bench's stdout is the report (markdown, or JSON with --json).
import { fileURLToPath } from 'node:url'
import { startChildServer } from '../shared/child-server.js'

const SERVER = fileURLToPath(new URL('./bench-server.js', import.meta.url))

/**
 * env: statbucket configuration (MONGODB_URI, MONGODB_DB, …; BENCH_CLOCK_START for a simulated clock; StatsD off
 * unless STATSD_PORT is given); nodeArgs: node's own flags (--cpu-prof)
 * → { url, pid, backend, statsdPort, stats(), resetPeak(), setClock(ms), sweep(timeoutMs), idle(), stop() }
 */
export async function startServerProcess (env, { startTimeoutMs = 60_000, nodeArgs = [] } = {}) {
  // STATSD_PORT=0: no StatsD listener (8125 by default) unless env sets a port
  const server = await startChildServer({ script: SERVER, env: { ...process.env, LOG_LEVEL: 'warn', STATSD_PORT: '0', ...env }, startTimeoutMs, inheritOutput: 'stderr', nodeArgs })
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    pid: server.pid,
    backend: server.info.backend,
    statsdPort: server.info.statsdPort ?? null,
    stats: () => server.ask('stats'),
    resetPeak: () => server.ask('reset-peak'),
    setClock: now => server.ask('set-clock', 30_000, { now }),
    sweep: timeoutMs => server.ask('sweep', timeoutMs),
    idle: () => server.ask('idle', 120_000),
    stop: () => server.stop({ signal: 'SIGTERM' })
  }
}
