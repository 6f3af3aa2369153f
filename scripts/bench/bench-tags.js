// The tags section (`npm run bench -- --only tags`; docs/benchmarks-tags-otlp-slos.md#tags):
// issue 28's targets beside the untagged figures, in one run.
// 1. The tag index: its resident memory per series (tag-index-memory.js, a
//    child process building the index alone), and a service holding
//    `names` × `combinations` series plus a name of `busySeries` series with
//    a busy hour: a `tag=` filter and /tags/autoComplete/values through HTTP,
//    beside the name's own untagged read.
// 2. Batched ingest over POST /v1/events: untagged, 3 tags, and 3 tags with a
//    declared rollup (ROLLUP_RULES, its own service process), events/s and
//    service CPU per event; beside them, the same untagged events over as
//    many names as the tagged run has series (what cardinality costs alone).
// 3. top?by=customer&k=10 over 12 whole months of `topSeries` series:
//    p99 and the documents the answer says it read.
// The index's registry entries and the documents are written in the stored
// shape (./tags-workload.js), not event by event: a year of 10,000 series
// through HTTP would take hours here.
import { execFile } from 'node:child_process'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'
import { HOUR_MS } from '../../src/bucket/time.js'
import { httpRequest } from '../shared/http-client.js'
import { percentile, seededRandom } from '../shared/workload.js'
import { TIMER_BODIES, benchHttpBatched } from './bench-ingest.js'
import { startServerProcess } from './server-process.js'
import { MARGIN_MS } from '../../src/registry/name-index-refresh.js'
import {
  BUSY_NAME, INGEST_PREFIXES, ROLLUP_RULES, TOP_NAME, busyHourDocuments, indexSeriesNames, ingestTags, registryEntry, tagQueries, topWindow, topYearDocuments, wideIngestName, wideSeries
} from './tags-workload.js'

const MEMORY_SCRIPT = fileURLToPath(new URL('./tag-index-memory.js', import.meta.url))
const INSERT_BATCH = 10_000

/** The tag index alone in a child process: → { series, names, bytesPerSeries, rssBytesPerSeries } */
export async function tagIndexMemory ({ series, combinations }) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', MEMORY_SCRIPT, String(series), String(combinations)], { timeout: 600_000, maxBuffer: 1 << 20 })
  return JSON.parse(stdout)
}

export async function insertAll (collection, docs) {
  let batch = []
  let n = 0
  for (const doc of docs) {
    batch.push(doc)
    if (batch.length >= INSERT_BATCH) { await collection.insertMany(batch, { ordered: false }); n += batch.length; batch = [] }
  }
  if (batch.length) { await collection.insertMany(batch, { ordered: false }); n += batch.length }
  return n
}

/** Seeds the index's registry entries (added now: what a running service's name index refresh reads) → how many */
export async function seedIndex (db, scale, { log = () => {} } = {}) {
  const t0 = performance.now()
  const now = Date.now()
  const n = await insertAll(db.collection('metrics'), (function * () { for (const s of indexSeriesNames(scale)) yield registryEntry(s, now) })())
  log(`  ${n.toLocaleString('en-US')} registry entries in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  return { entries: n, added: now }
}

/**
 * Waits until the service's name index looks no longer read the seeded
 * entries: a look reads the entries added since MARGIN_MS before the last
 * one (registry/name-index-refresh.js), so for MARGIN_MS after they were
 * added each look of 10 s reads all 1,000,000 again (~26 s of the event
 * loop's, as a burst of a million new series would), and then one last look
 * finishes. The reads measure the steady state.
 */
async function lookPastSeeded (added, { log }) {
  const quietAt = added + MARGIN_MS + LOOK_INTERVAL_MS + LAST_LOOK_MS
  const waitMs = quietAt - Date.now()
  if (waitMs <= 0) return
  log(`  waiting ${(waitMs / 1000).toFixed(0)} s for the name index's looks to pass the seeded entries (they read entries added in the last ${MARGIN_MS / 1000} s)`)
  await new Promise(resolve => setTimeout(resolve, waitMs))
}
const LOOK_INTERVAL_MS = 10_000
const LAST_LOOK_MS = 40_000

/** Seeds the read names' registry entries and documents (the service loads them at boot) → what was seeded */
export async function seedReadNames (db, scale, { now = Date.now(), log = () => {} } = {}) {
  const hourStart = Math.floor(now / HOUR_MS) * HOUR_MS - HOUR_MS
  const window = topWindow(now, scale.topMonths)
  function * entries () {
    for (const name of [BUSY_NAME, TOP_NAME]) yield registryEntry(name, now)
    for (let i = 0; i < scale.busySeries; i++) yield registryEntry(wideSeries(BUSY_NAME, i), now)
    for (let i = 0; i < scale.topSeries; i++) yield registryEntry(wideSeries(TOP_NAME, i), now)
  }
  let t0 = performance.now()
  const registryEntries = await insertAll(db.collection('metrics'), entries())
  log(`  ${registryEntries.toLocaleString('en-US')} registry entries in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  t0 = performance.now()
  const busy = busyHourDocuments({ series: scale.busySeries, hourStart })
  const top = topYearDocuments({ series: scale.topSeries, ...window })
  await insertAll(db.collection('daily'), busy.daily)
  await insertAll(db.collection('monthly'), top.monthly)
  log(`  ${busy.daily.length.toLocaleString('en-US')} day documents (the busy hour) and ${top.monthly.length.toLocaleString('en-US')} monthly documents (top's year) in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  const expectedTop = [...top.byCustomer].map(([customer, total]) => ({ tags: { customer }, total })).sort((a, b) => b.total - a.total || (a.tags.customer < b.tags.customer ? -1 : 1))
  return { registryEntries, hourStart, busyTotal: busy.total, busyDocuments: busy.daily.length, window, topDays: top.days, topDocuments: top.monthly.length, expectedTop }
}

/** Waits until the service's tag index holds `expected` series (GET /v1/cardinality), at most 15 minutes → the series it holds */
export async function seriesLearned (server, expected, timeoutMs = 900_000) {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const answer = await httpRequest(server.url, { path: '/v1/cardinality?limit=1', timeoutMs: 60_000 })
    const series = answer.json?.series ?? null
    if (series >= expected) return series
    if (performance.now() > deadline) throw new Error(`the service's tag index held ${series} series of ${expected} after ${timeoutMs / 1000} s`)
    await new Promise(resolve => setTimeout(resolve, 1000))
  }
}

/**
 * `connections` closed-loop clients of GET make(random) for `seconds` and at
 * least `minRequests` requests in all; every request's latency counts, the
 * slow ones a time-boxed load tool would cut off at its end too
 * → { requests, ok, failed, seconds, latencies }
 */
export async function closedLoopGets ({ server, make, random, seconds, connections, minRequests = 0 }) {
  const latencies = []
  let failed = 0
  const started = performance.now()
  const deadline = started + seconds * 1000
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections })
  try {
    await Promise.all(Array.from({ length: connections }, async () => {
      while (performance.now() < deadline || latencies.length + failed < minRequests) {
        const answer = await httpRequest(server.url, { path: make(random), timeoutMs: 300_000, agent })
        if (answer.status === 200) latencies.push(answer.ms)
        else failed++
      }
    }))
  } finally {
    agent.destroy()
  }
  return { requests: latencies.length + failed, ok: latencies.length, failed, seconds: (performance.now() - started) / 1000, latencies }
}

/** One read query: a warm-up, then `seconds` (at least `minRequests`) on `connections` connections → latency figures */
export async function readFigures ({ server, query, seconds, connections, warmupSeconds, minRequests, random }) {
  if (warmupSeconds) await closedLoopGets({ server, make: query.make, random, seconds: warmupSeconds, connections, minRequests: connections })
  const r = await closedLoopGets({ server, make: query.make, random, seconds, connections, minRequests })
  return { name: query.name, kind: query.kind, label: query.label, requests: r.requests, requestsPerS: r.ok / r.seconds, p50Ms: percentile(r.latencies, 50), p99Ms: percentile(r.latencies, 99), maxMs: r.ok ? Math.max(...r.latencies) : null, failed: r.failed }
}

/** What one answer of each query holds (a check that they read what they say) */
async function answerCheck (server, query, random) {
  const answer = await httpRequest(server.url, { path: query.make(random), timeoutMs: 60_000 })
  if (answer.status !== 200) return { ok: false, what: `${query.name} answered ${answer.status || answer.error}: ${answer.text?.slice(0, 200) ?? ''}` }
  if (query.kind === 'autocomplete') return { ok: Array.isArray(answer.json) && answer.json.length > 0, what: `${query.name}: ${answer.json?.length} values` }
  const values = answer.json.values ?? []
  const sum = values.reduce((n, v) => n + (v ?? 0), 0)
  return { ok: sum > 0, what: `${query.name}: ${answer.json.series ?? 'the name'}${answer.json.series !== undefined ? ' series' : ''}, sum ${sum}`, series: answer.json.series ?? null, sum }
}

/** top over the year, one connection, closed loop: at least `minRequests` requests or `seconds` → figures and a check against the seeded totals */
async function topFigures ({ server, seed, seconds, minRequests }) {
  const path = `/v1/metrics/${TOP_NAME}/top?by=customer&k=10&from=${seed.window.from}&to=${seed.window.to}`
  await httpRequest(server.url, { path, timeoutMs: 300_000 }) // a warm-up: the registry learns each series' kind
  const latencies = []
  let last = null
  const deadline = performance.now() + seconds * 1000
  while (latencies.length < minRequests || performance.now() < deadline) {
    const answer = await httpRequest(server.url, { path, timeoutMs: 300_000 })
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status || answer.error}: ${answer.text?.slice(0, 300) ?? ''}`)
    latencies.push(answer.ms)
    last = answer.json
  }
  const expected = seed.expectedTop.slice(0, 10)
  const same = last.groups.length === expected.length && last.groups.every((g, i) => g.tags.customer === expected[i].tags.customer && g.total === expected[i].total)
  return { path, requests: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: Math.max(...latencies), documents: last.documents, of: last.of, groups: last.groups.length, check: same ? 'yes' : `**NO** (answered ${JSON.stringify(last.groups.slice(0, 3))}…, seeded ${JSON.stringify(expected.slice(0, 3))}…)` }
}

/**
 * The day sums of the names starting with prefix, of their series and of
 * their rollups' series (`name;~keys;k=v`, docs/adr/0062-declared-rollups.md):
 * a tagged event counts toward its series, its name and each rollup
 */
async function ingestSums (db, prefix) {
  const sums = { names: 0, series: 0, rollups: 0 }
  for await (const d of db.collection('daily').find({ _id: { $gte: prefix, $lt: prefix + '\uffff' } }, { projection: { metric: 1, daily: 1 } })) {
    sums[d.metric.includes(';~') ? 'rollups' : d.metric.includes(';') ? 'series' : 'names'] += d.daily ?? 0
  }
  return sums
}

/** Units the service's writer has answered so far (bench-server.js counts them by outcome) */
const answeredUnits = async (server) => Object.values((await server.stats()).counters.answered).reduce((a, b) => a + b, 0)

/**
 * The sums once the service is quiet: two looks a second apart with the
 * same answered units and sums (the requests a run cut off at its end are
 * still read and written by the service), at most a minute
 */
async function settledSums (server, db, prefix) {
  let last = { units: await answeredUnits(server), sums: await ingestSums(db, prefix) }
  for (let i = 0; i < 60; i++) {
    await new Promise(resolve => setTimeout(resolve, 1000))
    const now = { units: await answeredUnits(server), sums: await ingestSums(db, prefix) }
    if (now.units === last.units && ['names', 'series', 'rollups'].every(k => now.sums[k] === last.sums[k])) return now.sums
    last = now
  }
  return last.sums
}

/**
 * One variant: a warm-up on the same names (and series) first, so the
 * measured run is the steady state, not the first writes of new series;
 * then what it stored, from the day documents' sums before and after.
 * wide: untagged, each event sent to its series' name as a plain name (wideIngestName)
 */
async function ingestRun ({ server, db, prefix, tagged, wide = false, scale, dbPid, log }) {
  const load = { server, connections: scale.ingestConnections, prefix, tagsOf: tagged ? ingestTags : null, nameOf: wide ? wideIngestName : null, warmupSeconds: 0, dbPid }
  if (scale.warmupSeconds) await benchHttpBatched({ ...load, seconds: scale.warmupSeconds })
  const before = await settledSums(server, db, prefix)
  const run = await benchHttpBatched({ ...load, seconds: scale.ingestSeconds })
  const after = await settledSums(server, db, prefix)
  const stored = { names: after.names - before.names, series: after.series - before.series, rollups: after.rollups - before.rollups }
  run.stored = stored
  const inRange = stored.names >= run.acknowledgedEvents && stored.names <= run.sentEvents
  // a rollup of one key subset holds each event once; none where the service ignores ROLLUP_RULES
  const rollupsOk = stored.rollups === 0 || stored.rollups === stored.names
  run.check = inRange && (!tagged || stored.series === stored.names) && rollupsOk
    ? `yes (${run.acknowledgedEvents} acknowledged, ${stored.names} stored in the names${tagged ? ', as many in the series' : ''}${stored.rollups ? ' and in the rollup' : ''})`
    : `**NO** (${run.acknowledgedEvents} acknowledged, ${run.sentEvents} sent, ${stored.names} stored in the names, ${stored.series} in the series, ${stored.rollups} in rollups)`
  run.cpuUsPerEvent = run.service.cpuUsPerRequest === null ? null : run.service.cpuUsPerRequest / run.batch
  log(`  ${Math.round(run.eventsPerS)} events/s, ${run.cpuUsPerEvent?.toFixed(2)} µs of service CPU per event; stored: ${run.check}`)
  return run
}

/**
 * uri: the database server; dbName: the section's own databases are dbName
 * and dbName_ingest, dropped at the end unless `keep`; scale: SCALES.*.tags
 * (bench-args.js); dbPid: the embedded database's pid (its CPU), or null
 */
export async function benchTags ({ uri, dbName, scale, dbPid = null, keep = false, log = () => {} }) {
  const mongo = await new MongoClient(uri).connect()
  const db = mongo.db(dbName)
  const ingestDb = mongo.db(`${dbName}_ingest`)
  const indexSeries = scale.names * scale.combinations
  const env = { MONGODB_URI: uri, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' }
  let server = null
  try {
    log(`tags: the tag index alone, ${indexSeries.toLocaleString('en-US')} series (${scale.names} names × ${scale.combinations} combinations), in a child process`)
    const memory = await tagIndexMemory({ series: indexSeries, combinations: scale.combinations })
    log(`  ${memory.rssBytesPerSeries} B of RSS, ${memory.bytesPerSeries} B of heap per series`)

    // 2. ingest first, on a database of its own: its services boot without the large registry
    const ingest = { rollupRules: ROLLUP_RULES }
    log(`tags: HTTP batches of 1,000 untagged events, then with 3 tags, ${scale.ingestConnections} connections, ${scale.warmupSeconds} s warm-up + ${scale.ingestSeconds} s each`)
    server = await startServerProcess({ ...env, MONGODB_DB: ingestDb.databaseName })
    ingest.emptyServiceRssBytes = (await server.stats()).rss
    ingest.untagged = await ingestRun({ server, db: ingestDb, prefix: INGEST_PREFIXES.untagged, tagged: false, scale, dbPid, log })
    log('tags: the same events untagged, each to its series\' name as a plain name (as many names as the tagged run has series)')
    ingest.wideNames = new Set(Array.from({ length: TIMER_BODIES * 1000 }, (_, k) => wideIngestName(`m${k % 100}`, k))).size
    ingest.wide = await ingestRun({ server, db: ingestDb, prefix: INGEST_PREFIXES.wide, tagged: false, wide: true, scale, dbPid, log })
    ingest.tagged = await ingestRun({ server, db: ingestDb, prefix: INGEST_PREFIXES.tagged, tagged: true, scale, dbPid, log })
    await server.stop()
    server = null
    log(`tags: the same tagged batches, the service started with ROLLUP_RULES='${JSON.stringify(ROLLUP_RULES)}'`)
    server = await startServerProcess({ ...env, MONGODB_DB: ingestDb.databaseName, ROLLUP_RULES: JSON.stringify(ROLLUP_RULES) })
    ingest.rollup = await ingestRun({ server, db: ingestDb, prefix: INGEST_PREFIXES.rollup, tagged: true, scale, dbPid, log })
    await server.stop()
    server = null

    // 1 and 3: a service over the read names, then the index's series. A service does not boot over
    // 1,000,000 registry entries on mongo-java-server: Fastify's 10 s plugin timeout ends the registry's
    // load (212,002 entries already). So it boots over the read names, and learns the index's series
    // as another instance's writes, through its name index refresh (registry/name-index-refresh.js).
    log(`tags: seeding ${BUSY_NAME}'s ${scale.busySeries} series and busy hour, ${TOP_NAME}'s ${scale.topSeries} series and ${scale.topMonths} months`)
    const seed = await seedReadNames(db, scale, { log })
    const registryTotal = seed.registryEntries + indexSeries
    const maxSeries = Math.max(scale.topSeries, scale.busySeries)
    let t0 = performance.now()
    server = await startServerProcess({
      ...env,
      MONGODB_DB: dbName,
      MAX_METRICS: String(registryTotal + 1000),
      MAX_SERIES: String(maxSeries) // top reads every series of its name
    }, { startTimeoutMs: 300_000 })
    const bootSeconds = (performance.now() - t0) / 1000
    const booted = await server.stats()
    log(`tags: seeding the index's ${indexSeries.toLocaleString('en-US')} registry entries, then waiting for the service's tag index to hold them`)
    const { entries: indexEntries, added: seededAt } = await seedIndex(db, scale, { log })
    t0 = performance.now()
    const learnedSeries = await seriesLearned(server, scale.busySeries + scale.topSeries + indexSeries)
    const learnSeconds = (performance.now() - t0) / 1000
    await server.resetPeak()
    const loaded = await server.stats()
    const service = {
      bootSeconds,
      learnSeconds,
      learnedSeries,
      bootedRssBytes: booted.rss,
      rssBytes: loaded.rss,
      heapUsedBytes: loaded.heapUsed,
      rssBytesPerIndexSeries: (loaded.rss - booted.rss) / indexSeries,
      heapBytesPerIndexSeries: (loaded.heapUsed - booted.heapUsed) / indexSeries
    }
    log(`  booted in ${bootSeconds.toFixed(0)} s, learned ${learnedSeries.toLocaleString('en-US')} series in ${learnSeconds.toFixed(0)} s: RSS ${(booted.rss / 1e6).toFixed(0)} → ${(loaded.rss / 1e6).toFixed(0)} MB (${service.rssBytesPerIndexSeries.toFixed(0)} B per series learned)`)
    if (scale.settleLooks) await lookPastSeeded(seededAt, { log })

    const queries = tagQueries({ busySeries: scale.busySeries, hourStart: seed.hourStart })
    const checks = []
    const reads = []
    for (const query of queries) {
      const random = seededRandom(28)
      checks.push(await answerCheck(server, query, seededRandom(3)))
      log(`tags: ${query.name}, ${scale.readSeconds} s on ${scale.readConnections} connections`)
      const r = await readFigures({ server, query, seconds: scale.readSeconds, connections: scale.readConnections, warmupSeconds: scale.warmupSeconds, minRequests: scale.readMinRequests, random })
      log(`  ${r.requests} requests, ${r.requestsPerS.toFixed(1)} answered/s, p50 ${r.p50Ms?.toFixed(0)} ms, p99 ${r.p99Ms?.toFixed(0)} ms${r.failed ? `, ${r.failed} failed` : ''}`)
      reads.push(r)
    }
    log(`tags: top?by=customer&k=10 over ${scale.topMonths} months of ${scale.topSeries.toLocaleString('en-US')} series, one connection`)
    const top = await topFigures({ server, seed, seconds: scale.topSeconds, minRequests: scale.topMinRequests })
    log(`  p50 ${top.p50Ms.toFixed(0)} ms, p99 ${top.p99Ms.toFixed(0)} ms, ${top.documents} documents; the seeded top 10: ${top.check}`)
    const after = await server.stats()
    service.rssPeakBytes = after.rssPeak
    return {
      population: { names: scale.names, combinations: scale.combinations, indexSeries, busySeries: scale.busySeries, topSeries: scale.topSeries, topMonths: scale.topMonths, registryEntries: registryTotal, indexEntries, busyDocuments: seed.busyDocuments, topDocuments: seed.topDocuments, topDays: seed.topDays },
      memory,
      service,
      reads,
      readSeconds: scale.readSeconds,
      maxSeries,
      readConnections: scale.readConnections,
      checks,
      top,
      ingest
    }
  } finally {
    if (server) await server.stop().catch(() => {})
    if (!keep) {
      await db.dropDatabase().catch(() => {})
      await ingestDb.dropDatabase().catch(() => {})
    }
    await mongo.close()
  }
}
