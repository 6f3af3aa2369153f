// The cardinality section (`npm run bench -- --only cardinality`): a
// registry of many metrics, few of them busy, through one simulated day and
// its midnight, to show that preallocation and the sweep cost what is busy,
// not what is registered. The service is a child process on a simulated
// clock (bench-clock.js); everything is written through its HTTP ingest.
// What is sent is ./cardinality-workload.js, what is made of the
// measurements ./cardinality-figures.js (both pure).
import { BSON, MongoClient } from 'mongodb'
import { loadConfig } from '../../src/config.js'
import { utcParts } from '../../src/bucket/time.js'
import { createHttpClient } from '../shared/http-client.js'
import { percentile, seededRandom } from '../shared/workload.js'
import { startServerProcess } from './server-process.js'
import { busyMinuteBodies, busyNames, findQueries, isBusyName, populationShape, sparseBodies, timeline, windowBody } from './cardinality-workload.js'
import { classifyDaily, countChecks, createTally, dayFieldBytes, midnightFigures, storedFigures, sweepFigures } from './cardinality-figures.js'

// A Wednesday in the middle of a month: tomorrow is in the same month (the sweep adds a day field, not a month)
export const DEFAULT_DAY = Date.UTC(2026, 10, 18)
const MAX_RETRIES = 120
const SWEEP_TICKS = 3 // a body refused 503 this many times (Retry-After each) ends the run
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

/**
 * Posts every body of `bodies` (an iterator) on `concurrency` connections,
 * again after Retry-After when refused 503 (the admission's answer while
 * the service is behind). → { requests, events, acknowledged, unknown, retries, seconds }
 */
export async function postAll (client, bodies, { concurrency = 4 } = {}) {
  const tally = { requests: 0, events: 0, acknowledged: 0, unknown: 0, retries: 0 }
  const started = performance.now()
  const iterator = bodies[Symbol.iterator]()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      const body = next.value
      for (let attempt = 0; ; attempt++) {
        const answer = await client.request('POST', '/v1/events', body)
        tally.requests++
        if (answer.status === 200) { tally.acknowledged += body.length; break }
        if (answer.status === 504) { tally.unknown += body.length; break }
        if (answer.status !== 503 || attempt >= MAX_RETRIES) throw new Error(`POST /v1/events answered ${answer.status || answer.error}: ${answer.text?.slice(0, 300) ?? ''}`)
        tally.retries++
        await sleep(Math.min(5000, 1000 * Number(answer.headers?.['retry-after'] ?? 1)))
      }
      tally.events += body.length
    }
  }))
  return { ...tally, seconds: (performance.now() - started) / 1000 }
}

/**
 * Ingest across midnight, closed loop: `connections` clients each send a
 * body of busy metrics (with the sparse metrics' share) as soon as the last
 * was answered, from windowFrom to windowTo of the service's clock.
 * → the requests [{ at (simulated ms sent), ms, events, ok, status }]
 */
async function midnightLoad ({ client, server, tl, shape, busy, sparseShare, connections = 4, size = 500 }) {
  await server.setClock(tl.windowFrom)
  const real0 = performance.now()
  const simAt = () => tl.windowFrom + (performance.now() - real0)
  const requests = []
  let next = 0
  await Promise.all(Array.from({ length: connections }, async () => {
    while (simAt() < tl.windowTo) {
      const body = windowBody(next++, { busy, shape, size, sparseShare }).map(metric => ({ metric }))
      const at = simAt()
      const answer = await client.request('POST', '/v1/events', body)
      requests.push({ at, ms: answer.ms, events: body.length, ok: answer.status === 200, status: answer.status })
      if (answer.status === 503) await sleep(1000 * Number(answer.headers?.['retry-after'] ?? 1))
    }
  }))
  return requests
}

/** /metrics/find for `seconds` per query on `connections` connections; → [{ name, label, requests, p50Ms, p99Ms, nodes, failed }] */
async function findLatencies ({ client, shape, seconds, connections = 2 }) {
  const out = []
  for (const q of findQueries(shape)) {
    const random = seededRandom(17)
    const latencies = []
    let nodes = 0
    let failed = 0
    const deadline = performance.now() + seconds * 1000
    await Promise.all(Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const answer = await client.request('GET', `/metrics/find?query=${encodeURIComponent(q.make(random))}`)
        latencies.push(answer.ms)
        if (answer.status === 200 && Array.isArray(answer.json)) nodes += answer.json.length
        else failed++
      }
    }))
    out.push({ name: q.name, label: q.label, requests: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), nodes: nodes / Math.max(1, latencies.length - failed), failed })
  }
  return out
}

/** Tomorrow's daily documents so far, by population: { busy, sparse } */
async function tomorrowsByPopulation (db, shape, tl) {
  const count = { busy: 0, sparse: 0 }
  for await (const { metric } of db.collection('daily').find({ date: new Date(tl.tomorrow) }, { projection: { metric: 1 } })) {
    const busy = isBusyName(metric, shape)
    if (busy !== null) count[busy ? 'busy' : 'sparse']++
  }
  return count
}

/** Every document of the three collections, as stored (BSON bytes as the server returns them, what $bsonSize gives), tallied */
async function measureStored (db, shape, tl) {
  const daily = createTally()
  const monthly = createTally()
  const registry = createTally()
  const today = String(utcParts(tl.day).day)
  for await (const raw of db.collection('daily').find({}, { raw: true, batchSize: 2000 })) {
    const doc = BSON.deserialize(raw)
    const { when, population, origin } = classifyDaily(doc, shape, tl)
    if (when && population) daily.add(`${when}.${population}.${origin}`, raw.length, { sum: doc.daily ?? 0 })
  }
  for await (const raw of db.collection('monthly').find({}, { raw: true, batchSize: 2000 })) {
    const doc = BSON.deserialize(raw)
    const busy = isBusyName(doc.metric, shape)
    if (busy !== null) monthly.add(busy ? 'busy' : 'sparse', raw.length, { todayFieldBytes: dayFieldBytes(doc, today) })
  }
  let registryEntries = 0
  for await (const raw of db.collection('metrics').find({}, { raw: true, batchSize: 5000 })) {
    const doc = BSON.deserialize(raw)
    registryEntries++
    const busy = isBusyName(doc._id, shape)
    if (busy !== null) registry.add(busy ? 'busy' : 'sparse', raw.length, { busyToday: doc.busyDay?.getTime() === tl.day ? 1 : 0 })
  }
  return { stored: storedFigures({ daily, monthly, registry }, shape), registryEntries }
}

/**
 * uri: the database server; dbName: a database of the section's own,
 * dropped at the end unless `keep`; scale: { metrics, busy, windowSeconds, findSeconds, busyPerMinute }
 */
export async function benchCardinality ({ uri, dbName, scale, day = DEFAULT_DAY, keep = false, log = () => {} }) {
  const config = loadConfig({ ...process.env, MONGODB_URI: '' })
  const shape = populationShape(scale)
  const tl = timeline({ day, busyMinutes: config.preallocBusyMinutes, windowSeconds: scale.windowSeconds })
  const mongo = await new MongoClient(uri).connect()
  const db = mongo.db(dbName)
  let server = null
  let client = null
  const iso = ms => new Date(ms).toISOString().slice(11, 19)
  try {
    server = await startServerProcess({
      MONGODB_URI: uri,
      MONGODB_DB: dbName,
      MAX_METRICS: String(shape.metrics), // the default (100,000) would refuse the registry this section needs
      BENCH_CLOCK_START: String(tl.sparseSentAt),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn'
    })
    await server.resetPeak()
    client = createHttpClient({ url: server.url, connections: 64, timeoutMs: 120_000 })
    const phases = {}

    log(`cardinality: ${shape.sparse.toLocaleString('en-US')} sparse metrics' day (1–5 events each before ${iso(tl.sparseSentAt)}) through POST /v1/events`)
    phases.sparse = await postAll(client, sparseBodies(shape, { day, until: tl.sparseSentAt }))
    phases.sparse.metricsPerS = shape.sparse / phases.sparse.seconds
    const rssByPhase = {}
    const endPhase = async (name, phase) => {
      const stats = await server.stats()
      rssByPhase[name] = stats.rssPeak
      if (phase) phase.loopDelayMaxMs = stats.loopDelayMaxMs
      await server.resetPeak()
      return stats
    }
    await endPhase('sparse day', phases.sparse)
    log(`  ${phases.sparse.events.toLocaleString('en-US')} events in ${phases.sparse.seconds.toFixed(0)} s (${phases.sparse.metricsPerS.toFixed(0)} new metrics/s, ${phases.sparse.retries} retries after 503)`)

    const busy = busyNames(shape)
    log(`cardinality: ${shape.busy.toLocaleString('en-US')} busy metrics, ${scale.busyPerMinute} events a minute each, in ${tl.busyMinutes} minutes from ${iso(tl.busyFrom)}`)
    phases.busy = { requests: 0, events: 0, acknowledged: 0, unknown: 0, retries: 0, seconds: 0 }
    for (let m = 0; m < tl.busyMinutes; m++) {
      const minuteStart = tl.busyFrom + m * 60_000
      await server.setClock(minuteStart)
      const minute = await postAll(client, busyMinuteBodies(busy, { minuteStart, perMinute: scale.busyPerMinute }))
      for (const k of Object.keys(phases.busy)) phases.busy[k] += minute[k]
    }
    await endPhase('busy minutes', phases.busy)
    log(`  ${phases.busy.events.toLocaleString('en-US')} events in ${phases.busy.seconds.toFixed(0)} s`)

    log(`cardinality: the sweep at ${iso(tl.sweepAt)}, PREALLOC_SWEEP_RATE=${config.preallocSweepRate} (about ${Math.ceil(shape.busy * 2 / config.preallocSweepRate)} s)`)
    // what PREALLOC_PROBABILITY made of tomorrow already (its queue drained): the sweep is judged on the rest
    await server.idle()
    // A run that fails (a read past the driver's timeout) is done again at the next tick, as PREALLOC_CRON would
    const failedRuns = []
    let swept = null
    let beforeSweep = null
    for (let tick = 0; tick < SWEEP_TICKS && !swept; tick++) {
      beforeSweep = await tomorrowsByPopulation(db, shape, tl)
      await server.setClock(tl.sweepAt + tick * 10 * 60_000)
      const answer = await server.sweep((shape.busy * 2 / config.preallocSweepRate) * 3000 + 120_000)
      const error = answer.error ?? answer.result?.error ?? null
      if (error === null) swept = answer
      else {
        failedRuns.push({ at: new Date(answer.startedAt).toISOString(), seconds: answer.ms / 1000, error })
        log(`  the run at ${iso(answer.startedAt)} failed after ${(answer.ms / 1000).toFixed(0)} s: ${error}`)
      }
    }
    if (!swept) throw new Error(`the sweep failed at ${SWEEP_TICKS} ticks: ${failedRuns.map(r => r.error).join('; ')}`)
    const sweep = sweepFigures(swept, { midnight: tl.tomorrow, rate: config.preallocSweepRate })
    await endPhase('sweep')
    sweep.failedRuns = failedRuns
    sweep.tomorrowsBefore = beforeSweep
    sweep.tomorrowsAfter = await tomorrowsByPopulation(db, shape, tl)
    log(`  checked ${sweep.checked}, created ${sweep.created} in ${sweep.seconds.toFixed(0)} s (${iso(swept.startedAt)}–${iso(swept.endedAt)})`)

    // the busy metrics, and the sparse ones in the share of the day's events they have (a busy one: one a second)
    const sparseShare = phases.sparse.events / (phases.sparse.events + shape.busy * 86_400)
    log(`cardinality: ${scale.windowSeconds} s across midnight (${iso(tl.windowFrom)}–${iso(tl.windowTo)}), 4 connections as fast as answered`)
    const requests = await midnightLoad({ client, server, tl, shape, busy, sparseShare })
    const afterWindow = await endPhase('midnight')
    await server.idle()
    const midnight = { ...midnightFigures(requests, { windowFrom: tl.windowFrom, windowTo: tl.windowTo, midnight: tl.tomorrow }), busyPerS: shape.busy, sparseShare, loopDelayMaxMs: afterWindow.loopDelayMaxMs }
    const windowAcknowledged = requests.filter(r => r.ok).reduce((n, r) => n + r.events, 0)
    // 504, or no answer in time: maybe applied
    const windowUnknown = requests.filter(r => r.status === 504 || r.status === 0).reduce((n, r) => n + r.events, 0)
    log(`  ${midnight.whole.eventsPerS.toFixed(0)} events/s acknowledged, p99 ${midnight.before.p99Ms?.toFixed(0)} ms before midnight, ${midnight.after.p99Ms?.toFixed(0)} ms after`)

    log(`cardinality: GET /metrics/find over ${shape.metrics.toLocaleString('en-US')} names, ${scale.findSeconds} s per query`)
    const find = await findLatencies({ client, shape, seconds: scale.findSeconds })
    const afterFind = await endPhase('find')

    log('cardinality: measuring the stored documents')
    const { stored, registryEntries } = await measureStored(db, shape, tl)
    const preallocated = afterFind.counters.preallocatedByKind
    const checks = countChecks({
      stored,
      sweep,
      shape,
      acknowledgedEvents: phases.sparse.acknowledged + phases.busy.acknowledged + windowAcknowledged,
      unknownEvents: phases.sparse.unknown + phases.busy.unknown + windowUnknown,
      registryEntries
    })
    return {
      metrics: shape.metrics,
      busy: shape.busy,
      sparse: shape.sparse,
      day: new Date(day).toISOString().slice(0, 10),
      busyMinutes: tl.busyMinutes,
      busyPerMinute: scale.busyPerMinute,
      registryLoad: 'HTTP ingest (POST /v1/events): every registry entry and document was written by the service',
      service: { maxMetrics: shape.metrics, writeTimeoutMs: config.writeTimeoutMs, sweepRate: config.preallocSweepRate, preallocProbability: config.preallocProbability, busyMinutes: config.preallocBusyMinutes },
      phases,
      sweep,
      midnight,
      find,
      stored,
      preallocated,
      checks,
      rss: { peakBytes: Math.max(...Object.values(rssByPhase)), byPhase: rssByPhase, endBytes: afterFind.rss, heapUsedBytes: afterFind.heapUsed }
    }
  } finally {
    client?.close()
    if (server) await server.stop().catch(() => {})
    if (!keep) await db.dropDatabase().catch(() => {})
    await mongo.close()
  }
}
