// How a write unit becomes database operations: the one place that knows
// the shape of an increment upsert and of a registry update. The plain flush
// (flush-executor.js) and the keyed transaction (idempotency/keyed-flush.js) both
// send what this module builds.
import { Double } from 'mongodb'
import { kindFields } from '../bucket/metric-kinds.js'
import { updateOfTiers } from '../bucket/tiered-document.js'

/**
 * The update of a document's increments: upsert, $inc, metric/date on insert,
 * and `detail` when the increments leave a tier out (bucket/increments.js)
 */
export function incrementUpdate (id, { metric, date, inc, detail }) {
  const update = { $inc: inc, $setOnInsert: { metric, date: new Date(date) } }
  if (detail) update.$set = { detail }
  return { updateOne: { filter: { _id: id }, update, upsert: true } }
}

/**
 * The update of a distribution document (bucket/distribution-increments.js):
 * counts, sums and buckets by $inc, each tier's min and max by $min and $max, in one upsert
 */
export function distributionUpdate (id, { metric, date, inc, min, max, detail }) {
  const update = { $inc: inc, $min: min, $max: max, $setOnInsert: { metric, date: new Date(date) } }
  if (detail) update.$set = { detail }
  return { updateOne: { filter: { _id: id }, update, upsert: true } }
}

/**
 * The update of a gauge document (bucket/gauge-increments.js): counts and sums
 * by $inc, each tier's min by $min, its max and its last { t, v } by $max, in
 * one upsert. A sum is sent as a BSON double whatever its value, so the stored
 * sum is a double from its first write on: a sum of levels can pass int64
 * (1e15 a second for a day), where $inc on an int64 would fail. `last` is
 * built with t before v (BSON compares a subdocument field by field, in order).
 */
export function gaugeUpdate (id, { metric, date, inc, min, max, last, detail }) {
  const $inc = {}
  for (const path in inc) $inc[path] = path.endsWith('.sum') ? new Double(inc[path]) : inc[path]
  const $max = { ...max }
  for (const path in last) $max[path] = { t: new Date(last[path].t), v: last[path].v }
  const update = { $inc, $min: min, $max, $setOnInsert: { metric, date: new Date(date) } }
  if (detail) update.$set = { detail }
  return { updateOne: { filter: { _id: id }, update, upsert: true } }
}

/**
 * The registry entry of a metric written now: first/last seen merged, last
 * write set, and `busyDay` (the UTC day it was seen busy, registry-write-cache.js) when given
 */
export function registryUpdate (name, { firstSeen, lastSeen, busyDay, kind }, now) {
  const $max = { lastSeen: new Date(lastSeen), lastWrite: new Date(now) }
  if (busyDay !== undefined) $max.busyDay = new Date(busyDay)
  const update = { $min: { firstSeen: new Date(firstSeen) }, $max }
  // a new distribution's kind and accuracy, a gauge's kind: written by its first write, never changed (a counter has no field)
  const fields = kind === undefined ? null : kindFields(kind)
  if (fields) update.$setOnInsert = fields
  return { updateOne: { filter: { _id: name }, update, upsert: true } }
}

// Each collection's part of a merged unit: the key prefix its outcomes are
// filed under (the writer answers a unit from the outcomes of its keys),
// and how an entry becomes an operation.
const PARTS = [
  { collection: 'daily', prefix: 'd:', field: 'daily', toOperation: (id, doc) => incrementUpdate(id, doc) },
  { collection: 'monthly', prefix: 'm:', field: 'monthly', toOperation: (id, doc) => incrementUpdate(id, doc) },
  // a distribution's documents are kept in tiers until now (bucket/tiered-document.js)
  { collection: 'distributionDaily', prefix: 'D:', field: 'distributionDaily', toOperation: (id, doc) => distributionUpdate(id, updateOfTiers(doc)) },
  { collection: 'distributionMonthly', prefix: 'M:', field: 'distributionMonthly', toOperation: (id, doc) => distributionUpdate(id, updateOfTiers(doc)) },
  // a distribution's minute histograms: $inc of buckets only
  { collection: 'distributionMinutes', prefix: 'Dm:', field: 'distributionMinutes', toOperation: (id, doc) => incrementUpdate(id, doc) },
  { collection: 'gaugeDaily', prefix: 'gd:', field: 'gaugeDaily', toOperation: (id, doc) => gaugeUpdate(id, doc) },
  { collection: 'gaugeMonthly', prefix: 'gm:', field: 'gaugeMonthly', toOperation: (id, doc) => gaugeUpdate(id, doc) },
  { collection: 'metrics', prefix: 'r:', field: 'metrics', toOperation: (name, seen, now) => registryUpdate(name, seen, now) }
]
const PREFIX = Object.fromEntries(PARTS.map(p => [p.field, p.prefix]))

/** The key an operation's outcome is filed under: its part (a PARTS field), and the document id (a metric's name for 'metrics') */
export const docKey = (part, id) => PREFIX[part] + id

/**
 * A merged unit (see mergeWriteUnits) as operations per collection.
 * → [{ collection: a PARTS collection, keys: string[], operations: object[] }]
 * (collections with nothing to write are left out)
 */
export function operationsOf (merged, now) {
  const out = []
  for (const { collection, prefix, field, toOperation } of PARTS) {
    const entries = merged[field]
    if (entries.size === 0) continue
    const keys = []
    const operations = []
    for (const [id, value] of entries) {
      keys.push(prefix + id)
      operations.push(toOperation(id, value, now))
    }
    out.push({ collection, keys, operations })
  }
  return out
}

/** The keys of a unit's operations, as operationsOf files them: documents (counted for FLUSH_MAX_DOCS) and all */
export function unitKeys (unit) {
  const docKeys = []
  for (const { field } of PARTS) {
    if (field === 'metrics') continue
    for (const id of unit[field].keys()) docKeys.push(docKey(field, id))
  }
  const allKeys = docKeys.slice()
  for (const name of unit.metrics.keys()) allKeys.push(docKey('metrics', name))
  return { docKeys, allKeys }
}
