// Which registry updates a flush can leave out (docs/adr/0010-registry-entry-once-a-minute.md):
// those that would move nothing the registry is read for. Per instance; a
// stale or missing entry only means one more update, which `$min`/`$max`
// make harmless. It also sees how busy each metric is, and marks a metric
// busy for the day (`busyDay` in its entry) once it was written in
// `busyMinutes` distinct minutes of one UTC hour: the preallocation sweep
// makes tomorrow's document for those only (docs/adr/0034-preallocate-busy-counters-only.md).
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../bucket/time.js'

export const LAST_SEEN_SLACK_MS = 60_000
export const DEFAULT_BUSY_MINUTES = 30

/**
 * limit: metrics remembered (the oldest written is forgotten first);
 * busyMinutes: distinct minutes of one hour that make a metric busy
 */
export function createRegistryWriteCache ({ limit = 100_000, slackMs = LAST_SEEN_SLACK_MS, busyMinutes = DEFAULT_BUSY_MINUTES } = {}) {
  const written = new Map() // name → { firstSeen, lastSeen, day } as this instance last wrote them
  const activity = new Map() // name → { hour, minute, minutes, markedDay } as this instance saw it written

  return {
    /**
     * A flush writes `name` at `now`: counts the minute. → the day (epoch ms
     * of its start) to mark the metric busy for, when it just became busy
     * (or an earlier mark was not acknowledged), else null
     */
    busyDayToMark (name, now) {
      const minute = Math.floor(now / MINUTE_MS)
      const day = Math.floor(now / DAY_MS)
      let a = activity.get(name)
      // written again in the minute it was last counted: nothing to count, nor to move (the order is by minute)
      if (a === undefined || a.minute !== minute) {
        const hour = Math.floor(now / HOUR_MS)
        if (a === undefined) {
          a = { hour, minute: -1, minutes: 0, markedDay: -1 }
        } else {
          activity.delete(name) // re-inserted last: the oldest written is forgotten first
          if (a.hour !== hour) { a.hour = hour; a.minutes = 0 }
        }
        activity.set(name, a)
        if (activity.size > limit) activity.delete(activity.keys().next().value)
        a.minute = minute
        a.minutes++
      }
      return a.minutes >= busyMinutes && a.markedDay !== day ? day * DAY_MS : null
    },
    /**
     * Whether writing `seen` ({ firstSeen, lastSeen }) for `name` at `now` would change nothing that matters;
     * never on a new UTC day: an entry deleted through another instance is made again within a day
     */
    covers (name, seen, now) {
      const w = written.get(name)
      return w !== undefined && seen.firstSeen >= w.firstSeen && seen.lastSeen < w.lastSeen + slackMs && Math.floor(now / DAY_MS) === w.day
    },
    /** An acknowledged update of `name` */
    record (name, seen, now) {
      if (seen.busyDay !== undefined) {
        const a = activity.get(name)
        if (a) a.markedDay = Math.floor(seen.busyDay / DAY_MS)
      }
      const w = written.get(name)
      written.delete(name) // re-inserted last: the map's order is the order of writes
      written.set(name, {
        firstSeen: w ? Math.min(w.firstSeen, seen.firstSeen) : seen.firstSeen,
        lastSeen: w ? Math.max(w.lastSeen, seen.lastSeen) : seen.lastSeen,
        day: Math.floor(now / DAY_MS)
      })
      if (written.size > limit) written.delete(written.keys().next().value)
    },
    /** A deleted registry entry: the next flush of `name` writes it again */
    forget (name) {
      written.delete(name)
      activity.delete(name)
    },
    size: () => written.size
  }
}
