// The zones whose local days the month documents keep
// (docs/adr/0073-local-days-in-the-month.md): each calendar SLO's zone outside
// UTC, for the names its selectors count; at most MAX_ZONED_ZONES zones. Pure.
import { MAX_ZONED_ZONES } from '../bucket/zoned-days.js'
import { timeZone } from '../bucket/time-zone.js'

export const ZONE_FIELD = 'spec.timeWindow[0].calendar.timeZone'

const zoneOf = (slo) => (slo.window.rolling ? null : timeZone(slo.window.zone))
const metricsOf = ({ indicator }) => [indicator.good ?? indicator.bad, indicator.total].map(s => s.metric)

/** The first SLO of `slos` (in order) whose zone would be the (MAX_ZONED_ZONES + 1)th outside UTC → { slo, message }, or null */
export function zoneOverflow (slos) {
  const zones = new Set()
  for (const slo of slos) {
    const zone = zoneOf(slo)
    if (zone === null || zone.isUtc || zones.has(zone.name)) continue
    if (zones.size === MAX_ZONED_ZONES) {
      return { slo, message: `${zone.name} would be a ${MAX_ZONED_ZONES + 1}th time zone outside UTC: SLOs may use at most ${MAX_ZONED_ZONES} (${[...zones].join(', ')}); use one of them or UTC` }
    }
    zones.add(zone.name)
  }
  return null
}

/** The declarations of `slos`: [{ zone, metric }] of the first MAX_ZONED_ZONES zones outside UTC (later ones read day documents) */
export function declaredZones (slos) {
  const declared = []
  const zones = new Set()
  for (const slo of slos) {
    const zone = zoneOf(slo)
    if (zone === null || zone.isUtc) continue
    if (!zones.has(zone.name) && zones.size === MAX_ZONED_ZONES) continue
    zones.add(zone.name)
    for (const metric of metricsOf(slo)) declared.push({ zone, metric })
  }
  return declared
}
