// The WiredTiger write-amplification bench's pure parts (scripts/bench/mongod-update.js, mongod-oplog.js,
// wt-writes-store.js, wt-writes-workload.js, bench-wt-writes.js): mongod's update
// of a stored document, the in-place patches checked against a whole
// serialization, the layouts against the writer's own day documents, the
// figures' arithmetic. The WiredTiger part (writes.py, a Python venv) runs in
// .ci/run's step, not here.
import { describe, expect, it } from 'vitest'
import { BSON, Double, Long, ObjectId } from 'mongodb'
import { isDeepStrictEqual } from 'node:util'
import { applyEdits, applyUpdate, asStored, comparePaths, damagesOf, inPlace, incremented, patchBson } from '../../../scripts/bench/mongod-update.js'
import { collectionUuid, driverSession, idIndexEntry, oplogDiff, oplogEncoder, oplogEntry } from '../../../scripts/bench/mongod-oplog.js'
import { createDatabase, createRecordStream, INSERT_BATCH } from '../../../scripts/bench/wt-writes-store.js'
import { DAY, LAYOUTS, MINUTES_COLLECTION, createDay, hourLayoutOperations, runDay, sampledMinutes, writerOperations } from '../../../scripts/bench/wt-writes-workload.js'
import { COMPRESSORS, FULL_DAY, amplificationSection, databaseFigures, dayTotal, parseFlushSeconds, parseModes, parseWritesScale, renderWtWrites } from '../../../scripts/bench/bench-wt-writes.js'
import { buildWriteUnit } from '../../../src/kinds/write-unit.js'
import { dayZeroIncrements } from '../../../src/bucket/minute-fields.js'
import { incrementUpdate } from '../../../src/writer/write-operations.js'
import { latencySampler } from '../../../scripts/bench/timer-workload.js'
import { seeded } from '../../../scripts/bench/bench-wiredtiger.js'

const stored = (doc) => BSON.deserialize(BSON.serialize(doc), { promoteValues: false })

describe('mongod-update: values as mongod types them', () => {
  it('the driver sends int32 for integers in range, doubles otherwise; $inc widens as mongod does', () => {
    expect(asStored(7)).toBe(7)
    expect(asStored(20.5)).toBeInstanceOf(Double)
    expect(asStored(2 ** 31)).toBeInstanceOf(Double)
    expect(incremented(3, 4)).toBe(7)
    expect(incremented(3, 0.5)).toEqual(new Double(3.5))
    expect(incremented(new Double(1.5), 2)).toEqual(new Double(3.5))
    expect(incremented(2 ** 31 - 1, 1)).toEqual(Long.fromNumber(2 ** 31))
    expect(incremented(undefined, 20)).toBe(20)
  })

  it('orders an update\'s fields field by field, numeric names numerically', () => {
    const paths = ['minute.10.3', 'minute.9.59', 'daily', 'hourly.10', 'hourly.9', 'minute.9.6']
    expect(paths.sort(comparePaths)).toEqual(['daily', 'hourly.9', 'hourly.10', 'minute.9.6', 'minute.9.59', 'minute.10.3'])
  })
})

describe('mongod-update: in place or whole', () => {
  const id = 'app.c/20261115'
  const zeroFilled = () => applyUpdate(null, id, incrementUpdate(id, { metric: 'app.c', date: DAY, inc: dayZeroIncrements() }).updateOne.update).doc

  it('an upsert of a missing document inserts it, its $setOnInsert fields included', () => {
    const r = applyUpdate(null, id, { $inc: { daily: 3, 'minute.0.1': 3 }, $setOnInsert: { metric: 'app.c', date: new Date(DAY) } })
    expect(r.inserted).toBe(true)
    expect(inPlace(r)).toBe(false)
    expect(r.doc).toEqual({ _id: id, daily: 3, date: new Date(DAY), metric: 'app.c', minute: { 0: { 1: 3 } } })
  })

  it('$inc of a preallocated day is in place; its damages make what a whole serialization makes', () => {
    const doc = zeroFilled()
    const bson = BSON.serialize(doc)
    const r = applyUpdate(doc, id, { $inc: { daily: 4, 'hourly.3': 4, 'quarterHourly.3.1': 4, 'minute.3.17': 4 }, $setOnInsert: { metric: 'app.c', date: new Date(DAY) } })
    expect(inPlace(r)).toBe(true)
    expect(r.changes).toHaveLength(4) // $setOnInsert does nothing to a document there
    const damages = damagesOf(bson, new Map(), r.doc, r.changes)
    expect(damages.map(d => d.data.length)).toEqual([4, 4, 4, 4])
    expect(bson.equals(BSON.serialize(r.doc))).toBe(true)
  })

  it('a new field, a type whose size changes, a $set of another value: the whole document; $inc by 0 and a $min that loses: nothing', () => {
    const doc = applyUpdate(null, 'x', { $inc: { a: 1, 'b.c': new Double(2.5) }, $min: { m: new Double(4.5) } }).doc
    expect(inPlace(applyUpdate(doc, 'x', { $inc: { 'b.d': 1 } }))).toBe(false)
    expect(inPlace(applyUpdate(doc, 'x', { $inc: { a: 0.5 } }))).toBe(false) // int32 → double
    expect(inPlace(applyUpdate(doc, 'x', { $min: { m: 4 } }))).toBe(false) // the double min becomes int32 4
    expect(applyUpdate(doc, 'x', { $inc: { a: 0 }, $min: { m: 9 } }).changes).toEqual([])
    expect(inPlace(applyUpdate(doc, 'x', { $inc: { 'b.c': 1 } }))).toBe(true) // double + int → double
  })

  it('the oplog diff: u for a value set, i for a subtree inserted whole, s for a subdocument', () => {
    const doc = applyUpdate(null, 'x', { $inc: { daily: 1, 'minute.3.1': 1 } }).doc
    const r = applyUpdate(doc, 'x', { $inc: { daily: 2, 'minute.3.1': 2, 'minute.4.0': 2 } })
    expect(oplogDiff(r.doc, r.changes)).toEqual({ u: { daily: 3 }, sminute: { s3: { u: { 1: 3 } }, i: { 4: { 0: 2 } } } })
  })

  it('the oplog entries, built from parts made once, are the BSON of the whole entry', () => {
    const session = driverSession(1)
    const ui = collectionUuid('daily')
    const encode = oplogEncoder({ ns: 'statbucket.daily', ui, lsid: session.lsid })
    for (const fields of [{ op: 'u', id: 'a/1', diff: { u: { daily: 3 }, sminute: { i: { 4: { 0: 2 } } } } }, { op: 'i', doc: { _id: 'x', a: new Double(1.5) } }]) {
      const at = { ...fields, ts: { t: 1_763_164_800, i: 5 }, wall: 1_763_164_800_123 }
      expect(Buffer.concat(encode({ ...at, txnNumber: Long.fromNumber(9) })))
        .toEqual(BSON.serialize(oplogEntry({ ns: 'statbucket.daily', ui, session: { ...session, txnNumber: Long.fromNumber(9), stmtId: 0 }, ...at })))
    }
  })

  it('patches a busy timer\'s documents as mongod lays them out: every edit list makes the next stored form, which holds the document', () => {
    const latency = latencySampler(seeded(3))
    const docs = new Map()
    let patched = 0
    for (let s = 0; s < 20 * 60; s++) {
      const events = [{ metric: 'app.t', value: latency(), time: DAY + 14 * 60_000 * 60 + s * 1000, kind: 'distribution' }]
      for (const { collection, id, update } of writerOperations(events, DAY)) {
        const key = `${collection} ${id}`
        const e = docs.get(key)
        const r = applyUpdate(e?.doc ?? null, id, update)
        if (r.inserted) {
          docs.set(key, { doc: r.doc, bson: BSON.serialize(r.doc), cache: new Map() })
          continue
        }
        if (r.changes.length === 0) continue
        const before = Buffer.from(e.bson)
        if (inPlace(r)) {
          const damages = damagesOf(e.bson, e.cache, r.doc, r.changes)
          expect(applyEdits(before, damages.map(d => ({ ...d, size: d.data.length }))).equals(e.bson)).toBe(true)
        } else {
          const p = patchBson(e.bson, r.doc, r.changes)
          expect(applyEdits(before, p.edits).equals(p.bson)).toBe(true)
          e.bson = p.bson
          e.cache = new Map()
          patched++
        }
        if (s % 97 === 0) {
          expect(e.bson.length).toBe(BSON.calculateObjectSize(r.doc))
          expect(isDeepStrictEqual(BSON.deserialize(e.bson, { promoteValues: false }), stored(r.doc))).toBe(true)
        }
      }
    }
    expect(patched).toBeGreaterThan(100)
  })

  it('the _id index entry: the key\'s type byte, bytes and end; the RecordId in 2 to 9 bytes', () => {
    expect(idIndexEntry('ab', 5).key).toEqual(Buffer.from([0x3C, 0x61, 0x62, 0x00, 0x04]))
    expect(idIndexEntry('ab', 5).value.length).toBe(2)
    expect(idIndexEntry('ab', 70_000).value.length).toBe(3)
    expect(idIndexEntry(new ObjectId(), 1).key.length).toBe(14)
  })
})

describe('wt-writes-store: a database', () => {
  it('emits a transaction per write and counts what mongod does; unmeasured writes wait for sync', () => {
    const stream = createRecordStream()
    const db = createDatabase({ stream, oplog: true })
    const u = (inc) => incrementUpdate('a/1', { metric: 'a', date: DAY, inc }).updateOne.update
    expect(db.upsert('daily', 'a/1', u({ daily: 1 }), { now: DAY, emit: true })).toBe('insert')
    expect(db.upsert('daily', 'a/1', u({ daily: 1 }), { now: DAY, emit: true })).toBe('modify')
    expect(db.upsert('daily', 'a/1', u({ hourly: 1 }), { now: DAY, emit: true })).toBe('update')
    expect(db.upsert('daily', 'a/1', u({ daily: 0 }), { now: DAY, emit: true })).toBe('none')
    expect(db.counts).toEqual({ insert: 1, modify: 1, update: 1, none: 1 })
    db.upsert('daily', 'a/1', u({ daily: 5 }), { now: DAY, emit: false })
    expect(() => db.upsert('daily', 'a/1', u({ daily: 1 }), { now: DAY, emit: true })).toThrow(/since the last sync/)
    db.sync(DAY)
    expect(db.documents('daily').get('a/1').doc.daily).toBe(7)
    db.insertMany('events', Array.from({ length: INSERT_BATCH + 1 }, (_, i) => ({ metric: 'a', time: new Date(DAY + i), value: 1 })), { now: DAY })
    expect(db.counts.insert).toBe(1 + INSERT_BATCH + 1)
    const frame = stream.take()
    expect(frame.readUInt32LE(0)).toBe(frame.length - 4)
    expect(stream.take()).toBe(null)
  })
})

describe('wt-writes-workload: the layouts', () => {
  it('sampledMinutes: one minute in each block, weights summing to the day', () => {
    for (const every of [1, 10, 60, 240, 7]) {
      const m = sampledMinutes(every)
      expect([...m.values()].reduce((a, b) => a + b, 0)).toBe(1440)
      expect(m.size).toBe(Math.ceil(1440 / every))
      for (const minute of m.keys()) expect(m.get(minute)).toBe(Math.min(every, 1440 - Math.floor(minute / every) * every))
    }
    expect(() => sampledMinutes(0)).toThrow(RangeError)
  })

  it('hour: the day update loses its minutes to the hour documents (counters) and its minutes\' min and max to the minute histograms (timers)', () => {
    const t = DAY + 3 * 3600_000 + 17 * 60_000
    const ops = hourLayoutOperations(writerOperations([{ metric: 'c', value: 3, time: t }, { metric: 't', value: 20.5, time: t, kind: 'distribution' }], DAY))
    const of = (collection) => ops.filter(o => o.collection === collection)
    expect(Object.keys(of('daily')[0].update.$inc)).toEqual(['daily', 'hourly.3', 'quarterHourly.3.1'])
    expect(of(MINUTES_COLLECTION)).toEqual([{ collection: MINUTES_COLLECTION, id: 'c/2026111503', update: { $inc: { 'minute.17': 3 }, $setOnInsert: { metric: 'c', date: new Date(t - 17 * 60_000) } } }])
    expect(Object.keys(of('distributionDaily')[0].update.$inc).some(p => p.startsWith('minute'))).toBe(false)
    const histogram = of('distributionMinutes')[0].update
    expect(histogram.$min).toEqual({ 'minute.17.min': 20.5 })
    expect(histogram.$max).toEqual({ 'minute.17.max': 20.5 })
  })

  it.each([1, 10])('runDay, a flush every %i s: sampled or not, each layout ends with the documents the day\'s events make, and the measured minutes weigh up to the day', async (flushSeconds) => {
    const day = createDay({ kind: 'counters', counters: 3, busy: 1, seed: 5 })
    const all = []
    const eventsAt = day.eventsAt
    day.eventsAt = (s) => { const e = eventsAt(s); all.push(...e); return e }
    const databases = Object.fromEntries(LAYOUTS.map(layout => {
      const stream = createRecordStream()
      return [layout, { db: createDatabase({ stream }), stream, flush: async () => { stream.take() } }]
    }))
    const minutes = sampledMinutes(180)
    const run = await runDay({ day, databases, minutes, flushSeconds })
    expect(run.segments.map(s => s.minute)).toEqual([...minutes.keys()])
    expect(run.segments.reduce((n, s) => n + s.weight, 0)).toBe(1440)
    expect(run.events).toBe(all.length)
    const expected = buildWriteUnit(all).daily
    const dayDocs = databases.day.db.documents('daily')
    const hourDocs = databases.hour.db.documents(MINUTES_COLLECTION)
    for (const [id, { inc }] of expected) {
      const doc = dayDocs.get(id).doc
      const hourDay = databases.hour.db.documents('daily').get(id).doc
      expect(doc.daily).toBe(inc.daily)
      expect(hourDay.daily).toBe(inc.daily)
      expect(hourDay.minute).toBeUndefined()
      for (const [path, v] of Object.entries(inc)) {
        const [tier, h, m] = path.split('.')
        if (tier !== 'minute') continue
        expect(doc.minute[h][m]).toBe(v)
        expect(hourDocs.get(`${id}${h.padStart(2, '0')}`).doc.minute[m]).toBe(v)
      }
    }
    // the busy metric's tomorrow is preallocated once, the sparse ones' only by chance
    expect([...dayDocs.keys()].filter(id => id.endsWith('/20261116'))).toContain('app.busy.000.requests/20261116')
    // each measured minute: an update of the busy day document per flush, in place
    expect(databases.day.db.counts.modify).toBeGreaterThanOrEqual(minutes.size * (60 / flushSeconds))
    expect(databases.day.db.counts.modify).toBeLessThan(minutes.size * (60 / flushSeconds) * 3)
  })
})

describe('bench-wt-writes: figures', () => {
  const segment = (over) => ({ blockBytes: 100, logBytes: 50, logPayloadBytes: 40, checkpointBytes: 80, inserts: 1, modifies: 3, updates: 1, modifiedUpdates: 0, cpuOps: 0.001, cpuCheckpoint: 0.001, historyInserts: 0, historyFullValues: 0, historyReverseModifies: 0, historyBytes: 0, dirtyEvictions: 0, ...over })
  const mark = (live, indexLive) => ({ tables: { daily: { live, indexLive } }, oplogLive: 0 })

  it('weighs each measured minute; stored is what the day added; CPU per measured write', () => {
    const report = { compressor: 'zstd', mode: 'replset', segments: [segment(), segment({ blockBytes: 300 })], marks: [mark(1000, 100), mark(5000, 300)] }
    const f = databaseFigures(report, [{ weight: 10, events: 5 }, { weight: 2, events: 10 }], { inserted: 70 })
    expect(f.events).toBe(70)
    expect(f.blockPerEvent).toBeCloseTo((10 * 100 + 2 * 300) / 70)
    expect(f.logPerEvent).toBeCloseTo((10 * 50 + 2 * 50) / 70)
    expect(f.writtenPerEvent).toBeCloseTo(f.blockPerEvent + f.logPerEvent)
    expect(f.writesPerEvent).toBeCloseTo(12 * 5 / 70)
    expect(f.inPlaceShare).toBeCloseTo(0.6)
    expect(f.storedPerEvent).toBeCloseTo(4200 / 70)
    expect(f.cpuPerWriteUs).toBeCloseTo(400)
    expect(f.perMinute).toEqual([30, 35])
    expect(() => databaseFigures(report, [{ weight: 1, events: 1 }], { inserted: 1 })).toThrow(/segments/)
  })

  it('the day\'s total multiplies the timers up to the full day\'s', () => {
    const run = (over) => ({ compressor: 'snappy', mode: 'replset', events: 100, writtenPerEvent: 10, storedPerEvent: 1, ...over })
    const rows = [{ population: 'counters', layout: 'day', runs: [run()] }, { population: 'timers', layout: 'day', runs: [run({ events: 20, writtenPerEvent: 100 })] }]
    const [t] = dayTotal(rows, { timers: FULL_DAY.timers / 5 })
    expect(t.runs[0].events).toBe(200)
    expect(t.runs[0].writtenPerDay).toBe(100 * 10 + 5 * 20 * 100)
    expect(t.runs[0].writtenPerEvent).toBe(11_000 / 200)
  })

  it('renders a table per mode; the page keeps the run, its command and the first mode\'s table', () => {
    const run = (compressor, mode) => ({ compressor, mode, events: 100, writesPerEvent: 2, inPlaceShare: 1, writtenPerEvent: 1625.4, logPerEvent: 890, storedPerEvent: 0.2, cpuPerWriteUs: 101.4, checkpointCpuPerWriteUs: 23.5 })
    const runs = ['replset', 'standalone'].flatMap(mode => COMPRESSORS.map(c => run(c, mode)))
    const rows = LAYOUTS.flatMap(layout => ['counters', 'timers'].map(population => ({ population, layout, runs })))
    const figures = { scale: 'full', counters: 10_000, busy: 100, timers: 100, flushSeconds: 1, every: { counters: 15, timers: 60 }, modes: ['replset', 'standalone'], wiredtiger: 'WiredTiger 11.3.1: (…)', rows, date: '2026-11-28T20:06:25Z', command: 'node scripts/bench/bench-wt-writes.js --scale full' }
    figures.total = dayTotal(rows, figures)
    const text = renderWtWrites(figures)
    expect(text).toContain('*A replica set*')
    expect(text).toContain('*A standalone mongod*')
    expect(text).toContain('| counters | (a) day | 2.00 (100 %) | 1,625 (890) | 0.2 | 101 (24) · 203 |')
    const page = amplificationSection(figures)
    expect(page.startsWith('**Run** 2026-11-28T20:06:25Z · `node scripts/bench/bench-wt-writes.js --scale full`')).toBe(true)
    expect(page).not.toContain('standalone')
    expect(page.split('\n').filter(l => l.startsWith('| ')).length).toBe(2 + 6 + 3)
    expect(amplificationSection({ error: 'no venv' })).toBe('**Write amplification on WiredTiger**: n/a (no venv)')
  })

  it('parses --mode, --scale and --flush-seconds', () => {
    expect(parseFlushSeconds(undefined)).toBe(1)
    expect(parseFlushSeconds('10')).toBe(10)
    for (const bad of ['7', '0', '1.5', 'x', '120']) expect(() => parseFlushSeconds(bad)).toThrow(/--flush-seconds/)
    expect(parseModes(undefined)).toEqual(['replset'])
    expect(parseModes('both')).toEqual(['replset', 'standalone'])
    expect(() => parseModes('sharded')).toThrow(/--mode/)
    expect(parseWritesScale(undefined)).toBe('bench')
    expect(parseWritesScale('quick')).toBe('quick')
    expect(() => parseWritesScale('huge')).toThrow(/--scale/)
  })
})
