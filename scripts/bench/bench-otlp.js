// The otlp section (issue 31): one statbucket child with its StatsD
// listeners on measures StatsD counter lines over TCP (hot-shots, as the
// statsd section) and then OTLP/HTTP protobuf exports (./otlp-workload.js:
// the real SDK's bytes, replayed by autocannon), on the same database: the
// points (lines) applied per second of the service process's CPU, side by
// side. Acknowledged counter increments are checked against the database.
import { randomBytes } from 'node:crypto'
import { cannon, dailySum } from './bench-ingest.js'
import { freeStatsdPort } from '../shared/child-server.js'
import { startServerProcess } from './server-process.js'
import { measuredRun, STATSD_FLUSH_INTERVAL_MS } from './bench-statsd.js'
import { runFigures } from './statsd-figures.js'
import { OTLP_MIX, captureOtlpExport } from './otlp-workload.js'
import { procCpuMs } from './process-cpu.js'

const PREFIX = 'bench.otlp.'
const SUMS_PREFIX = 'bench.otlp.sums.'
const SUMS_ONLY = { ...OTLP_MIX, deltaSums: 200, explicitHistograms: 0, exponentialHistograms: 0, gauges: 0, upDownCounters: 0 }
const fmtN = n => Math.round(n).toLocaleString('en-US')

/** autocannon replaying `exp` (a captured export) to /v1/metrics for `seconds` → its result */
const replay = (server, exp, { seconds, connections }) =>
  cannon({ url: server.url + '/v1/metrics', method: 'POST', headers: exp.headers, body: exp.body, connections, duration: seconds })

/** One measured OTLP run: `exp` replayed for `seconds` → its figures */
async function otlpRun ({ server, db, exp, prefix, seconds, connections, dbPid, log }) {
  log(`otlp: protobuf exports of ${exp.points} points (${fmtN(exp.body.length)} B), ${connections} connections, ${seconds} s`)
  await server.resetPeak()
  const before = await server.stats()
  const dbCpuBefore = procCpuMs(dbPid)
  const result = await replay(server, exp, { seconds, connections })
  const dbCpuAfter = procCpuMs(dbPid)
  const after = await server.stats()
  const ok = result.statusCodeStats?.['200']?.count ?? 0
  const stored = await dailySum(db, `${prefix}http.server.requests/`) // the name's own documents: every attribute set's increments
  const points = ok * exp.points
  const cpuS = (after.cpuMs - before.cpuMs) / 1000
  return {
    mix: exp.mix,
    pointsPerRequest: exp.points,
    bodyBytes: exp.body.length,
    connections,
    seconds: result.duration,
    requests: result.requests.sent,
    acknowledged: ok,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    points,
    pointsPerS: points / result.duration,
    serviceCpuMs: after.cpuMs - before.cpuMs,
    cpuUsPerPoint: points ? (cpuS * 1e6) / points : null,
    pointsPerCoreS: cpuS > 0 ? points / cpuS : null,
    databaseCpuUsPerPoint: dbCpuBefore !== null && dbCpuAfter !== null && points ? ((dbCpuAfter - dbCpuBefore) * 1000) / points : null,
    p99Ms: result.latency.p99,
    // every acknowledged export's counter increments are in the day documents, and no more than were sent
    counterCheck: { expected: ok * exp.counterTotal, sent: result.requests.sent * exp.counterTotal, stored },
    statementsPerPoint: points ? (after.counters.statements - before.counters.statements) / points : null,
    rssPeakBytes: after.rssPeak
  }
}

/**
 * The phase → figures.otlp: { statsd (runFigures of the TCP counter run), otlp: { points, pointsPerCoreS, … }, ratio }
 * uri/dbName: the bench's database; db: a handle on it; dbPid: the embedded database's process (null: not measured)
 */
export async function benchOtlp ({ uri, dbName, db, dbPid = null, seconds, warmupSeconds, clients = 2, connections = 32, log }) {
  const token = randomBytes(12).toString('hex')
  const server = await startServerProcess({
    MONGODB_URI: uri,
    MONGODB_DB: dbName,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    STATSD_PORT: String(await freeStatsdPort()),
    STATSD_HOST: '127.0.0.1',
    STATSD_FLUSH_INTERVAL_MS: String(STATSD_FLUSH_INTERVAL_MS),
    METRICS_TOKENS: token
  })
  log(`otlp: statbucket with StatsD on 127.0.0.1:${server.statsdPort} and /v1/metrics (pid ${server.pid})`)
  try {
    const warm = await captureOtlpExport({ prefix: `${PREFIX}warm.` })
    const exp = await captureOtlpExport({ prefix: PREFIX })
    if (warmupSeconds) {
      log(`otlp: warm-up, ${warmupSeconds} s`)
      await replay(server, warm, { seconds: warmupSeconds, connections })
    }
    log(`otlp: StatsD counter lines over TCP beside it, ${clients} hot-shots process${clients > 1 ? 'es' : ''}, ${seconds} s`)
    const tcp = await measuredRun({ db, server, token, protocol: 'tcp', prefix: 'bench.otlp.statsd.m', clients, seconds, rate: null, dbPid, log })
    const statsd = { ...tcp, ...runFigures({ sent: tcp.sent, stored: tcp.settled, settled: tcp.settled, sendSeconds: tcp.sendSeconds, appliedSeconds: tcp.appliedSeconds, serviceCpuMs: tcp.serviceCpuMs }) }
    const otlp = await otlpRun({ server, db, exp, prefix: PREFIX, seconds, connections, dbPid, log })
    // information: exports of delta sums alone, StatsD counter lines' like
    const sumsOnly = await otlpRun({ server, db, exp: await captureOtlpExport({ prefix: SUMS_PREFIX, mix: SUMS_ONLY }), prefix: SUMS_PREFIX, seconds, connections, dbPid, log })
    log(`  ${fmtN(otlp.pointsPerS)} points/s, ${fmtN(otlp.pointsPerCoreS)} per core of service CPU (${otlp.cpuUsPerPoint?.toFixed(2)} µs a point); StatsD ${fmtN(statsd.linesPerCoreS)} lines/s per core`)
    return { statsd, otlp, sumsOnly, ratio: otlp.pointsPerCoreS && statsd.linesPerCoreS ? otlp.pointsPerCoreS / statsd.linesPerCoreS : null, rssPeakBytes: Math.max(otlp.rssPeakBytes, sumsOnly.rssPeakBytes) }
  } finally {
    await server.stop().catch(() => {})
  }
}
