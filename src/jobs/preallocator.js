// Probabilistic preallocation (docs/kinds/counter.md#documents): for an event, with probability p,
// make sure the day after the event's day exists zero-filled, and its day
// field `daily.D` in the month's document (creating that document when the
// day starts a month), off the request path: `monthly.daily.D` exists exactly
// when the day has a daily document (docs/adr/0036-a-monthly-day-exists-when-its-daily-document-does.md).
// Only the tiers ingest will write: a day past the metric's minute horizon
// gets no minutes and says so (`detail`), as ingest's own writes there do.
// An event written to several metrics (a tagged series, its name, its
// rollups) draws once, and a hit preallocates them as one group, the series
// first: a name's or a rollup's day is never zero-filled without a series of
// it (docs/adr/0081-preallocate-a-series-with-its-name-and-rollups.md).
import { QUARTER_HOUR_DETAIL, monthDayZeroIncrements } from '../bucket/increments.js'
import { dayZeroIncrements } from '../bucket/minute-fields.js'
import { DAY_MS, dayId, monthId, startOfDay, startOfMonth } from '../bucket/time.js'
import { incrementUpdate } from '../writer/write-operations.js'

const MAX_RETRIES = 2

/**
 * collections: { daily, monthly }
 * options: clock, random, probability, logger, telemetry (publishes 'preallocated'),
 *   horizons(metric, now) → { minuteFrom } (bucket/retention-horizons.js; default: minutes kept forever),
 *   recentLimit (ids remembered as ensured), maxQueued (pending preallocations)
 */
export function createPreallocator (collections, options) {
  const { clock, random = Math.random, probability, logger, telemetry, recentLimit = 20_000, maxQueued = 2_000 } = options
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
   * preallocated without it, and a later event tries them all again
   */
  async function preallocateGroup (metrics, day, kind = 'probabilistic') {
    for (let i = 0; i < metrics.length; i++) {
      try {
        await preallocateDay(metrics[i], day, kind)
      } catch (err) {
        recent.delete(dayId(metrics[0], day)) // let a later event of the series try them all again
        logger.warn({ err, metric: metrics[i], day: new Date(day).toISOString() }, 'preallocation failed')
        return false
      }
    }
    return true
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
    /** Preallocates `metrics` (a series, then its name and rollups) for the day at `day`, in order, the rest left at a failure (logged) → whether all were */
    preallocateGroup,
    /** Called with a request's events (writtenTo(metric): the metrics each counts in, itself first, ../tags/rollups.js; none: its own); one draw an event; never waits for the database. */
    consider (events, writtenTo) {
      if (probability <= 0 || closed) return
      const latest = startOfDay(clock.now()) + DAY_MS
      for (const { metric: sent, time } of events) {
        if (random() >= probability) continue
        const day = startOfDay(time) + DAY_MS
        if (day > latest) continue // more than one day ahead of the service clock
        if (jobs.length >= maxQueued) continue
        // the series first, then its name and rollups, remembered by the series (a failure forgets it: all are tried again)
        if (!remember(dayId(sent, day))) continue
        jobs.push({ metrics: writtenTo === undefined ? [sent] : writtenTo(sent), day })
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
