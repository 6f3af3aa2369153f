// The tags section (`npm run bench -- --only tags`; docs/benchmarks.md#tags):
// issue 28's targets beside the untagged figures, in one run.
// 1. The tag index: its resident memory per series (tag-index-memory.js, a
//    child process building the index alone), and a service holding
//    `names` × `combinations` series plus a name of `busySeries` series with
//    a busy hour: a `tag=` filter and /tags/autoComplete/values through HTTP,
//    beside the name's own untagged read.
// 2. Batched ingest over POST /v1/events: untagged, 3 tags, and 3 tags with a
//    declared rollup (ROLLUP_RULES, its own service process), events/s and
//    service CPU per event.
// 3. top?by=customer&k=10 over 12 whole months of `topSeries` series:
//    p99 and the documents the answer says it read.
// The index's registry entries and the documents are written in the stored
// shape (./tags-workload.js), not event by event: a year of 10,000 series
// through HTTP would take hours here.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'
import { HOUR_MS } from '../../src/bucket/time.js'
import { httpRequest } from '../shared/http-client.js'
import { percentile, seededRandom } from '../shared/workload.js'
import { benchHttpBatched, cannon } from './bench-ingest.js'
import { startServerProcess } from './server-process.js'
import {
  BUSY_NAME, INGEST_PREFIXES, ROLLUP_RULES, TOP_NAME, busyHourDocuments, indexSeriesNames, ingestTags, registryEntry, tagQueries, topWindow, topYearDocuments, wideSeries
} from './tags-workload.js'

const MEMORY_SCRIPT = fileURLToPath(new URL('./tag-index-memory.js', import.meta.url))
const INSERT_BATCH = 10_000

/** The tag index alone in a child process: → { series, names, bytesPerSeries, rssBytesPerSeries } */
export async function tagIndexMemory ({ series, combinations }) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', MEMORY_SCRIPT, String(series), String(combinations)], { timeout: 600_000, maxBuffer: 1 << 20 })
  return JSON.parse(stdout)
}

async function insertAll (collection, docs) {
  let batch = []
  let n = 0
  for (const doc of docs) {
    batch.push(doc)
    if (batch.length >= INSERT_BATCH) { await collection.insertMany(batch, { ordered: false }); n += batch.length; batch = [] }
  }
  if (batch.length) { await collection.insertMany(batch, { ordered: false }); n += batch.length }
  return n
}

/** Seeds the registry and documents the service loads and reads → what was seeded */
export async function seedTags (db, scale, { now = Date.now(), log = () => {} } = {}) {
  const hourStart = Math.floor(now / HOUR_MS) * HOUR_MS - HOUR_MS
  const window = topWindow(now, scale.topMonths)
  function * entries () {
    for (const s of indexSeriesNames(scale)) yield registryEntry(s, now)
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

/** One read query for `seconds` on `connections` connections (a random path each request) → latency figures */
async function readFigures ({ server, query, seconds, connections, warmupSeconds, random }) {
  const opts = { url: server.url, connections, requests: [{ method: 'GET', setupRequest: req => ({ ...req, path: query.make(random) }) }] }
  if (warmupSeconds) await cannon({ ...opts, duration: warmupSeconds })
  const r = await cannon({ ...opts, duration: seconds })
  const ok = r.statusCodeStats?.[200]?.count ?? 0
  return { name: query.name, kind: query.kind, label: query.label, requests: r.requests.sent, requestsPerS: ok / r.duration, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts }
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
async function topFigures ({ server, seed, seconds, minRequests = 5 }) {
  const path = `/v1/metrics/${TOP_NAME}/top?by=customer&k=10&from=${seed.window.from}&to=${seed.window.to}`
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

/** The names' and the series' day sums of the names starting with prefix: a tagged event counts toward both */
async function ingestSums (db, prefix) {
  const sums = { names: 0, series: 0 }
  for await (const d of db.collection('daily').find({ _id: { $gte: prefix, $lt: prefix + '\uffff' } }, { projection: { metric: 1, daily: 1 } })) {
    sums[d.metric.includes(';') ? 'series' : 'names'] += d.daily ?? 0
  }
  return sums
}

async function ingestRun ({ server, db, prefix, tagged, scale, dbPid, log }) {
  const run = await benchHttpBatched({ server, seconds: scale.ingestSeconds, warmupSeconds: scale.warmupSeconds, connections: scale.ingestConnections, prefix, tagsOf: tagged ? ingestTags : null, warmupPrefix: `${INGEST_PREFIXES.warm}${tagged ? 't' : 'u'}`, dbPid })
  const sums = await ingestSums(db, prefix)
  const inRange = sums.names >= run.acknowledgedEvents && sums.names <= run.sentEvents
  run.check = inRange && (!tagged || sums.series === sums.names)
    ? `yes (${run.acknowledgedEvents} acknowledged, ${sums.names} in the names' day documents${tagged ? ', as many in the series\'' : ''})`
    : `**NO** (${run.acknowledgedEvents} acknowledged, ${run.sentEvents} sent, ${sums.names} in the names' day documents, ${sums.series} in the series')`
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
    ingest.tagged = await ingestRun({ server, db: ingestDb, prefix: INGEST_PREFIXES.tagged, tagged: true, scale, dbPid, log })
    await server.stop()
    server = null
    log(`tags: the same tagged batches, the service started with ROLLUP_RULES='${JSON.stringify(ROLLUP_RULES)}'`)
    server = await startServerProcess({ ...env, MONGODB_DB: ingestDb.databaseName, ROLLUP_RULES: JSON.stringify(ROLLUP_RULES) })
    ingest.rollup = await ingestRun({ server, db: ingestDb, prefix: INGEST_PREFIXES.rollup, tagged: true, scale, dbPid, log })
    await server.stop()
    server = null

    // 1 and 3: a service over the seeded registry
    const registryTotal = indexSeries + 2 + scale.busySeries + scale.topSeries
    log(`tags: seeding ${registryTotal.toLocaleString('en-US')} registry entries, ${BUSY_NAME}'s busy hour and ${TOP_NAME}'s ${scale.topMonths} months`)
    const seed = await seedTags(db, scale, { log })
    const t0 = performance.now()
    server = await startServerProcess({
      ...env,
      MONGODB_DB: dbName,
      MAX_METRICS: String(registryTotal + 1000),
      MAX_SERIES: String(Math.max(scale.topSeries, scale.busySeries)) // top reads every series of its name
    }, { startTimeoutMs: 900_000 })
    const bootSeconds = (performance.now() - t0) / 1000
    await server.resetPeak()
    const loaded = await server.stats()
    const service = {
      bootSeconds,
      rssBytes: loaded.rss,
      heapUsedBytes: loaded.heapUsed,
      rssBytesPerRegistryEntry: (loaded.rss - ingest.emptyServiceRssBytes) / seed.registryEntries
    }
    log(`  the service loaded them in ${bootSeconds.toFixed(0)} s: RSS ${(loaded.rss / 1e6).toFixed(0)} MB (${service.rssBytesPerRegistryEntry.toFixed(0)} B per registry entry beyond an empty service's)`)

    const queries = tagQueries({ busySeries: scale.busySeries, hourStart: seed.hourStart })
    const checks = []
    const reads = []
    for (const query of queries) {
      const random = seededRandom(28)
      checks.push(await answerCheck(server, query, seededRandom(3)))
      log(`tags: ${query.name}, ${scale.readSeconds} s on ${scale.readConnections} connections`)
      const r = await readFigures({ server, query, seconds: scale.readSeconds, connections: scale.readConnections, warmupSeconds: scale.warmupSeconds, random })
      log(`  ${Math.round(r.requestsPerS)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`)
      reads.push(r)
    }
    log(`tags: top?by=customer&k=10 over ${scale.topMonths} months of ${scale.topSeries.toLocaleString('en-US')} series, one connection`)
    const top = await topFigures({ server, seed, seconds: scale.topSeconds })
    log(`  p50 ${top.p50Ms.toFixed(0)} ms, p99 ${top.p99Ms.toFixed(0)} ms, ${top.documents} documents; the seeded top 10: ${top.check}`)
    const after = await server.stats()
    service.rssPeakBytes = after.rssPeak
    return {
      population: { names: scale.names, combinations: scale.combinations, indexSeries, busySeries: scale.busySeries, topSeries: scale.topSeries, topMonths: scale.topMonths, registryEntries: seed.registryEntries, busyDocuments: seed.busyDocuments, topDocuments: seed.topDocuments, topDays: seed.topDays },
      memory,
      service,
      reads,
      readSeconds: scale.readSeconds,
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
