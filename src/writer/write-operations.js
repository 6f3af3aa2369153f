// How a write unit becomes database operations: the one place that knows
// the shape of an increment upsert and of a registry update. The plain flush
// (flush-executor.js) and the keyed transaction (idempotency/keyed-flush.js) both
// send what this module builds.
import { kindFields } from '../bucket/metric-kinds.js'
import { distributionUpdate, gaugeUpdate, incrementUpdate } from '../kinds/document-updates.js'
import { DOCUMENT_PARTS } from '../kinds/index.js'

export { distributionUpdate, gaugeUpdate, incrementUpdate }

/**
 * The registry entry of a metric written now: first/last seen merged,
 * `busyDay` (the UTC day it was seen busy, registry-write-cache.js) when
 * given; `added` (now) when the write makes the entry, never moved after:
 * the name index's looks read what was added (registry/name-index-refresh.js)
 */
export function registryUpdate (name, { firstSeen, lastSeen, busyDay, kind }, now) {
  const $max = { lastSeen: new Date(lastSeen) }
  if (busyDay !== undefined) $max.busyDay = new Date(busyDay)
  // a new distribution's kind and accuracy, a gauge's kind: written by its first write, never changed (a counter has no field)
  const fields = kind === undefined ? null : kindFields(kind)
  // lastWrite too, once: what a 0.1.0 instance's look reads (a rolling upgrade)
  const added = new Date(now)
  const update = { $min: { firstSeen: new Date(firstSeen) }, $max, $setOnInsert: { added, lastWrite: added, ...fields } }
  return { updateOne: { filter: { _id: name }, update, upsert: true } }
}

// Each collection's part of a merged unit (every kind's, ../kinds/index.js,
// then the registry's): the key prefix its outcomes are filed under (the
// writer answers a unit from the outcomes of its keys), and how an entry
// becomes an operation.
const PARTS = [
  ...DOCUMENT_PARTS.map(({ collection, prefix, toOperation }) => ({ collection, prefix, field: collection, toOperation })),
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
  // a unit's held values are documents only once merged (../kinds/write-unit.js mergeWriteUnits)
  if (merged.held) throw new TypeError('operationsOf takes a merged unit (mergeWriteUnits): this one holds values not yet built into documents')
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
