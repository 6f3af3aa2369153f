// Document sizes and the storage they project to (docs/benchmarks.md#what-retention-saves): BSON
// sizes of documents with every slot written, computed, not read from a
// server, so they are the same on any backend.
import { BSON } from 'mongodb'
import { nestIncrements } from './bench-reads.js'
import { dayZeroIncrements } from '../../src/bucket/minute-fields.js'

const METRIC = 'app.requests.total' // 18 characters
const KB = 1000

function documentOf (id, date, inc, value) {
  const filled = Object.fromEntries(Object.keys(inc).map(field => [field, value]))
  return { _id: id, metric: METRIC, date: new Date(date), ...nestIncrements(filled) }
}

/**
 * value: what every slot holds — a whole count is stored as a 4-byte int32,
 * a fractional sum as an 8-byte double.
 * → { dailyBytes, downsampledBytes, monthlyBytes, projections: [{ label, firstYearBytes, perYearBytes }] }
 */
export function documentSizes ({ metrics = 10_000, minuteDays = 90, value = 7 } = {}) {
  const day = Date.UTC(2026, 10, 21)
  const daily = documentOf(`${METRIC}/20261121`, day, dayZeroIncrements(), value)
  const downsampled = { ...daily, detail: 'quarterHour' }
  delete downsampled.minute
  // a month with every day written (a day's field exists once its daily document does)
  const monthDays = Object.fromEntries([['monthly', 0], ...Array.from({ length: 30 }, (_, i) => [`daily.${i + 1}`, 0])])
  const monthly = documentOf(`${METRIC}/202611`, Date.UTC(2026, 10, 1), monthDays, value)
  const dailyBytes = BSON.calculateObjectSize(daily)
  const downsampledBytes = BSON.calculateObjectSize(downsampled)
  const monthlyBytes = BSON.calculateObjectSize(monthly)
  const minuteKept = minuteDays + 1 // today is day 0
  const monthlyYear = 12 * metrics * monthlyBytes
  return {
    metrics,
    value,
    dailyBytes,
    downsampledBytes,
    monthlyBytes,
    projections: [
      { label: 'no retention (every minute kept)', firstYearBytes: 365 * metrics * dailyBytes + monthlyYear, perYearBytes: 365 * metrics * dailyBytes + monthlyYear },
      { label: `default: MINUTE_RETENTION_DAYS=${minuteDays}, daily documents forever`, firstYearBytes: metrics * (minuteKept * dailyBytes + (365 - minuteKept) * downsampledBytes) + monthlyYear, perYearBytes: 365 * metrics * downsampledBytes + monthlyYear }
    ],
    unit: KB
  }
}
