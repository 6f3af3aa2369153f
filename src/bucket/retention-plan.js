// Which daily documents of a metric the retention job touches,
// as `_id` ranges: ids are metric-first, so one metric's days are one range.
// Pure: no clock, no I/O.
import { DAY_MS, dayId, hourId, metricIdPrefix } from './time.js'

/**
 * The job's bounds for one metric from its detail horizons
 * ({ minuteFrom, dailyFrom }: the first UTC day still kept with minute
 * detail / with a daily document, ms; null = forever):
 *   downsampleBefore: documents of days before it lose `minute` (one day
 *     past the horizon, so that the job never races ingest on the horizon day);
 *   deleteBefore: documents of days before it are deleted.
 */
export function retentionBounds ({ minuteFrom, dailyFrom }) {
  return {
    downsampleBefore: minuteFrom == null ? null : minuteFrom - DAY_MS,
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
 * The `_id` filter of a metric's minute-hour documents (distributionMinutes,
 * `metric/YYYYMMDDHH`) of days before `before` (a UTC midnight), from its
 * first: the hour digits are fixed-width, so every hour of an earlier day
 * sorts below the first hour of `before`.
 */
export function hourIdRangeBefore (metric, before) {
  return { $gte: metricIdPrefix(metric), $lt: hourId(metric, before) }
}

/**
 * The first day a metric's minute-hour documents may still be needed on:
 * those of days before it go once their day has no minutes (downsampled or
 * deleted). The later of the job's two bounds; null when it has neither.
 */
export function minuteHoursBefore ({ downsampleBefore, deleteBefore }) {
  if (downsampleBefore == null) return deleteBefore
  if (deleteBefore == null) return downsampleBefore
  return Math.max(downsampleBefore, deleteBefore)
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
