// The preallocation sweep (docs/kinds/counter.md#documents): create
// tomorrow's zero-filled document, and its day field in the month's document,
// for every metric marked busy today
// (`busyDay`, set by the writer: docs/adr/0034-preallocate-busy-counters-only.md) that lacks it, read through the `busyDay` index in
// pages of BATCH by name, at most `rate` documents per second, never two runs
// at once (a day whose month lacks its field is done again). Its cost grows with today's busy metrics, not with the registry.
// A busy tagged series brings its name and rollups; a rollup, or a name with
// series, is never preallocated alone (groupOf; docs/adr/0081-preallocate-a-series-with-its-name-and-rollups.md).
// Its plugin schedules it (preallocation-plugin.js).
import { realTimers } from '../clock.js'
import { DAY_MS, dayId, monthId, startOfDay, utcParts } from '../bucket/time.js'
import { stoppableJob } from './single-flight.js'

const BATCH = 500

/** Waits ms on `timers`, or until signal aborts */
function pause (timers, ms, signal) {
  return new Promise(resolve => {
    if (signal.aborted) return resolve()
    const onAbort = () => { timers.clearTimeout(handle); resolve() }
    const handle = timers.setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve() }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * monthly: optional; without it a day whose daily document exists counts as done;
 * groupOf(name) → the metrics a busy name's day is preallocated with, in order ([]: none; default: itself);
 * → { checked, created: the days preallocated, day }
 * timers: { now, setTimeout, clearTimeout } that pace it (src/clock.js's real ones by default)
 */
export function createPreallocSweep ({ metrics, daily, monthly, preallocator, clock, rate, logger, timers = realTimers, groupOf = (name) => [name] }) {
  async function sweep ({ signal, stopped }) {
    const today = startOfDay(clock.now())
    const tomorrow = today + DAY_MS
    const spacingMs = 1000 / rate
    let checked = 0
    let created = 0
    const done = new Set() // a series' name and rollups, preallocated once a run
    const page = async (after) => metrics
      .find({ busyDay: new Date(today), ...(after === null ? {} : { _id: { $gt: after } }) }, { projection: { _id: 1 } })
      .sort({ _id: 1 }).limit(BATCH).toArray()
    let after = null
    while (!stopped()) {
      const batch = (await page(after)).map(d => d._id)
      if (batch.length === 0) break
      after = batch.at(-1)
      const ids = batch.map(name => dayId(name, tomorrow))
      const existing = new Set((await daily.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map(d => d._id))
      // a day whose month lacks its field (a preallocation cut between its two upserts) is done again.
      // By _id alone, the field looked at here: a server that answers only _id from an index (mongo-java-server)
      // scanned every monthly document for `_id $in` with `$exists` beside it (over 30 s at 1,000,000 metrics)
      const day = utcParts(tomorrow).day
      const withDay = monthly
        ? new Set((await monthly.find({ _id: { $in: batch.map(name => monthId(name, tomorrow)) } }, { projection: { [`daily.${day}`]: 1 } }).toArray())
          .filter(m => m.daily?.[day] !== undefined).map(m => m._id))
        : null
      checked += batch.length
      for (const name of batch) {
        if (stopped()) break
        if (existing.has(dayId(name, tomorrow)) && (!withDay || withDay.has(monthId(name, tomorrow)))) continue
        const group = groupOf(name).filter(metric => !done.has(metric))
        if (group.length === 0) continue
        const began = timers.now()
        let documents = 0
        for (const metric of group) {
          documents += await preallocator.preallocateDay(metric, tomorrow, 'sweep')
          done.add(metric)
          created++
        }
        // PREALLOC_SWEEP_RATE counts documents: a day writes two (its daily document, its month's day)
        const wait = spacingMs * documents - (timers.now() - began)
        if (wait > 0) await pause(timers, wait, signal)
      }
    }
    return { checked, created, day: new Date(tomorrow).toISOString() }
  }

  /** One sweep; a call while one runs waits for it instead of starting another. */
  return stoppableJob({ body: sweep, logger, done: 'preallocation sweep done', failed: 'preallocation sweep failed', failure: err => ({ error: err.message }) })
}
