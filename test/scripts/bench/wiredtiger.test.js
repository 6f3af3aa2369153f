// The document generation of the WiredTiger storage bench (scripts/bench/bench-wiredtiger.js):
// the versions it writes end as the documents the service stores. The WiredTiger
// part itself (a Python venv) runs in .ci/run's step, not here.
import { describe, expect, it } from 'vitest'
import { BSON } from 'mongodb'
import { QUARTER_HOUR_DETAIL } from '../../../src/bucket/increments.js'
import { applyUpdate, checkWiredtiger, expectedDay, minutePoints, simulatePopulation, timerDayOnDisk, timerHistory, VARIANTS, WT_SCALES, parseWtScale, renderWiredtiger } from '../../../scripts/bench/bench-wiredtiger.js'
import { buildDistributionUnit } from '../../../src/bucket/distribution-increments.js'
import { bucketField } from '../../../src/bucket/distribution-sketch.js'
import { TIMER_KIND, documentOf } from '../../../scripts/bench/timer-workload.js'

// a timer history run to its end: the last version emitted of each document (through BSON), per part
function runTimers (options) {
  const last = {}
  const eventsById = new Map()
  let checkpoints = 0
  const history = timerHistory({ metrics: 1, days: 1, checkpointMinutes: 60, perSecond: 1 / 10, eventsById, ...options })
  for (let step = history.next(); ; step = history.next()) {
    if (step.done) return { ...step.value, last, eventsById, checkpoints }
    const { part, put } = step.value
    if (put) (last[part] ??= new Map()).set(put.id, BSON.deserialize(BSON.serialize(put.doc)))
    else checkpoints++
  }
}

function run (options) {
  const last = new Map()
  const order = []
  let checkpoints = 0
  const eventsById = new Map()
  const result = simulatePopulation({ metrics: 2, days: 2, checkpointMinutes: 60, ...options, eventsById }, (op) => {
    if (op.put) {
      last.set(op.put.id, BSON.serialize(op.put.doc))
      order.push(op.put.id)
    } else if (op.remove) last.delete(op.remove.id)
    else checkpoints++
  })
  return { ...result, last, order, checkpoints, eventsById }
}

const sumOf = (events) => events.reduce((a, e) => a + e.value, 0)

describe('WiredTiger bench: document generation', () => {
  it('busy: each day ends as the zero-filled document plus every event, 1,440 non-zero minutes', () => {
    const r = run({ kind: 'busy', seed: 1 })
    expect(r.docs.size).toBe(4)
    expect([...r.last.keys()].sort()).toEqual([...r.docs.keys()].sort())
    for (const [id, doc] of r.docs) {
      const events = r.eventsById.get(id)
      expect(r.preallocated.has(id)).toBe(true)
      const stored = BSON.deserialize(r.last.get(id))
      expect(stored).toEqual(expectedDay(events, { metric: doc.metric, dayStart: doc.date.getTime(), zeroFilled: true }))
      expect(stored.daily).toBe(sumOf(events))
      expect(minutePoints(stored)).toBe(1440)
      expect(Object.values(stored.minute).flatMap(Object.values).every(v => v > 0)).toBe(true)
    }
    // the document is written again at each checkpoint while it changes: an update in place
    expect(r.order.length).toBeGreaterThan(r.docs.size * 24)
    expect(r.checkpoints).toBe(2 * 24 + 1)
  })

  it('sparse: a day is made by its first upsert and holds the minutes of its events only', () => {
    const r = run({ kind: 'sparse', metrics: 20, seed: 2 })
    expect(r.docs.size).toBe(40)
    let events = 0
    for (const [id, doc] of r.docs) {
      const own = r.eventsById.get(id)
      events += own.length
      const stored = BSON.deserialize(r.last.get(id))
      expect(stored).toEqual(expectedDay(own, { metric: doc.metric, dayStart: doc.date.getTime(), zeroFilled: r.preallocated.has(id) }))
      if (!r.preallocated.has(id)) expect(minutePoints(stored)).toBe(new Set(own.map(e => Math.floor(e.time / 60_000))).size)
      expect(own.length).toBeGreaterThanOrEqual(1)
      expect(own.length).toBeLessThanOrEqual(6)
    }
    expect(events).toBe(r.events)
  })

  it('downsampled: the busy day without its minute tier, marked quarterHour', () => {
    const r = run({ kind: 'downsampled', metrics: 1, days: 1, seed: 3 })
    const [[id, doc]] = [...r.docs]
    const stored = BSON.deserialize(r.last.get(id))
    const full = expectedDay(r.eventsById.get(id), { metric: doc.metric, dayStart: doc.date.getTime(), zeroFilled: true })
    delete full.minute
    expect(stored).toEqual({ ...full, detail: QUARTER_HOUR_DETAIL })
    expect(minutePoints(stored)).toBe(0)
  })

  it('variants: no preallocation stores the same counts; sparse minutes drop the zeros only', () => {
    const plain = run({ kind: 'busy', metrics: 1, days: 1, seed: 1 })
    const nofill = run({ kind: 'busy', metrics: 1, days: 1, seed: 1, zeroFill: false })
    const [id] = plain.docs.keys()
    expect(BSON.deserialize(nofill.last.get(id))).toEqual(BSON.deserialize(plain.last.get(id)))
    const zero = run({ kind: 'sparse', metrics: 3, days: 1, seed: 2, preallocateEveryDay: true })
    for (const doc of zero.docs.values()) {
      expect(minutePoints(doc)).toBe(1440)
      const slim = VARIANTS.sparseMinutes(doc)
      expect(minutePoints(slim)).toBe(new Set(zero.eventsById.get(doc._id).map(e => Math.floor(e.time / 60_000))).size)
      expect(slim.daily).toBe(doc.daily)
    }
  })

  it('applies an update as MongoDB does: new fields in lexicographic order, $setOnInsert on insert only', () => {
    const inserted = applyUpdate(null, 'm/20261101', { $inc: { 'minute.3.5': 1, daily: 1 }, $setOnInsert: { metric: 'm' } })
    expect(Object.keys(inserted)).toEqual(['_id', 'daily', 'metric', 'minute'])
    const updated = applyUpdate(inserted, 'm/20261101', { $inc: { daily: 2, 'minute.3.1': 4 }, $setOnInsert: { metric: 'x' } })
    expect(updated).toEqual({ _id: 'm/20261101', daily: 3, metric: 'm', minute: { 3: { 5: 1, 1: 4 } } })
  })

  it('scales and the report', () => {
    expect(parseWtScale(undefined)).toBe('quick')
    expect(() => parseWtScale('huge')).toThrow(/quick or full/)
    expect(WT_SCALES.full.days).toBe(30)
    expect(WT_SCALES.full.timers).toBeGreaterThanOrEqual(4) // a monthly table the check judges
    const tables = { none: { fileBytes: 20000, blockFileBytes: 20000, reusableBytes: 4000 }, snappy: { fileBytes: 4000, blockFileBytes: 4000, reusableBytes: 0 }, zstd: { fileBytes: 2000, blockFileBytes: 2000, reusableBytes: 0 } }
    const md = renderWiredtiger({ wiredtiger: 'WiredTiger 11.3.1', scale: 'quick', days: 1, busy: 1, sparse: 0, checkpointMinutes: 60, populations: [{ name: 'busy', label: 'busy', documents: 1, events: 100, minutePoints: 1440, bsonBytes: 14400, tables }] })
    expect(md).toMatch(/\| busy \| 1 \| 100 \| 1,440 \| 14,400 \/ 10\.00 \| 20,000 \/ 13\.89 \(11\.11\) \/ 200\.00 \| 4,000 \/ 2\.78/)
  })

  it('applies $min and $max as MongoDB does: set when absent or beyond', () => {
    const doc = applyUpdate(null, 'x', { $min: { 'a.min': 5 }, $max: { 'a.max': 5 } })
    expect(applyUpdate(doc, 'x', { $min: { 'a.min': 7 }, $max: { 'a.max': 7 } }).a).toEqual({ min: 5, max: 7 })
    expect(applyUpdate(doc, 'x', { $min: { 'a.min': 2 }, $max: { 'a.max': 3 } }).a).toEqual({ min: 2, max: 7 })
  })

  it('busy timers: the day and month documents end as every value\'s upserts leave them', () => {
    const run = (part) => {
      const last = new Map()
      const eventsById = new Map()
      let checkpoints = 0
      const history = timerHistory({ metrics: 1, days: 1, checkpointMinutes: 60, part, perSecond: 1 / 10, eventsById })
      for (let step = history.next(); ; step = history.next()) {
        if (step.done) return { ...step.value, last, eventsById, checkpoints }
        if (step.value.put) last.set(step.value.put.id, BSON.deserialize(BSON.serialize(step.value.put.doc)))
        else checkpoints++
      }
    }
    const daily = run('daily')
    const monthly = run('monthly')
    expect(daily.events).toBe(8640)
    expect(daily.checkpoints).toBe(25)
    const [[id, events]] = [...daily.eventsById]
    expect(events).toHaveLength(8640)
    const unit = buildDistributionUnit(events, TIMER_KIND.mapping)
    const withoutSums = (doc) => JSON.parse(JSON.stringify(doc, (k, v) => (k === 'sum' ? undefined : v)))
    for (const [docId, stored, part] of [[id, daily.last.get(id), 'daily'], [[...monthly.docs.keys()][0], [...monthly.last.values()][0], 'monthly']]) {
      const expected = documentOf(docId, unit[part].get(docId))
      expect(withoutSums(stored)).toEqual(withoutSums(expected))
      expect(stored[part === 'daily' ? 'daily' : 'monthly'].sum).toBeCloseTo(expected[part === 'daily' ? 'daily' : 'monthly'].sum, 6)
    }
    expect(monthly.docs.size).toBe(1)
  })

  it('a timer\'s metric-day on disk beside a counter\'s, and tables too small to judge left out of the check', () => {
    const tables = (file) => ({ none: { fileBytes: file * 2, blockFileBytes: file * 2, reusableBytes: 0 }, snappy: { fileBytes: file, blockFileBytes: file, reusableBytes: 0 }, zstd: { fileBytes: file / 2, blockFileBytes: file / 2, reusableBytes: 0 } })
    const figures = {
      wiredtiger: 'WiredTiger 11.3.1',
      scale: 'quick',
      days: 2,
      busy: 1,
      sparse: 0,
      timers: 1,
      checkpointMinutes: 60,
      populations: [
        { name: 'busy', label: 'busy', documents: 2, events: 100, minutePoints: 2880, bsonBytes: 25_000, tables: tables(16_000) },
        { name: 'timer_daily', label: 'timers: day', timer: 'daily', metricDays: 2, documents: 2, events: 172_800, minutePoints: 0, bsonBytes: 500_000, tables: tables(400_000) },
        { name: 'timer_monthly', label: 'timers: month', timer: 'monthly', metricDays: 2, documents: 1, events: 172_800, minutePoints: 0, bsonBytes: 8000, tables: tables(20_000) }
      ]
    }
    const t = timerDayOnDisk(figures)
    expect(t.snappy).toEqual({ timer: 210_000, daily: 200_000, monthly: 10_000, counter: 8000 })
    expect(t.bson).toEqual({ timer: 254_000, counter: 12_500 })
    expect(renderWiredtiger(figures)).toMatch(/\*\*A busy timer's metric-day on disk\*\* \(2 metric-days\), beside a busy counter's day document: snappy 210,000 B \(day 200,000 \+ month's share 10,000\) against 8,000 B, 26\.3×; zstd 105,000 B/)
    expect(renderWiredtiger(figures)).toMatch(/\| timers: day \| 2 \| 172,800 \| 0 \| 250,000 \/ – \|/)
    expect(renderWiredtiger(figures)).toMatch(/The monthly table holds 1 document: its file's own header and blocks are most of the month's share here\./)
    expect(t.minuteDocuments).toBeUndefined()
    expect(renderWiredtiger(figures)).not.toMatch(/minute histograms/)
    expect(timerDayOnDisk({ populations: figures.populations.slice(0, 1) })).toBeNull()
    expect(checkWiredtiger(figures).map(c => c.why.startsWith('not judged'))).toEqual([true, true, true])
  })
  it('busy timers: the minute histograms (distributionMinutes) end as the unit\'s minute upserts leave them, a minute\'s counts its values', () => {
    const r = runTimers({ part: 'minutes' })
    expect(r.events).toBe(8640)
    expect(r.checkpoints).toBe(25)
    expect(Object.keys(r.last)).toEqual(['minutes'])
    const [[dayDocId, events]] = [...r.eventsById]
    const metric = dayDocId.slice(0, dayDocId.lastIndexOf('/'))
    // one document per UTC hour of the day, metric/YYYYMMDDHH, dated at the hour's start
    const ids = Array.from({ length: 24 }, (_, h) => `${metric}/20261101${String(h).padStart(2, '0')}`)
    expect([...r.last.minutes.keys()].sort()).toEqual(ids)
    expect([...r.docs.keys()].sort()).toEqual(ids)
    // what the whole day's values give as one unit's minute updates ($inc only: no count, sum, min or max)
    const unit = buildDistributionUnit(events, TIMER_KIND.mapping)
    expect([...unit.minutes.keys()].sort()).toEqual(ids)
    for (const id of ids) expect(r.last.minutes.get(id)).toEqual(documentOf(id, { ...unit.minutes.get(id), min: {}, max: {} }))
    // each minute's histogram: its own values' buckets, counted one by one
    const expected = new Map() // 'H/M' → { 'positive.<i>': n, … }
    for (const e of events) {
      const hour = Math.floor((e.time - Date.UTC(2026, 10, 1)) / 3_600_000)
      const key = `${hour}/${new Date(e.time).getUTCMinutes()}`
      if (!expected.has(key)) expected.set(key, {})
      const field = bucketField(TIMER_KIND.mapping, e.value)
      expected.get(key)[field] = (expected.get(key)[field] ?? 0) + 1
    }
    let counted = 0
    ids.forEach((id, hour) => {
      const doc = r.last.minutes.get(id)
      expect(doc.metric).toBe(metric)
      expect(doc.date).toEqual(new Date(Date.UTC(2026, 10, 1, hour)))
      expect(Object.keys(doc).sort()).toEqual(['_id', 'date', 'metric', 'minute'])
      expect(Object.keys(doc.minute)).toHaveLength(60)
      for (const [minute, histogram] of Object.entries(doc.minute)) {
        const flat = {}
        if (histogram.zero !== undefined) flat.zero = histogram.zero
        for (const side of ['positive', 'negative']) for (const [index, n] of Object.entries(histogram[side] ?? {})) flat[`${side}.${index}`] = n
        expect(flat).toEqual(expected.get(`${hour}/${minute}`))
        const n = Object.values(flat).reduce((a, b) => a + b, 0)
        expect(n).toBe(6) // a value every 10 s
        counted += n
      }
    })
    expect(counted).toBe(events.length)
  })

  it('busy timers: the three parts from one pass are the parts run alone, puts tagged, one checkpoint for all', () => {
    const all = runTimers({ parts: ['daily', 'monthly', 'minutes'] })
    expect(all.checkpoints).toBe(25)
    expect(all.events).toBe(8640)
    expect(Object.keys(all.byPart)).toEqual(['daily', 'monthly', 'minutes'])
    expect(all.docs).toBe(all.byPart.daily)
    for (const part of ['daily', 'monthly', 'minutes']) {
      const alone = runTimers({ part })
      expect(all.byPart[part].size).toBe(alone.docs.size)
      expect(all.last[part]).toEqual(alone.last[part])
    }
    expect(all.byPart.minutes.size).toBe(24)
    expect(() => runTimers({ part: 'hourly' })).toThrow(/daily, monthly, minutes/)
  })

  it('a timer\'s metric-day with its minute histograms beside a counter\'s', () => {
    const tables = (file) => ({ none: { fileBytes: file * 2, blockFileBytes: file * 2, reusableBytes: 0 }, snappy: { fileBytes: file, blockFileBytes: file, reusableBytes: 0 }, zstd: { fileBytes: file / 2, blockFileBytes: file / 2, reusableBytes: 0 } })
    const figures = {
      wiredtiger: 'WiredTiger 11.3.1',
      scale: 'quick',
      days: 2,
      busy: 1,
      sparse: 0,
      timers: 1,
      checkpointMinutes: 60,
      populations: [
        { name: 'busy', label: 'busy', documents: 2, events: 100, minutePoints: 2880, bsonBytes: 25_000, tables: tables(16_000) },
        { name: 'timer_daily', label: 'timers: day', timer: 'daily', metricDays: 2, documents: 2, events: 172_800, minutePoints: 0, bsonBytes: 500_000, tables: tables(400_000) },
        { name: 'timer_monthly', label: 'timers: month', timer: 'monthly', metricDays: 2, documents: 1, events: 172_800, minutePoints: 0, bsonBytes: 8000, tables: tables(20_000) },
        { name: 'timer_minutes', label: 'timers: minute histograms', timer: 'minutes', metricDays: 2, documents: 48, events: 172_800, minutePoints: 0, bsonBytes: 1_000_000, tables: tables(620_000) }
      ]
    }
    const t = timerDayOnDisk(figures)
    expect(t.minuteDocuments).toBe(48)
    // per metric-day: 620,000 / 2 (snappy), 310,000 / 2 (zstd), 1,240,000 / 2 (none), BSON 1,000,000 / 2
    expect(t.snappy).toEqual({ timer: 210_000, daily: 200_000, monthly: 10_000, minutes: 310_000, withMinutes: 520_000, counter: 8000 })
    expect(t.zstd).toEqual({ timer: 105_000, daily: 100_000, monthly: 5000, minutes: 155_000, withMinutes: 260_000, counter: 4000 })
    expect(t.none).toEqual({ timer: 420_000, daily: 400_000, monthly: 20_000, minutes: 620_000, withMinutes: 1_040_000, counter: 16_000 })
    expect(t.bson).toEqual({ timer: 254_000, minutes: 500_000, withMinutes: 754_000, counter: 12_500 })
    const md = renderWiredtiger(figures)
    expect(md).toMatch(/\*\*A busy timer's metric-day on disk\*\* \(2 metric-days\), beside a busy counter's day document: snappy 210,000 B \(day 200,000 \+ month's share 10,000\) against 8,000 B, 26\.3×/)
    // 520,000 / 8,000 = 65.0, 260,000 / 4,000 = 65.0, 754,000 / 12,500 = 60.32
    expect(md).toMatch(/ Its minute histograms \(distributionMinutes, 48 minute-hour documents, 24\.0 a metric-day\), kept MINUTE_HISTOGRAM_DAYS \(default 7\) days only, add snappy 310,000 B, zstd 155,000 B, BSON 500,000 B a metric-day: a metric-day with them is snappy 520,000 B, 65\.0× the counter's, zstd 260,000 B, 65\.0× the counter's, BSON 754,000 B, 60\.3× the counter's\.\n/)
    expect(md).toMatch(/\| timers: minute histograms \| 48 \| 172,800 \| 0 \| 20,833 \/ – \| 25,833 \/ – \(–\) \/ 7\.18 \|/)
    // 48 documents: judged (snappy live 620,000 < BSON 1,000,000; zstd 310,000 ≤ 1.2 × 620,000)
    const minutesCheck = checkWiredtiger(figures).find(c => c.population === 'timer_minutes')
    expect(minutesCheck).toEqual({ population: 'timer_minutes', ok: true, why: 'BSON 1000000 B, live snappy 620000 B, zstd 310000 B; files snappy 620000 B, zstd 310000 B' })
  })
})
