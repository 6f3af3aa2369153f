// Which registry updates a flush can leave out (docs/decisions.md, "The
// registry entry of a busy metric is rewritten at most once a minute"):
// those that would move nothing the registry is read for. Per instance; a
// stale or missing entry only means one more update, which `$min`/`$max`
// make harmless.
import { DAY_MS } from '../bucket/time.js'

export const LAST_SEEN_SLACK_MS = 60_000

/** limit: metrics remembered (the oldest written is forgotten first) */
export function createRegistryWriteCache ({ limit = 100_000, slackMs = LAST_SEEN_SLACK_MS } = {}) {
  const written = new Map() // name → { firstSeen, lastSeen, day } as this instance last wrote them

  return {
    /** Whether writing `seen` ({ firstSeen, lastSeen }) for `name` at `now` would change nothing that matters */
    covers (name, seen, now) {
      const w = written.get(name)
      return w !== undefined && seen.firstSeen >= w.firstSeen && seen.lastSeen < w.lastSeen + slackMs && Math.floor(now / DAY_MS) === w.day
    },
    /** An acknowledged update of `name` */
    record (name, seen, now) {
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
    },
    size: () => written.size
  }
}
