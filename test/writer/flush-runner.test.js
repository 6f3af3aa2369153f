// The writer's flush runner alone (src/writer/flush-runner.js): one cut of
// units → one bulkWrite per collection, each unit answered from its own
// operations; the watchdog on injected timers.
import { describe, expect, it } from 'vitest'
import { buildWriteUnit } from '../../src/kinds/write-unit.js'
import { bulkUpdatesFor } from '../../src/db/capabilities.js'
import { createFlushRunner } from '../../src/writer/flush-runner.js'
import { unitKeys } from '../../src/writer/write-operations.js'
import { fakeTimers } from '../helpers/fake-timers.js'
import { deferred, fakeCollection, serverSelectionError } from '../helpers/fake-collection.js'

const silent = { info () {}, warn () {}, error () {}, debug () {} }
const T = Date.UTC(2026, 10, 21, 10, 0)

const unit = (...metrics) => {
  const u = buildWriteUnit(metrics.map(metric => ({ metric, value: 1, time: T })))
  return { ...u, ...unitKeys(u) }
}

function setup (options = {}) {
  const collections = { daily: fakeCollection(), monthly: fakeCollection(), metrics: fakeCollection() }
  const timers = fakeTimers()
  const flushed = []
  const run = createFlushRunner(collections, {
    writeTimeoutMs: 1000,
    maxRetries: 0,
    clock: { now: () => T },
    timers,
    logger: silent,
    onFlushed: f => flushed.push(f),
    ...options
  })
  const answers = new Map()
  const answer = (u, outcome, reason) => answers.set(u, { outcome, reason })
  return { collections, timers, run, answers, answer, flushed }
}

describe('flush runner', () => {
  it('merges a cut into one bulkWrite per collection, one $inc per document, and answers every unit applied', async () => {
    const { collections, run, answers, answer, flushed } = setup()
    const a = unit('a')
    const b = unit('a', 'b')
    await run([a, b], answer)
    expect(collections.daily.calls).toHaveLength(1)
    expect(collections.monthly.calls).toHaveLength(1)
    const dailyIds = collections.daily.calls[0].ops.map(o => o.updateOne.filter._id).sort()
    expect(dailyIds).toEqual(['a/20261121', 'b/20261121'])
    const aDaily = collections.daily.calls[0].ops.find(o => o.updateOne.filter._id === 'a/20261121')
    expect(aDaily.updateOne.update.$inc.daily).toBe(2) // a's two events in one $inc
    expect(answers.get(a)).toEqual({ outcome: 'applied', reason: undefined })
    expect(answers.get(b)).toEqual({ outcome: 'applied', reason: undefined })
    expect(flushed).toHaveLength(1)
    expect(flushed[0]).toMatchObject({ units: 2, events: 3 })
  })

  it('on FerretDB sends each document\'s upsert as updateMany on its _id (docs/adr/0057-ferretdb.md); elsewhere as updateOne', async () => {
    const ferret = setup({ bulkUpdates: bulkUpdatesFor('ferretdb') })
    const mongod = setup({ bulkUpdates: bulkUpdatesFor('mongod') })
    for (const { run, answer } of [ferret, mongod]) await run([unit('a', 'b')], answer)
    for (const name of ['daily', 'monthly', 'metrics']) {
      const sent = ferret.collections[name].calls[0].ops
      expect(sent.map(op => Object.keys(op))).toEqual(sent.map(() => ['updateMany']))
      expect(sent.map(op => op.updateMany)).toEqual(mongod.collections[name].calls[0].ops.map(op => op.updateOne))
    }
    expect([...ferret.answers.values()]).toEqual([{ outcome: 'applied', reason: undefined }])
  })

  it('a database that cannot be reached before sending: not_applied', async () => {
    const { collections, run, answers, answer } = setup()
    const a = unit('a')
    for (const c of Object.values(collections)) c.next(() => { throw serverSelectionError() })
    await run([a], answer)
    expect(answers.get(a)).toEqual({ outcome: 'not_applied', reason: 'the database could not be reached' })
  })

  it('a flush still running at WRITE_TIMEOUT_MS is answered unknown by the watchdog; run ends only when the writes do', async () => {
    const { collections, timers, run, answers, answer } = setup()
    const hang = deferred()
    collections.daily.next(() => hang.promise)
    const a = unit('a')
    let ended = false
    const running = run([a], answer).then(() => { ended = true })
    await timers.advance(999)
    expect(answers.has(a)).toBe(false)
    await timers.advance(1)
    expect(answers.get(a)).toEqual({ outcome: 'unknown', reason: 'the database did not acknowledge the write in time' })
    expect(ended).toBe(false) // one flush in flight: the next waits for this one
    hang.resolve()
    await running
    expect(ended).toBe(true)
  })
})
