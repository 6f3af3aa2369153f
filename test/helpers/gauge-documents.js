// Gauge documents as the writer would leave them, built in memory (no
// database): buildGaugeUnit's updates applied as MongoDB applies
// { $inc, $min, $max } — `last` { t, v } by BSON's order of subdocuments
// (t first, then v) — for tests of pure readers.
import { buildGaugeUnit } from '../../src/bucket/gauge-increments.js'
import { QUARTER_HOUR_DETAIL } from '../../src/bucket/increments.js'
import { parseBucketId } from '../../src/bucket/time.js'

/** BSON's order of two { t: Date, v: number }: field by field, t then v → −1, 0, 1 */
export function compareLast (a, b) {
  const ta = a.t.getTime()
  const tb = b.t.getTime()
  if (ta !== tb) return ta < tb ? -1 : 1
  return a.v === b.v ? 0 : a.v < b.v ? -1 : 1
}

/** `doc` after the update gaugeUpdate sends (dotted paths nest; $min/$max set a missing field; last as a stored { t: Date, v }) */
export function applyGaugeUpdate (doc, { inc = {}, min = {}, max = {}, last = {} }) {
  const apply = (path, f) => {
    const parts = path.split('.')
    let node = doc
    for (const p of parts.slice(0, -1)) node = node[p] ??= {}
    node[parts.at(-1)] = f(node[parts.at(-1)])
  }
  for (const [path, v] of Object.entries(inc)) apply(path, old => (old ?? 0) + v)
  for (const [path, v] of Object.entries(min)) apply(path, old => (old === undefined ? v : Math.min(old, v)))
  for (const [path, v] of Object.entries(max)) apply(path, old => (old === undefined ? v : Math.max(old, v)))
  for (const [path, { t, v }] of Object.entries(last)) {
    const stored = { t: new Date(t), v }
    apply(path, old => (old === undefined || compareLast(stored, old) > 0 ? stored : old))
  }
  return doc
}

/**
 * { daily: [docs], monthly: [docs] } holding gauge `events`
 * ([{ metric, value, time }]), written `batch` events at a time (each batch
 * one flush), or as the given `batches` (arrays of events) in their order.
 * keepsMinutes as for buildGaugeUnit; minuteFrom: days before it downsampled
 * afterwards (minutes removed, detail 'quarterHour').
 */
export function gaugeDocumentsOf (events, { batch = 100, batches, keepsMinutes, minuteFrom = null } = {}) {
  const daily = new Map()
  const monthly = new Map()
  const write = (docs, id, update) => {
    const doc = applyGaugeUpdate(docs.get(id) ?? { _id: id }, update)
    if (update.detail) doc.detail = update.detail
    docs.set(id, doc)
  }
  batches ??= Array.from({ length: Math.ceil(events.length / batch) }, (_, i) => events.slice(i * batch, (i + 1) * batch))
  for (const part of batches) {
    if (part.length === 0) continue
    const unit = buildGaugeUnit(part, { keepsMinutes })
    for (const [id, update] of unit.daily) write(daily, id, update)
    for (const [id, update] of unit.monthly) write(monthly, id, update)
  }
  for (const [id, doc] of daily) {
    if (minuteFrom !== null && parseBucketId(id).date < minuteFrom) {
      delete doc.minute
      doc.detail = QUARTER_HOUR_DETAIL
    }
  }
  return { daily: [...daily.values()], monthly: [...monthly.values()] }
}
