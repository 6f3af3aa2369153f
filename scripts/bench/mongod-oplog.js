// What mongod writes beside a document, for the WiredTiger write-amplification
// bench (scripts/bench/bench-wt-writes.js): a replica set's oplog entry for a
// write (the `$v: 2` diff of an update, the document of an insert, the
// fields a retryable write adds) and the _id index's entry. Pure.
import { BSON, Binary, Long, ObjectId, Timestamp, UUID } from 'mongodb'
import { encodeElement } from './mongod-update.js'

/** The value at parts of doc */
const valueAt = (doc, parts) => parts.reduce((o, p) => o[p], doc)

/**
 * The `$v: 2` diff of an update's changes (what the oplog records): `u` a
 * value set, `i` a field inserted (its whole new subtree), `s<field>` a
 * subdocument's own diff.
 */
export function oplogDiff (doc, changes) {
  const diff = {}
  for (const c of changes) {
    const depth = c.created < 0 ? c.parts.length - 1 : c.created
    let d = diff
    for (let i = 0; i < depth; i++) d = d['s' + c.parts[i]] ??= {}
    const kind = c.created < 0 ? 'u' : 'i'
    const name = c.parts[depth]
    ;(d[kind] ??= {})[name] = valueAt(doc, c.parts.slice(0, depth + 1))
  }
  return diff
}

/**
 * An oplog entry as a replica set writes it for a retryable write (the
 * driver's default): op 'i' with the document, or 'u' with the diff.
 * session: { lsid, txnNumber, stmtId } of the batch; ts: { t, i } of the entry.
 */
export function oplogEntry ({ ns, ui, op, doc, diff, id, session, ts, wall }) {
  return {
    lsid: session.lsid,
    txnNumber: session.txnNumber,
    op,
    ns,
    ui,
    o: op === 'i' ? doc : { $v: 2, diff },
    ...(op === 'u' ? { o2: { _id: id } } : {}),
    stmtId: session.stmtId,
    ts: new Timestamp(ts),
    t: Long.fromNumber(1),
    v: Long.fromNumber(2),
    wall: new Date(wall),
    prevOpTime: { ts: new Timestamp({ t: ts.t, i: Math.max(0, ts.i - 1) }), t: Long.fromNumber(1) }
  }
}

/** An element's bytes: type, name, then `size` value bytes written by fill(buffer, offset) */
function element (type, name, size, fill) {
  const b = Buffer.alloc(2 + name.length + size)
  b[0] = type
  b.write(name, 1, 'latin1')
  fill(b, 2 + name.length)
  return b
}

/**
 * The oplog entries of one collection, as oplogEntry builds them, without
 * serializing the constant parts each time (the bench writes one per write).
 * → (fields as oplogEntry's but ns, ui and session's lsid) → Buffers whose
 *   concatenation is the entry's BSON
 */
export function oplogEncoder ({ ns, ui, lsid }) {
  const lsidElement = encodeElement('lsid', lsid)
  const heads = { i: Buffer.concat([encodeElement('op', 'i'), encodeElement('ns', ns), encodeElement('ui', ui)]), u: Buffer.concat([encodeElement('op', 'u'), encodeElement('ns', ns), encodeElement('ui', ui)]) }
  const middle = Buffer.concat([encodeElement('stmtId', 0)])
  const tv = Buffer.concat([encodeElement('t', Long.fromNumber(1)), encodeElement('v', Long.fromNumber(2))])
  const timestamp = (b, at, { t, i }) => { b.writeUInt32LE(i, at); b.writeUInt32LE(t, at + 4) }
  return function encode ({ op, doc, diff, id, txnNumber, ts, wall }) {
    const o = BSON.serialize(op === 'i' ? doc : { $v: 2, diff })
    const parts = [
      null,
      lsidElement,
      element(0x12, 'txnNumber', 8, (b, at) => b.writeBigInt64LE(BigInt(txnNumber.toString()), at)),
      heads[op],
      element(0x03, 'o', o.length, (b, at) => o.copy(b, at))
    ]
    if (op === 'u') {
      const o2 = BSON.serialize({ _id: id })
      parts.push(element(0x03, 'o2', o2.length, (b, at) => o2.copy(b, at)))
    }
    const prev = { t: ts.t, i: Math.max(0, ts.i - 1) }
    parts.push(
      middle,
      element(0x11, 'ts', 8, (b, at) => timestamp(b, at, ts)),
      tv,
      element(0x09, 'wall', 8, (b, at) => b.writeBigInt64LE(BigInt(wall), at)),
      // prevOpTime: { ts, t: 1 }, 4 + (1 + 3 + 8) + (1 + 2 + 8) + 1 = 28 bytes
      element(0x03, 'prevOpTime', 28, (b, at) => {
        b.writeInt32LE(28, at)
        b[at + 4] = 0x11
        b.write('ts', at + 5, 'latin1')
        timestamp(b, at + 8, prev)
        b[at + 16] = 0x12
        b.write('t', at + 17, 'latin1')
        b.writeBigInt64LE(1n, at + 19)
      })
    )
    const length = parts.reduce((n, p) => n + (p?.length ?? 0), 4 + 1)
    const head = Buffer.alloc(4)
    head.writeInt32LE(length)
    parts[0] = head
    parts.push(Buffer.from([0]))
    return parts
  }
}

/** A logical session as the driver opens it: a UUID and the user's 32-byte digest */
export function driverSession (seed) {
  const bytes = Buffer.alloc(16, seed & 0xff)
  return { lsid: { id: new UUID(bytes.toString('hex')), uid: new Binary(Buffer.alloc(32, 7), 0) }, txnNumber: Long.fromNumber(1) }
}

/** A collection's UUID (deterministic per name) */
export function collectionUuid (name) {
  const bytes = Buffer.alloc(16)
  Buffer.from(name).copy(bytes, 0, 0, 16)
  return new UUID(bytes.toString('hex'))
}

/**
 * The _id index's key and value, as MongoDB's KeyString encodes them (close
 * enough for sizes): the string's or ObjectId's type byte, its bytes, the end
 * byte; the value the RecordId in 2 to 9 bytes.
 */
export function idIndexEntry (id, recordId) {
  const key = id instanceof ObjectId
    ? Buffer.concat([Buffer.from([0x64]), id.id, Buffer.from([0x04])])
    : Buffer.concat([Buffer.from([0x3C]), Buffer.from(id, 'utf8'), Buffer.from([0x00, 0x04])])
  let n = 2
  while (n < 9 && recordId >= 2 ** (5 + 8 * (n - 1))) n++
  const value = Buffer.alloc(n)
  let r = BigInt(recordId)
  for (let i = n - 1; i >= 0; i--) {
    value[i] = Number(r & 0xffn)
    r >>= 8n
  }
  value[0] |= (n - 2) << 5
  return { key, value }
}
