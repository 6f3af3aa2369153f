// Which daily documents of a metric the retention job touches,
// as `_id` ranges: ids are metric-first, so one metric's days are one range.
// Pure: no clock, no I/O.
import { DAY_MS, dayId, hourId, metricIdPrefix } from './time.js'

/**
 * The job's bounds for one metric from its detail horizons
 * ({ minuteFrom, minuteHistogramFrom?, dailyFrom }: the first UTC day still
 * kept with minute detail / with a distribution's minute histograms / with a
 * daily document, ms; null = forever; minuteHistogramFrom absent: minuteFrom):
 *   downsampleBefore: documents of days before it lose `minute` (one day
 *     past the horizon, so that the job never races ingest on the horizon day);
 *   histogramsBefore: a distribution's minute-hour documents of days before
 *     it are deleted (one day past their horizon, likewise);
 *   deleteBefore: documents of days before it are deleted.
 */
export function retentionBounds ({ minuteFrom, minuteHistogramFrom = minuteFrom, dailyFrom }) {
  return {
    downsampleBefore: minuteFrom == null ? null : minuteFrom - DAY_MS,
    histogramsBefore: minuteHistogramFrom == null ? null : minuteHistogramFrom - DAY_MS,
    deleteBefore: dailyFrom == null ? null : dailyFrom
  }
}

/**
 * The `_id` filter of a metric's daily documents of days in [from, before):
 * from null = from its first day. Metric names never contain '/', and '/'
 * sorts after every character a name may end a prefix with, so the range
 * holds this metric's documents only.
 */
export function dayIdRange (metric, from, before) {
  return { $gte: from == null ? metricIdPrefix(metric) : dayId(metric, from), $lt: dayId(metric, before) }
}

/**
 * The `_id` filter of a metric's minute-hour documents (a distribution's,
 * `metric/YYYYMMDDHH`) of days before `before` (a UTC midnight), from its
 * first: the hour digits are fixed-width, so every hour of an earlier day
 * sorts below the first hour of `before`.
 */
export function hourIdRangeBefore (metric, before) {
  return { $gte: metricIdPrefix(metric), $lt: hourId(metric, before) }
}

/**
 * The first day a metric's minute-hour documents may still be read on: no
 * read uses a minute histogram of a day before its histograms' horizon
 * (a percentile is planned with it) or of a deleted day, and ingest writes
 * none there. The later of histogramsBefore and deleteBefore; null when it
 * has neither.
 */
export function minuteHoursBefore ({ histogramsBefore, deleteBefore }) {
  if (histogramsBefore == null) return deleteBefore
  if (deleteBefore == null) return histogramsBefore
  return Math.max(histogramsBefore, deleteBefore)
}

/**
 * Where the downsampling scan of a metric may start: documents before the
 * bound of the last complete pass under the same rules were all downsampled
 * then, and ingest writes no minute field there since. null = scan from the
 * metric's first day (first pass, or the rules changed).
 */
export function downsampleScanFrom (currentBefore, previousBefore) {
  if (previousBefore == null || currentBefore == null) return null
  return Math.min(previousBefore, currentBefore) - DAY_MS
}
