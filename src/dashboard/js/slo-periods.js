// The SLO page's period picker: the label of the period before or after a
// calendar SLO's period, as GET /v1/slos/:name/report takes it (docs/slos.md#periods):
// 2026-11-28 (1d), 2026-11-23 (1w: its first day), 2026-11, 2026-Q4, 2026.
// Labels are calendar dates, so stepping is date arithmetic in UTC: no zone,
// no DST (the server cuts the period at its zone's local midnights). A week
// steps 7 days from its first day, so it keeps the SLO's week start. The
// server's src/slos/periods.js (which the browser cannot import: it reads
// zones through luxon) is this module's oracle in its tests. Pure.

const pad = (n, width = 2) => String(n).padStart(width, '0')
const dateLabel = d => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`

const PATTERNS = {
  '1d': /^(\d{4})-(\d{2})-(\d{2})$/,
  '1w': /^(\d{4})-(\d{2})-(\d{2})$/,
  '1M': /^(\d{4})-(\d{2})$/,
  '1Q': /^(\d{4})-Q([1-4])$/,
  '1y': /^(\d{4})$/
}

/** Whether a timeWindow of GET /v1/slos ({ duration, rolling }) has periods to step through */
export const hasPicker = timeWindow => !timeWindow.rolling && timeWindow.duration in PATTERNS

/** The label `delta` periods after `label` (before, for a negative delta) of a calendar SLO of `duration`; null for a label not of its form */
export function stepPeriod (duration, label, delta) {
  const m = PATTERNS[duration]?.exec(label)
  if (!m) return null
  const year = Number(m[1])
  if (duration === '1d' || duration === '1w') {
    return dateLabel(new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]) + delta * (duration === '1d' ? 1 : 7))))
  }
  if (duration === '1M') {
    const d = new Date(Date.UTC(year, Number(m[2]) - 1 + delta, 1))
    return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}`
  }
  if (duration === '1Q') {
    const quarters = year * 4 + Number(m[2]) - 1 + delta
    return `${pad(Math.floor(quarters / 4), 4)}-Q${(quarters % 4) + 1}`
  }
  return pad(year + delta, 4)
}
