// statbucket as a child process for the benchmark: buildApp on the given
// database, listening on 127.0.0.1 port 0. Talks to its parent over IPC:
// sends { type: 'listening', port, backend, statsdPort (null with
// STATSD_PORT=0) }, answers { type: 'stats' } with
// the writer's counters and the process's memory, closes on { type: 'close' }
// or SIGTERM. Configuration comes from the environment (as `npm start`).
// BENCH_CLOCK_START=<epoch ms>: the service runs on a simulated clock from
// that time (./bench-clock.js), moved by { type: 'set-clock', now }; then
// { type: 'sweep' } runs the preallocation sweep once and { type: 'idle' }
// waits for the queued preallocations (the cardinality section).
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { applyHeapGrowth } from '../../src/heap-growth.js'
import { buildBareApp } from './bare-app.js'
import { buildNaiveApp } from './naive-app.js'
import { offsetClock } from './bench-clock.js'
import { monitorEventLoopDelay } from 'node:perf_hooks'

const counters = { flushes: 0, statements: 0, flushedEvents: 0, flushedUnits: 0, flushMs: 0, retries: 0, answered: {}, preallocated: 0, preallocatedByKind: {} }
let rssPeak = 0
// how long the event loop was held up (since the last reset-peak): what a request waits before it is even read
const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()
const sampleRss = () => { rssPeak = Math.max(rssPeak, process.memoryUsage.rss()) }
const sampler = setInterval(sampleRss, 100)
/** The V8 heap's used and reserved bytes and the memory outside it (Buffers): what the RSS is made of */
function heapFigures () {
  const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
  return { heapUsed, heapTotal, external, arrayBuffers }
}

const observer = {
  flushed ({ statements, events, retries, units, durationMs }) {
    counters.flushes++
    counters.flushedUnits += units
    counters.flushMs += durationMs
    counters.statements += statements
    counters.flushedEvents += events
    counters.retries += retries
  },
  answered ({ outcome }) {
    counters.answered[outcome] = (counters.answered[outcome] ?? 0) + 1
  },
  preallocated ({ kind, collection }) {
    counters.preallocated++
    const key = `${kind}.${collection}`
    counters.preallocatedByKind[key] = (counters.preallocatedByKind[key] ?? 0) + 1
  }
}

const config = loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0' })
// BENCH_BARE=1: a yardstick instead (bare-app.js), a route of the same shape with nothing behind it;
// BENCH_NAIVE=1: the route writing each event by two awaited upserts (naive-app.js)
const bare = process.env.BENCH_BARE === '1'
const naive = process.env.BENCH_NAIVE === '1'
// the service's heap setting, as src/server.js applies it (the yardsticks are what a user would write: V8's own)
if (!bare && !naive) applyHeapGrowth(config.heapGrowthPercent)
const clock = process.env.BENCH_CLOCK_START ? offsetClock(Number(process.env.BENCH_CLOCK_START)) : undefined
const app = bare
  ? await buildBareApp(config)
  : naive
    ? await buildNaiveApp(config, config.mongodbUri)
    : await buildApp({ config, logger: { level: config.logLevel }, observer, clock, sweepSchedule: process.env.BENCH_SWEEP === '1' })
await app.listen({ host: '127.0.0.1', port: 0 })

let closing = null
function close () {
  closing ??= app.close().finally(() => {
    clearInterval(sampler)
    if (process.connected) process.disconnect()
  })
  return closing
}

process.on('SIGTERM', close)
process.on('disconnect', close) // the parent went away: do not outlive it
process.on('message', (msg) => {
  if (msg?.type === 'stats') {
    sampleRss()
    const cpu = process.cpuUsage()
    process.send({ type: 'stats', id: msg.id, counters: structuredClone(counters), cpuMs: (cpu.user + cpu.system) / 1000, monotonicUs: Number(process.hrtime.bigint() / 1000n), rss: process.memoryUsage.rss(), rssPeak, ...heapFigures(), loopDelayMaxMs: loopDelay.max / 1e6, loopDelayP99Ms: loopDelay.percentile(99) / 1e6 })
  } else if (msg?.type === 'reset-peak') {
    rssPeak = process.memoryUsage.rss()
    loopDelay.reset()
    process.send({ type: 'reset-peak', id: msg.id })
  } else if (msg?.type === 'set-clock' && clock) {
    clock.set(msg.now)
    process.send({ type: 'set-clock', id: msg.id, now: clock.now() })
  } else if (msg?.type === 'sweep') {
    const started = performance.now()
    const startedAt = app.clock.now()
    app.sweep.runOnce().then(
      result => process.send({ type: 'sweep', id: msg.id, result, startedAt, endedAt: app.clock.now(), ms: performance.now() - started }),
      err => process.send({ type: 'sweep', id: msg.id, error: err.message }))
  } else if (msg?.type === 'idle') {
    app.preallocator.idle().then(() => process.send({ type: 'idle', id: msg.id }))
  } else if (msg?.type === 'close') {
    close()
  }
})
process.send({ type: 'listening', port: app.server.address().port, backend: bare ? 'none' : naive ? 'naive' : app.mongo.backend, statsdPort: app.statsd?.port ?? null })
