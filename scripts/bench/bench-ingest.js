// Ingest figures: the naive path, the in-process coalescing writer and
// HTTP (batched and single-event), all on the same database.
import autocannon from 'autocannon'
import { buildWriteUnit } from '../../src/kinds/write-unit.js'
import { createWriter } from '../../src/writer/writer.js'
import { systemClock } from '../../src/clock.js'
import { metricNames, percentile } from '../shared/workload.js'
import { naiveWrite } from '../loadgen/mongo-target.js'
import { latencies } from './timer-workload.js'
import { procCpuMs } from './process-cpu.js'

const noop = () => {}
const quiet = { debug: noop, info: noop, warn: noop, error: noop }

/** Runs `concurrency` closed-loop workers of `fn` for `seconds`; → { ops, seconds, latencies } */
async function closedLoop ({ concurrency, seconds, fn }) {
  const latencies = []
  let ops = 0
  const started = performance.now()
  const deadline = started + seconds * 1000
  await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const t0 = performance.now()
      const done = await fn(w, i) // (not `ops += await …`: that would add to a stale ops)
      ops += done
      latencies.push(performance.now() - t0)
    }
  }))
  return { ops, seconds: (performance.now() - started) / 1000, latencies }
}

export async function benchNaive ({ db, seconds, concurrency = 16, prefix = 'bench.naive.' }) {
  const metrics = metricNames(prefix, 100)
  const collections = { daily: db.collection('daily'), monthly: db.collection('monthly') }
  let next = 0
  const run = await closedLoop({
    concurrency,
    seconds,
    fn: async () => {
      const metric = metrics[next++ % metrics.length]
      await naiveWrite(collections, { metric, value: 1, time: Date.now() })
      return 1
    }
  })
  return {
    eventsPerS: run.ops / run.seconds,
    events: run.ops,
    concurrency,
    seconds,
    statementsPerEvent: 2,
    p50Ms: percentile(run.latencies, 50),
    p99Ms: percentile(run.latencies, 99)
  }
}

export async function benchWriter ({ db, seconds, concurrency = 16, batch = 1000, prefix = 'bench.writer.', dbPid = null }) {
  const metrics = metricNames(prefix, 100)
  const collections = { daily: db.collection('daily'), monthly: db.collection('monthly'), metrics: db.collection('metrics') }
  const counted = { statements: 0, events: 0 }
  const writer = createWriter(collections, {
    flushIntervalMs: 10,
    flushMaxDocs: 1000,
    maxPendingEvents: 100_000,
    writeTimeoutMs: 10_000,
    clock: systemClock,
    logger: quiet,
    telemetry: { publish: (name, { statements, events }) => { if (name === 'flushed') { counted.statements += statements; counted.events += events } } }
  })
  let failed = 0
  const cpuBefore = process.cpuUsage() // this process runs the writer and nothing else meanwhile
  const dbCpuBefore = procCpuMs(dbPid)
  const run = await closedLoop({
    concurrency,
    seconds,
    fn: async () => {
      const now = Date.now()
      const events = new Array(batch)
      for (let i = 0; i < batch; i++) events[i] = { metric: metrics[i % metrics.length], value: 1, time: now }
      const answer = await writer.submit(buildWriteUnit(events))
      if (answer.outcome !== 'applied') { failed += batch; return 0 }
      return batch
    }
  })
  const cpu = process.cpuUsage(cpuBefore)
  const dbCpuAfter = procCpuMs(dbPid)
  await writer.close()
  return {
    eventsPerS: run.ops / run.seconds,
    cpuUsPerEvent: run.ops ? (cpu.user + cpu.system) / run.ops : null,
    databaseCpuUsPerEvent: databaseCpuUsPer(dbCpuBefore, dbCpuAfter, run.ops),
    events: run.ops,
    failed,
    concurrency,
    batch,
    seconds,
    statementsPerEvent: counted.events ? counted.statements / counted.events : null,
    p50Ms: percentile(run.latencies, 50),
    p99Ms: percentile(run.latencies, 99)
  }
}

/** The database process's CPU per unit between two procCpuMs readings, in µs, or null (pid unknown: not the embedded database) */
export function databaseCpuUsPer (before, after, units) {
  return before === null || after === null || !units ? null : ((after - before) * 1000) / units
}

/** What the service did between two stats() answers: flushes, statements, CPU */
export function serverDelta (before, after, { requests }) {
  const d = k => after.counters[k] - before.counters[k]
  const flushes = d('flushes')
  const cpuMs = after.cpuMs - before.cpuMs
  return {
    flushes,
    statementsPerEvent: d('flushedEvents') ? d('statements') / d('flushedEvents') : null,
    statementsPerFlush: flushes ? d('statements') / flushes : null,
    requestsPerFlush: flushes ? d('flushedUnits') / flushes : null,
    flushMs: flushes ? d('flushMs') / flushes : null,
    cpuMs,
    cpuUsPerRequest: requests ? (cpuMs * 1000) / requests : null
  }
}

function cannon (opts) {
  return autocannon({ timeout: 30, ...opts })
}

const statusCount = (result, code) => result.statusCodeStats?.[code]?.count ?? 0

/** Bodies of timer values (kind distribution) that HTTP timer batches rotate over: a timer's values differ from one request to the next */
export const TIMER_BODIES = 16

/** `count` bodies of `batch` timer values over names, latencies from seeds 1… (timer-workload.js) */
export function timerBodies (names, batch, count = TIMER_BODIES) {
  return Array.from({ length: count }, (_, b) => {
    const values = latencies(batch, 1 + b)
    return JSON.stringify(values.map((value, i) => ({ metric: names[i % names.length], value, kind: 'distribution' })))
  })
}

/** `count` bodies of `batch` counter events over names, event k of them tagged tagsOf(k) (docs/tags.md) */
export function taggedBodies (names, batch, tagsOf, count = TIMER_BODIES) {
  return Array.from({ length: count }, (_, b) => JSON.stringify(Array.from({ length: batch }, (_, i) => ({ metric: names[i % names.length], tags: tagsOf(b * batch + i) }))))
}

/** The same bodies untagged, event k of them sent to nameOf(its name, k) */
export function renamedBodies (names, batch, nameOf, count = TIMER_BODIES) {
  return Array.from({ length: count }, (_, b) => JSON.stringify(Array.from({ length: batch }, (_, i) => ({ metric: nameOf(names[i % names.length], b * batch + i) }))))
}

/**
 * Batched HTTP ingest: constant bodies of `batch` events over 100 metrics (no
 * ts: the server's clock). timers: each event a timer's value instead
 * ({ metric, value, kind: 'distribution' }, a latency in ms), the bodies
 * rotating over TIMER_BODIES sets of values. tagsOf: each event a tagged
 * counter increment instead, event k of the bodies tagged tagsOf(k).
 * nameOf: untagged, event k of the same bodies sent to nameOf(its name, k).
 */
export async function benchHttpBatched ({ server, seconds, warmupSeconds, connections = 16, batch = 1000, prefix = 'bench.http.', timers = false, tagsOf = null, nameOf = null, warmupPrefix = timers ? 'bench.timer.warm.' : 'bench.warm.', dbPid = null }) {
  const bodyOf = (names) => JSON.stringify(Array.from({ length: batch }, (_, i) => ({ metric: names[i % names.length] })))
  const base = { url: server.url + '/v1/events', method: 'POST', headers: { 'content-type': 'application/json' }, connections }
  const load = (names) => {
    if (!timers && !tagsOf && !nameOf) return { ...base, body: bodyOf(names) }
    const bodies = timers ? timerBodies(names, batch) : tagsOf ? taggedBodies(names, batch, tagsOf) : renamedBodies(names, batch, nameOf)
    let next = 0
    return { url: server.url, connections, requests: [{ method: 'POST', path: '/v1/events', headers: base.headers, setupRequest: req => ({ ...req, body: bodies[next++ % bodies.length] }) }] }
  }
  if (warmupSeconds) await cannon({ ...load(metricNames(warmupPrefix, 100)), duration: warmupSeconds })
  const measured = load(metricNames(prefix, 100))
  const before = await server.stats()
  await server.resetPeak()
  const dbCpuBefore = procCpuMs(dbPid)
  const result = await cannon({ ...measured, duration: seconds })
  const dbCpuAfter = procCpuMs(dbPid)
  const after = await server.stats()
  const ok = statusCount(result, 200)
  const service = serverDelta(before, after, { requests: result.requests.sent })
  return {
    eventsPerS: (ok * batch) / result.duration,
    databaseCpuUsPerEvent: databaseCpuUsPer(dbCpuBefore, dbCpuAfter, result.requests.sent * batch),
    requestsPerS: ok / result.duration,
    acknowledgedEvents: ok * batch,
    sentEvents: result.requests.sent * batch,
    connections,
    batch,
    kind: timers ? 'distribution' : 'counter',
    tagged: Boolean(tagsOf),
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statementsPerEvent: service.statementsPerEvent,
    service,
    rssPeakBytes: after.rssPeak
  }
}

/** Single-event requests: `connections` connections, one event per request, rotating over 100 metrics */
export async function benchSingle ({ server, seconds, warmupSeconds, connections = 64, prefix = 'bench.single.', dbPid = null }) {
  const bodies = metricNames(prefix, 100).map(metric => JSON.stringify({ metric }))
  let i = 0
  const common = {
    url: server.url,
    connections,
    requests: [{ method: 'POST', path: '/v1/events', headers: { 'content-type': 'application/json' }, setupRequest: req => ({ ...req, body: bodies[i++ % bodies.length] }) }]
  }
  if (warmupSeconds) await cannon({ ...common, duration: warmupSeconds })
  await server.resetPeak()
  const before = await server.stats()
  const dbCpuBefore = procCpuMs(dbPid)
  const result = await cannon({ ...common, duration: seconds })
  const dbCpuAfter = procCpuMs(dbPid)
  const after = await server.stats()
  const ok = statusCount(result, 200)
  return {
    service: serverDelta(before, after, { requests: result.requests.sent }),
    databaseCpuUsPerRequest: databaseCpuUsPer(dbCpuBefore, dbCpuAfter, result.requests.sent),
    requestsPerS: ok / result.duration,
    acknowledgedEvents: ok,
    connections,
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    rssPeakBytes: after.rssPeak
  }
}

/** Sum of the `daily` field of the daily documents of metrics starting with prefix */
export async function dailySum (db, prefix) {
  const docs = await db.collection('daily').find({ _id: { $gte: prefix, $lt: prefix + '\uffff' } }, { projection: { daily: 1 } }).toArray()
  return docs.reduce((s, d) => s + (d.daily ?? 0), 0)
}

export { cannon }
