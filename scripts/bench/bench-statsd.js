// The statsd phase: a statbucket child process with its StatsD listeners on,
// hot-shots client processes sending counter lines over TCP as fast as the
// service takes them, then over UDP at the rate TCP reached; then the same
// with timer lines (`|ms`, realistic latencies: distributions). What is lost
// is read back from the database once the service drained (SIGTERM).
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { dailySum } from './bench-ingest.js'
import { packageVersion } from './bench-env.js'
import { startServerProcess } from './server-process.js'
import { freeStatsdPort } from '../shared/child-server.js'
import { distributionCount } from './bench-timers.js'
import { counterBy, counterDelta, machineTicks, runFigures, udpCounters } from './statsd-figures.js'
import { procCpuMs } from './process-cpu.js'

const LOAD = fileURLToPath(new URL('./statsd-load.js', import.meta.url))
const METRICS = 100
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const readText = path => { try { return fs.readFileSync(path, 'utf8') } catch { return null } }

// hot-shots' maxBufferSize: lines are packed into one write (TCP) or datagram (UDP) up to this many bytes.
// UDP: 1432, the size StatsD's own documentation gives for datagrams over an Ethernet MTU; TCP has no MTU to fit.
export const TCP_BUFFER_BYTES = 8192
export const UDP_BUFFER_BYTES = 1432
export const STATSD_FLUSH_INTERVAL_MS = 1000 // the default
// the sums stop changing at most a flush interval after the last line read; allow for a slow write too
export const QUIET_MS = 3 * STATSD_FLUSH_INTERVAL_MS + 2000

/** Forks `count` load processes, connected and ready → { go(seconds, rate) → [done messages] , kill() } */
async function startClients ({ count, protocol, port, prefix, maxBufferSize, kind = 'counter' }) {
  const procs = Array.from({ length: count }, () => fork(LOAD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }))
  const kill = () => { for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL') }
  const nextMessage = (p, type, timeoutMs) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`StatsD load process ${p.pid}: no ${type} within ${timeoutMs} ms`)), timeoutMs)
    const onExit = code => { clearTimeout(timer); reject(new Error(`StatsD load process ${p.pid} exited (${code}) before ${type}`)) }
    p.once('exit', onExit)
    p.on('message', function onMessage (msg) {
      if (msg?.type === 'failed') { clearTimeout(timer); p.off('exit', onExit); reject(new Error(`StatsD load process: ${msg.message}`)) }
      if (msg?.type !== type) return
      clearTimeout(timer)
      p.off('message', onMessage)
      p.off('exit', onExit)
      resolve(msg)
    })
  })
  try {
    await Promise.all(procs.map((p, i) => {
      const ready = nextMessage(p, 'ready', 30_000)
      p.send({ type: 'start', protocol, host: '127.0.0.1', port, prefix, metrics: METRICS, maxBufferSize, kind, seed: 1 + i })
      return ready
    }))
  } catch (err) {
    kill()
    throw err
  }
  return {
    async go (seconds, rate) {
      const done = procs.map(p => nextMessage(p, 'done', (seconds + 60) * 1000))
      for (const p of procs) p.send({ type: 'go', seconds, rate: rate ? rate / procs.length : null })
      try {
        return await Promise.all(done)
      } finally {
        kill()
      }
    },
    kill
  }
}

/** What a kind's lines stored add up to: a counter's sum of 1s, a timer's count of values */
const STORED = { counter: dailySum, timer: distributionCount }

/**
 * Polls the sum stored for prefix until it reaches `expected` or has not
 * changed for quietMs → { sum, at (performance.now() when it last changed) }
 */
async function settle (db, prefix, expected, { quietMs, pollMs = 100, kind = 'counter' }) {
  let last = null
  let at = performance.now()
  for (;;) {
    const sum = await STORED[kind](db, prefix)
    if (sum !== last) { last = sum; at = performance.now() }
    if (sum >= expected || performance.now() - at > quietMs) return { sum, at }
    await sleep(pollMs)
  }
}

async function scrape (server, token) {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`)
  const text = await res.text()
  return {
    received: counterBy(text, 'statbucket_statsd_received_total', 'transport'),
    dropped: counterBy(text, 'statbucket_statsd_dropped_total', 'reason')
  }
}

/** One transport's measured run: clients sending for `seconds` (at `rate` lines/s in all, or as fast as they can) */
export async function measuredRun ({ db, server, token, protocol, prefix, clients, seconds, rate, quietMs = QUIET_MS, dbPid, log, kind = 'counter' }) {
  const load = await startClients({ count: clients, protocol, port: server.statsdPort, prefix, maxBufferSize: protocol === 'tcp' ? TCP_BUFFER_BYTES : UDP_BUFFER_BYTES, kind })
  const metricsBefore = await scrape(server, token)
  const udpBefore = udpCounters(readText('/proc/net/snmp') ?? '')
  const machineBefore = machineTicks(readText('/proc/stat') ?? '')
  const dbCpuBefore = procCpuMs(dbPid)
  const before = await server.stats()
  const go = performance.now()
  const done = await load.go(seconds, rate)
  // until the last client's lines had all left it (its close, which waits a little more, not counted)
  const sendSeconds = Math.max(...done.map(d => d.sendMs)) / 1000
  const sent = done.reduce((n, d) => n + d.sent, 0)
  const clientErrors = done.reduce((n, d) => n + d.errors, 0)
  const firstError = done.find(d => d.firstError)?.firstError ?? null
  const { sum: settled, at } = await settle(db, prefix, sent, { quietMs, kind })
  const after = await server.stats()
  const machineAfter = machineTicks(readText('/proc/stat') ?? '')
  const dbCpuAfter = procCpuMs(dbPid)
  const udpAfter = udpCounters(readText('/proc/net/snmp') ?? '')
  const metricsAfter = await scrape(server, token)
  const appliedSeconds = (at - go) / 1000
  const clientCpuMs = done.reduce((n, d) => n + d.cpuMs, 0)
  const run = {
    protocol,
    kind,
    clients,
    maxBufferSize: protocol === 'tcp' ? TCP_BUFFER_BYTES : UDP_BUFFER_BYTES,
    offeredRate: rate ?? null,
    sent,
    settled,
    sendSeconds,
    appliedSeconds,
    serviceCpuMs: after.cpuMs - before.cpuMs,
    clientErrors,
    firstClientError: firstError,
    clientCores: clientCpuMs / 1000 / sendSeconds,
    databaseCores: dbCpuBefore !== null && dbCpuAfter !== null ? (dbCpuAfter - dbCpuBefore) / 1000 / appliedSeconds : null,
    machineCores: os.cpus().length,
    machineBusy: machineBefore && machineAfter ? (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total) : null,
    received: (metricsAfter.received[protocol] ?? 0) - (metricsBefore.received[protocol] ?? 0),
    dropped: counterDelta(metricsBefore.dropped, metricsAfter.dropped),
    hostUdpRcvbufErrors: udpBefore && udpAfter ? udpAfter.RcvbufErrors - udpBefore.RcvbufErrors : null
  }
  log(`  ${protocol}${kind === 'timer' ? ' timers' : ''}: sent ${fmtN(sent)} lines in ${sendSeconds.toFixed(1)} s (${fmtN(sent / sendSeconds)}/s); ${fmtN(settled)} stored after ${appliedSeconds.toFixed(1)} s; service CPU ${(run.serviceCpuMs / 1000).toFixed(2)} s`)
  return run
}

const fmtN = n => Math.round(n).toLocaleString('en-US')

/**
 * The phase. uri/dbName: the benchmark's database; db: a handle on it (to
 * read the sums back); dbPid: the embedded database's process, for its CPU
 * (null: not measured). → figures.statsd
 */
export async function benchStatsd ({ uri, dbName, db, dbPid = null, seconds, warmupSeconds, clients = 2, log }) {
  const token = randomBytes(12).toString('hex')
  const flushIntervalMs = STATSD_FLUSH_INTERVAL_MS
  const quietMs = QUIET_MS
  const server = await startServerProcess({
    MONGODB_URI: uri,
    MONGODB_DB: dbName,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    STATSD_PORT: String(await freeStatsdPort()), // free for UDP and TCP a moment ago, reported back over IPC
    STATSD_HOST: '127.0.0.1',
    STATSD_FLUSH_INTERVAL_MS: String(flushIntervalMs),
    METRICS_TOKENS: token
  })
  log(`statsd: statbucket with StatsD on 127.0.0.1:${server.statsdPort} (pid ${server.pid})`)
  let stopped = false
  try {
    if (warmupSeconds) {
      log(`statsd: TCP warm-up, ${clients} hot-shots process${clients > 1 ? 'es' : ''}, ${warmupSeconds} s`)
      const load = await startClients({ count: clients, protocol: 'tcp', port: server.statsdPort, prefix: 'bench.statsd.warm.', maxBufferSize: TCP_BUFFER_BYTES })
      const done = await load.go(warmupSeconds, null)
      await settle(db, 'bench.statsd.warm.', done.reduce((n, d) => n + d.sent, 0), { quietMs })
    }
    await server.resetPeak()
    log(`statsd: TCP, ${clients} hot-shots process${clients > 1 ? 'es' : ''} as fast as the service reads, ${seconds} s`)
    const tcp = await measuredRun({ db, server, token, protocol: 'tcp', prefix: 'bench.statsd.m', clients, seconds, rate: null, quietMs, dbPid, log })
    const rate = tcp.sent / tcp.sendSeconds
    log(`statsd: UDP at TCP's rate, ${fmtN(rate)} lines/s offered, ${seconds} s`)
    const udp = await measuredRun({ db, server, token, protocol: 'udp', prefix: 'bench.statsd.udp.m', clients, seconds, rate, quietMs, dbPid, log })
    // the same with timer lines (`bench.statsd.t<i>:<latency>|ms`): distributions
    log(`statsd: timers over TCP, ${clients} hot-shots process${clients > 1 ? 'es' : ''} as fast as the service reads, ${seconds} s`)
    const timerTcp = await measuredRun({ db, server, token, protocol: 'tcp', prefix: 'bench.statsd.t', clients, seconds, rate: null, quietMs, dbPid, log, kind: 'timer' })
    const timerRate = timerTcp.sent / timerTcp.sendSeconds
    log(`statsd: timers over UDP at their TCP rate, ${fmtN(timerRate)} lines/s offered, ${seconds} s`)
    const timerUdp = await measuredRun({ db, server, token, protocol: 'udp', prefix: 'bench.statsd.udp.t', clients, seconds, rate: timerRate, quietMs, dbPid, log, kind: 'timer' })
    const { rssPeak } = await server.stats()
    // SIGTERM: the listeners stop, what their pipelines hold is written, the writer drains
    const exit = await server.stop()
    stopped = true
    const tcpStored = await dailySum(db, 'bench.statsd.m')
    const udpStored = await dailySum(db, 'bench.statsd.udp.m')
    const timerTcpStored = await distributionCount(db, 'bench.statsd.t')
    const timerUdpStored = await distributionCount(db, 'bench.statsd.udp.t')
    const figuresOf = (run, stored) => ({ ...run, ...runFigures({ sent: run.sent, stored, settled: run.settled, sendSeconds: run.sendSeconds, appliedSeconds: run.appliedSeconds, serviceCpuMs: run.serviceCpuMs }) })
    const figures = {
      client: `hot-shots ${packageVersion('hot-shots')}`,
      metrics: METRICS,
      clients,
      seconds,
      flushIntervalMs,
      exit: exit.signal ?? exit.code,
      tcp: figuresOf(tcp, tcpStored),
      udp: figuresOf(udp, udpStored),
      // timer lines: lines/s, CPU and loss counted in values stored (each line one value)
      timers: { tcp: figuresOf(timerTcp, timerTcpStored), udp: figuresOf(timerUdp, timerUdpStored) },
      rssPeakBytes: rssPeak,
      // the most a socket's receive buffer may be asked (statbucket asks 8 MiB for UDP; Linux grants at most this, doubled)
      hostRmemMaxBytes: Number(readText('/proc/sys/net/core/rmem_max')) || null
    }
    log(`  TCP: ${fmtN(figures.tcp.appliedPerS)} lines/s applied, ${fmtN(figures.tcp.linesPerCoreS)} lines/s per core of service CPU, ${fmtN(figures.tcp.lost)} lost`)
    log(`  UDP: ${fmtN(figures.udp.sent)} sent, ${fmtN(figures.udp.stored)} stored, ${fmtN(figures.udp.lost)} lost (${figures.udp.lossPct?.toFixed(2)} %)`)
    log(`  timers over TCP: ${fmtN(figures.timers.tcp.appliedPerS)} lines/s applied, ${fmtN(figures.timers.tcp.linesPerCoreS)} lines/s per core of service CPU, ${fmtN(figures.timers.tcp.lost)} lost`)
    log(`  timers over UDP: ${fmtN(figures.timers.udp.sent)} sent, ${fmtN(figures.timers.udp.stored)} stored, ${fmtN(figures.timers.udp.lost)} lost (${figures.timers.udp.lossPct?.toFixed(2)} %)`)
    return figures
  } finally {
    if (!stopped) await server.stop().catch(() => {})
  }
}
