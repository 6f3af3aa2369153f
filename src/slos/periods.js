// An SLO's periods (docs/slos.md#periods): a calendar period is a local day,
// week (from the SLO's week start, Monday unless its startTime says), month,
// quarter or year in the SLO's zone, from local midnight to local midnight
// (bucket/local-time.js), so a day is 23 or 25 hours where the clock
// changes; a rolling period is the last 7, 28 or 30 × 24 hours, ending with
// the current minute. Each period is cut into its local days. The burn-rate
// windows end with the current minute too. Pure.
import { DAY_MS, MINUTE_MS } from '../bucket/time.js'
import { localBoundaries, localParts, nextLocalBoundary } from '../bucket/local-time.js'
import { timeZone } from '../bucket/time-zone.js'

/** The burn-rate windows, in minutes (the SRE workbook's multiwindow pairs: 1h with 5m, 6h with 30m) */
export const BURN_WINDOWS = Object.freeze([['5m', 5], ['30m', 30], ['1h', 60], ['6h', 360], ['1d', 1440], ['3d', 4320]])

/** A period that cannot be reported: its label is not one of the SLO's, or it has not begun */
export class PeriodError extends Error {}

const pad = (n, width = 2) => String(n).padStart(width, '0')
const dateLabel = ({ year, month, day }) => `${pad(year, 4)}-${pad(month)}-${pad(day)}`
/** A calendar date as a UTC instant, for date arithmetic */
const dateValue = ({ year, month, day }) => Date.UTC(year, month - 1, day)
const dateOf = (value) => { const d = new Date(value); return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() } }

/** The instant the local date `date` begins in zone (the first day boundary that enters it or a later date) */
export function localMidnight (zone, date) {
  const target = dateValue(date)
  let b = nextLocalBoundary(zone, target - 2 * DAY_MS, 'day')
  while (dateValue(localParts(zone, b)) < target) b = nextLocalBoundary(zone, b, 'day')
  return b
}

const FORMATS = {
  '1d': { example: 'YYYY-MM-DD (2026-11-28)', re: /^(\d{4})-(\d{2})-(\d{2})$/ },
  '1w': { example: 'YYYY-MM-DD, the date of its first day (2026-11-23)', re: /^(\d{4})-(\d{2})-(\d{2})$/ },
  '1M': { example: 'YYYY-MM (2026-11)', re: /^(\d{4})-(\d{2})$/ },
  '1Q': { example: 'YYYY-Qn (2026-Q4)', re: /^(\d{4})-Q([1-4])$/ },
  '1y': { example: 'YYYY (2026)', re: /^(\d{4})$/ }
}

/** The first date of the period containing local date `date` */
function periodStartDate ({ duration, weekStart }, date) {
  if (duration === '1d') return date
  if (duration === '1w') return dateOf(dateValue(date) - ((new Date(dateValue(date)).getUTCDay() - weekStart + 7) % 7) * DAY_MS)
  if (duration === '1M') return { ...date, day: 1 }
  if (duration === '1Q') return { ...date, month: Math.floor((date.month - 1) / 3) * 3 + 1, day: 1 }
  return { year: date.year, month: 1, day: 1 }
}

/** The first date of the next period */
function nextStartDate (duration, { year, month, day }) {
  if (duration === '1d' || duration === '1w') return dateOf(Date.UTC(year, month - 1, day + (duration === '1d' ? 1 : 7)))
  const months = { '1M': 1, '1Q': 3, '1y': 12 }[duration]
  return dateOf(Date.UTC(year, month - 1 + months, 1))
}

function labelOf (duration, start) {
  if (duration === '1d' || duration === '1w') return dateLabel(start)
  if (duration === '1M') return `${pad(start.year, 4)}-${pad(start.month)}`
  if (duration === '1Q') return `${pad(start.year, 4)}-Q${(start.month - 1) / 3 + 1}`
  return pad(start.year, 4)
}

/** A period label → its first date, or a PeriodError naming the SLO's format */
function parseLabel (window, label) {
  const { example, re } = FORMATS[window.duration]
  const m = re.exec(label)
  const year = m ? Number(m[1]) : 0
  if (!m) throw new PeriodError(`a ${window.duration} SLO's period is ${example}, got ${JSON.stringify(label)}`)
  if (year < 1971 || year > 9998) throw new PeriodError(`${JSON.stringify(label)}: a period's year is 1971–9998`)
  let date
  if (window.duration === '1Q') date = { year, month: (Number(m[2]) - 1) * 3 + 1, day: 1 }
  else date = { year, month: m[2] === undefined ? 1 : Number(m[2]), day: m[3] === undefined ? 1 : Number(m[3]) }
  if (date.month < 1 || date.month > 12 || dateLabel(dateOf(dateValue(date))) !== dateLabel(date)) throw new PeriodError(`${JSON.stringify(label)} is not a date`)
  if (dateLabel(periodStartDate(window, date)) !== dateLabel(date)) {
    throw new PeriodError(`${label} does not begin a week of this SLO (its weeks begin on ${['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][window.weekStart]}s)`)
  }
  return date
}

/** [from, to) cut at the local midnights of zone → [{ day, from, to }] (the first and last may be parts of days) */
function daysOf (zone, from, to) {
  const boundaries = localBoundaries(zone, from, to, 'day')
  return boundaries.slice(0, -1).map((b, i) => {
    const start = Math.max(b, from)
    return { day: dateLabel(localParts(zone, start)), from: start, to: Math.min(boundaries[i + 1], to) }
  })
}

/** The end of the burn-rate windows and of a rolling period: the end of the minute holding now */
export const windowEnd = (now) => Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS

/**
 * The period of an SLO's window (definitions.js) named by `label` (undefined:
 * the one holding now) → { label, from, to, days: [{ day, from, to }], current };
 * options.days false: the period as one range, days [{ day: null, from, to }] (a summary).
 * Throws PeriodError for a label not of the window's form, or a period that
 * has not begun (or any label, for a rolling window).
 */
export function periodOf (window, label, now, { days = true } = {}) {
  const zone = timeZone(window.zone)
  if (window.rolling) {
    if (label !== undefined) throw new PeriodError(`a rolling SLO has one period, the last ${window.duration}: leave period out`)
    const to = windowEnd(now)
    const from = to - window.days * DAY_MS
    return { label: `last ${window.duration}`, from, to, days: days ? daysOf(zone, from, to) : [{ day: null, from, to }], current: true }
  }
  const startDate = label === undefined ? periodStartDate(window, localParts(zone, now)) : parseLabel(window, label)
  const from = localMidnight(zone, startDate)
  if (from > now) throw new PeriodError(`${label} has not begun`)
  const to = localMidnight(zone, nextStartDate(window.duration, startDate))
  return { label: labelOf(window.duration, startDate), from, to, days: days ? daysOf(zone, from, to) : [{ day: null, from, to }], current: now < to }
}

/** The burn-rate windows ending with the minute holding now → [{ name, from, to }] */
export function burnWindows (now) {
  const to = windowEnd(now)
  return BURN_WINDOWS.map(([name, minutes]) => ({ name, from: to - minutes * MINUTE_MS, to }))
}
