// What `npm run check` verifies of a distribution's minute histograms
// (its minute-hour documents: one document per metric per UTC hour, `minute.M` →
// { count, sum, zero?, positive?, negative? }), as pure functions (docs/kinds/distribution.md#retention-and-the-check):
//   - every key is well formed: a minute is 0..59 in canonical decimal, a
//     minute holds histogram parts only, bucket keys are canonical integers,
//     counts finite non-negative numbers (left for a person to look at);
//   - every minute's count and histogram total (zero + Σ positive + Σ
//     negative) equal its daily document's `minute.H.M.count`, and its sum
//     the day's sum, within 1e-9 relative — the condition a read needs to
//     answer that minute's percentile (reader/minute-histograms.js).
// A histogram that fails the second (a flush cut between the two documents)
// is one no read uses: the minute's count is its day's, and it reads no
// percentile, now or ever (the values it lacks or holds too many of are kept
// nowhere else). `--repair` removes it, conditioned on its value as confirmed
// (minuteHistogramRemoval), which changes no answer (docs/adr/0084). A minute
// the hour document lacks, or an hour with no document, is no violation: the
// same lost write, already in the state the repair leaves.
import { parseBucketKey } from '../../bucket/distribution-sketch.js'
import { minuteHoldsDay } from '../../bucket/distribution-stats.js'
import { dayId, parseHourId, startOfDay, utcParts } from '../../bucket/time.js'

const MINUTE_KEY = /^(?:[0-9]|[1-5][0-9])$/
const SIDES = ['positive', 'negative']
const isCount = n => typeof n === 'number' && Number.isFinite(n) && n >= 0
const isPlainObject = v => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
const shortNumber = n => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12))))

/** A stored minute's histogram → { total (zero + Σ buckets), count, sum }, or { problem } when it is not one */
export function readMinuteHistogram (node) {
  if (!isPlainObject(node)) return { problem: `${JSON.stringify(node)} is not a histogram` }
  let total = 0
  for (const key of Object.keys(node)) {
    if (key === 'count') {
      if (!isCount(node.count)) return { problem: `count ${JSON.stringify(node.count)} is not a count` }
    } else if (key === 'sum') {
      if (!(typeof node.sum === 'number' && Number.isFinite(node.sum))) return { problem: `sum ${JSON.stringify(node.sum)} is not a finite number` }
    } else if (key === 'zero') {
      if (!isCount(node.zero)) return { problem: `zero ${JSON.stringify(node.zero)} is not a count` }
      total += node.zero
    } else if (SIDES.includes(key)) {
      if (!isPlainObject(node[key])) return { problem: `${key} is not an object of bucket counts` }
      for (const [index, n] of Object.entries(node[key])) {
        if (parseBucketKey(index) === null) return { problem: `${key} has a bucket key ${JSON.stringify(index)} that is not a canonical integer` }
        if (!isCount(n)) return { problem: `${key}.${index} ${JSON.stringify(n)} is not a count` }
        total += n
      }
    } else {
      return { problem: `${JSON.stringify(key)} is not a minute histogram's part (count, sum, zero, positive, negative)` }
    }
  }
  return { total, count: node.count, sum: node.sum }
}

/** The daily document id a minute-hour document's minutes belong to, and its hour: { metric, dailyId, dayStart, hour } or null */
export function dayOfHourId (id) {
  const parsed = typeof id === 'string' ? parseHourId(id) : null
  if (!parsed) return null
  const dayStart = startOfDay(parsed.date)
  return { metric: parsed.metric, dailyId: dayId(parsed.metric, dayStart), dayStart, hour: utcParts(parsed.date).hour }
}

const UNREAD = 'no read uses it (the minute reads no percentile; its count is the day\'s): --repair removes it'

/**
 * The repair of a confirmed mismatch (a violation carrying `seen`): its
 * minute removed from the hour document, only while it still holds what was
 * seen (a write that moved it since is left for the next check). The filter
 * names each of the minute's fields (count, sum, zero, every bucket) apart: an
 * embedded document matches whole only in its stored field order, which a
 * later flush's new bucket makes differ from a read's (integer-like keys come
 * back sorted); every write adds to `count`, so no bucket added since passes it.
 * → { filter, update }
 */
export function minuteHistogramRemoval ({ id, field, seen }) {
  const filter = { _id: id }
  const minute = seen.hour
  for (const part of ['count', 'sum', 'zero']) filter[`${field}.${part}`] = minute[part] === undefined ? { $exists: false } : minute[part]
  for (const side of SIDES) {
    if (minute[side] === undefined) filter[`${field}.${side}`] = { $exists: false }
    else for (const [key, n] of Object.entries(minute[side])) filter[`${field}.${side}.${key}`] = n
  }
  return { filter, update: { $unset: { [field]: '' } } }
}

/**
 * One minute-hour document against its daily document.
 * hourDoc: the stored document; dailyDoc: its day's daily document (at least
 * its `minute`), null when there is none; unreadBefore: the first day
 * (ms) whose minute histograms a read uses (the later of the histograms'
 * horizon, MINUTE_HISTOGRAM_DAYS, and the daily horizon): before it ingest
 * writes a minute without its histogram and retention deletes the rest
 * (orphans of a pass cut short among them), so only the shape of a
 * histogram is judged there, not its total. null = every day.
 * → [violation] where a violation is { id, field, expected, found, note,
 *   against?, seen? }: `seen` (the hour's minute and the day's minute as read)
 *   on a cross-document mismatch, which a flush half-way makes for a moment
 *   (the two documents are written apart): the caller confirms it unchanged,
 *   and, repairing, removes it (minuteHistogramRemoval).
 */
export function verifyMinuteHour (hourDoc, dailyDoc, { unreadBefore = null } = {}) {
  const id = hourDoc._id
  const where = dayOfHourId(id)
  if (!where) return [{ id: String(id), field: '_id', expected: 'metric/YYYYMMDDHH', found: JSON.stringify(id), note: 'not a minute-hour document: left for a person to look at' }]
  if (hourDoc.minute === undefined) return []
  if (!isPlainObject(hourDoc.minute)) return [{ id, field: 'minute', expected: 'an object of minutes', found: JSON.stringify(hourDoc.minute), note: 'left for a person to look at' }]
  const violations = []
  const { dailyId, dayStart, hour } = where
  const unread = unreadBefore !== null && dayStart < unreadBefore
  const dayHour = isPlainObject(dailyDoc?.minute) ? dailyDoc.minute[hour] : undefined
  for (const m of Object.keys(hourDoc.minute)) {
    const field = `minute.${m}`
    if (!MINUTE_KEY.test(m)) { violations.push({ id, field, expected: 'a minute 0..59', found: JSON.stringify(m), note: 'left for a person to look at' }); continue }
    const read = readMinuteHistogram(hourDoc.minute[m])
    if (read.problem) { violations.push({ id, field, expected: 'a minute histogram', found: read.problem, note: 'left for a person to look at' }); continue }
    if (unread) continue
    const seen = { hour: hourDoc.minute[m], day: dailyDoc === null ? null : isPlainObject(dayHour) ? dayHour[m] : undefined }
    if (dailyDoc === null || seen.day === undefined) {
      const lacks = dailyDoc === null ? 'no daily document' : `no minute ${hour}:${m} in its daily document`
      const note = `${UNREAD} (a histogram of a minute the day does not hold)`
      violations.push({ id, field, expected: 'a minute its daily document holds', found: `a histogram of ${shortNumber(read.total)}, ${lacks}`, against: dailyId, note, seen })
      continue
    }
    // a daily minute that is not { count, … } is the daily document's own violation (the check reports it there)
    if (!isPlainObject(seen.day) || (seen.day.count !== undefined && !isCount(seen.day.count))) continue
    const count = seen.day.count ?? 0
    const sum = typeof seen.day.sum === 'number' ? seen.day.sum : 0
    // the read's own rule: a minute the check passes is one a read takes
    if (minuteHoldsDay(hourDoc.minute[m], { ...seen.day, count })) continue
    violations.push({
      id,
      field,
      expected: `a histogram of ${shortNumber(count)} values summing to ${shortNumber(sum)} (minute.${hour}.${m})`,
      found: `a histogram of ${shortNumber(read.total)}, count ${read.count === undefined ? 'none' : shortNumber(read.count)}, sum ${read.sum === undefined ? 'none' : shortNumber(read.sum)}`,
      against: dailyId,
      note: UNREAD,
      seen
    })
  }
  return violations
}
