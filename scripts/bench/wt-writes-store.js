// The database side of the WiredTiger write-amplification bench
// (scripts/bench/bench-wt-writes.js): one mongod's collections as documents
// and RecordIds, each write turned into what mongod asks WiredTiger to do
// (mongod-update.js), encoded for scripts/bench/wiredtiger/writes.py. Pure
// but for the Buffers it hands out.
import { BSON, ObjectId } from 'mongodb'
import { applyUpdate, damagesOf, inPlace, patchBson } from './mongod-update.js'
import { collectionUuid, driverSession, idIndexEntry, oplogDiff, oplogEncoder } from './mongod-oplog.js'

/** mongod's batches of an insertMany: at most this many documents a transaction (internalInsertMaxBatchSize) */
export const INSERT_BATCH = 64
// documents a transaction of the unmeasured writes (the setup, the catching up of sampled runs)
const PUT_BATCH = 100

/**
 * The record stream writes.py reads (its header says the format): each
 * method appends a record to one growing buffer; take() → the records as one
 * frame (u32 length first), or null when there are none.
 */
export function createRecordStream () {
  let buf = Buffer.allocUnsafe(1 << 22)
  let at = 4 // the frame's length first
  const room = (n) => {
    if (at + n <= buf.length) return
    const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, at + n))
    buf.copy(bigger, 0, 0, at)
    buf = bigger
  }
  const op = (code, n = 0) => {
    room(1 + n)
    buf[at++] = code.charCodeAt(0)
  }
  const u16 = (v) => { at = buf.writeUInt16LE(v, at) }
  const u32 = (v) => { at = buf.writeUInt32LE(v, at) }
  const i64 = (v) => { at = buf.writeBigInt64LE(BigInt(v), at) }
  const bytes = (b) => {
    room(b.length)
    at += b.copy(buf, at)
  }
  const index = ({ key, value }) => {
    room(4 + key.length + value.length)
    u16(key.length)
    bytes(key)
    u16(value.length)
    bytes(value)
  }
  const entries = (list) => {
    room(2)
    u16(list.length)
    for (const { offset, size: replaced, data } of list) {
      room(12 + data.length)
      u32(offset)
      u32(replaced ?? data.length)
      u32(data.length)
      bytes(data)
    }
  }
  return {
    table (name) {
      op('T', 1 + name.length)
      buf[at++] = name.length
      at += buf.write(name, at, 'ascii')
    },
    begin (ts) { op('B', 8); at = buf.writeBigUInt64LE(BigInt(ts), at) },
    commit () { op('E') },
    insert (rid, entry, bson) {
      op('I', 8)
      i64(rid)
      index(entry)
      bytes(bson)
    },
    put (rid, isNew, entry, bson) {
      op('P', 9)
      i64(rid)
      buf[at++] = isNew ? 1 : 0
      index(entry)
      bytes(bson)
    },
    /** an update in place: [{ offset, data }], each replacing data.length bytes */
    modify (rid, damages) {
      op('M', 8)
      i64(rid)
      entries(damages)
    },
    /** an update of the whole document: [{ offset, size, data }] turn the stored value into the new one */
    update (rid, edits) {
      op('U', 8)
      i64(rid)
      entries(edits)
    },
    /** an oplog entry: its BSON, or the parts whose concatenation is one */
    oplog (...parts) {
      op('O')
      for (const p of parts) bytes(p)
    },
    checkpoint (ts) { op('C', 8); at = buf.writeBigUInt64LE(BigInt(ts), at) },
    start () { op('S') },
    end () { op('Z') },
    mark () { op('K') },
    get size () { return at - 4 },
    take () {
      if (at === 4) return null
      buf.writeUInt32LE(at - 4, 0)
      const out = Buffer.from(buf.subarray(0, at))
      at = 4
      return out
    }
  }
}

/**
 * One mongod's collections: documents, their RecordIds and stored form.
 * A write either goes to the stream now (`emit`: its own transaction, as
 * mongod writes each statement of an unordered bulkWrite) or marks its
 * document for sync() (the runs between sampled minutes, unmeasured).
 * oplog: also write each write's oplog entry (a replica set's).
 * → { upsert, insertMany, sync, checkpoint, counts }
 */
export function createDatabase ({ stream, oplog = false, db = 'statbucket' }) {
  const collections = new Map()
  const session = driverSession(1)
  let ts = 0 // the last commit timestamp (µs of simulated time)
  let txn = 0
  let selected = null
  let oid = 0
  const counts = { insert: 0, modify: 0, update: 0, none: 0 }

  const collection = (name) => {
    let c = collections.get(name)
    if (!c) collections.set(name, c = { name, docs: new Map(), nextRecordId: 1, dirty: new Set(), oplog: oplogEncoder({ ns: `${db}.${name}`, ui: collectionUuid(name), lsid: session.lsid }) })
    return c
  }
  const select = (name) => {
    if (selected !== name) stream.table(name)
    selected = name
  }
  const stampAt = (ms) => { ts = Math.max(ts + 1, ms * 1000); return ts }
  // a retryable write's entry (mongod-update.js oplogEntry), a txnNumber each
  const logEntry = (c, fields) => {
    if (!oplog) return
    const wall = Math.floor(ts / 1000)
    stream.oplog(...c.oplog({ txnNumber: session.txnNumber.add(txn), ts: { t: Math.floor(wall / 1000), i: ts % 1_000_000 }, wall, ...fields }))
  }

  /** The writer's upsert of one document → 'insert' | 'modify' | 'update' | 'none' (what mongod does; deferred ones too) */
  function upsert (name, id, update, { now, emit }) {
    const c = collection(name)
    let e = c.docs.get(id)
    if (emit && e?.dirty) throw new Error(`${name} ${id}: changed since the last sync`)
    const r = applyUpdate(e?.doc ?? null, id, update, { ordered: emit })
    const outcome = r.inserted ? 'insert' : r.changes.length === 0 ? 'none' : inPlace(r) ? 'modify' : 'update'
    if (r.inserted) c.docs.set(id, e = { id, doc: r.doc, bson: null, cache: null, recordId: c.nextRecordId++, stored: false, dirty: false })
    if (emit) counts[outcome]++
    if (outcome === 'none') return outcome
    if (!emit) {
      e.dirty = true
      c.dirty.add(e)
      return outcome
    }
    select(name)
    stream.begin(stampAt(now))
    txn++
    if (outcome === 'insert') {
      e.bson = BSON.serialize(e.doc)
      e.cache = new Map()
      e.stored = true
      stream.insert(e.recordId, idIndexEntry(id, e.recordId), e.bson)
      logEntry(c, { op: 'i', doc: e.doc })
    } else if (outcome === 'modify') {
      stream.modify(e.recordId, damagesOf(e.bson, e.cache, e.doc, r.changes))
      logEntry(c, { op: 'u', id, diff: oplogDiff(e.doc, r.changes) })
    } else {
      const { bson, edits } = patchBson(e.bson, e.doc, r.changes)
      e.bson = bson
      e.cache = new Map()
      stream.update(e.recordId, edits)
      logEntry(c, { op: 'u', id, diff: oplogDiff(e.doc, r.changes) })
    }
    stream.commit()
    return outcome
  }

  /** Inserts documents without _id (each given an ObjectId), INSERT_BATCH a transaction */
  function insertMany (name, docs, { now }) {
    const c = collection(name)
    select(name)
    for (let i = 0; i < docs.length; i += INSERT_BATCH) {
      stream.begin(stampAt(now))
      txn++
      for (const fields of docs.slice(i, i + INSERT_BATCH)) {
        const id = objectIdAt(fields.time, oid++)
        const doc = { _id: id, ...fields }
        const recordId = c.nextRecordId++
        stream.insert(recordId, idIndexEntry(id, recordId), BSON.serialize(doc))
        logEntry(c, { op: 'i', doc })
        counts.insert++
      }
      stream.commit()
    }
  }

  /** Writes every document changed since the last sync whole (unmeasured), PUT_BATCH a transaction */
  function sync (now) {
    for (const c of collections.values()) {
      if (c.dirty.size === 0) continue
      select(c.name)
      let n = 0
      for (const e of c.dirty) {
        if (n % PUT_BATCH === 0) stream.begin(stampAt(now))
        e.bson = BSON.serialize(e.doc)
        e.cache = new Map()
        stream.put(e.recordId, !e.stored, idIndexEntry(e.id, e.recordId), e.bson)
        e.stored = true
        e.dirty = false
        if (++n % PUT_BATCH === 0) stream.commit()
      }
      if (n % PUT_BATCH !== 0) stream.commit()
      c.dirty.clear()
    }
  }

  return {
    upsert,
    insertMany,
    sync,
    /** mongod's checkpoint, at `now` (the stable timestamp of a replica set: the last commit) */
    checkpoint (now) { stream.checkpoint(stampAt(now)) },
    counts,
    /** the documents of a collection (tests) */
    documents: (name) => collections.get(name)?.docs ?? new Map()
  }
}

/** An ObjectId as the driver makes one: the second, a process-unique 5 bytes, a counter */
function objectIdAt (time, n) {
  const b = Buffer.alloc(12)
  b.writeUInt32BE(Math.floor(time / 1000), 0)
  b.write('5b0c1e7a3f', 4, 'hex')
  b.writeUIntBE(n & 0xffffff, 9, 3)
  return new ObjectId(b)
}
