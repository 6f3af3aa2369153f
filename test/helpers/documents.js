// Documents as ingest writes them, built in memory (no database): for tests
// of pure readers such as the range planner.
import { buildWriteUnit } from '../../src/bucket/increments.js'
import { hierarchicalLayout } from '../../src/bucket/layouts.js'

/** Documents as ingest writes them, then as retention leaves them at the horizons */
export function documentsOf (events, { minuteFrom = null, dailyFrom = null } = {}, layout = hierarchicalLayout) {
  const unit = buildWriteUnit(events, layout)
  const toDoc = (id, inc) => {
    const doc = { _id: id }
    for (const [field, v] of Object.entries(inc)) {
      const path = field.split('.')
      let node = doc
      for (const k of path.slice(0, -1)) node = node[k] ??= {}
      node[path.at(-1)] = (node[path.at(-1)] ?? 0) + v
    }
    return doc
  }
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
