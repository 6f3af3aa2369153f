// The cardinality section's figures from what it measured: latency windows
// around midnight, the sweep against the day it runs in, and the documents
// and their BSON bytes per day and population (busy or sparse). Pure.
import { BSON } from 'mongodb'
import { percentile } from '../shared/workload.js'
import { isBusyName } from './cardinality-workload.js'

const MINUTES_PER_DAY = 1440

/** Requests [{ at (simulated ms sent), ms, events, ok }] of [from, to) → { requests, events, acknowledged, failed, eventsPerS, p50Ms, p99Ms, maxMs } */
export function latencyWindow (requests, from, to) {
  const inside = requests.filter(r => r.at >= from && r.at < to)
  const ok = inside.filter(r => r.ok)
  const latencies = inside.map(r => r.ms)
  const acknowledged = ok.reduce((n, r) => n + r.events, 0)
  return {
    requests: inside.length,
    events: inside.reduce((n, r) => n + r.events, 0),
    acknowledged,
    failed: inside.length - ok.length,
    eventsPerS: acknowledged / ((to - from) / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.length ? Math.max(...latencies) : null
  }
}

/** The window across midnight, whole and either side of it */
export function midnightFigures (requests, { windowFrom, windowTo, midnight }) {
  return {
    whole: latencyWindow(requests, windowFrom, windowTo),
    before: latencyWindow(requests, windowFrom, midnight),
    after: latencyWindow(requests, midnight, windowTo)
  }
}

/** The sweep's answer ({ result, startedAt, endedAt, ms }) against its day (ending at `midnight`) */
export function sweepFigures ({ result, startedAt, endedAt, ms }, { midnight, rate }) {
  const leftMs = midnight - startedAt
  return {
    checked: result.checked,
    created: result.created,
    error: result.error ?? null,
    rate,
    startedAt: new Date(startedAt).toISOString(),
    endedAt: new Date(endedAt).toISOString(),
    seconds: ms / 1000,
    // the part of it the rate imposes (two documents a day); the rest is reading pages and writing
    pacedSeconds: result.created * 2 / rate,
    secondsLeftAtStart: leftMs / 1000,
    // how much of the time left in its day the sweep used: < 1 is done before midnight
    shareOfTimeLeft: ms / leftMs,
    endedBeforeMidnight: endedAt < midnight,
    // metrics one run can preallocate between two 10-minute ticks at this rate (two documents each)
    metricsPerTick: rate * 600 / 2
  }
}

/** Whether a daily document has every minute: zero-filled by a preallocation, not grown by writes */
export function hasEveryMinute (doc) {
  if (!doc.minute) return false
  let minutes = 0
  for (const hour of Object.values(doc.minute)) minutes += Object.keys(hour).length
  return minutes === MINUTES_PER_DAY
}

/** The BSON bytes of one day's field (`daily.D`) inside its monthly document */
export function dayFieldBytes (monthly, dayOfMonth) {
  const value = monthly.daily?.[dayOfMonth]
  if (value === undefined) return 0
  return BSON.calculateObjectSize({ [dayOfMonth]: value }) - BSON.calculateObjectSize({})
}

/** Tallies of { count, bytes, … } by key */
export function createTally () {
  const rows = new Map()
  return {
    add (key, bytes, extra = {}) {
      const row = rows.get(key) ?? { count: 0, bytes: 0 }
      row.count++
      row.bytes += bytes
      for (const [k, v] of Object.entries(extra)) row[k] = (row[k] ?? 0) + v
      rows.set(key, row)
    },
    get: key => rows.get(key) ?? { count: 0, bytes: 0 },
    toJSON: () => Object.fromEntries(rows)
  }
}

/**
 * Where a daily document belongs: `today` or `tomorrow` (else null), `busy`
 * or `sparse` (else null), and how it began: `preallocated` (every minute
 * present) or `written` (only the minutes written).
 */
export function classifyDaily (doc, shape, { day, tomorrow }) {
  const time = doc.date instanceof Date ? doc.date.getTime() : null
  const when = time === day ? 'today' : time === tomorrow ? 'tomorrow' : null
  const busy = isBusyName(doc.metric, shape)
  return { when, population: busy === null ? null : busy ? 'busy' : 'sparse', origin: hasEveryMinute(doc) ? 'preallocated' : 'written' }
}

const mean = ({ count, bytes }) => (count ? bytes / count : null)

/**
 * The stored figures from the tallies the section made: per day and
 * population, documents and bytes; bytes per sparse metric-day (its daily
 * document and its day's field in the month's document).
 */
export function storedFigures ({ daily, monthly, registry }, shape) {
  const day = (when, population) => {
    const pre = daily.get(`${when}.${population}.preallocated`)
    const written = daily.get(`${when}.${population}.written`)
    const all = { count: pre.count + written.count, bytes: pre.bytes + written.bytes }
    return { documents: all.count, bytes: all.bytes, meanBytes: mean(all), preallocated: pre.count, preallocatedBytes: pre.bytes, sum: (pre.sum ?? 0) + (written.sum ?? 0) }
  }
  const month = population => {
    const m = monthly.get(population)
    return { documents: m.count, bytes: m.bytes, meanBytes: mean(m), todayFieldBytes: m.todayFieldBytes ?? 0, meanTodayFieldBytes: m.count ? (m.todayFieldBytes ?? 0) / m.count : null }
  }
  const entries = population => {
    const r = registry.get(population)
    return { entries: r.count, bytes: r.bytes, meanBytes: mean(r), busyToday: r.busyToday ?? 0 }
  }
  const stored = {
    today: { busy: day('today', 'busy'), sparse: day('today', 'sparse') },
    tomorrow: { busy: day('tomorrow', 'busy'), sparse: day('tomorrow', 'sparse') },
    monthly: { busy: month('busy'), sparse: month('sparse') },
    registry: { busy: entries('busy'), sparse: entries('sparse') }
  }
  // a sparse metric's day: its daily document, its day's field in the month's, and its share of the
  // zero-filled days PREALLOC_PROBABILITY gives a few sparse metrics (tomorrow's, as today's were not measured)
  const sparseDaily = stored.today.sparse
  stored.sparseZeroFilledShare = stored.tomorrow.sparse.preallocatedBytes / shape.sparse
  stored.bytesPerSparseMetricDay = sparseDaily.documents
    ? (sparseDaily.bytes + stored.monthly.sparse.todayFieldBytes + stored.tomorrow.sparse.preallocatedBytes) / shape.sparse
    : null
  return stored
}

/**
 * What must add up, each { what, expected, found, ok }. Events answered 504
 * (`unknownEvents`: maybe applied) widen the events' check to a range.
 */
export function countChecks ({ stored, sweep, shape, acknowledgedEvents, unknownEvents = 0, registryEntries }) {
  const checks = [
    ['registry entries = metrics registered', shape.metrics, registryEntries],
    ['metrics marked busy today = busy metrics', shape.busy, stored.registry.busy.busyToday + stored.registry.sparse.busyToday],
    ['sparse metrics marked busy today', 0, stored.registry.sparse.busyToday],
    ['metrics the sweep checked = busy metrics', shape.busy, sweep.checked],
    ['days the sweep created = busy metrics without a tomorrow before it ran', shape.busy - sweep.tomorrowsBefore.busy, sweep.created],
    ['busy metrics with a tomorrow after the sweep', shape.busy, sweep.tomorrowsAfter.busy],
    ['sparse tomorrows the sweep made', 0, sweep.tomorrowsAfter.sparse - sweep.tomorrowsBefore.sparse],
    ['busy metrics with a preallocated tomorrow', shape.busy, stored.tomorrow.busy.preallocated],
    ['today\'s daily documents of sparse metrics = sparse metrics', shape.sparse, stored.today.sparse.documents],
    ['today\'s daily documents of busy metrics = busy metrics', shape.busy, stored.today.busy.documents],
    ['events in the daily documents = events acknowledged', acknowledgedEvents,
      stored.today.busy.sum + stored.today.sparse.sum + stored.tomorrow.busy.sum + stored.tomorrow.sparse.sum, unknownEvents]
  ]
  // slack: how far above `expected` a count may be found (events that may have been applied)
  return checks.map(([what, expected, found, slack = 0]) => ({ what, expected, found, ok: found >= expected && found <= expected + slack }))
}
