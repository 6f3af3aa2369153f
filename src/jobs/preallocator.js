// Probabilistic preallocation (docs/kinds/counter.md#documents): for an event, with probability p,
// make sure the day after the event's day exists zero-filled, and its day
// field `daily.D` in the month's document (creating that document when the
// day starts a month), off the request path: `monthly.daily.D` exists exactly
// when the day has a daily document (docs/adr/0036-a-monthly-day-exists-when-its-daily-document-does.md).
// Only the tiers ingest will write: a day past the metric's minute horizon
// gets no minutes and says so (`detail`), as ingest's own writes there do.
// An event draws once, and a hit preallocates its metric's group (groupOf):
// a tagged series first, then its name and rollups, so a name's or a
// rollup's day is never zero-filled without a series of it; never a rollup,
// or a name that has series, alone
// (docs/adr/0081-preallocate-a-series-with-its-name-and-rollups.md).
import { QUARTER_HOUR_DETAIL, monthDayZeroIncrements } from '../bucket/increments.js'
import { dayZeroIncrements } from '../bucket/minute-fields.js'
import { DAY_MS, dayId, monthId, startOfDay, startOfMonth } from '../bucket/time.js'
import { incrementUpdate } from '../writer/write-operations.js'

const MAX_RETRIES = 2

/**
 * collections: { daily, monthly }
 * options: clock, random, probability, logger, telemetry (publishes 'preallocated'),
 *   horizons(metric, now) → { minuteFrom } (bucket/retention-horizons.js; default: minutes kept forever),
 *   groupOf(metric) → the metrics an event of it preallocates, in order (./preallocation-plugin.js preallocationGroupOf; default: itself),
 *   recentLimit (ids remembered as ensured), maxQueued (pending groups)
 */
export function createPreallocator (collections, options) {
  const { clock, random = Math.random, probability, logger, telemetry, recentLimit = 20_000, maxQueued = 2_000, groupOf = (metric) => [metric] } = options
  const horizons = options.horizons ?? (() => ({ minuteFrom: null }))
  const dayZero = Object.freeze(dayZeroIncrements())
  const dayZeroWithoutMinutes = Object.freeze(dayZeroIncrements(false))
  const recent = new Map() // id → true, in insertion order: a bounded "recently ensured" set
  const jobs = []
  let running = null
  let closed = false

  function remember (id) {
    if (recent.has(id)) return false
    recent.set(id, true)
    if (recent.size > recentLimit) recent.delete(recent.keys().next().value)
    return true
  }

  async function upsertZeroFilled (collection, id, metric, date, inc, detail) {
    // the same upsert as an increment: $inc of every counter by 0 fills holes and never overwrites a count
    const { filter, update } = incrementUpdate(id, { metric, date, inc, detail }).updateOne
    for (let attempt = 0; ; attempt++) {
      try {
        return await collection.updateOne(filter, update, { upsert: true })
      } catch (err) {
        // A concurrent upsert of the same new _id: the document exists now; fill it.
        if (err?.code !== 11000 || attempt >= MAX_RETRIES) throw err
      }
    }
  }

  /**
   * Ensures the zero-filled day document, then its day field in the month's
   * document (created with the day's field only when missing): two upserts,
   * → documents written (2). Daily first, as a flush writes them: a failure
   * between leaves a day without `daily.D`, which a later preallocation, the
   * day's first write or `npm run check -- --repair` completes.
   */
  async function preallocateDay (metric, dayStart, kind = 'probabilistic') {
    const { minuteFrom } = horizons(metric, clock.now())
    if (minuteFrom === null || dayStart >= minuteFrom) {
      await upsertZeroFilled(collections.daily, dayId(metric, dayStart), metric, dayStart, dayZero)
    } else {
      await upsertZeroFilled(collections.daily, dayId(metric, dayStart), metric, dayStart, dayZeroWithoutMinutes, QUARTER_HOUR_DETAIL)
    }
    telemetry?.publish('preallocated', { kind, collection: 'daily' })
    await upsertZeroFilled(collections.monthly, monthId(metric, dayStart), metric, startOfMonth(dayStart), monthDayZeroIncrements(dayStart))
    telemetry?.publish('preallocated', { kind, collection: 'monthly' })
    return 2
  }

  /**
   * Preallocates the metrics of a group in order, stopping at the first
   * failure: the ones after it (a series' name and rollups) are not
   * preallocated without it, and are forgotten with it, so a later event tries them again
   */
  async function preallocateGroup (metrics, day) {
    for (let i = 0; i < metrics.length; i++) {
      try {
        await preallocateDay(metrics[i], day)
      } catch (err) {
        for (let j = i; j < metrics.length; j++) recent.delete(dayId(metrics[j], day))
        logger.warn({ err, metric: metrics[i], day: new Date(day).toISOString() }, 'preallocation failed')
        return
      }
    }
  }

  async function work () {
    // close() empties `jobs`, which ends this loop
    while (jobs.length > 0) {
      const { metrics, day } = jobs.shift()
      await preallocateGroup(metrics, day)
    }
    running = null
  }

  return {
    preallocateDay,
    /**
     * One draw an event `keep` admits (default: every one): → [{ metric, time }] of those that drew a hit
     * (few: a request's events need not wait for its write for this). keep is not asked where nothing can hit.
     */
    draw (events, keep = null) {
      const hits = []
      if (probability <= 0 || closed) return hits
      for (const event of events) {
        if (keep !== null && !keep(event)) continue
        if (random() < probability) hits.push({ metric: event.metric, time: event.time })
      }
      return hits
    },
    /** Preallocates the groups of the events that drew a hit (draw), once their write applied; never waits for the database. */
    preallocateDrawn (hits) {
      if (closed || hits.length === 0) return
      const latest = startOfDay(clock.now()) + DAY_MS
      for (const { metric: sent, time } of hits) {
        const day = startOfDay(time) + DAY_MS
        if (day > latest) continue // more than one day ahead of the service clock
        if (jobs.length >= maxQueued) continue
        // those of the group ensured or queued lately left out: a series' name is written once, not once per series.
        // A name or rollup is left out only after its series was (in this group's order): never queued ahead of it
        const metrics = groupOf(sent).filter(metric => remember(dayId(metric, day)))
        if (metrics.length > 0) jobs.push({ metrics, day })
      }
      if (jobs.length > 0 && !running) running = work()
    },
    /** Waits for queued preallocations (tests, shutdown). */
    async idle () {
      await running
    },
    async close () {
      closed = true
      jobs.length = 0
      await running
    }
  }
}
