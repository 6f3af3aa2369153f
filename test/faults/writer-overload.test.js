// The writer under a client far faster than its database (a fake whose
// bulkWrite takes 20 ms): pending events never exceed MAX_PENDING_EVENTS at
// any moment, the excess is refused at once with 503, every request gets
// exactly one answer, and what was acknowledged is exactly what was written.
import { describe, expect, it } from 'vitest'
import { buildWriteUnit } from '../../src/kinds/write-unit.js'
import { createWriter } from '../../src/writer/writer.js'

const T = Date.UTC(2026, 10, 21, 10, 0)
const silent = { info () {}, warn () {}, error () {}, debug () {} }

// a collection's lone update is sent as updateOne (flush-executor.js): a flush that
// happened to hold one document answered `unknown` from a fake without it
function slowCollection (written) {
  const collection = {
    async bulkWrite (ops) {
      await new Promise(resolve => setTimeout(resolve, 20))
      for (const { updateOne } of ops) {
        if (updateOne.update.$inc?.daily !== undefined) written.total += updateOne.update.$inc.daily
      }
      return { ok: 1, matchedCount: ops.length, upsertedCount: 0 }
    },
    async updateOne (filter, update, { upsert }) {
      await collection.bulkWrite([{ updateOne: { filter, update, upsert } }])
      return { acknowledged: true, matchedCount: 1, modifiedCount: 1, upsertedCount: 0 }
    }
  }
  return collection
}

describe('writer overload', () => {
  it('answers a flush of one document (sent as updateOne) from the same slow collection', async () => {
    const written = { total: 0 }
    const collections = { daily: slowCollection(written), monthly: slowCollection({ total: 0 }), metrics: slowCollection({ total: 0 }) }
    const writer = createWriter(collections, { flushIntervalMs: 5, flushMaxDocs: 1000, maxPendingEvents: 500, writeTimeoutMs: 5000, clock: { now: () => T }, logger: silent })
    expect(await writer.submit(buildWriteUnit([{ metric: 'o.0', value: 1, time: T }]))).toMatchObject({ outcome: 'applied' })
    expect(written.total).toBe(1)
    await writer.close()
  })

  it('keeps pending events ≤ MAX_PENDING_EVENTS and refuses the excess with 503', async () => {
    const MAX = 500
    const written = { total: 0 }
    const collections = { daily: slowCollection(written), monthly: slowCollection({ total: 0 }), metrics: slowCollection({ total: 0 }) }
    const writer = createWriter(collections, {
      flushIntervalMs: 5, flushMaxDocs: 1000, maxPendingEvents: MAX, writeTimeoutMs: 5000, clock: { now: () => T }, logger: silent
    })
    let maxPending = 0
    let acked = 0
    const statuses = {}
    const answers = []
    const deadline = Date.now() + 1500
    let i = 0
    while (Date.now() < deadline) {
      const events = Array.from({ length: 1 + (i++ % 50) }, (_, k) => ({ metric: `o.${k % 7}`, value: 1, time: T }))
      answers.push(writer.submit(buildWriteUnit(events)).then(a => {
        statuses[a.outcome] = (statuses[a.outcome] ?? 0) + 1
        if (a.outcome === 'applied') acked += events.length
        return a
      }))
      maxPending = Math.max(maxPending, writer.stats().pendingEvents)
      if (i % 20 === 0) await new Promise(resolve => setImmediate(resolve))
    }
    await Promise.all(answers)
    await writer.close()
    expect(maxPending).toBeLessThanOrEqual(MAX)
    expect(statuses.not_applied).toBeGreaterThan(0)
    expect(Object.keys(statuses).sort()).toEqual(['applied', 'not_applied'])
    expect(answers.length).toBe(statuses.applied + statuses.not_applied)
    expect(written.total).toBe(acked)
    expect(writer.stats()).toMatchObject({ pendingEvents: 0, queuedUnits: 0 })
  })
})
