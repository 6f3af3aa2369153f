// What the cardinality section (bench-cardinality.js) sends, and when: the
// metric names of a registry of many metrics, which of them are busy, the
// few events of a sparse metric's day, a busy minute's events, the simulated
// day's timeline and the /metrics/find patterns. Pure.
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/bucket/time.js'
import { seededRandom } from '../shared/workload.js'

// card.svc07.host123.m00: services × hosts × metrics per host, as a Graphite tree
export const METRICS_PER_HOST = 100
export const SERVICES = 50
const PREFIX = 'card'

/**
 * The population: `metrics` names, every (metrics / busy)-th one busy.
 * metrics must be a multiple of SERVICES × METRICS_PER_HOST, and of busy.
 */
export function populationShape ({ metrics, busy }) {
  const perService = SERVICES * METRICS_PER_HOST
  if (!Number.isInteger(metrics) || metrics < perService || metrics % perService !== 0) throw new RangeError(`metrics must be a positive multiple of ${perService}, got ${metrics}`)
  if (!Number.isInteger(busy) || busy < 1 || metrics % busy !== 0) throw new RangeError(`busy must divide metrics (${metrics}), got ${busy}`)
  const hostsPerService = metrics / perService
  if (hostsPerService > 1000) throw new RangeError(`at most ${1000 * perService} metrics, got ${metrics}`)
  return { metrics, busy, sparse: metrics - busy, busyEvery: metrics / busy, hostsPerService }
}

const pad = (n, width) => String(n).padStart(width, '0')

/** The i-th metric's name (0 ≤ i < metrics) */
export function metricName (i, shape) {
  const m = i % METRICS_PER_HOST
  const host = Math.floor(i / METRICS_PER_HOST) % shape.hostsPerService
  const svc = Math.floor(i / (METRICS_PER_HOST * shape.hostsPerService))
  return `${PREFIX}.svc${pad(svc, 2)}.host${pad(host, 3)}.m${pad(m, 2)}`
}

/** The index of a name metricName made, or -1 */
export function metricIndex (name, shape) {
  const match = /^card\.svc(\d{2})\.host(\d{3})\.m(\d{2})$/.exec(name)
  if (!match) return -1
  const [svc, host, m] = match.slice(1).map(Number)
  if (host >= shape.hostsPerService || svc >= SERVICES) return -1
  return (svc * shape.hostsPerService + host) * METRICS_PER_HOST + m
}

export const isBusyIndex = (i, shape) => i % shape.busyEvery === 0

/** Whether a metric name is one of the busy ones; null when it is not of the population */
export function isBusyName (name, shape) {
  const i = metricIndex(name, shape)
  return i < 0 ? null : isBusyIndex(i, shape)
}

/**
 * The simulated day (epoch ms of its UTC start) and the moments the section
 * sets the service's clock to: the sparse metrics' day is sent at
 * `sparseSentAt` with times before it; the busy metrics are written in
 * `busyMinutes` distinct minutes from `busyFrom` (the day's last hour: the
 * latest they can become busy and still be preallocated); the sweep runs at
 * the next 10-minute tick of PREALLOC_CRON's default; the midnight window
 * straddles the end of the day.
 */
export function timeline ({ day, busyMinutes, windowSeconds }) {
  const busyFrom = day + 23 * HOUR_MS
  const busyEnd = busyFrom + busyMinutes * MINUTE_MS
  const tick = 10 * MINUTE_MS
  return {
    day,
    tomorrow: day + DAY_MS,
    sparseSentAt: day + 18 * HOUR_MS,
    busyFrom,
    busyMinutes,
    sweepAt: Math.ceil(busyEnd / tick) * tick,
    windowFrom: day + DAY_MS - (windowSeconds / 2) * 1000,
    windowTo: day + DAY_MS + (windowSeconds / 2) * 1000
  }
}

/** A sparse metric's events of the day: 1 to 5 ("a few a day"), at seeded times in [day, until) */
export function sparseEvents (i, shape, { day, until }) {
  const random = seededRandom(i + 1)
  const count = 1 + Math.floor(random() * 5)
  const metric = metricName(i, shape)
  const events = []
  for (let k = 0; k < count; k++) events.push({ metric, ts: day + Math.floor(random() * (until - day)) })
  return events
}

/**
 * The sparse metrics' day in request bodies of about `batch` events, every
 * metric's events in one body (the writer merges them into one upsert per
 * document, as it would merge them with other metrics' events over the day).
 * A generator: 990,000 metrics' events are never all in memory.
 */
export function * sparseBodies (shape, { day, until, batch = 1000 }) {
  let body = []
  for (let i = 0; i < shape.metrics; i++) {
    if (isBusyIndex(i, shape)) continue
    for (const e of sparseEvents(i, shape, { day, until })) body.push({ metric: e.metric, ts: new Date(e.ts).toISOString() })
    if (body.length >= batch) { yield body; body = [] }
  }
  if (body.length) yield body
}

/** The busy metrics' names, in order */
export function busyNames (shape) {
  const names = []
  for (let i = 0; i < shape.metrics; i += shape.busyEvery) names.push(metricName(i, shape))
  return names
}

/**
 * One busy minute: `perMinute` events per busy metric, spread evenly over
 * the minute (60: one a second), in bodies of at most `batch` events, each
 * body holding whole metrics.
 */
export function * busyMinuteBodies (names, { minuteStart, perMinute = 60, batch = 1000 }) {
  const perBody = Math.max(1, Math.floor(batch / perMinute))
  const spacing = MINUTE_MS / perMinute
  for (let from = 0; from < names.length; from += perBody) {
    const body = []
    for (const metric of names.slice(from, from + perBody)) {
      for (let k = 0; k < perMinute; k++) body.push({ metric, ts: new Date(minuteStart + Math.floor(k * spacing)).toISOString() })
    }
    yield body
  }
}

/**
 * The n-th body of the load across midnight: the busy metrics taken in turn
 * (`size` of them), and among them the sparse metrics' share of the events
 * (`sparseShare`: their events a day ÷ all events a day), drawn from a
 * seeded walk. → metric names
 */
export function windowBody (n, { busy, shape, size, sparseShare }) {
  const sparseBefore = Math.floor(n * size * sparseShare)
  const sparse = Math.floor((n + 1) * size * sparseShare) - sparseBefore
  const busyBefore = n * size - sparseBefore
  const names = []
  for (let k = 0; k < size - sparse; k++) names.push(busy[(busyBefore + k) % busy.length])
  const random = seededRandom(7919 + n)
  for (let k = 0; k < sparse; k++) {
    let i
    do { i = Math.floor(random() * shape.metrics) } while (isBusyIndex(i, shape))
    names.push(metricName(i, shape))
  }
  return names
}

/**
 * The /metrics/find queries, as Grafana sends them: the tree's levels as a
 * user opens them, a template variable over one level, and autocompletion
 * of a typed prefix. Each `make(random)` draws a service and host.
 */
export function findQueries (shape) {
  const svc = random => `svc${pad(Math.floor(random() * SERVICES), 2)}`
  const host = random => `host${pad(Math.floor(random() * shape.hostsPerService), 3)}`
  const hostPrefix = random => `host${pad(Math.floor(random() * Math.ceil(shape.hostsPerService / 10)), 2)}`
  return [
    { name: 'root', label: '`*` (the first level)', make: () => '*' },
    { name: 'services', label: '`card.*` (50 services)', make: () => 'card.*' },
    { name: 'hosts', label: `\`card.svcNN.*\` (${shape.hostsPerService} hosts)`, make: r => `card.${svc(r)}.*` },
    { name: 'metrics', label: `\`card.svcNN.hostNNN.*\` (${METRICS_PER_HOST} metrics)`, make: r => `card.${svc(r)}.${host(r)}.*` },
    { name: 'autocomplete', label: '`card.svcNN.hostNN*` (a typed prefix)', make: r => `card.${svc(r)}.${hostPrefix(r)}*` },
    { name: 'variable', label: `\`card.*.hostNNN.m00\` (one metric on every service: ${SERVICES} nodes)`, make: r => `card.*.${host(r)}.m00` }
  ]
}
