// A distribution's minute histograms (distributionMinutes: one document per
// metric per UTC hour, `minute.M` → { zero?, positive?, negative? }) as the
// writer leaves them: for each value of a day that keeps its minutes, its
// weight $inc'ed into its minute's bucket, upserted, never preallocated.
// Built here from the same bucket mapping, for the lifecycle's tests.
import { bucketField } from '../../src/bucket/distribution-sketch.js'
import { HOUR_MS, hourId, startOfDay, utcParts } from '../../src/bucket/time.js'

/**
 * events: [{ metric, value, time, weight? }]; keepsMinutes(metric, dayStart)
 * as for buildDistributionUnit (absent: every day keeps them)
 * → Map<hourId, { metric, date, inc: { 'minute.M.<part>': n } }>
 */
export function minuteHourUpdatesOf (events, mapping, { keepsMinutes } = {}) {
  const docs = new Map()
  for (const { metric, value, time, weight = 1 } of events) {
    if (keepsMinutes && !keepsMinutes(metric, startOfDay(time))) continue
    const id = hourId(metric, time)
    const doc = docs.get(id) ?? { metric, date: new Date(time - (time % HOUR_MS)), inc: {} }
    const path = `minute.${utcParts(time).minute}.${bucketField(mapping, value)}`
    doc.inc[path] = (doc.inc[path] ?? 0) + weight
    docs.set(id, doc)
  }
  return docs
}

/** Writes the minute histograms of `events` as the writer does: one $inc upsert per minute-hour document */
export async function writeMinuteHistograms (db, events, mapping, options) {
  const updates = minuteHourUpdatesOf(events, mapping, options)
  if (updates.size === 0) return updates
  await db.collection('distributionMinutes').bulkWrite([...updates].map(([id, { metric, date, inc }]) => ({
    updateOne: { filter: { _id: id }, update: { $inc: inc, $setOnInsert: { metric, date } }, upsert: true }
  })))
  return updates
}

/** The ids of the 24 minute-hour documents a UTC day may have */
export const hourIdsOfDay = (metric, dayStart) => Array.from({ length: 24 }, (_, h) => hourId(metric, dayStart + h * HOUR_MS))
