// A distribution's minute histograms (one document per metric-hour in
// their minute-hour documents, bucket/distribution-increments.js) put where a read of
// a minute's percentile looks for them: into the minute tiers of the day
// documents a plan read. A minute tier holds count, sum, min and max; with
// its histogram grafted on it is a whole tier, and merges as any other.
// Where the hour's document lacks the minute, or holds other values than the
// day counts — another count or another sum beside it, or buckets that do
// not add up to its count (a flush cut between the two documents, retried
// or not) — the minute gets no
// histogram at all: its tier's buckets then hold fewer values than it counts, and so does
// every range it is merged into, whatever the other minutes hold (a minute
// over by as many as another is under cannot make up for it), so such a
// range has no percentile (bucket/distribution-stats.js histogramHoldsCount).
import { bucketsIn, minuteHoldsDay } from '../bucket/distribution-stats.js'
import { HOUR_MS, hourId } from '../bucket/time.js'

const HISTOGRAM_PARTS = ['zero', 'positive', 'negative']
const isPlainObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The histogram parts of a stored minute that hold exactly the values of
 * the day's minute tier (minuteHoldsDay), else null. Throws TypeError for
 * parts no histogram has (an array or a number for a side; keys and counts
 * are judged by bucketedCount): a document is read, not trusted.
 */
function partsHolding (stored, tier) {
  if (!isPlainObject(stored)) return null
  for (const side of ['positive', 'negative']) {
    if (stored[side] !== undefined && !isPlainObject(stored[side])) throw new TypeError(`a minute histogram's ${side} side is ${JSON.stringify(stored[side])}, not an object of buckets`)
  }
  if (!minuteHoldsDay(stored, tier)) return null
  const parts = {}
  for (const part of HISTOGRAM_PARTS) if (stored[part] !== undefined) parts[part] = stored[part]
  return parts
}

/** The plan's minute pieces by the id of their hour's document → Map<hourId, [{ dayId, hour, minute }]> */
export function minutePiecesByHour (metric, plan) {
  const byHour = new Map()
  for (const pieces of plan.ranges) {
    for (const { collection, id, date, path } of pieces) {
      if (collection !== 'daily' || path[0] !== 'minute') continue
      const hour = path[1]
      const key = hourId(metric, date + Number(hour) * HOUR_MS)
      let list = byHour.get(key)
      if (!list) byHour.set(key, (list = []))
      list.push({ dayId: id, hour, minute: path[2] })
    }
  }
  return byHour
}

/**
 * Sets each minute piece's tier of the plan in `dailyDocs` (the plan's day
 * documents, changed in place) to hold its histogram: its hour document's in
 * `hourDocs` (the minute-hour documents read, a Map by id, their `minute`
 * at least: minutePiecesByHour's keys), or none. Judging a stored minute
 * walks its buckets, so charge(n) is awaited with each minute's before it is
 * walked: the caller's pacing and budget (it throws past a limit). → the
 * number of the plan's minute-hour documents among hourDocs
 */
export async function graftMinuteHistograms (hourDocs, metric, plan, dailyDocs, { charge = () => null } = {}) {
  const byHour = minutePiecesByHour(metric, plan)
  if (byHour.size === 0) return 0
  const days = new Map(dailyDocs.map(d => [d._id, d]))
  let read = 0
  for (const [key, pieces] of byHour) {
    if (hourDocs.has(key)) read++
    const minutes = hourDocs.get(key)?.minute
    for (const { dayId, hour, minute } of pieces) {
      const tier = days.get(dayId)?.minute?.[hour]?.[minute]
      if (tier === null || typeof tier !== 'object') continue
      const stored = isPlainObject(minutes) ? minutes[minute] : undefined
      await charge(isPlainObject(stored) ? bucketsIn(stored) : 0)
      const parts = partsHolding(stored, tier)
      // only the hour document's parts, and only where they hold the minute's count: a day document's minute holds none, and is not trusted to
      for (const part of HISTOGRAM_PARTS) tier[part] = parts === null ? undefined : parts[part]
    }
  }
  return read
}
