// Distribution documents as the writer would leave them, built in memory (no
// database): buildDistributionUnit's updates applied as MongoDB applies
// { $inc, $min, $max }, for tests of pure readers.
import { buildDistributionUnit } from '../../src/bucket/distribution-increments.js'
import { QUARTER_HOUR_DETAIL } from '../../src/bucket/increments.js'
import { parseBucketId, parseHourId, startOfDay } from '../../src/bucket/time.js'

/** `doc` after { $inc: inc, $min: min, $max: max } (dotted paths nest; $min/$max set a missing field) */
export function applyUpdate (doc, { inc = {}, min = {}, max = {} }) {
  const apply = (path, f) => {
    const parts = path.split('.')
    let node = doc
    for (const p of parts.slice(0, -1)) node = node[p] ??= {}
    node[parts.at(-1)] = f(node[parts.at(-1)])
  }
  for (const [path, v] of Object.entries(inc)) apply(path, old => (old ?? 0) + v)
  for (const [path, v] of Object.entries(min)) apply(path, old => (old === undefined ? v : Math.min(old, v)))
  for (const [path, v] of Object.entries(max)) apply(path, old => (old === undefined ? v : Math.max(old, v)))
  return doc
}

/**
 * { daily: [docs], monthly: [docs], minutes: [docs] } holding `events` ([{ metric, value, time }]),
 * written a batch of `batch` events at a time (each batch one flush, so the
 * documents are the sum of several updates). keepsMinutes as for
 * buildDistributionUnit, and thresholdsOf (declared thresholds); minuteFrom: days before it downsampled afterwards
 * (minutes removed, detail 'quarterHour', their minute-hour documents deleted), as retention leaves them.
 */
export function distributionDocumentsOf (events, mapping, { batch = 100, keepsMinutes, thresholdsOf, minuteFrom = null } = {}) {
  const daily = new Map()
  const monthly = new Map()
  const minutes = new Map()
  const write = (docs, id, update) => {
    const doc = applyUpdate(docs.get(id) ?? { _id: id }, update)
    if (update.detail) doc.detail = update.detail
    docs.set(id, doc)
  }
  for (let i = 0; i < events.length; i += batch) {
    const unit = buildDistributionUnit(events.slice(i, i + batch), mapping, { keepsMinutes, thresholdsOf })
    for (const [id, update] of unit.daily) write(daily, id, update)
    for (const [id, update] of unit.monthly) write(monthly, id, update)
    for (const [id, update] of unit.minutes) write(minutes, id, { inc: update.inc })
  }
  for (const [id, doc] of minutes) {
    const { date } = parseHourId(id)
    doc.metric = parseHourId(id).metric
    doc.date = new Date(date)
    if (minuteFrom !== null && startOfDay(date) < minuteFrom) minutes.delete(id)
  }
  for (const [id, doc] of daily) {
    if (minuteFrom !== null && parseBucketId(id).date < minuteFrom) {
      delete doc.minute
      doc.detail = QUARTER_HOUR_DETAIL
    }
  }
  return { daily: [...daily.values()], monthly: [...monthly.values()], minutes: [...minutes.values()] }
}
