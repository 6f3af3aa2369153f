// Documents as ingest writes them, built in memory (no database): for tests
// of pure readers such as the range planner.
import { buildWriteUnit } from '../../src/kinds/write-unit.js'

/** A document as MongoDB would hold it after these $inc maps (dotted paths nest) */
export function applyInc (doc, inc) {
  for (const [path, v] of Object.entries(inc)) {
    const parts = path.split('.')
    let node = doc
    for (const p of parts.slice(0, -1)) node = node[p] ??= {}
    node[parts.at(-1)] = (node[parts.at(-1)] ?? 0) + v
  }
  return doc
}

/** Documents as ingest writes them, then as retention leaves them at the horizons */
export function documentsOf (events, { minuteFrom = null, dailyFrom = null } = {}) {
  const unit = buildWriteUnit(events)
  const toDoc = (id, inc) => applyInc({ _id: id }, inc)
  const daily = []
  for (const [id, { date, inc }] of unit.daily) {
    if (dailyFrom !== null && date < dailyFrom) continue // deleted
    const doc = toDoc(id, inc)
    if (minuteFrom !== null && date < minuteFrom) delete doc.minute // downsampled
    daily.push(doc)
  }
  const monthly = [...unit.monthly].map(([id, { inc }]) => toDoc(id, inc))
  return { daily, monthly }
}
