// Local days of declared zones in the monthly document
// (docs/adr/0073-local-days-in-the-month.md): a counter's month document
// (the UTC month of the event) also holds `zoned.<zone>.<YYYYMMDD>`, the sum of
// its events on each local date of each zone declared for the metric's name,
// in the same `$inc` as `monthly` and `daily.D`. A local day that straddles
// UTC months is split across their two documents. Pure.
import { DAY_MS, describeDay, metricIdPrefix, startOfDay } from './time.js'
import { localBoundaries, localParts } from './local-time.js'
import { nameOfSeries } from './event-rules.js'

/** The zones a deployment keeps local days of, at most (~460 B a zone in a month document) */
export const MAX_ZONED_ZONES = 8

const pad = (n, w = 2) => String(n).padStart(w, '0')

/** A local date { year, month, day } (or "YYYY-MM-DD") as a field key, YYYYMMDD */
export const dayKeyOf = (date) => (typeof date === 'string' ? date.replaceAll('-', '') : `${pad(date.year, 4)}${pad(date.month)}${pad(date.day)}`)

/** The field of a zone's local date in a month document */
export const zonedField = (zoneName, dayKey) => `zoned.${zoneName}.${dayKey}`

/** The local days of a UTC day in zone: [{ from, field }], each from the instant its date begins (the first at the UTC day's start) */
function segmentsOf (zone, dayStart) {
  const boundaries = localBoundaries(zone, dayStart, dayStart + DAY_MS, 'day')
  const segments = []
  for (let i = 0; i < boundaries.length - 1; i++) {
    const from = Math.max(boundaries[i], dayStart)
    if (from >= dayStart + DAY_MS) break
    segments.push({ from, field: zonedField(zone.name, dayKeyOf(localParts(zone, from))) })
  }
  return segments
}

/**
 * declared: [{ zone (time-zone.js), metric (a name) }] → zonedOf(metric) →
 * null (no zone declared for its name) or fieldsAt(dayStart, time) → [field]:
 * the zoned fields an event of `metric` at `time` (in the UTC day dayStart)
 * adds to. A series counts in its name's zones (its rollups too).
 */
export function createZonedDays (declared) {
  const zonesOfName = new Map()
  for (const { zone, metric } of declared) {
    const zones = zonesOfName.get(metric) ?? []
    if (!zones.some(z => z.name === zone.name)) zones.push(zone)
    zonesOfName.set(metric, zones)
  }
  // per zone, a UTC day's local days, kept for the days lately written (a request's few)
  const segments = new Map()
  const segmentsAt = (zone, dayStart) => {
    const key = `${zone.name} ${dayStart}`
    let s = segments.get(key)
    if (s === undefined) {
      if (segments.size >= 4096) segments.clear()
      segments.set(key, (s = segmentsOf(zone, dayStart)))
    }
    return s
  }
  const fieldsOf = new Map()
  return function zonedOf (metric) {
    if (zonesOfName.size === 0) return null
    const zones = zonesOfName.get(nameOfSeries(metric))
    if (zones === undefined) return null
    let fieldsAt = fieldsOf.get(zones)
    if (fieldsAt === undefined) {
      fieldsAt = (dayStart, time) => zones.map(zone => {
        const s = segmentsAt(zone, dayStart)
        let i = s.length - 1
        while (s[i].from > time) i--
        return s[i].field
      })
      fieldsOf.set(zones, fieldsAt)
    }
    return fieldsAt
  }
}

/**
 * The pieces of a whole local day [from, to) of zone read from month
 * documents: each UTC month it touches, its field of that date
 * → [{ collection: 'monthly', id, date, path }]
 */
export function zonedPieces (metric, { from, to, zone, day }) {
  const path = Object.freeze(['zoned', zone, dayKeyOf(day)])
  const pieces = []
  const prefix = metricIdPrefix(metric) // monthId(metric, m) is prefix + its month key
  for (let month = describeDay(startOfDay(from)); month.monthStart < to; month = describeDay(month.nextMonthStart)) pieces.push({ collection: 'monthly', id: prefix + month.monthKey, date: month.monthStart, path })
  return pieces
}
