// The preallocation sweep (docs/architecture.md, "Preallocation"): create
// tomorrow's zero-filled document for every metric written today that lacks
// it, at most `rate` documents per second, never two runs at once. Its plugin
// schedules it (preallocation-plugin.js).
import { setTimeout as sleep } from 'node:timers/promises'
import { DAY_MS, dayId, startOfDay } from '../bucket/time.js'
import { stoppableJob } from './single-flight.js'

const BATCH = 500

export function createPreallocSweep ({ metrics, daily, preallocator, clock, rate, logger }) {
  async function sweep ({ signal, stopped }) {
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
        checked += batch.length
        for (const name of batch) {
          if (stopped()) return
          if (existing.has(dayId(name, tomorrow))) continue
          const began = performance.now()
          const documents = await preallocator.preallocateDay(name, tomorrow, 'sweep')
          created++
          // PREALLOC_SWEEP_RATE counts documents: a month's first day writes two
          const wait = spacingMs * documents - (performance.now() - began)
          if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => {})
        }
        batch = []
      }
      for await (const { _id: name } of cursor) {
        if (stopped()) break
        batch.push(name)
        if (batch.length >= BATCH) await flushBatch()
      }
      if (!stopped() && batch.length > 0) await flushBatch()
    } finally {
      await cursor.close().catch(() => {})
    }
    return { checked, created, day: new Date(tomorrow).toISOString() }
  }

  /** One sweep; a call while one runs waits for it instead of starting another. */
  return stoppableJob({ body: sweep, logger, done: 'preallocation sweep done', failed: 'preallocation sweep failed', failure: err => ({ error: err.message }) })
}
