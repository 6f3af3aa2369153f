// The I/O of `npm run check` for a distribution's minute histograms
// (its minute-hour documents): walks the minute-hour documents a batch at a time,
// reads each batch's daily documents once, and verifies every minute against
// its day (kinds/consistency/minute-histogram.js). A flush writes the two
// documents apart, so a mismatch between them is confirmed only once both
// held unchanged longer than any write of a flush may land (3 ×
// WRITE_TIMEOUT_MS: db/driver-options.js); under --repair a confirmed one is
// removed from its hour document, conditioned on its value as confirmed (no
// read uses it: docs/adr/0084). A malformed document is reported as found,
// or `not repairable`.
import { DAY_MS, namePrefixIdRange, startOfDay } from '../bucket/time.js'
import { FLUSH_OUTLIVES_TIMEOUTS } from '../db/driver-options.js'
import { sameStored } from '../kinds/consistency/distribution.js'
import { dayOfHourId, minuteHistogramRemoval, verifyMinuteHour } from '../kinds/consistency/minute-histogram.js'

const BATCH = 500

const ceilDay = ms => (startOfDay(ms) === ms ? ms : startOfDay(ms) + DAY_MS)

/**
 * collections: { minutes (a distribution's minute-hour documents), daily (its day documents) }
 * options: repair, prefix, from / to (ms: the hours of days in [from, to), as
 *   the daily documents are chosen), writeTimeoutMs, settleRounds,
 *   unreadBefore(metric) → first day (ms) whose
 *   minute histograms a read uses (their totals are judged from it on),
 *   null = every day; clock, sleep, pace(documents), report(violation,
 *   state), counted(documents)
 */
export async function checkMinuteHistograms ({ minutes, daily }, options) {
  const { repair, prefix, from, to, writeTimeoutMs, settleRounds, unreadBefore = () => null, clock, sleep, pace, report, counted } = options
  const left = repair ? 'not repairable' : 'found'
  const filter = {}
  if (prefix) filter._id = namePrefixIdRange(prefix)
  if (from !== null || to !== null) {
    filter.date = {}
    if (from !== null) filter.date.$gte = new Date(ceilDay(from))
    if (to !== null) filter.date.$lt = new Date(ceilDay(to))
  }
  const verify = (doc, dailyDoc) => {
    const where = dayOfHourId(doc._id)
    return verifyMinuteHour(doc, dailyDoc, where ? { unreadBefore: unreadBefore(where.metric) } : {})
  }
  const pending = []
  const cursor = minutes.find(filter).sort({ _id: 1 }).batchSize(BATCH)
  try {
    let batch = []
    const flush = async () => {
      const dailyIds = [...new Set(batch.map(d => dayOfHourId(d._id)?.dailyId).filter(Boolean))]
      const days = new Map((await daily.find({ _id: { $in: dailyIds } }, { projection: { minute: 1 } }).toArray()).map(d => [d._id, d]))
      counted(batch.length)
      for (const doc of batch) {
        for (const v of verify(doc, days.get(dayOfHourId(doc._id)?.dailyId) ?? null)) {
          if (v.seen) pending.push({ violation: v, since: clock.now() })
          else report(v, left)
        }
      }
      await pace(batch.length + days.size)
      batch = []
    }
    for await (const doc of cursor) {
      batch.push(doc)
      if (batch.length >= BATCH) await flush()
    }
    if (batch.length) await flush()
  } finally {
    await cursor.close().catch(() => {})
  }
  await settle()

  /** Each cross-document mismatch, read again once a flush would have ended: gone, unchanged (reported; repairing, removed), or moved (watched again) */
  async function settle () {
    for (let round = 0; pending.length > 0 && round <= settleRounds; round++) {
      const wait = Math.max(...pending.map(p => p.since)) + FLUSH_OUTLIVES_TIMEOUTS * writeTimeoutMs + 1 - clock.now()
      if (wait > 0) await sleep(wait)
      const still = []
      for (const p of pending) {
        const { id, field, against } = p.violation
        const [doc, dailyDoc] = await Promise.all([minutes.findOne({ _id: id }), daily.findOne({ _id: against }, { projection: { minute: 1 } })])
        const now = doc ? verify(doc, dailyDoc).find(v => v.field === field) : undefined
        if (!now) continue // the flush completed, or retention deleted it
        if (!now.seen) { report(now, left); continue }
        if (!sameStored(now.seen.hour, p.violation.seen.hour) || !sameStored(now.seen.day, p.violation.seen.day)) { still.push({ violation: now, since: clock.now() }); continue }
        if (!repair) { report(strip(now), 'found'); continue }
        const removal = minuteHistogramRemoval(now)
        const { matchedCount } = await minutes.updateOne(removal.filter, removal.update)
        if (matchedCount === 1) report(strip(now), 'repaired')
        else still.push({ violation: now, since: clock.now() }) // moved since it was read: watch again
      }
      pending.splice(0, pending.length, ...still)
    }
    for (const p of pending) report({ ...strip(p.violation), note: 'still changing under writes: run again when quiet' }, 'unsettled')
  }
}

const strip = ({ seen, ...violation }) => violation
