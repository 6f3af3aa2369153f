// The document generation of the WiredTiger storage bench (scripts/bench/bench-wiredtiger.js):
// the versions it writes end as the documents the service stores. The WiredTiger
// part itself (a Python venv) runs in .ci/run's step, not here.
import { describe, expect, it } from 'vitest'
import { BSON } from 'mongodb'
import { QUARTER_HOUR_DETAIL } from '../../../src/bucket/increments.js'
import { applyUpdate, checkWiredtiger, expectedDay, minutePoints, simulatePopulation, timerDayOnDisk, timerHistory, VARIANTS, WT_SCALES, parseWtScale, renderWiredtiger } from '../../../scripts/bench/bench-wiredtiger.js'
import { buildDistributionUnit } from '../../../src/bucket/distribution-increments.js'
import { hierarchicalLayout } from '../../../src/bucket/layouts.js'
import { TIMER_KIND, documentOf } from '../../../scripts/bench/timer-workload.js'

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
    const unit = buildDistributionUnit(events, TIMER_KIND.mapping, hierarchicalLayout)
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
    expect(timerDayOnDisk({ populations: figures.populations.slice(0, 1) })).toBeNull()
    expect(checkWiredtiger(figures).map(c => c.why.startsWith('not judged'))).toEqual([true, true, true])
  })
})
