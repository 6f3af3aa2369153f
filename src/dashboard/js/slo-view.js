// What the SLO page draws from a report (GET /v1/slos/:name/report,
// docs/slos.md#reports): the error budget burning down over the period and
// good and bad events per local day, on one x scale where local day i runs
// from i to i + 1 (a 23- or 25-hour day is one slot, as the report lists it).
// The burn-down (docs/adr/0069-dashboard-slo-page.md): at the period's first
// local midnight 1, after day k (allowed − bad of days 0…k) ÷ allowed, with
// `allowed` the report's, that of all the period's events so far; its last
// point is the report's remainingRatio, computed alike. Days not begun (after
// the report's asOf, in its zone) are null. Pure.
import { formatNumber } from './format.js'
import { instantOf, partsIn } from './zone.js'

const pad = n => String(n).padStart(2, '0')

/** The local date of `ms` in `tz`, as the report's days name it */
export function dayOf (tz, ms) {
  const p = partsIn(tz, ms)
  return `${String(p.year).padStart(4, '0')}-${pad(p.month)}-${pad(p.day)}`
}

/** The hours local day `day` ('YYYY-MM-DD') lasts in `tz`: 24, or 23, 25 (24.5 at Lord Howe) where the clock changes */
export function dayHours (tz, day) {
  const [y, m, d] = day.split('-').map(Number)
  return (instantOf(tz, y, m, d + 1) - instantOf(tz, y, m, d)) / 3_600_000
}

/** A day as the legend names it: its date, and its hours when not 24 ('2026-10-25 (25 h)') */
export function dayName (tz, day) {
  const hours = dayHours(tz, day)
  return hours === 24 ? day : `${day} (${hours} h)`
}

/** How many of the report's days have begun at its asOf (a rolling period's all have) */
export function daysBegun (report, rolling) {
  if (rolling) return report.days.length
  const today = dayOf(report.timeZone, report.asOf)
  return report.days.filter(d => d.day <= today).length
}

/** The burn-down: { x: [0 … n], remaining: [1, after day 1, …] } (null for days not begun, all null when nothing is allowed) */
export function burnDown (report, begun) {
  const { allowed } = report.budget
  const x = [0]
  const remaining = [allowed > 0 ? 1 : null]
  let bad = 0
  report.days.forEach((d, i) => {
    bad += d.total - d.good
    x.push(i + 1)
    remaining.push(allowed > 0 && i < begun ? (allowed - bad) / allowed : null)
  })
  return { x, remaining }
}

/** The bars: { x: [0.5 … n − 0.5], good: [...], bad: [...] } per local day (null for days not begun) */
export function dayBars (report, begun) {
  return {
    x: report.days.map((d, i) => i + 0.5),
    good: report.days.map((d, i) => (i < begun ? d.good : null)),
    bad: report.days.map((d, i) => (i < begun ? d.total - d.good : null))
  }
}

const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 3, roundingMode: 'trunc' })

/** A ratio as a percentage, truncated (99.9999 % never reads 100 %); 'no data' for null */
export const formatPercent = r => (r === null || r === undefined ? 'no data' : percent.format(r))

/** A burn rate: '14.4×'; 'no data' for null (no events in the window) */
export const formatBurnRate = r => (r === null || r === undefined ? 'no data' : `${formatNumber(r)}×`)
