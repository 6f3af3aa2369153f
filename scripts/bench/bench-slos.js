// The SLO section (`npm run bench -- --only slos`; docs/benchmarks-tags-otlp-slos.md#slos):
// issue 29's targets. A service with 100 SLOs (SLO_FILE, ./slos-workload.js)
// over ~100 series holding an event a minute since the UTC day before the
// previous calendar year, seeded in the stored shape (a year of minutes
// through HTTP would take hours here). Measured over HTTP, closed loop:
// each group's report (window kind × zone) for its current period and, for
// the year SLOs, the whole previous year; the documents a report reads per
// selector; GET /v1/slos (all 100); GET /metrics, with the SLO series it
// carries counted, so that the same phase times them once they are there.
// Every report's sums are checked against the model first.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { httpRequest } from '../shared/http-client.js'
import { percentile, seededRandom } from '../shared/workload.js'
import { closedLoopGets, insertAll, readFigures } from './bench-tags.js'
import { registryEntry } from './tags-workload.js'
import { startServerProcess } from './server-process.js'
import { shapeVariants } from './slo-shape-variants.js'
import { SLO_GROUPS, groupKey, modelSum, seriesDocuments, sloFile, sloList, sources } from './slos-workload.js'
import { parseSloFile } from '../../src/slos/definitions.js'
import { declaredZones } from '../../src/slos/zone-declarations.js'
import { createZonedDays } from '../../src/bucket/zoned-days.js'

/** The series of /metrics' answer that are an SLO's (statbucket_slo_…) */
export const sloSeriesLines = text => text.split('\n').filter(l => l.startsWith('statbucket_slo_')).length

/**
 * Seeds the registry and every series' documents → { seededFrom, upTo, dailyDocs, monthlyDocs }.
 * The SLOs' zones (src/slos/zone-declarations.js) recorded as declared before the seeding
 * began, and each month document holding their local days as ingest writes them
 * (docs/adr/0073-local-days-in-the-month.md); zoned false: neither (the reads of local days from day documents)
 */
async function seed (db, all, { now, minuteDays, log, definitions, zoned }) {
  const seededFrom = Date.UTC(new Date(now).getUTCFullYear() - 2, 11, 31)
  const upTo = Math.floor(now / 60_000) * 60_000
  const series = all.flatMap(s => s.series)
  const names = [...new Set([...series.map(s => s.metric), ...all.map(s => s.total.metric)])]
  await insertAll(db.collection('metrics'), names.map(n => registryEntry(n, now)))
  const declared = zoned ? declaredZones(definitions) : []
  const since = new Date(seededFrom)
  await insertAll(db.collection('zones'), [...new Set(declared.map(d => `${d.zone.name} ${d.metric}`))].map(_id => ({ _id, since })))
  const zonedOf = createZonedDays(declared)
  let dailyDocs = 0
  let monthlyDocs = 0
  for (const s of series) {
    const { daily, monthly } = seriesDocuments(s, { from: seededFrom, upTo, minuteDays, zonedOf })
    dailyDocs += await insertAll(db.collection('daily'), daily)
    monthlyDocs += await insertAll(db.collection('monthly'), monthly)
  }
  log(`  ${names.length} series, ${dailyDocs.toLocaleString('en-US')} day and ${monthlyDocs.toLocaleString('en-US')} monthly documents`)
  return { seededFrom, upTo, dailyDocs, monthlyDocs, series: names.length }
}

/** A report of each SLO (its current period; `label` for the year SLOs' previous year): sums checked against the model, documents per selector */
async function reportChecks (server, slos, seeded, label) {
  const out = []
  for (const slo of slos) {
    const path = `/v1/slos/${slo.name}/report${label ? `?period=${label}` : ''}`
    const answer = await httpRequest(server.url, { path, timeoutMs: 120_000 })
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status || answer.error}: ${answer.text?.slice(0, 300)}`)
    const r = answer.json
    // the days' sums are only what was seeded (to the minute before the seeding's end)
    const range = { from: r.from, to: r.to }
    const expected = { good: modelSum(slo.source, 'good', range, seeded), total: modelSum(slo.source, 'total', range, seeded) }
    const ok = r.good === expected.good && r.total === expected.total && r.days.reduce((n, d) => n + d.total, 0) === r.total
    out.push({ name: slo.name, group: slo.group, documents: r.documents, days: r.days.length, ok, expected, got: { good: r.good, total: r.total } })
  }
  return out
}

/** Documents per selector of a group's reports (2 selectors a report) → { mean, max } */
function documentsOf (checks, group) {
  const per = checks.filter(c => c.group === group).map(c => c.documents / 2)
  return per.length ? { mean: per.reduce((a, b) => a + b, 0) / per.length, max: Math.max(...per) } : null
}

/**
 * uri, dbName (its own database, dropped at the end unless keep); scale:
 * SCALES.*.slos (bench-args.js); zoned: the SLOs' zones declared before the
 * seeding (false: not, every local day read from day documents) → the section's figures
 */
export async function benchSlos ({ uri, dbName, scale, keep = false, zoned = true, log = () => {} }) {
  const mongo = await new MongoClient(uri).connect()
  const db = mongo.db(dbName)
  const dir = mkdtempSync(join(tmpdir(), 'bench-slos-'))
  let server = null
  try {
    const all = sources(scale)
    const slos = sloList(all)
    const file = join(dir, 'slos.yaml')
    writeFileSync(file, sloFile(slos))
    const now = Date.now()
    log(`slos: seeding ${all.length} sources (${scale.plain} pairs of counters, ${scale.tagged} names of 4 tagged series), an event a minute from ${new Date(Date.UTC(new Date(now).getUTCFullYear() - 2, 11, 31)).toISOString().slice(0, 10)} to now, minutes on the last ${scale.minuteDays} days`)
    let t0 = performance.now()
    const seeded = await seed(db, all, { now, minuteDays: scale.minuteDays, log, definitions: parseSloFile(sloFile(slos)), zoned })
    seeded.seconds = (performance.now() - t0) / 1000
    t0 = performance.now()
    server = await startServerProcess({ MONGODB_URI: uri, MONGODB_DB: dbName, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', SLO_FILE: file, MINUTE_RETENTION_DAYS: String(scale.minuteRetentionDays) }, { startTimeoutMs: 300_000 })
    log(`  service up in ${((performance.now() - t0) / 1000).toFixed(0)} s with ${slos.length} SLOs`)

    const previousYear = String(new Date(now).getUTCFullYear() - 1)
    log('slos: every SLO\'s report once (current period), and the year SLOs\' previous year, checked against the model')
    const checks = [
      ...await reportChecks(server, slos, seeded),
      ...(await reportChecks(server, slos.filter(s => s.duration === '1y'), seeded, previousYear)).map(c => ({ ...c, group: `${c.group} ${previousYear}` }))
    ]
    const wrong = checks.filter(c => !c.ok)
    log(`  ${checks.length - wrong.length} of ${checks.length} reports equal the model${wrong.length ? `; wrong: ${wrong.slice(0, 3).map(c => `${c.name} ${JSON.stringify(c.got)} ≠ ${JSON.stringify(c.expected)}`).join(', ')}` : ''}`)

    const groups = [
      ...SLO_GROUPS.map(g => ({ key: groupKey(g), duration: g.duration, label: null })),
      ...SLO_GROUPS.filter(g => g.duration === '1y').map(g => ({ key: `${groupKey(g)} ${previousYear}`, duration: '1y', label: previousYear, of: groupKey(g) }))
    ]
    const reports = []
    for (const g of groups) {
      const names = slos.filter(s => s.group === (g.of ?? g.key)).map(s => s.name)
      const query = { name: g.key, kind: g.duration === '1y' ? 'year' : 'other', label: g.key, make: random => `/v1/slos/${names[Math.floor(random() * names.length)]}/report${g.label ? `?period=${g.label}` : ''}` }
      const r = await readFigures({ server, query, seconds: scale.readSeconds, connections: scale.readConnections, warmupSeconds: scale.warmupSeconds, minRequests: scale.readMinRequests, random: seededRandom(29) })
      const docs = documentsOf(checks, g.key)
      const days = checks.find(c => c.group === g.key)?.days ?? null
      reports.push({ ...r, slos: names.length, days, documentsPerSelector: docs?.mean ?? null, documentsPerSelectorMax: docs?.max ?? null })
      log(`  ${g.key}: p50 ${r.p50Ms?.toFixed(1)} ms, p99 ${r.p99Ms?.toFixed(1)} ms, ${r.requests} requests, ${docs?.mean.toFixed(1)} documents a selector${r.failed ? `, ${r.failed} failed` : ''}`)
    }

    log(`slos: GET /v1/slos (all ${slos.length}) and GET /metrics, one connection each`)
    const list = await timedGets(server, '/v1/slos', scale)
    const listed = await httpRequest(server.url, { path: '/v1/slos', timeoutMs: 120_000 })
    list.documents = listed.json?.documents ?? null
    list.slos = listed.json?.slos?.length ?? 0
    const metrics = await timedGets(server, '/metrics', scale)
    const scraped = await httpRequest(server.url, { path: '/metrics', timeoutMs: 120_000, headers: { accept: 'text/plain' } })
    metrics.sloSeries = sloSeriesLines(scraped.text ?? '')
    metrics.bytes = Buffer.byteLength(scraped.text ?? '')
    log(`  /v1/slos p50 ${list.p50Ms?.toFixed(0)} ms, p99 ${list.p99Ms?.toFixed(0)} ms, ${list.documents} documents; /metrics p99 ${metrics.p99Ms?.toFixed(0)} ms, ${metrics.sloSeries} SLO series`)
    log('slos: a month document as stored, (a) with each day\'s hours, (b) with each local day of 2 zones: BSON bytes, database time per event, in turns')
    const shapes = await shapeVariants(db, scale.shapes)
    log(`  ${Object.entries(shapes).map(([v, f]) => `${v} ${f.bytes} B, ${f.usPerEvent.toFixed(1)} µs/event`).join('; ')}`)
    return {
      shapes,
      zoned,
      population: { sources: all.length, plain: scale.plain, tagged: scale.tagged, slos: slos.length, minuteDays: scale.minuteDays, minuteRetentionDays: scale.minuteRetentionDays, previousYear, ...seeded },
      readConnections: scale.readConnections,
      readSeconds: scale.readSeconds,
      checks: { reports: checks.length, wrong: wrong.length, firstWrong: wrong[0] ?? null },
      reports,
      list,
      metrics
    }
  } finally {
    if (server) await server.stop().catch(() => {})
    if (!keep) await db.dropDatabase().catch(() => {})
    await mongo.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** GET path on one connection after a warm-up request, for readSeconds and at least readMinRequests → { requests, p50Ms, p99Ms, maxMs, failed } */
async function timedGets (server, path, scale) {
  await httpRequest(server.url, { path, timeoutMs: 120_000 })
  const r = await closedLoopGets({ server, make: () => path, random: Math.random, seconds: scale.readSeconds, connections: 1, minRequests: Math.max(scale.readMinRequests, scale.scrapes ?? 0) })
  return { path, requests: r.requests, failed: r.failed, p50Ms: percentile(r.latencies, 50), p99Ms: percentile(r.latencies, 99), maxMs: r.latencies.length ? Math.max(...r.latencies) : null }
}
