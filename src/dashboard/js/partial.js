// A chart's last point is partial when its bucket ends after now: the day,
// month or quarter-hour still running holds only part of its step, so it is
// drawn as partial rather than as a drop (docs/adr/0046-dashboard-partial-bucket-and-latency-panel.md). Pure.
import { instantOf } from './zone.js'

/**
 * A series answer ({ to, timestamps }): its last point's bucket runs from the
 * last timestamp to `to` (the API rounds the window's end up to the step).
 */
export function seriesLastPartial ({ to, timestamps }, now) {
  return timestamps.length > 0 && to > now
}

/** The end of month 'YYYY-MM' in tz: the first instant of the month after it */
export function monthEnd (month, tz) {
  const [year, m] = month.split('-').map(Number)
  return m === 12 ? instantOf(tz, year + 1, 1, 1) : instantOf(tz, year, m + 1, 1)
}

/** A ytd answer ({ tz, months: [{ month: 'YYYY-MM' }] }): its last month ends after now */
export function ytdLastPartial ({ tz, months }, now) {
  return months.length > 0 && monthEnd(months.at(-1).month, tz) > now
}
