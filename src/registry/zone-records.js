// When each declared zone's local days began in a name's month documents
// (docs/adr/0073-local-days-in-the-month.md): the zones of the SLOs in force,
// for the names their selectors count. One record per zone and name in the
// `zones` collection, written once ($setOnInsert) as a rollup's is
// (rollup-records.js): a local day is read from the month documents only when
// it begins at or after its record's `since`; before, from the day documents.
import { createZonedDays } from '../bucket/zoned-days.js'
import { recordDeclared } from './rollup-records.js'

const idOf = (zone, metric) => `${zone} ${metric}`

/** How often each instance declares the zones of the SLOs in force again (../slos/plugin.js): a PUT through another instance reaches it so */
export const ZONE_REFRESH_MS = 60_000
/**
 * A new record's `since` lies this long after the next whole minute: every
 * instance writes the zone's fields by then (its refresh, a flush in flight)
 */
export const ZONE_LEAD_MS = 3 * ZONE_REFRESH_MS

/**
 * The declared zones of this instance (leadMs: MAX_FUTURE_MS, as an event
 * stored before a zone was declared may be dated up to that far ahead): zonedOf(metric) for the write unit
 * (bucket/zoned-days.js), sinceOf(zone, metric) → epoch ms or undefined for
 * reads, declare(declared, now) to change them (an instance writes a zone's
 * fields before its record is made, so nothing after `since` is missed)
 */
export function createDeclaredZones (collection, { leadMs = 0 } = {}) {
  let zonedOf = createZonedDays([])
  let sinceById = new Map()
  return {
    zonedOf: (metric) => zonedOf(metric),
    sinceOf: (zone, metric) => sinceById.get(idOf(zone, metric)),
    /**
     * declared: [{ zone (time-zone.js), metric }] → recorded; the zones no
     * longer declared are forgotten. Where every record is there (a refresh
     * with nothing new), two requests.
     */
    async declare (declared, now) {
      zonedOf = createZonedDays(declared)
      const ids = [...new Set(declared.map(d => idOf(d.zone.name, d.metric)))]
      await collection.deleteMany({ _id: { $nin: ids } })
      const found = ids.length === 0 ? [] : await collection.find({ _id: { $in: ids } }).toArray()
      sinceById = found.length === ids.length
        ? new Map(found.map(r => [r._id, r.since.getTime()]))
        : await recordDeclared(collection, ids, now, ZONE_LEAD_MS + leadMs)
    }
  }
}
