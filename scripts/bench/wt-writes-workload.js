// The day of ingest of the WiredTiger write-amplification bench
// (scripts/bench/bench-wt-writes.js, docs/adr/0056-wiredtiger-write-amplification.md):
// its events second by second, the writer's updates for them (the service's
// own write unit and operations), and the three layouts they are written in.
//
// - day: today's documents, as the writer and the preallocator send them.
// - hour: the same, but a counter's minutes in one document per metric per
//   hour (`minutes`: `minute.M`), and a timer's minute count, sum, min and
//   max in its minute-histogram hour document (`distributionMinutes`, which
//   holds count and sum already): the day documents without minutes. The
//   preallocator zero-fills the day document only; an hour document is
//   created by its hour's first write, as `distributionMinutes`' are.
// - raw: one small document per event, inserted ({ _id, metric, time, value }),
//   what a time series collection is built from.
//
// Group commit: the events of each simulated second are one flush (one update
// per document they touch; `flushSeconds` makes it longer). StatsD's
// transports submit their sums every second (STATSD_FLUSH_INTERVAL_MS=1000);
// single-event requests at this load would be cut into a flush nearly each
// (the adaptive cut waits half a flush's round trip), so a second is the
// kinder choice for the update layouts.
import { buildWriteUnit, mergeWriteUnits } from '../../src/kinds/write-unit.js'
import { distributionUpdate, incrementUpdate, operationsOf } from '../../src/writer/write-operations.js'
import { monthDayZeroIncrements } from '../../src/bucket/increments.js'
import { dayZeroIncrements } from '../../src/bucket/minute-fields.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, dayId, hourId, monthId, startOfMonth, utcParts } from '../../src/bucket/time.js'
import { PREALLOC_PROBABILITY, seeded } from './bench-wiredtiger.js'
import { TIMER_KIND, latencySampler, monthlyUpdate, timerDay } from './timer-workload.js'

/** The day measured: mid-month, so the month's documents exist (PRIOR_DAYS days in them) */
export const DAY = Date.UTC(2026, 10, 15)
export const PRIOR_DAYS = 14
export const LAYOUTS = Object.freeze(['day', 'hour', 'raw'])
/** The sweep preallocates tomorrow for the day's busy metrics: done by 00:40 (bench-wiredtiger.js's SWEEP_MINUTE) */
export const SWEEP_SECOND = 40 * 60
/** The counters' hour documents in layout `hour` */
export const MINUTES_COLLECTION = 'minutes'
export const RAW_COLLECTION = 'events'

const pad = (n, w) => String(n).padStart(w, '0')
export const busyName = (i) => `app.busy.${pad(i, 3)}.requests`
export const sparseName = (i) => `app.sparse.${pad(i, 5)}.requests`
export const timerName = (i) => `app.timer.${pad(i, 3)}.latency`

/**
 * The minutes measured: one drawn in each block of `every` minutes
 * (stratified sampling), weighted by its block's length; every = 1: all.
 * → Map minute → weight
 */
export function sampledMinutes (every, seed = 7) {
  if (!Number.isInteger(every) || every < 1 || every > 1440) throw new RangeError(`every must be a whole number of minutes from 1 to 1440, got ${every}`)
  const random = seeded(seed)
  const out = new Map()
  for (let from = 0; from < 1440; from += every) {
    const length = Math.min(every, 1440 - from)
    out.set(from + Math.floor(random() * length), length)
  }
  return out
}

/**
 * A population's day: counters (`busy` of them an event a second, the rest
 * 1 to 6 events a day) or timers (a latency a second each).
 * → { kind, metrics, eventsAt(second) } (eventsAt called in order, once a second)
 */
export function createDay ({ kind, counters = 0, busy = 0, timers = 0, seed = 1 }) {
  const random = seeded(seed)
  if (kind === 'timers') {
    const metrics = Array.from({ length: timers }, (_, i) => timerName(i))
    const latency = latencySampler(random)
    return {
      kind,
      metrics,
      eventsAt: (s) => metrics.map(metric => ({ metric, value: latency(), time: DAY + s * 1000 + Math.floor(random() * 1000), kind: 'distribution' }))
    }
  }
  const busyMetrics = Array.from({ length: busy }, (_, i) => busyName(i))
  const sparseMetrics = Array.from({ length: counters - busy }, (_, i) => sparseName(i))
  const sparse = new Map() // second → events
  for (const metric of sparseMetrics) {
    const n = 1 + Math.floor(random() * 6)
    for (let i = 0; i < n; i++) {
      const time = DAY + Math.floor(random() * DAY_MS)
      const s = Math.floor((time - DAY) / 1000)
      if (!sparse.has(s)) sparse.set(s, [])
      sparse.get(s).push({ metric, value: 1 + Math.floor(random() * 9), time })
    }
  }
  return {
    kind,
    metrics: [...busyMetrics, ...sparseMetrics],
    busy: busyMetrics,
    eventsAt (s) {
      const out = busyMetrics.map(metric => ({ metric, value: 1 + Math.floor(random() * 9), time: DAY + s * 1000 + Math.floor(random() * 1000) }))
      for (const e of sparse.get(s) ?? []) out.push(e)
      return out
    }
  }
}

/** The writer's updates for a flush of events: one per document, as operationsOf builds them (the registry's left out) → [{ collection, id, update }] */
export function writerOperations (events, now) {
  const flush = mergeWriteUnits([buildWriteUnit(events, { kindOf: () => TIMER_KIND })])
  const out = []
  for (const { collection, operations } of operationsOf(flush, now)) {
    if (collection === 'metrics') continue
    for (const op of operations) out.push({ collection, id: op.updateOne.filter._id, update: op.updateOne.update })
  }
  return out
}

const MINUTE_PATH = /^minute\.(\d+)\.(\d+)(?:\.(\w+))?$/

/** Layout `hour`: the writer's updates with the day documents' minutes moved to hour documents (`ops` left as they are) */
export function hourLayoutOperations (ops) {
  const out = []
  const histograms = new Map() // distributionMinutes id → a copy of its op (the flush holds one per hour with values)
  const copied = ops.map((op) => {
    if (op.collection !== 'distributionMinutes') return op
    const copy = { ...op, update: { ...op.update } }
    histograms.set(op.id, copy)
    return copy
  })
  for (const op of copied) {
    if (op.collection !== 'daily' && op.collection !== 'distributionDaily') {
      out.push(op)
      continue
    }
    const { metric, date } = op.update.$setOnInsert
    const dayStart = date.getTime()
    const update = { ...op.update }
    const hours = new Map() // hour → $inc of its minutes (counters)
    for (const operator of ['$inc', '$min', '$max']) {
      if (!update[operator]) continue
      const kept = {}
      for (const [path, v] of Object.entries(update[operator])) {
        const m = MINUTE_PATH.exec(path)
        if (!m) {
          kept[path] = v
          continue
        }
        const hour = Number(m[1])
        if (op.collection === 'daily') {
          if (!hours.has(hour)) hours.set(hour, {})
          hours.get(hour)[`minute.${m[2]}`] = v
        } else if (operator !== '$inc') {
          // count and sum are in the minute-histogram document already; min and max join them
          const histogram = histograms.get(hourId(metric, dayStart + hour * HOUR_MS)).update
          ;(histogram[operator] ??= {})[`minute.${m[2]}.${m[3]}`] = v
        }
      }
      update[operator] = kept
    }
    out.push({ ...op, update })
    for (const [hour, inc] of hours) {
      const id = hourId(metric, dayStart + hour * HOUR_MS)
      out.push({ collection: MINUTES_COLLECTION, id, update: incrementUpdate(id, { metric, date: dayStart + hour * HOUR_MS, inc }).updateOne.update })
    }
  }
  return out
}

/** The preallocator's upserts of a counter's day (preallocator.js preallocateDay): the day zero-filled (layout hour: without minutes), the day's field in its month */
export function preallocationOperations (layout, metric, dayStart) {
  const day = dayId(metric, dayStart)
  const month = monthId(metric, dayStart)
  return [
    { collection: 'daily', id: day, update: incrementUpdate(day, { metric, date: dayStart, inc: dayZeroIncrements(layout !== 'hour') }).updateOne.update },
    { collection: 'monthly', id: month, update: incrementUpdate(month, { metric, date: startOfMonth(dayStart), inc: monthDayZeroIncrements(dayStart) }).updateOne.update }
  ]
}

/** A flush's operations for each layout: upserts, or (raw) the documents to insert; the writer's built once for the layouts that share them */
function flushOperations (events, now) {
  let ops = null
  const writer = () => (ops ??= writerOperations(events, now))
  return (layout) => {
    if (layout === 'raw') return { inserts: events.map(({ metric, time, value }) => ({ metric, time: new Date(time), value })) }
    return { upserts: layout === 'hour' ? hourLayoutOperations(writer()) : writer() }
  }
}

/**
 * The documents there before the day (unmeasured): each metric's month with
 * PRIOR_DAYS days, and the busy counters' day preallocated by yesterday's sweep.
 * → [{ collection, id, update }]
 */
export function setupOperations (layout, day) {
  if (layout === 'raw') return []
  const monthStart = startOfMonth(DAY)
  const out = []
  if (day.kind === 'timers') {
    // two distinct days of values, repeated (timer-workload.js's monthly document)
    const templates = [1, 2].map(seed => timerDay({ metric: 'template', dayStart: DAY - seed * DAY_MS, seed }).dayTier)
    for (const metric of day.metrics) {
      const id = monthId(metric, DAY)
      const update = monthlyUpdate(metric, monthStart, Array.from({ length: PRIOR_DAYS }, (_, d) => ({ dayOfMonth: d + 1, dayTier: templates[d % 2] })))
      out.push({ collection: 'distributionMonthly', id, update: distributionUpdate(id, update).updateOne.update })
    }
    return out
  }
  const busy = new Set(day.busy)
  for (const metric of day.metrics) {
    const perDay = busy.has(metric) ? 86_400 * 5 : 20
    const inc = { monthly: perDay * PRIOR_DAYS }
    for (let d = 1; d <= PRIOR_DAYS; d++) inc[`daily.${d}`] = perDay
    const id = monthId(metric, DAY)
    out.push({ collection: 'monthly', id, update: incrementUpdate(id, { metric, date: monthStart, inc }).updateOne.update })
  }
  for (const metric of day.busy) out.push(...preallocationOperations(layout, metric, DAY))
  return out
}

/**
 * The counters whose tomorrow the preallocator makes at a second: each
 * event's draw (PREALLOC_PROBABILITY), the sweep's busy metrics at
 * SWEEP_SECOND; a metric once. → (second, events) → metrics
 */
function preallocationDraw (day, seed) {
  const random = seeded(seed)
  const done = new Set()
  return (s, batch) => {
    if (day.kind !== 'counters') return []
    const due = []
    for (const e of batch) if (random() < PREALLOC_PROBABILITY) due.push(e.metric)
    if (s === SWEEP_SECOND) due.push(...day.busy)
    const fresh = due.filter(m => !done.has(m))
    for (const m of fresh) done.add(m)
    return fresh
  }
}

/**
 * Runs the day through each layout's database (wt-writes-store.js
 * createDatabase), measuring the sampled minutes: before each, the documents
 * changed since are written whole and checkpointed (unmeasured); the minute's
 * flushes are written as mongod would, then its checkpoint (mongod's, every
 * 60 s), as one segment. Counters' events also draw the probabilistic
 * preallocation of tomorrow, and the sweep preallocates the busy ones.
 * databases: { [layout]: { db, stream, flush() } } (flush: await the stream's
 * consumers); flushSeconds: the events of that many seconds are one flush
 * (a divisor of 60). → { segments: [{ minute, weight, events }], events, writes: { [layout]: counts } }
 */
export async function runDay ({ day, databases, minutes, flushSeconds = 1, seed = 11, log = () => {} }) {
  if (!Number.isInteger(flushSeconds) || flushSeconds < 1 || 60 % flushSeconds !== 0) throw new RangeError(`flushSeconds must divide 60, got ${flushSeconds}`)
  const layouts = Object.keys(databases)
  const draw = preallocationDraw(day, seed)
  const tomorrow = DAY + DAY_MS
  const now = (s) => DAY + s * 1000
  const segments = []
  let events = 0
  const flushAll = async () => { for (const layout of layouts) await databases[layout].flush() }
  // a flush: the writer's updates (raw: inserts) and the preallocator's; emit false: a run caught up unmeasured (no raw events)
  const writeFlush = (batch, due, s, emit) => {
    const operations = flushOperations(batch, now(s))
    for (const layout of layouts) {
      const { db } = databases[layout]
      if (layout === 'raw') {
        if (emit) db.insertMany(RAW_COLLECTION, operations(layout).inserts, { now: now(s) })
        continue
      }
      for (const { collection, id, update } of operations(layout).upserts) db.upsert(collection, id, update, { now: now(s), emit })
      for (const { collection, id, update } of due.flatMap(m => preallocationOperations(layout, m, tomorrow))) db.upsert(collection, id, update, { now: now(s), emit })
    }
  }
  const secondOf = (s) => {
    const batch = day.eventsAt(s)
    events += batch.length
    return { batch, due: draw(s, batch) }
  }
  const measureMinute = async (minute, weight) => {
    for (const { db, stream } of Object.values(databases)) {
      db.sync(now(minute * 60) - 1)
      db.checkpoint(now(minute * 60) - 1)
      stream.start()
    }
    let n = 0
    let pending = []
    let pendingDue = []
    for (let s = minute * 60; s < minute * 60 + 60; s++) {
      const { batch, due } = secondOf(s)
      n += batch.length
      for (const e of batch) pending.push(e)
      for (const m of due) pendingDue.push(m)
      if ((s + 1) % flushSeconds !== 0) continue
      writeFlush(pending, pendingDue, s, true)
      pending = []
      pendingDue = []
      await flushAll()
    }
    for (const { db, stream } of Object.values(databases)) {
      db.checkpoint(now(minute * 60 + 60))
      stream.end()
    }
    await flushAll()
    return { minute, weight, events: n }
  }
  const mark = (at) => {
    for (const { db, stream } of Object.values(databases)) {
      db.sync(at)
      db.checkpoint(at)
      stream.mark()
    }
  }
  for (const layout of layouts) for (const { collection, id, update } of setupOperations(layout, day)) databases[layout].db.upsert(collection, id, update, { now: DAY - MINUTE_MS, emit: false })
  mark(DAY - MINUTE_MS)
  let stretch = []
  let stretchDue = []
  for (let minute = 0; minute < 1440; minute++) {
    const weight = minutes.get(minute)
    if (weight !== undefined) segments.push(await measureMinute(minute, weight))
    else {
      for (let s = minute * 60; s < minute * 60 + 60; s++) {
        const { batch, due } = secondOf(s)
        for (const e of batch) stretch.push(e)
        for (const m of due) stretchDue.push(m)
      }
      if (minute === 1439 || minutes.has(minute + 1)) {
        // the run since the last sampled minute, as one merged flush: its documents end as they would
        writeFlush(stretch, stretchDue, minute * 60 + 59, false)
        stretch = []
        stretchDue = []
      }
    }
    if (minute % 120 === 119) log(`  ${day.kind}: ${utcParts(now(minute * 60 + 60)).hour || 24}:00 simulated, ${events.toLocaleString('en-US')} events`)
  }
  mark(tomorrow)
  await flushAll()
  return { segments, events, writes: Object.fromEntries(layouts.map(l => [l, { ...databases[l].db.counts }])) }
}
