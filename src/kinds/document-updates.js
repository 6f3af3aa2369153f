// How one document of a kind is written: the upsert of a counter's
// increments, of a distribution's tiers and of a gauge's tiers. Pure: the
// operations the writer (writer/write-operations.js), the preallocator and
// the check's repairs send.
import { Double } from 'mongodb'

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
