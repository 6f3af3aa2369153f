// The time zone the dashboard shows and asks in: the viewer's by default
// (Intl), any IANA zone the browser knows. Wall-clock parts of an instant
// and the instant of a wall-clock time, through Intl only (the browser's tz
// database); the API computes its own boundaries.

const formatters = new Map()

function formatterOf (tz) {
  let f = formatters.get(tz)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', timeZoneName: 'short' })
    formatters.set(tz, f)
  }
  return f
}

/** The viewer's zone, or UTC where the browser does not say */
export function viewerZone () {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
  } catch {
    return 'UTC'
  }
}

/** Whether the browser knows the zone */
export function isZone (tz) {
  try {
    formatterOf(tz)
    return true
  } catch {
    return false
  }
}

/** The zones to pick from: UTC first, then every zone the browser lists */
export function zoneNames () {
  const listed = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
  return ['UTC', ...listed.filter(z => z !== 'UTC')]
}

/** { year, month (1–12), day, hour, minute, second, zone (short name) } of ms in tz */
export function partsIn (tz, ms) {
  const p = {}
  for (const { type, value } of formatterOf(tz).formatToParts(new Date(ms))) p[type] = value
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute), second: Number(p.second), zone: p.timeZoneName }
}

/** Minutes east of UTC in force at ms */
function offsetMinutes (tz, ms) {
  const p = partsIn(tz, ms)
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000)
}

/**
 * The instant the wall clock in tz reads year-month-day hour:minute
 * (month 1–12); a time skipped by a DST change is moved forward by the
 * gap (02:30 on New York's spring day → 03:30 EDT), as Date does.
 */
export function instantOf (tz, year, month, day, hour = 0, minute = 0) {
  const wall = Date.UTC(year, month - 1, day, hour, minute)
  let t = wall - offsetMinutes(tz, wall) * 60_000
  t = wall - offsetMinutes(tz, t) * 60_000
  const p = partsIn(tz, t)
  if (Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute) !== wall) {
    // in a gap: read with the offset from before it
    t = wall - offsetMinutes(tz, t - 86_400_000) * 60_000
  }
  return t
}

const pad = n => String(n).padStart(2, '0')

/** 'YYYY-MM-DD HH:MM' in tz, and the zone's short name ('GMT+5:45', 'EST') unless withZone is false */
export function formatIn (tz, ms, { withZone = true } = {}) {
  const p = partsIn(tz, ms)
  const text = `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}`
  return withZone ? `${text} ${p.zone}` : text
}
