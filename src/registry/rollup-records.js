// When each declared rollup began (docs/tags.md#declared-rollups): a rollup
// holds every event from MAX_FUTURE_MS after the first whole minute after an
// instance first ran with its rule (an event stored before may be dated that
// far ahead), and is read only for windows from then on; before that a
// read sums the name's series. One record per rule's glob and subset in the
// `rollups` collection, written once ($setOnInsert), so every instance and
// every restart agrees on it. A record whose rule is no longer declared is
// deleted: declared again later, its rollup begins again then (the events
// between were not counted in it).
import { rollupId } from '../tags/rollups.js'

const MINUTE_MS = 60_000

/**
 * Records `ids` not recorded yet in `collection`, from the next whole minute
 * (and `leadMs` after it), and forgets the others → Map id → since (epoch
 * ms). Declared thresholds and zones are recorded so too
 * (threshold-records.js, zone-records.js).
 */
export async function recordDeclared (collection, ids, now, leadMs = 0) {
  const since = new Date(Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS + leadMs)
  await collection.deleteMany({ _id: { $nin: ids } })
  for (const id of ids) await collection.updateOne({ _id: id }, { $setOnInsert: { since } }, { upsert: true })
  const records = ids.length === 0 ? [] : await collection.find({ _id: { $in: ids } }).toArray()
  return new Map(records.map(r => [r._id, r.since.getTime()]))
}

/**
 * Records the rules' rollups not recorded yet and forgets the others
 * → sinceOf(match, keys) → epoch ms, or undefined. leadMs: MAX_FUTURE_MS, as
 * an event stored before (with no rollup) may be dated up to that far ahead
 */
export async function recordRollups (collection, rules, now, leadMs = 0) {
  const sinceById = await recordDeclared(collection, rules.flatMap(r => r.by.map(keys => rollupId(r.match, keys))), now, leadMs)
  return (match, keys) => sinceById.get(rollupId(match, keys))
}
