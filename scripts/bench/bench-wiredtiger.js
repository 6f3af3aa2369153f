#!/usr/bin/env node
// Storage on WiredTiger (docs/benchmarks.md#storage-on-wiredtiger): a
// month of the service's own daily documents, built with ingest's `$inc`
// maps (bucket/increments.js) and the preallocator's zero-filled upserts,
// written version by version into WiredTiger tables configured as MongoDB
// configures a collection's (scripts/bench/wiredtiger/measure.py, in the
// venv of scripts/bench/wiredtiger/setup-venv.sh), snappy and zstd; bytes on
// disk per document, per stored minute-point and per event, beside BSON's
// and whisper's 12 B per point. Beside them a busy timer's day and monthly
// documents and its minute histograms' metric-hour documents (timerHistory,
// one pass for the three): bytes per timer metric-day against a counter's.
//
//   node scripts/bench/bench-wiredtiger.js [--wt-scale quick|full] [--json]
//   npm run bench -- --only wiredtiger [--wt-scale quick|full]
//
// Only the versions a checkpoint sees reach the table file: between two
// checkpoints MongoDB keeps a document's updates in the cache, and the
// checkpoint writes its latest version. So each document changed since the
// last checkpoint is written once, then a checkpoint: every
// `checkpointMinutes` simulated minutes (MongoDB: every 60 s of real time).
import { updateOfTiers } from '../../src/bucket/tiered-document.js'
import { spawn, execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { BSON } from 'mongodb'
import { EXIT, UsageError, defineCommand, parseFlags, runIfMain } from '../../src/cli.js'
import { QUARTER_HOUR_DETAIL } from '../../src/bucket/increments.js'
import { buildWriteUnit, mergeWriteUnits } from '../../src/kinds/write-unit.js'
import { DAY_MS, MINUTE_MS, dayId } from '../../src/bucket/time.js'
import { distributionUpdate, incrementUpdate } from '../../src/writer/write-operations.js'
import { BUSY_PER_SECOND, TIMER_KIND, latencySampler } from './timer-workload.js'
import { dayZeroIncrements } from '../../src/bucket/minute-fields.js'

const SETUP = fileURLToPath(new URL('./wiredtiger/setup-venv.sh', import.meta.url))
const MEASURE = fileURLToPath(new URL('./wiredtiger/measure.py', import.meta.url))

/** whisper: a 4-byte timestamp and an 8-byte double per point, every slot of the archive preallocated */
export const WHISPER_BYTES_PER_POINT = 12
// config.js's PREALLOC_PROBABILITY default: per event, the next day zero-filled
export const PREALLOC_PROBABILITY = 0.000667
// the sweep (cron */10) preallocates tomorrow for metrics busy for 30 minutes today: done by 00:40
const SWEEP_MINUTE = 40

export const WT_SCALES = {
  quick: { busy: 4, sparse: 40, timers: 1, days: 7, checkpointMinutes: 60 },
  full: { busy: 20, sparse: 200, timers: 4, days: 30, checkpointMinutes: 10 }
}
const START = Date.UTC(2026, 10, 1) // a month of 30 days

/** a small seeded PRNG (mulberry32): the same documents on every run */
export function seeded (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * MongoDB's update of one document (5.0+): the operators' fields applied in
 * lexicographic order of their paths, a new field appended to its object;
 * $setOnInsert only when the upsert inserts; $min/$max set a field absent or
 * beyond the value. doc: null (absent) → the new document.
 */
export function applyUpdate (doc, id, update) {
  const inserting = doc === null
  const out = inserting ? { _id: id } : doc
  const changes = []
  for (const [path, v] of Object.entries(update.$inc ?? {})) changes.push([path, 'inc', v])
  if (inserting) for (const [path, v] of Object.entries(update.$setOnInsert ?? {})) changes.push([path, 'set', v])
  for (const [path, v] of Object.entries(update.$set ?? {})) changes.push([path, 'set', v])
  for (const path of Object.keys(update.$unset ?? {})) changes.push([path, 'unset'])
  for (const [path, v] of Object.entries(update.$min ?? {})) changes.push([path, 'min', v])
  for (const [path, v] of Object.entries(update.$max ?? {})) changes.push([path, 'max', v])
  changes.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  for (const [path, op, v] of changes) {
    const parts = path.split('.')
    let o = out
    for (let i = 0; i < parts.length - 1; i++) o = o[parts[i]] ??= {}
    const last = parts[parts.length - 1]
    if (op === 'inc') o[last] = (o[last] ?? 0) + v
    else if (op === 'set') o[last] = v
    else if (op === 'min') o[last] = o[last] <= v ? o[last] : v
    else if (op === 'max') o[last] = o[last] >= v ? o[last] : v
    else delete o[last]
  }
  return out
}

/** the minute counters a daily document stores (zeros included) */
export function minutePoints (doc) {
  let n = 0
  const minute = doc.minute ?? doc.m ?? {}
  for (const h in minute) n += Object.keys(minute[h]).length
  return n
}

/**
 * One population's history, as ingest, the preallocator and retention write it.
 * kind: 'busy' (an event every 2 to 12 s), 'sparse' (1 to 6 events a day),
 * 'downsampled' (busy days, then retention's $unset of the minute tier).
 * emit({ put: { id, doc } } | { checkpoint: true }) is called with each
 * version a checkpoint would see (doc is the live object: serialize it at once).
 * options (variants): zeroFill false: no preallocation; preallocateEveryDay: every
 * metric's day zero-filled at its start, as the sweep does for busy metrics.
 * options.eventsById: a Map that receives each document's events (tests).
 * → { docs: Map<id, doc>, events, preallocated: Set<id> }
 */
export function simulatePopulation (options, emit) {
  const history = populationHistory(options)
  for (;;) {
    const step = history.next()
    if (step.done) return step.value
    emit(step.value)
  }
}

/** simulatePopulation as a generator of the operations (the bench awaits the pipe between them) */
export function * populationHistory ({ kind, metrics, days, checkpointMinutes, seed = 1, zeroFill = true, preallocateEveryDay = false, eventsById = null }) {
  const random = seeded(seed)
  const names = Array.from({ length: metrics }, (_, i) => `app.${kind}.${String(i).padStart(3, '0')}.requests`)
  const busy = kind !== 'sparse'
  const docs = new Map()
  const dirty = new Set()
  const written = new Set()
  const preallocated = new Set()
  let events = 0
  const update = (id, u) => {
    docs.set(id, applyUpdate(docs.get(id) ?? null, id, u))
    dirty.add(id)
  }
  const preallocate = (metric, dayStart) => {
    const id = dayId(metric, dayStart)
    if (!zeroFill || docs.has(id)) return
    preallocated.add(id)
    update(id, incrementUpdate(id, { metric, date: dayStart, inc: dayZeroIncrements() }).updateOne.update)
  }
  const checkpoint = function * () {
    for (const id of dirty) {
      yield { put: { id, doc: docs.get(id) } }
      written.add(id)
    }
    dirty.clear()
    yield { checkpoint: true }
  }
  // sparse metrics: their events of each day, drawn up front
  const sparseDay = (dayStart) => {
    const byMinute = new Map()
    for (const metric of names) {
      const n = 1 + Math.floor(random() * 6)
      for (let i = 0; i < n; i++) {
        const time = dayStart + Math.floor(random() * DAY_MS)
        const minute = Math.floor((time - dayStart) / MINUTE_MS)
        if (!byMinute.has(minute)) byMinute.set(minute, [])
        byMinute.get(minute).push({ metric, value: 1 + Math.floor(random() * 9), time })
      }
    }
    return byMinute
  }
  // the busy metrics were busy the day before the run: their first day is preallocated
  if (busy) for (const metric of names) preallocate(metric, START)
  for (let d = 0; d < days; d++) {
    const dayStart = START + d * DAY_MS
    const sparse = busy ? null : sparseDay(dayStart)
    if (preallocateEveryDay) for (const metric of names) preallocate(metric, dayStart)
    for (let m = 0; m < 1440; m++) {
      const minuteStart = dayStart + m * MINUTE_MS
      let batch
      if (busy) {
        batch = []
        for (const metric of names) {
          for (let t = Math.floor(random() * 6000); t < MINUTE_MS; t += 2000 + Math.floor(random() * 10_000)) {
            batch.push({ metric, value: 1 + Math.floor(random() * 9), time: minuteStart + t })
          }
        }
      } else {
        batch = (sparse.get(m) ?? []).sort((a, b) => a.time - b.time)
      }
      if (batch.length > 0) {
        // one request per minute: ingest's write unit, each document's merged $inc
        const unit = buildWriteUnit(batch)
        for (const [id, doc] of unit.daily) update(id, incrementUpdate(id, doc).updateOne.update)
        events += batch.length
        if (eventsById) {
          for (const e of batch) {
            const id = dayId(e.metric, dayStart)
            if (!eventsById.has(id)) eventsById.set(id, [])
            eventsById.get(id).push(e)
          }
        }
        // the probabilistic preallocator: tomorrow, zero-filled, with PREALLOC_PROBABILITY per event
        for (const e of batch) if (random() < PREALLOC_PROBABILITY) preallocate(e.metric, dayStart + DAY_MS)
      }
      if (busy && m === SWEEP_MINUTE) for (const metric of names) preallocate(metric, dayStart + DAY_MS)
      if ((d * 1440 + m + 1) % checkpointMinutes === 0) yield * checkpoint()
    }
  }
  // documents made for the day after the run (preallocated, no event yet) are not the run's
  for (const id of [...docs.keys()]) {
    if (docs.get(id).date.getTime() >= START + days * DAY_MS) {
      docs.delete(id)
      dirty.delete(id)
      if (written.has(id)) yield { remove: { id } }
    }
  }
  yield * checkpoint()
  if (kind === 'downsampled') {
    // retention-job.js past the minute horizon
    for (const id of docs.keys()) update(id, { $unset: { minute: '' }, $set: { detail: QUARTER_HOUR_DETAIL } })
    yield * checkpoint()
  }
  return { docs, events, preallocated }
}

// a timer's part → its collection in a write unit, and how one document's update is applied
const TIMER_PARTS = {
  // a flush builds a distribution's day and month documents in tiers (bucket/tiered-document.js)
  daily: { collection: 'distributionDaily', update: (id, doc) => distributionUpdate(id, updateOfTiers(doc)).updateOne.update },
  monthly: { collection: 'distributionMonthly', update: (id, doc) => distributionUpdate(id, updateOfTiers(doc)).updateOne.update },
  // the minutes' histograms, one document per metric-hour: $inc only (write-operations.js's PARTS)
  minutes: { collection: 'distributionMinutes', update: (id, doc) => incrementUpdate(id, doc).updateOne.update }
}

/**
 * Busy timers' history (docs/benchmarks.md#timers-beside-counters): one
 * request a minute holding each metric's perSecond latencies a second
 * (timer-workload.js), its write unit's distribution upserts ($inc, $min,
 * $max) applied to the day and month documents, and its minute histograms'
 * ($inc) to the metric-hour documents (distributionMinutes); part 'daily',
 * 'monthly' or 'minutes': the documents whose versions are emitted. parts
 * (instead of part): several of them from one pass over the values, each
 * put tagged with its part, one checkpoint for all (as MongoDB's covers
 * every collection). Yields as populationHistory does, each put as
 * { part, put: { id, doc } }.
 * options.eventsById: a Map that receives each daily document's events (tests).
 * → { docs: Map<id, doc> (of the part, or of parts[0]), byPart: { [part]: Map<id, doc> }, events }
 */
export function * timerHistory ({ metrics, days, checkpointMinutes, seed = 4, part = 'daily', parts = [part], perSecond = BUSY_PER_SECOND, eventsById = null }) {
  for (const p of parts) if (!Object.hasOwn(TIMER_PARTS, p)) throw new RangeError(`timerHistory: part must be one of ${Object.keys(TIMER_PARTS).join(', ')}, got ${JSON.stringify(p)}`)
  const latency = latencySampler(seeded(seed))
  const names = Array.from({ length: metrics }, (_, i) => `app.timer.${String(i).padStart(3, '0')}.latency`)
  const byPart = Object.fromEntries(parts.map(p => [p, new Map()]))
  const dirty = Object.fromEntries(parts.map(p => [p, new Set()]))
  let events = 0
  const gap = 1000 / perSecond
  const checkpoint = function * () {
    for (const p of parts) {
      for (const id of dirty[p]) yield { part: p, put: { id, doc: byPart[p].get(id) } }
      dirty[p].clear()
    }
    yield { checkpoint: true }
  }
  for (let d = 0; d < days; d++) {
    const dayStart = START + d * DAY_MS
    for (let m = 0; m < 1440; m++) {
      const minuteStart = dayStart + m * MINUTE_MS
      const batch = []
      for (const metric of names) {
        for (let t = 0; t < MINUTE_MS; t += gap) batch.push({ metric, value: latency(), time: minuteStart + Math.floor(t), kind: 'distribution' })
      }
      // a flush of the one request (a unit holds its values; the flush builds the documents)
      const unit = mergeWriteUnits([buildWriteUnit(batch, { kindOf: () => TIMER_KIND })])
      for (const p of parts) {
        const docs = byPart[p]
        const { collection, update } = TIMER_PARTS[p]
        for (const [id, doc] of unit[collection]) {
          docs.set(id, applyUpdate(docs.get(id) ?? null, id, update(id, doc)))
          dirty[p].add(id)
        }
      }
      events += batch.length
      if (eventsById) {
        for (const e of batch) {
          const id = dayId(e.metric, dayStart)
          if (!eventsById.has(id)) eventsById.set(id, [])
          eventsById.get(id).push(e)
        }
      }
      if ((d * 1440 + m + 1) % checkpointMinutes === 0) yield * checkpoint()
    }
  }
  yield * checkpoint()
  return { docs: byPart[parts[0]], byPart, events }
}

/** The day document the service ends with: every event's $inc merged, plus the zero fill when preallocated. */
export function expectedDay (events, { metric, dayStart, zeroFilled }) {
  const unit = buildWriteUnit(events)
  const id = dayId(metric, dayStart)
  const inc = { ...(zeroFilled ? dayZeroIncrements() : {}) }
  for (const [field, v] of Object.entries(unit.daily.get(id)?.inc ?? {})) inc[field] = (inc[field] ?? 0) + v
  return applyUpdate(null, id, incrementUpdate(id, { metric, date: dayStart, inc }).updateOne.update)
}

/** Variants of a stored document (docs/adr/0035-document-shape-stays.md). */
export const VARIANTS = {
  // zero minutes left out of the stored document
  sparseMinutes: (doc) => {
    if (!doc.minute) return doc
    const minute = {}
    for (const h in doc.minute) {
      const kept = Object.entries(doc.minute[h]).filter(([, v]) => v !== 0)
      if (kept.length) minute[h] = Object.fromEntries(kept)
    }
    return { ...doc, minute }
  },
  // one-letter names of the counter tiers (daily → d, hourly → h, quarterHourly → q, minute → m)
  shortKeys: (doc) => {
    const names = { daily: 'd', hourly: 'h', quarterHourly: 'q', minute: 'm' }
    return Object.fromEntries(Object.entries(doc).map(([k, v]) => [names[k] ?? k, v]))
  }
}

function encodeRecords () {
  const chunks = []
  let size = 0
  const push = (buf) => { chunks.push(buf); size += buf.length }
  return {
    table (name) {
      const b = Buffer.alloc(2 + name.length)
      b.write('T', 0, 'latin1')
      b.writeUInt8(name.length, 1)
      b.write(name, 2, 'ascii')
      push(b)
    },
    put (key, bson) {
      const b = Buffer.alloc(9)
      b.write('P', 0, 'latin1')
      b.writeBigInt64LE(BigInt(key), 1)
      push(b)
      push(bson)
    },
    remove (key) {
      const b = Buffer.alloc(9)
      b.write('D', 0, 'latin1')
      b.writeBigInt64LE(BigInt(key), 1)
      push(b)
    },
    checkpoint () { push(Buffer.from('C', 'latin1')) },
    get size () { return size },
    take () { const out = Buffer.concat(chunks); chunks.length = 0; size = 0; return out }
  }
}

/** The venv's python: setup-venv.sh builds it the first time (about 4 minutes) and prints its path. */
export function wiredtigerPython ({ log = () => {} } = {}) {
  log('WiredTiger venv: scripts/bench/wiredtiger/setup-venv.sh (builds WiredTiger the first time, about 4 minutes)')
  const venv = execFileSync(SETUP, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
  return `${venv}/bin/python`
}

/** A measure.py process: write(buffer) feeds it records, report() ends its input → its JSON report */
function measureProcess (python) {
  const child = spawn(python, [MEASURE], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => code === 0 ? resolve() : reject(new Error(`measure.py exited ${code}`)))
  })
  return {
    async write (buf) {
      if (!child.stdin.write(buf)) await once(child.stdin, 'drain')
    },
    async report () {
      child.stdin.end()
      await exited
      return JSON.parse(out)
    }
  }
}

/**
 * Runs the populations through measure.py. The timers' three tables come
 * from one pass over their values, each table's records sent to a
 * measure.py of its own (the first to the main one): each WiredTiger
 * database sees one table's stream, as it would alone.
 * → { scale, populations: [{ name, label, documents, events, minutePoints, bsonBytes, tables: { none, snappy, zstd } }], wiredtiger }
 */
export async function benchWiredtiger ({ scale = 'quick', python, log = () => {}, variants = true } = {}) {
  const s = WT_SCALES[scale]
  const main = measureProcess(python)
  const populations = [
    { name: 'busy', label: 'busy metrics (an event every 2–12 s), preallocated days', kind: 'busy', metrics: s.busy, seed: 1 },
    { name: 'sparse', label: 'sparse metrics (1–6 events a day), days made by their first upsert', kind: 'sparse', metrics: s.sparse, seed: 2 },
    { name: 'downsampled', label: 'busy days downsampled (minute tier removed)', kind: 'downsampled', metrics: s.busy, seed: 3 },
    // the timers' three collections, the same values (one a second, log-normal latencies, α = 1 %),
    // from one pass over them: a table (a population) each
    {
      timers: [
        { name: 'timer_daily', label: 'busy timers (a latency every second, α = 1 %): day documents', timer: 'daily' },
        { name: 'timer_monthly', label: 'the same timers\' monthly documents', timer: 'monthly' },
        { name: 'timer_minutes', label: 'the same timers\' minute histograms (distributionMinutes)', timer: 'minutes' }
      ],
      metrics: s.timers,
      seed: 4
    }
  ]
  if (variants) {
    populations.push(
      { name: 'busy_nofill', label: 'variant: busy metrics, days made by their first upsert (no preallocation)', kind: 'busy', metrics: s.busy, seed: 1, zeroFill: false },
      { name: 'sparse_zero', label: 'variant: sparse metrics, every day preallocated zero-filled', kind: 'sparse', metrics: s.sparse, seed: 2, sparseZero: true },
      { name: 'busy_sparsemin', label: 'variant: busy metrics, zero minutes not stored', kind: 'busy', metrics: s.busy, seed: 1, transform: VARIANTS.sparseMinutes },
      { name: 'sparse_short', label: 'variant: sparse metrics, one-letter tier names', kind: 'sparse', metrics: s.sparse, seed: 2, transform: VARIANTS.shortKeys }
    )
  }
  const results = []
  const groups = {} // the reports of the measure.py processes other than the main one
  for (const p of populations) {
    const t0 = performance.now()
    // a population's tables: one, or the timers' parts (their puts tagged with the part)
    const tables = (p.timers ?? [p]).map((q, i) => ({
      ...q,
      sink: i === 0 ? main : measureProcess(python),
      records: encodeRecords(),
      keys: new Map(), // id → RecordId, in insertion order as MongoDB assigns them
      finalSizes: new Map()
    }))
    for (const t of tables) t.records.table(t.name)
    const tableOf = new Map(tables.map(t => [t.timer, t]))
    const emit = (op) => {
      if (op.put) {
        const t = tableOf.get(op.part)
        let key = t.keys.get(op.put.id)
        if (key === undefined) t.keys.set(op.put.id, key = t.keys.size + 1)
        const bson = BSON.serialize(p.transform ? p.transform(op.put.doc) : op.put.doc)
        t.finalSizes.set(op.put.id, bson.length)
        t.records.put(key, bson)
      } else if (op.remove) {
        // populationHistory's only (one table)
        tables[0].records.remove(tables[0].keys.get(op.remove.id))
        tables[0].finalSizes.delete(op.remove.id)
      } else {
        for (const t of tables) t.records.checkpoint()
      }
    }
    const history = p.timers
      ? timerHistory({ parts: p.timers.map(t => t.timer), metrics: p.metrics, days: s.days, checkpointMinutes: s.checkpointMinutes, seed: p.seed })
      : populationHistory({ kind: p.kind, metrics: p.metrics, days: s.days, checkpointMinutes: s.checkpointMinutes, seed: p.seed, zeroFill: p.zeroFill ?? true, preallocateEveryDay: Boolean(p.sparseZero) })
    let run
    for (;;) {
      const step = history.next()
      if (step.done) {
        run = step.value
        break
      }
      emit(step.value)
      // measure.py takes them as they come
      for (const t of tables) if (t.records.size > 4 << 20) await t.sink.write(t.records.take())
    }
    for (const t of tables) await t.sink.write(t.records.take())
    for (const t of tables) if (t.sink !== main) Object.assign(groups, (await t.sink.report()).groups)
    const seconds = ((performance.now() - t0) / 1000).toFixed(1)
    for (const t of tables) {
      const docs = p.timers ? run.byPart[t.timer] : run.docs
      let points = 0
      // a timer's minutes are count, sum, min and max (or a histogram), not the counters' one number a point: not counted as points
      if (!p.timers) for (const doc of docs.values()) points += minutePoints(p.transform ? p.transform(doc) : doc)
      const bsonBytes = [...t.finalSizes.values()].reduce((a, b) => a + b, 0)
      results.push({ name: t.name, label: t.label, documents: docs.size, events: run.events, minutePoints: points, bsonBytes, ...(p.timers ? { timer: t.timer, metricDays: p.metrics * s.days } : {}) })
      log(`  ${t.name}: ${docs.size} documents, ${run.events} events, ${points} minute points generated${tables.length > 1 ? ` (with ${tables.filter(o => o !== t).map(o => o.name).join(', ')}, one pass)` : ''} in ${seconds} s`)
    }
  }
  const report = await main.report()
  Object.assign(groups, report.groups)
  for (const r of results) {
    const g = groups[r.name]
    if (g.documents !== r.documents || g.bsonBytes !== r.bsonBytes) throw new Error(`measure.py holds ${g.documents} documents of ${g.bsonBytes} B in ${r.name}, the generator ${r.documents} of ${r.bsonBytes} B`)
    r.puts = g.puts
    r.tables = g.tables
  }
  return { scale, ...s, populations: results, wiredtiger: report.wiredtiger }
}

/**
 * A busy timer's metric-day on disk (its day document and its monthly
 * document's share) beside a busy counter's day document, per compressor:
 * file bytes ÷ metric-days. With the minutes population (timer_minutes), its
 * minute histograms too (kept MINUTE_HISTOGRAM_DAYS only): `minutes`, and
 * `withMinutes` = timer + minutes. null without the day and month populations.
 * → { metricDays, monthlyDocuments, minuteDocuments?, bson: { timer, minutes?, withMinutes?, counter },
 *     none, snappy, zstd: { timer, daily, monthly, minutes?, withMinutes?, counter } }
 */
export function timerDayOnDisk (figures) {
  const daily = figures.populations.find(p => p.timer === 'daily')
  const monthly = figures.populations.find(p => p.timer === 'monthly')
  const minutes = figures.populations.find(p => p.timer === 'minutes')
  const busy = figures.populations.find(p => p.name === 'busy')
  if (!daily || !monthly) return null
  const out = { metricDays: daily.metricDays, monthlyDocuments: monthly.documents, bson: { timer: (daily.bsonBytes + monthly.bsonBytes) / daily.metricDays, counter: busy ? busy.bsonBytes / busy.documents : null } }
  if (minutes) {
    out.minuteDocuments = minutes.documents
    out.bson.minutes = minutes.bsonBytes / minutes.metricDays
    out.bson.withMinutes = out.bson.timer + out.bson.minutes
  }
  for (const c of ['none', 'snappy', 'zstd']) {
    const d = daily.tables[c].fileBytes / daily.metricDays
    const m = monthly.tables[c].fileBytes / monthly.metricDays
    out[c] = { timer: d + m, daily: d, monthly: m, counter: busy ? perUnit(busy, c).perDocument : null }
    if (minutes) {
      out[c].minutes = minutes.tables[c].fileBytes / minutes.metricDays
      out[c].withMinutes = d + m + out[c].minutes
    }
  }
  return out
}

const fmt = (n, digits = 0) => n === null || n === undefined ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** Bytes per unit: the .wt file after the final checkpoint, and the live bytes (file minus bytes available for reuse). */
export function perUnit (population, compressor) {
  const t = population.tables[compressor]
  const file = t.fileBytes
  const live = t.blockFileBytes - t.reusableBytes
  return {
    file,
    live,
    perDocument: file / population.documents,
    perPoint: population.minutePoints ? file / population.minutePoints : null,
    perEvent: file / population.events,
    livePerPoint: population.minutePoints ? live / population.minutePoints : null
  }
}

export const CHECKED_FROM_DOCUMENTS = 4

/**
 * The end-to-end check of .ci/run: for every population of
 * CHECKED_FROM_DOCUMENTS documents or more, the live bytes of the snappy and
 * zstd tables under the BSON bytes, and zstd's file at most 1.2 × snappy's.
 * → [{ population, ok, why }]
 */
export function checkWiredtiger (figures) {
  return figures.populations.map((p) => {
    // a table of a document or two is its file's header and a block each: nothing compression could show
    if (p.documents < CHECKED_FROM_DOCUMENTS) return { population: p.name, ok: true, why: `not judged: ${p.documents} document${p.documents === 1 ? '' : 's'}, fewer than ${CHECKED_FROM_DOCUMENTS}` }
    const snappy = perUnit(p, 'snappy')
    const zstd = perUnit(p, 'zstd')
    const problems = []
    if (!(snappy.live < p.bsonBytes)) problems.push(`snappy live ${snappy.live} B ≥ BSON ${p.bsonBytes} B`)
    if (!(zstd.live < p.bsonBytes)) problems.push(`zstd live ${zstd.live} B ≥ BSON ${p.bsonBytes} B`)
    if (!(zstd.file <= snappy.file * 1.2)) problems.push(`zstd file ${zstd.file} B > 1.2 × snappy ${snappy.file} B`)
    return { population: p.name, ok: problems.length === 0, why: problems.join('; ') || `BSON ${p.bsonBytes} B, live snappy ${snappy.live} B, zstd ${zstd.live} B; files snappy ${snappy.file} B, zstd ${zstd.file} B` }
  })
}

export function renderWiredtiger (figures) {
  const out = [`**Storage on WiredTiger** (${figures.wiredtiger.replace(/:.*/, '')}, MongoDB's collection table settings; ${figures.scale}: ${figures.days} days, ${figures.busy} busy and ${figures.sparse} sparse metrics, a checkpoint every ${figures.checkpointMinutes} simulated minutes). Bytes of the \`.wt\` file after the final checkpoint; in brackets, the live bytes (the file less its bytes available for reuse).`, '']
  const rows = []
  for (const p of figures.populations) {
    const bsonPoint = p.minutePoints ? p.bsonBytes / p.minutePoints : null
    const cells = [p.label, fmt(p.documents), fmt(p.events), fmt(p.minutePoints)]
    cells.push(`${fmt(p.bsonBytes / p.documents)} / ${fmt(bsonPoint, 2)}`)
    for (const c of ['none', 'snappy', 'zstd']) {
      const u = perUnit(p, c)
      cells.push(`${fmt(u.perDocument)} / ${fmt(u.perPoint, 2)} (${fmt(u.livePerPoint, 2)}) / ${fmt(u.perEvent, 2)}`)
    }
    cells.push(p.minutePoints ? `${fmt(1440 * WHISPER_BYTES_PER_POINT)} / 12 / ${fmt(1440 * WHISPER_BYTES_PER_POINT * p.documents / p.events, 2)}` : '–')
    rows.push(cells)
  }
  out.push(table(['population', 'documents', 'events', 'minute points stored', 'BSON B / doc / point', 'WiredTiger uncompressed B / doc / point (live) / event', 'snappy', 'zstd', 'whisper (minute archive) B / metric-day / point / event'], rows))
  const t = timerDayOnDisk(figures)
  if (t) {
    const pair = (c) => `${fmt(t[c].timer)} B (day ${fmt(t[c].daily)} + month's share ${fmt(t[c].monthly)}) against ${fmt(t[c].counter)} B, ${fmt(t[c].timer / t[c].counter, 1)}×`
    const few = t.monthlyDocuments < CHECKED_FROM_DOCUMENTS ? ` The monthly table holds ${fmt(t.monthlyDocuments)} document${t.monthlyDocuments === 1 ? '' : 's'}: its file's own header and blocks are most of the month's share here.` : ''
    const ratio = (a, b) => (b ? `, ${fmt(a / b, 1)}× the counter's` : '')
    const withMinutes = t.minuteDocuments === undefined
      ? ''
      : ` Its minute histograms (distributionMinutes, ${fmt(t.minuteDocuments)} minute-hour documents, ${fmt(t.minuteDocuments / t.metricDays, 1)} a metric-day), kept MINUTE_HISTOGRAM_DAYS (default 7) days only, add snappy ${fmt(t.snappy.minutes)} B, zstd ${fmt(t.zstd.minutes)} B, BSON ${fmt(t.bson.minutes)} B a metric-day: a metric-day with them is snappy ${fmt(t.snappy.withMinutes)} B${ratio(t.snappy.withMinutes, t.snappy.counter)}, zstd ${fmt(t.zstd.withMinutes)} B${ratio(t.zstd.withMinutes, t.zstd.counter)}, BSON ${fmt(t.bson.withMinutes)} B${ratio(t.bson.withMinutes, t.bson.counter)}.`
    out.push('', `**A busy timer's metric-day on disk** (${fmt(t.metricDays)} metric-days), beside a busy counter's day document: snappy ${pair('snappy')}; zstd ${pair('zstd')}; BSON ${fmt(t.bson.timer)} B against ${fmt(t.bson.counter)} B.${few}${withMinutes}`)
  }
  return out.join('\n') + '\n'
}

function table (head, rows) {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map(r => `| ${r.join(' | ')} |`)].join('\n')
}

export const WT_HELP = `Usage: node scripts/bench/bench-wiredtiger.js [--wt-scale quick|full] [--json] [--no-variants]

Writes a month of statbucket's daily documents (and a busy timer's day and
month documents and its minute histograms), version by version, into
WiredTiger tables configured as MongoDB's collections (snappy, zstd, none)
and prints bytes on disk per document, per minute point and per event.
Builds its Python venv the first time (scripts/bench/wiredtiger/setup-venv.sh).

  --wt-scale S   quick (${WT_SCALES.quick.busy} busy + ${WT_SCALES.quick.sparse} sparse metrics + ${WT_SCALES.quick.timers} busy timer × ${WT_SCALES.quick.days} days, seconds)
                 or full (${WT_SCALES.full.busy} + ${WT_SCALES.full.sparse} + ${WT_SCALES.full.timers} × ${WT_SCALES.full.days} days, minutes); default quick
  --json         the figures as JSON on stdout (the markdown goes to stderr)
  --no-variants  the main populations only, not the variants of docs/adr/0035-document-shape-stays.md
  --check        then check (.ci/run): compressed live bytes under the BSON bytes and
                 zstd's file at most 1.2 × snappy's, per population; exit 1 if not
`

export function parseWtScale (value) {
  const scale = value ?? 'quick'
  if (!Object.hasOwn(WT_SCALES, scale)) throw new UsageError(`--wt-scale must be quick or full, got ${JSON.stringify(value)}`)
  return scale
}

export const main = defineCommand({
  name: 'bench-wiredtiger',
  usage: WT_HELP,
  parse: (argv) => {
    const { values } = parseFlags(argv, { 'wt-scale': { type: 'string' }, json: { type: 'boolean' }, 'no-variants': { type: 'boolean' }, check: { type: 'boolean' } })
    if (values.help) return { help: true }
    return { scale: parseWtScale(values['wt-scale']), json: Boolean(values.json), variants: !values['no-variants'], check: Boolean(values.check) }
  },
  run: async (opts) => {
    const log = (msg) => process.stderr.write(`bench-wiredtiger: ${msg}\n`)
    const started = performance.now()
    const python = wiredtigerPython({ log })
    const figures = await benchWiredtiger({ scale: opts.scale, python, log, variants: opts.variants })
    const markdown = renderWiredtiger(figures)
    if (opts.json) {
      process.stderr.write(markdown)
      process.stdout.write(JSON.stringify(figures, null, 2) + '\n')
    } else process.stdout.write(markdown)
    let failed = 0
    if (opts.check) {
      for (const c of checkWiredtiger(figures)) {
        log(`check ${c.population}: ${c.ok ? 'ok' : 'FAILED'} (${c.why})`)
        if (!c.ok) failed++
      }
    }
    log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    return failed ? EXIT.PROBLEM : EXIT.OK
  }
})

runIfMain(import.meta.url, 'bench-wiredtiger', main)
