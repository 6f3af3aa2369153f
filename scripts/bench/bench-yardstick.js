// The single-event yardsticks (docs/adr/0058-naive-writer-yardstick.md): the
// service's CPU per one-event request beside the naive per-event writer
// (./naive-app.js) and the bare route (./bare-app.js), each a server process
// of its own on the same database, measured in turns (round after round,
// the three one after another) at each connection count, the CPU of each
// process read from /proc (./process-cpu.js). Each is a fresh process: the
// service's heap and code carry nothing of the bench's earlier phases.
// Medians and the spread of the rounds; the ratios are the medians of each
// round's ratio.
import { metricNames } from '../shared/workload.js'
import { cannon } from './bench-ingest.js'
import { procCpuMs } from './process-cpu.js'
import { startServerProcess } from './server-process.js'

export const YARDSTICK_SIDES = ['service', 'naive', 'bare']

/**
 * One measurement: `connections` connections of single-event requests for
 * `seconds` (after `warmupSeconds`), rotating over `bodies`.
 * → { requests, ok, requestsPerS, cpuUsPerRequest, databaseUsPerRequest, p99Ms, rssBytes }
 */
export async function measureSingle ({ server, connections, seconds, warmupSeconds, bodies, dbPid = null }) {
  let i = 0
  const load = { url: server.url, connections, requests: [{ method: 'POST', path: '/v1/events', headers: { 'content-type': 'application/json' }, setupRequest: req => ({ ...req, body: bodies[i++ % bodies.length] }) }] }
  if (warmupSeconds) await cannon({ ...load, duration: warmupSeconds })
  const cpuBefore = procCpuMs(server.pid)
  const dbBefore = procCpuMs(dbPid)
  const result = await cannon({ ...load, duration: seconds })
  const cpuAfter = procCpuMs(server.pid)
  const dbAfter = procCpuMs(dbPid)
  return yardstickFigures({ result, cpuBefore, cpuAfter, dbBefore, dbAfter })
}

/** autocannon's result and the CPU (ms) of the server and of the database before and after → one measurement's figures */
export function yardstickFigures ({ result, cpuBefore, cpuAfter, dbBefore, dbAfter }) {
  const requests = result.requests.total // answered: the requests the CPU was spent on
  const ok = result['2xx'] ?? 0
  const per = (a, b) => (a === null || b === null || !requests ? null : ((b - a) * 1000) / requests)
  return {
    requests,
    ok,
    requestsPerS: ok / result.duration,
    cpuUsPerRequest: per(cpuBefore, cpuAfter),
    databaseUsPerRequest: per(dbBefore, dbAfter),
    p99Ms: result.latency.p99
  }
}

const isNum = v => typeof v === 'number' && Number.isFinite(v)

/** The median of the numbers of `values` (the mean of the middle two), or null */
export function median (values) {
  const v = values.filter(isNum).sort((a, b) => a - b)
  if (v.length === 0) return null
  const m = Math.floor(v.length / 2)
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2
}

/** { median, min, max } of the numbers of `values` */
export function spread (values) {
  const v = values.filter(isNum)
  return { median: median(v), min: v.length ? Math.min(...v) : null, max: v.length ? Math.max(...v) : null }
}

/**
 * runs: [{ connections, round, side, figures }] → per connection count, each
 * side's CPU per request (median, min, max), the database's, req/s, and the
 * service's ratio to the naive writer and to the bare route (of each round's, median, min, max)
 */
export function summarizeYardstick (runs) {
  const out = []
  for (const connections of [...new Set(runs.map(r => r.connections))]) {
    const mine = runs.filter(r => r.connections === connections)
    const sides = {}
    for (const side of YARDSTICK_SIDES) {
      const f = mine.filter(r => r.side === side).map(r => r.figures)
      if (f.length === 0) continue
      sides[side] = {
        cpuUsPerRequest: spread(f.map(x => x.cpuUsPerRequest)),
        databaseUsPerRequest: spread(f.map(x => x.databaseUsPerRequest)),
        requestsPerS: median(f.map(x => x.requestsPerS)),
        p99Ms: median(f.map(x => x.p99Ms)),
        notOk: f.reduce((s, x) => s + (x.requests - x.ok), 0)
      }
    }
    const ratios = (other) => {
      const rounds = [...new Set(mine.map(r => r.round))]
      return spread(rounds.map(round => {
        const cpu = side => mine.find(r => r.round === round && r.side === side)?.figures.cpuUsPerRequest
        const a = cpu('service')
        const b = cpu(other)
        return isNum(a) && isNum(b) && b > 0 ? a / b : null
      }))
    }
    out.push({ connections, rounds: new Set(mine.map(r => r.round)).size, sides, vsNaive: ratios('naive'), vsBare: ratios('bare') })
  }
  return out
}

/**
 * The three-way comparison: the service, the naive writer and the bare
 * route, each a fresh process started here (./server-process.js; the
 * service with the bench's settings, `env`), the first two on the same
 * database. → { seconds, rounds, byConnections: summarizeYardstick(runs), runs, rssPeakBytes (the service's) }
 */
export async function benchYardstick ({ uri, dbName, env = {}, dbPid = null, connectionCounts = [1, 32], rounds = 3, seconds = 4, warmupSeconds = 1, log = () => {} }) {
  const server = await startServerProcess({ ...env, MONGODB_URI: uri, MONGODB_DB: dbName, LOG_LEVEL: 'warn' })
  const naive = await startServerProcess({ BENCH_NAIVE: '1', MONGODB_URI: uri, MONGODB_DB: dbName, LOG_LEVEL: 'warn' })
  const bare = await startServerProcess({ BENCH_BARE: '1', LOG_LEVEL: 'warn' })
  const servers = { service: server, naive, bare }
  // each its own metrics (the naive writer keeps no registry); the bare route's never stored
  const bodies = Object.fromEntries(YARDSTICK_SIDES.map(side => [side, metricNames(`bench.yard.${side}.`, 100).map(metric => JSON.stringify({ metric }))]))
  const runs = []
  try {
    await server.resetPeak()
    for (const connections of connectionCounts) {
      for (let round = 1; round <= rounds; round++) {
        for (const side of YARDSTICK_SIDES) {
          const figures = await measureSingle({ server: servers[side], connections, seconds, warmupSeconds, bodies: bodies[side], dbPid })
          runs.push({ connections, round, side, figures })
        }
        const last = runs.slice(-3).map(r => `${r.side} ${Math.round(r.figures.cpuUsPerRequest)} µs`).join(', ')
        log(`  ${connections} connection${connections > 1 ? 's' : ''}, round ${round}: ${last} of CPU per request`)
      }
    }
    const stats = await server.stats()
    return { seconds, warmupSeconds, rounds, byConnections: summarizeYardstick(runs), runs, rssPeakBytes: stats.rssPeak }
  } finally {
    for (const s of [server, naive, bare]) await s.stop()
  }
}
