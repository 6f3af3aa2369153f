// Starts ./bench-server.js as a child process (../shared/child-server.js)
// and talks to it over IPC. Its log lines go to this process's stderr: the
// bench's stdout is the report (markdown, or JSON with --json).
import { fileURLToPath } from 'node:url'
import { startChildServer } from '../shared/child-server.js'
import { SERVICE_NODE_FLAGS } from '../../src/heap-growth.js'

const SERVER = fileURLToPath(new URL('./bench-server.js', import.meta.url))

/**
 * env: statbucket configuration (MONGODB_URI, MONGODB_DB, …; BENCH_CLOCK_START for a simulated clock; StatsD off
 * unless STATSD_PORT is given); nodeArgs: node's own flags (--cpu-prof)
 * → { url, pid, backend, statsdPort, stats(), resetPeak(), setClock(ms), sweep(timeoutMs), idle(), stop() }
 */
export async function startServerProcess (env, { startTimeoutMs = 60_000, nodeArgs = [] } = {}) {
  // STATSD_PORT=0: no StatsD listener (8125 by default) unless env sets a port
  const childEnv = { ...process.env, LOG_LEVEL: 'warn', STATSD_PORT: '0', ...env }
  // the service runs with npm start's node flags; a yardstick (naive-app.js, bare-app.js) with node's own, as a user's would.
  // BENCH_SERVICE_NODE_ARGS: more flags for each (a V8 setting tried side by side)
  const yardstick = childEnv.BENCH_NAIVE === '1' || childEnv.BENCH_BARE === '1'
  const asked = process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const server = await startChildServer({ script: SERVER, env: childEnv, startTimeoutMs, inheritOutput: 'stderr', nodeArgs: [...(yardstick ? [] : SERVICE_NODE_FLAGS), ...asked, ...nodeArgs] })
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
