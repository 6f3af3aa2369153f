// What mongod does with one update of one stored document, for the WiredTiger
// write-amplification bench (scripts/bench/bench-wt-writes.js,
// docs/adr/0056-wiredtiger-write-amplification.md): the document after the
// update with each value's BSON type, and how the storage engine is asked to
// write it. Pure.
//
// - An update that only changes values already there, each keeping its
//   size (an int32 `$inc` that stays int32, a double's `$min`), is applied
//   in place: mongod sends WiredTiger the changed bytes ("damages", a
//   WT_MODIFY each) instead of the document.
// - Any other (a new field, an int32 becoming a double) writes the whole new
//   document.
// - An update that changes nothing writes nothing.
// - An upsert that matches nothing inserts the document (and its _id key).
// What a replica set's oplog and the _id index hold: mongod-oplog.js.
import { BSON, Double, Long } from 'mongodb'

const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

/** A number as the driver sends it: js-bson writes an integer in int32's range as an int32, any other number as a double */
export function asStored (v) {
  if (typeof v !== 'number') return v
  return Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX ? v : new Double(v)
}

/** 'int' (a plain JS number: int32), 'double', 'long', or null (not a number) */
export function numberType (v) {
  if (typeof v === 'number') return 'int'
  if (v instanceof Double) return 'double'
  if (v instanceof Long) return 'long'
  return null
}

const VALUE_BYTES = { int: 4, double: 8, long: 8 }
const valueOf = (v) => (typeof v === 'number' ? v : v instanceof Long ? v.toNumber() : v.value)

/** $inc's result as mongod types it: a double if either is one, else an int64 if either is one or the int32 sum overflows, else an int32 */
export function incremented (old, by) {
  const inc = asStored(by)
  if (old === undefined) return inc
  const a = numberType(old)
  const b = numberType(inc)
  if (a === null || b === null) throw new TypeError(`$inc of a non-number: ${String(old)} + ${String(by)}`)
  const sum = valueOf(old) + valueOf(inc)
  if (a === 'double' || b === 'double') return new Double(sum)
  if (a === 'long' || b === 'long' || sum < INT32_MIN || sum > INT32_MAX) return Long.fromNumber(sum)
  return sum
}

/** Path order of an update's fields (MongoDB 5.0+): field by field, numeric names numerically, others as strings */
export function comparePaths (a, b) {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  if (i === a.length && i === b.length) return 0
  // the field where they differ: from the last dot before i to the next dot in each
  const start = a.lastIndexOf('.', i - 1) + 1
  let ea = a.indexOf('.', start)
  let eb = b.indexOf('.', start)
  if (ea < 0) ea = a.length
  if (eb < 0) eb = b.length
  const fa = a.slice(start, ea)
  const fb = b.slice(start, eb)
  if (fa === fb) return ea === a.length ? -1 : 1 // one path ends where the other goes on
  if (isDigits(fa) && isDigits(fb)) return Number(fa) - Number(fb)
  return fa < fb ? -1 : 1
}

function isDigits (s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return s.length > 0
}

/**
 * Applies an update (the operators the writer sends: $inc, $setOnInsert,
 * $set, $min, $max) to doc (null: absent, so the upsert inserts), which it
 * changes. A new field is appended to its object. ordered false: the fields
 * in the update's order (a document that reaches WiredTiger only serialized
 * whole, where field order changes no size).
 * → { doc, inserted, changes: [{ parts, created, before, after }] }
 *   created: the index in parts of the first component that did not exist (-1: the field existed);
 *   before/after: the value's type ('int', 'double', 'long', or null)
 */
export function applyUpdate (doc, id, update, { ordered = true } = {}) {
  const inserted = doc === null
  const out = inserted ? { _id: id } : doc
  const ops = []
  for (const [path, v] of Object.entries(update.$inc ?? {})) ops.push([path, 'inc', v])
  if (inserted) for (const [path, v] of Object.entries(update.$setOnInsert ?? {})) ops.push([path, 'set', v])
  for (const [path, v] of Object.entries(update.$set ?? {})) ops.push([path, 'set', v])
  for (const [path, v] of Object.entries(update.$min ?? {})) ops.push([path, 'min', v])
  for (const [path, v] of Object.entries(update.$max ?? {})) ops.push([path, 'max', v])
  if (ordered) ops.sort((a, b) => comparePaths(a[0], b[0]))
  const changes = []
  const fresh = new Set() // the objects this update created
  for (const [path, op, v] of ops) {
    const parts = path.split('.')
    let o = out
    let created = -1
    for (let i = 0; i < parts.length - 1; i++) {
      if (o[parts[i]] === undefined) {
        o[parts[i]] = {}
        fresh.add(o[parts[i]])
      }
      if (created < 0 && fresh.has(o[parts[i]])) created = i
      o = o[parts[i]]
    }
    const last = parts[parts.length - 1]
    const old = o[last]
    if (old === undefined && created < 0) created = parts.length - 1
    let next
    if (op === 'inc') {
      next = incremented(old, v)
      // $inc by 0 of a value there, its type kept: nothing changes
      if (old !== undefined && numberType(next) === numberType(old) && valueOf(next) === valueOf(old)) continue
    } else if (op === 'set') {
      if (old !== undefined && old === v) continue
      next = v instanceof Date ? v : asStored(v)
    } else {
      const value = asStored(v)
      if (numberType(value) === null) throw new TypeError(`$${op} of a non-number at ${path}`)
      if (old !== undefined && !(op === 'min' ? valueOf(value) < valueOf(old) : valueOf(value) > valueOf(old))) continue
      next = value
    }
    o[last] = next
    changes.push({ parts, created, before: old === undefined ? null : numberType(old), after: numberType(next) })
  }
  return { doc: out, inserted, changes }
}

/** Whether mongod applies the changes in place: every one to a number that was there, its size kept */
export function inPlace ({ inserted, changes }) {
  if (inserted || changes.length === 0) return false
  return changes.every(c => c.created < 0 && c.before !== null && c.after !== null && VALUE_BYTES[c.before] === VALUE_BYTES[c.after])
}

const BSON_TYPE = { int: 0x10, double: 0x01, long: 0x12 }

/** Bytes of a BSON element's value at offset (its type given) */
function valueBytes (buf, type, offset) {
  switch (type) {
    case 0x01: case 0x09: case 0x11: case 0x12: return 8
    case 0x10: return 4
    case 0x02: case 0x0D: case 0x0E: return 4 + buf.readInt32LE(offset)
    case 0x03: case 0x04: return buf.readInt32LE(offset)
    case 0x05: return 5 + buf.readInt32LE(offset)
    case 0x07: return 12
    case 0x08: return 1
    case 0x0A: case 0x06: case 0x7F: case 0xFF: return 0
    case 0x13: return 16
    default: throw new Error(`BSON type 0x${type.toString(16)} not handled`)
  }
}

/** Where a field's element sits in a serialized document: { typeAt, valueAt, type } (null: absent) */
export function locate (buf, parts) {
  let start = 0
  for (let i = 0; i < parts.length; i++) {
    const found = elementIn(buf, start, parts[i])
    if (!found || i === parts.length - 1) return found
    start = found.valueAt
  }
  return null
}

/** A number's value bytes as BSON stores them */
function encodeNumber (v) {
  const t = numberType(v)
  const b = Buffer.alloc(VALUE_BYTES[t])
  if (t === 'int') b.writeInt32LE(v)
  else if (t === 'double') b.writeDoubleLE(v.value)
  else b.writeBigInt64LE(BigInt(v.toString()))
  return b
}

/**
 * The damages of an in-place update: [{ offset, data }] over `bson`, the
 * document's serialized form before it (the layout an in-place update keeps;
 * the damages are written into it), with a cache Map (path → location) of
 * that layout. A value's bytes, and its type byte when the type changes at
 * the same size (int64 ↔ double).
 */
export function damagesOf (bson, cache, doc, changes) {
  const out = []
  for (const c of changes) {
    const path = c.parts.join('.')
    let at = cache.get(path)
    if (at === undefined) {
      at = locate(bson, c.parts)
      if (at === null) throw new Error(`damagesOf: ${path} is not in the stored document`)
      cache.set(path, at)
    }
    let o = doc
    for (const p of c.parts) o = o[p]
    if (c.before !== c.after) out.push({ offset: at.typeAt, data: Buffer.from([BSON_TYPE[c.after]]) })
    out.push({ offset: at.valueAt, data: encodeNumber(o) })
  }
  for (const { offset, data } of out) data.copy(bson, offset)
  return out
}

/** The value at parts of doc */
const valueAt = (doc, parts) => parts.reduce((o, p) => o[p], doc)

/** One BSON element: its type, name and value */
export function encodeElement (name, value) {
  const wrapped = BSON.serialize({ [name]: value })
  return wrapped.subarray(4, wrapped.length - 1)
}

/** The element `name` of the object starting at `start`: { typeAt, valueAt, type } (null: absent) */
function elementIn (buf, start, name) {
  const end = start + buf.readInt32LE(start) - 1
  let at = start + 4
  while (at < end) {
    const type = buf[at]
    const nameEnd = buf.indexOf(0, at + 1)
    const valueAt = nameEnd + 1
    if (buf.toString('latin1', at + 1, nameEnd) === name) return { typeAt: at, valueAt, type }
    at = valueAt + valueBytes(buf, type, valueAt)
  }
  return null
}

const int32Bytes = (n) => {
  const b = Buffer.alloc(4)
  b.writeInt32LE(n)
  return b
}

/**
 * A non-in-place update as mongod lays the document out: from `bson`, the
 * stored form before it (changed or replaced), the stored form after it, a
 * new field appended to its object, a value whose size changed rewritten,
 * each enclosing object's length adjusted; and the edits that turn one into
 * the other, [{ offset, size, data }] applied in order (WT_MODIFY's meaning:
 * `size` bytes at `offset` replaced by `data`). Serializing the whole
 * document at every such update cost 163 s per busy timer-day.
 * → { bson, edits }
 */
export function patchBson (bson, doc, changes) {
  let buf = bson
  const edits = []
  const inserted = new Set() // the subtrees this update inserted whole
  for (const c of changes) {
    const depth = c.created < 0 ? c.parts.length - 1 : c.created
    let covered = false
    for (let i = 1; i <= depth + 1 && !covered; i++) covered = inserted.has(c.parts.slice(0, i).join('.'))
    if (covered) continue
    const starts = [0] // the objects down to the field's parent, the document first
    for (let i = 0; i < depth; i++) starts.push(elementIn(buf, starts[i], c.parts[i]).valueAt)
    const parent = starts[depth]
    let delta = 0
    if (c.created >= 0) {
      inserted.add(c.parts.slice(0, depth + 1).join('.'))
      const element = encodeElement(c.parts[depth], valueAt(doc, c.parts.slice(0, depth + 1)))
      const at = parent + buf.readInt32LE(parent) - 1
      buf = Buffer.concat([buf.subarray(0, at), element, buf.subarray(at)])
      edits.push({ offset: at, size: 0, data: element })
      delta = element.length
    } else {
      const at = elementIn(buf, parent, c.parts[depth])
      const value = encodeNumber(valueAt(doc, c.parts))
      const oldSize = valueBytes(buf, at.type, at.valueAt)
      if (c.before !== c.after) {
        if (oldSize === value.length) buf[at.typeAt] = BSON_TYPE[c.after]
        else buf = Buffer.concat([buf.subarray(0, at.typeAt), Buffer.from([BSON_TYPE[c.after]]), buf.subarray(at.typeAt + 1)])
        edits.push({ offset: at.typeAt, size: 1, data: Buffer.from([BSON_TYPE[c.after]]) })
      }
      if (oldSize === value.length) value.copy(buf, at.valueAt)
      else buf = Buffer.concat([buf.subarray(0, at.valueAt), value, buf.subarray(at.valueAt + oldSize)])
      edits.push({ offset: at.valueAt, size: oldSize, data: value })
      delta = value.length - oldSize
    }
    if (delta !== 0) {
      // every enclosing object starts before the change: its offset holds
      for (const s of starts) {
        const length = int32Bytes(buf.readInt32LE(s) + delta)
        length.copy(buf, s)
        edits.push({ offset: s, size: 4, data: length })
      }
    }
  }
  return { bson: buf, edits }
}

/** The edits applied to a value (what WiredTiger's modify, or writes.py for a whole-document update, does) */
export function applyEdits (value, edits) {
  let out = value
  for (const { offset, size, data } of edits) out = Buffer.concat([out.subarray(0, offset), data, out.subarray(offset + size)])
  return out
}
