// The preallocation sweep (docs/architecture.md, "Preallocation"): create
// tomorrow's zero-filled document, and its day field in the month's document,
// for every metric written today that lacks either, at most `rate` documents
// per second, never two runs at once. Its plugin schedules it
// (preallocation-plugin.js).
import { setTimeout as sleep } from 'node:timers/promises'
import { DAY_MS, dayId, monthId, startOfDay, utcParts } from '../bucket/time.js'
import { singleFlight } from './single-flight.js'

const BATCH = 500

/** monthly: optional; without it a day whose daily document exists counts as done */
export function createPreallocSweep ({ metrics, daily, monthly, preallocator, clock, rate, logger }) {
  let stopped = false
  const abort = new AbortController()

  async function sweep () {
    const today = startOfDay(clock.now())
    const tomorrow = today + DAY_MS
    const spacingMs = 1000 / rate
    let checked = 0
    let created = 0
    const cursor = metrics.find({ lastWrite: { $gte: new Date(today) } }, { projection: { _id: 1 } }).sort({ _id: 1 }).batchSize(BATCH)
    try {
      let batch = []
      const flushBatch = async () => {
        const ids = batch.map(name => dayId(name, tomorrow))
        const existing = new Set((await daily.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map(d => d._id))
        // a day whose month lacks its field (a preallocation cut between its two upserts) is done again
        const dayField = `daily.${utcParts(tomorrow).day}`
        const withDay = monthly
          ? new Set((await monthly.find({ _id: { $in: batch.map(name => monthId(name, tomorrow)) }, [dayField]: { $exists: true } }, { projection: { _id: 1 } }).toArray()).map(m => m._id))
          : null
        checked += batch.length
        for (const name of batch) {
          if (stopped) return
          if (existing.has(dayId(name, tomorrow)) && (!withDay || withDay.has(monthId(name, tomorrow)))) continue
          const began = performance.now()
          const documents = await preallocator.preallocateDay(name, tomorrow, 'sweep')
          created++
          // PREALLOC_SWEEP_RATE counts documents: a day writes two (its daily document, its month's day)
          const wait = spacingMs * documents - (performance.now() - began)
          if (wait > 0) await sleep(wait, undefined, { signal: abort.signal }).catch(() => {})
        }
        batch = []
      }
      for await (const { _id: name } of cursor) {
        if (stopped) break
        batch.push(name)
        if (batch.length >= BATCH) await flushBatch()
      }
      if (!stopped && batch.length > 0) await flushBatch()
    } finally {
      await cursor.close().catch(() => {})
    }
    return { checked, created, day: new Date(tomorrow).toISOString() }
  }

  /** One sweep; a call while one runs waits for it instead of starting another. */
  const flight = singleFlight(() => sweep()
    .then(result => { logger.info(result, 'preallocation sweep done'); return result })
    .catch(err => { logger.warn({ err }, 'preallocation sweep failed'); return { error: err.message } }))

  return {
    runOnce: flight.run,
    /** Stops the sweep in progress; resolves once it ended. */
    async stop () {
      stopped = true
      abort.abort()
      await flight.current()
    }
  }
}
