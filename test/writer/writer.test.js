// The writer (queue + flush runner) on fake collections and fake timers:
// every order of events below is set by the test, never by a real sleep.
import { describe, expect, it } from 'vitest'
import { buildWriteUnit } from '../../src/kinds/write-unit.js'
import { createWriter } from '../../src/writer/writer.js'
import { fakeTimers } from '../helpers/fake-timers.js'
import { deferred, fakeCollection, networkTimeout, serverSelectionError, writeErrors } from '../helpers/fake-collection.js'

const silent = { info () {}, warn () {}, error () {}, debug () {} }
const T = Date.UTC(2026, 10, 21, 10, 0)

function setup (options = {}) {
  const collections = { daily: fakeCollection(), monthly: fakeCollection(), metrics: fakeCollection() }
  const timers = fakeTimers()
  const writer = createWriter(collections, {
    flushIntervalMs: 5,
    flushMaxDocs: 1000,
    maxPendingEvents: 1000,
    writeTimeoutMs: 1000,
    clock: { now: () => T },
    timers,
    logger: silent,
    ...options
  })
  return { collections, writer, timers }
}

const unit = (...events) => buildWriteUnit(events.map(([metric, value = 1, time = T]) => ({ metric, value, time })))
const dailyIds = (collections) => collections.daily.calls.flatMap(c => c.ops.map(o => o.updateOne.filter._id))

/** Records which promises have resolved, without awaiting them */
function track (promise) {
  const box = { done: false, value: undefined }
  promise.then(v => { box.done = true; box.value = v })
  return box
}

describe('writer', () => {
  it('merges requests queued within FLUSH_INTERVAL_MS into one bulkWrite per collection and answers each', async () => {
    const { collections, writer, timers } = setup()
    const a = track(writer.submit(unit(['a', 1])))
    const b = track(writer.submit(unit(['a', 2], ['b', 5])))
    await timers.advance(4)
    expect(collections.daily.calls).toHaveLength(0)
    await timers.advance(1)
    expect([a.value, b.value]).toEqual([{ outcome: 'applied' }, { outcome: 'applied' }])
    expect(collections.daily.calls).toHaveLength(1)
    const ops = collections.daily.calls[0].ops.map(o => o.updateOne)
    expect(ops).toHaveLength(2)
    expect(ops[0]).toMatchObject({ filter: { _id: 'a/20261121' }, update: { $inc: { daily: 3, 'hourly.10': 3, 'minute.10.0': 3 } }, upsert: true })
    expect(collections.daily.calls[0].options).toMatchObject({ ordered: false })
    expect(collections.monthly.calls[0].ops).toHaveLength(2)
    expect(collections.metrics.calls[0].ops.map(o => o.updateOne.filter._id)).toEqual(['a', 'b'])
  })

  it('adaptive group commit (FLUSH_INTERVAL_MS=0): an idle writer flushes at once, units arriving during a flush ride the next one together', async () => {
    const { collections, writer, timers } = setup({ flushIntervalMs: 0 })
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const first = track(writer.submit(unit(['a'])))
    await timers.settle()
    expect(collections.daily.calls).toHaveLength(1) // no waiting for company
    const later = [writer.submit(unit(['b'])), writer.submit(unit(['c'])), writer.submit(unit(['d']))]
    await timers.settle()
    expect(collections.daily.calls).toHaveLength(1)
    expect(writer.stats()).toMatchObject({ queuedUnits: 3, flushing: true })
    gate.resolve()
    expect((await Promise.all(later)).map(a => a.outcome)).toEqual(['applied', 'applied', 'applied'])
    expect(first.value).toEqual({ outcome: 'applied' })
    expect(collections.daily.calls.map(c => c.ops.length)).toEqual([1, 3])
  })

  it('cuts at FLUSH_MAX_DOCS without splitting a request', async () => {
    const { collections, writer, timers } = setup({ flushMaxDocs: 4, flushIntervalMs: 50 })
    const big = unit(['a'], ['b'], ['c']) // 6 documents: 3 daily + 3 monthly
    const answers = Promise.all([writer.submit(big), writer.submit(unit(['d']))])
    await timers.settle()
    expect(collections.daily.calls.map(c => c.ops.length)).toEqual([3]) // no wait: the queue held ≥ FLUSH_MAX_DOCS; 'd' did not fit
    await timers.advance(50)
    expect(collections.daily.calls.map(c => c.ops.length)).toEqual([3, 1])
    expect((await answers).map(a => a.outcome)).toEqual(['applied', 'applied'])
  })

  it('keeps one flush in flight; later requests wait for the next', async () => {
    const { collections, writer, timers } = setup()
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const first = writer.submit(unit(['a']))
    await timers.advance(5)
    const second = writer.submit(unit(['b']))
    await timers.advance(30)
    expect(collections.daily.calls).toHaveLength(1)
    expect(writer.stats()).toMatchObject({ queuedUnits: 1, flushing: true })
    gate.resolve()
    expect((await first).outcome).toBe('applied')
    await timers.advance(5)
    expect((await second).outcome).toBe('applied')
    expect(collections.daily.calls).toHaveLength(2)
  })

  it('retries exactly the operations that hit a duplicate key, and answers applied', async () => {
    const { collections, writer, timers } = setup()
    collections.daily.next(() => { throw writeErrors([1, 11000]) })
    const answers = Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b']))])
    await timers.advance(5)
    expect((await answers).map(a => a.outcome)).toEqual(['applied', 'applied'])
    expect(collections.daily.calls).toHaveLength(2)
    expect(collections.daily.calls[1].ops.map(o => o.updateOne.filter._id)).toEqual(['b/20261121'])
  })

  it('a duplicate key retried beside an unsatisfied write concern: the retried request applied, the others unknown', async () => {
    const { collections, writer, timers } = setup()
    collections.daily.next(() => { throw Object.assign(writeErrors([1, 11000]), { result: { getWriteConcernError: () => ({ code: 64, errmsg: 'waiting for replication timed out' }) } }) })
    const answers = Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b']))])
    await timers.advance(5)
    const [a, b] = await answers
    expect(collections.daily.calls).toHaveLength(2)
    expect(a).toMatchObject({ outcome: 'unknown' })
    expect(b).toEqual({ outcome: 'applied' })
  })

  it('stops retrying after maxRetries and answers unknown for the requests touched', async () => {
    const { collections, writer, timers } = setup({ maxRetries: 2 })
    for (let i = 0; i < 3; i++) collections.daily.next(() => { throw writeErrors([0, 11000]) })
    const answers = Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b']))])
    await timers.advance(5)
    const [a, b] = await answers
    expect(collections.daily.calls).toHaveLength(3)
    expect(a).toMatchObject({ outcome: 'unknown' })
    expect(b).toEqual({ outcome: 'applied' })
  })

  it('answers unknown for a definite non-retryable failure of part of a request', async () => {
    const { collections, writer, timers } = setup()
    collections.monthly.next(() => { throw writeErrors([0, 2]) })
    const answer = writer.submit(unit(['a']))
    await timers.advance(5)
    expect(await answer).toMatchObject({ outcome: 'unknown' })
    expect(collections.monthly.calls).toHaveLength(1)
  })

  it('answers not_applied when no server could be selected', async () => {
    const { collections, writer, timers } = setup()
    for (const c of Object.values(collections)) c.next(() => { throw serverSelectionError() })
    const answer = writer.submit(unit(['a']))
    await timers.advance(5)
    expect(await answer).toMatchObject({ outcome: 'not_applied', reason: 'the database could not be reached' })
  })

  it('answers unknown when the write was sent and not acknowledged', async () => {
    const { collections, writer, timers } = setup()
    collections.daily.next(() => { throw networkTimeout() })
    const answer = writer.submit(unit(['a']))
    await timers.advance(5)
    expect(await answer).toMatchObject({ outcome: 'unknown' })
  })

  it('answers unknown, never applied, when the database acknowledges fewer upserts than were sent', async () => {
    // each statement is an upsert by _id: matched or inserted, one document each
    const answers = {
      'a reply without its counts ({ ok: 1 })': () => ({ ok: 1 }),
      'an unacknowledged write concern (w: 0)': () => ({ acknowledged: false }),
      'one of the two statements counted': () => ({ ok: 1, matchedCount: 1, upsertedCount: 0 }),
      'both counted': () => ({ ok: 1, matchedCount: 1, upsertedCount: 1 })
    }
    for (const [what, reply] of Object.entries(answers)) {
      const { collections, writer, timers } = setup()
      collections.daily.next(reply)
      const both = Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b']))])
      await timers.advance(5)
      const expected = what === 'both counted' ? ['applied', 'applied'] : ['unknown', 'unknown']
      expect((await both).map(a => a.outcome), what).toEqual(expected)
      expect(collections.daily.calls, what).toHaveLength(1) // not sent again: its outcome is unknown, not failed
    }
    // a lone statement goes as updateOne: the same rule
    const { collections, writer, timers } = setup()
    for (const c of Object.values(collections)) c.next(() => ({ ok: 1, matchedCount: 0, upsertedCount: 0 }))
    const lone = writer.submit(unit(['a']))
    await timers.advance(5)
    expect(await lone).toMatchObject({ outcome: 'unknown', reason: 'the database did not acknowledge every write' })
  })

  it('refuses at once when the queue is full, and says when there is room again', async () => {
    const { collections, writer, timers } = setup({ maxPendingEvents: 3 })
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const first = writer.submit(unit(['a'], ['a'], ['a']))
    expect(writer.hasRoom(1)).toBe(false)
    const room = track(writer.waitForRoom(1))
    const refused = await writer.submit(unit(['b']))
    expect(refused).toMatchObject({ outcome: 'not_applied' })
    expect(refused.reason).toMatch(/MAX_PENDING_EVENTS/)
    await timers.advance(5)
    expect(room.done).toBe(false)
    gate.resolve()
    expect((await first).outcome).toBe('applied')
    await timers.settle()
    expect(room.done).toBe(true)
    expect(writer.hasRoom(3)).toBe(true)
    expect(writer.stats().pendingEvents).toBe(0)
  })

  it('removes a request that waited past WRITE_TIMEOUT_MS (not_applied) and bounds the stuck flush (unknown)', async () => {
    const { collections, writer, timers } = setup({ writeTimeoutMs: 200 })
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const stuck = track(writer.submit(unit(['a'])))
    await timers.advance(5) // the flush of 'a' starts and hangs
    const waiting = track(writer.submit(unit(['b'])))
    await timers.advance(199)
    expect(stuck.done || waiting.done).toBe(false)
    await timers.advance(1) // t = 205: the flush watchdog and b's expiry fall due
    expect(stuck.value).toMatchObject({ outcome: 'unknown' })
    expect(waiting.value).toMatchObject({ outcome: 'not_applied', reason: expect.stringMatching(/WRITE_TIMEOUT_MS/) })
    gate.resolve()
    await writer.drain()
    expect(dailyIds(collections)).toEqual(['a/20261121']) // the expired request was never sent
  })

  it('close flushes what is queued, answers everything, then refuses', async () => {
    const { collections, writer } = setup({ flushIntervalMs: 60_000 })
    const pending = [writer.submit(unit(['a'])), writer.submit(unit(['b']))]
    await writer.close()
    expect((await Promise.all(pending)).map(a => a.outcome)).toEqual(['applied', 'applied'])
    expect(collections.daily.calls).toHaveLength(1)
    expect(await writer.submit(unit(['c']))).toMatchObject({ outcome: 'not_applied', reason: 'the server is shutting down' })
  })

  it('answers every request even when a telemetry subscriber throws', async () => {
    const telemetry = { publish () { throw new Error('subscriber') } }
    const { writer, timers } = setup({ telemetry })
    const answers = Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b']))])
    await timers.advance(5)
    expect((await answers).map(a => a.outcome)).toEqual(['applied', 'applied'])
    await writer.drain()
    expect(writer.stats()).toMatchObject({ pendingEvents: 0, queuedUnits: 0, flushing: false })
  })

  it('publishes each flush and each answer', async () => {
    const seen = []
    const { writer, timers } = setup({ telemetry: { publish: (name, payload) => seen.push([name, payload]) } })
    const answers = Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b'], ['b']))])
    await timers.advance(5)
    await answers
    expect(seen.filter(([name]) => name === 'answered').map(([, p]) => p)).toEqual([{ outcome: 'applied', events: 1 }, { outcome: 'applied', events: 2 }])
    const flushed = seen.filter(([name]) => name === 'flushed').map(([, p]) => p)
    expect(flushed).toHaveLength(1)
    expect(flushed[0]).toMatchObject({ docs: 4, events: 3, units: 2, statements: 6, retries: 0 })
  })

  it('rewrites a registry entry only when it moves: last seen a minute on, first seen earlier, or a new day', async () => {
    const { collections, writer, timers } = setup({ flushIntervalMs: 0 })
    const registryIds = () => collections.metrics.calls.map(c => c.ops.map(o => o.updateOne.filter._id))
    expect(await writer.submit(unit(['a', 1, T], ['b', 1, T]))).toEqual({ outcome: 'applied' })
    expect(await writer.submit(unit(['a', 1, T + 30_000], ['b', 1, T + 60_000]))).toEqual({ outcome: 'applied' })
    expect(await writer.submit(unit(['a', 1, T - 60_000]))).toEqual({ outcome: 'applied' })
    await timers.settle()
    expect(registryIds()).toEqual([['a', 'b'], ['b'], ['a']])
    expect(collections.daily.calls).toHaveLength(3) // the counters are written every time
  })

  it('answers not_applied when nothing was written, a left-out registry update notwithstanding', async () => {
    const { collections, writer } = setup({ flushIntervalMs: 0 })
    expect(await writer.submit(unit(['a', 1, T]))).toEqual({ outcome: 'applied' })
    for (const c of [collections.daily, collections.monthly]) c.next(() => { throw serverSelectionError() })
    // the registry entry of 'a' is covered (same minute): only the day and month are sent, and neither went out
    expect(await writer.submit(unit(['a', 1, T + 1000]))).toMatchObject({ outcome: 'not_applied' })
    expect(collections.metrics.calls).toHaveLength(1)
  })

  it('answers plain requests from their own result when the keyed half of a flush throws', async () => {
    const keyedFlush = async () => { throw new Error('startSession failed') }
    const { collections, writer, timers } = setup({ keyedFlush })
    const keyedUnit = { ...unit(['k']), idempotency: { id: 'key-1' } }
    const answers = Promise.all([writer.submit(unit(['a'])), writer.submit(keyedUnit)])
    await timers.advance(5)
    const [plain, keyed] = await answers
    expect(plain).toEqual({ outcome: 'applied' })
    expect(keyed).toMatchObject({ outcome: 'unknown' })
    expect(dailyIds(collections)).toEqual(['a/20261121'])
  })

  it('refuses a keyed request where there is no keyed flush (no transactions)', async () => {
    const { writer } = setup()
    expect(await writer.submit({ ...unit(['k']), idempotency: { id: 'key-1' } })).toMatchObject({ outcome: 'not_applied', reason: expect.stringMatching(/transactions/) })
  })

  it('expires a long queue behind a stuck flush, answering each request once', async () => {
    const { collections, writer, timers } = setup({ writeTimeoutMs: 300, maxPendingEvents: 10_000 })
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const stuck = writer.submit(unit(['a']))
    await timers.advance(5)
    const waiting = Array.from({ length: 3000 }, (_, i) => writer.submit(unit([`m${i % 50}`])))
    expect(writer.stats().queuedUnits).toBe(3000)
    await timers.advance(300)
    const answers = await Promise.all(waiting)
    expect(answers.every(a => a.outcome === 'not_applied')).toBe(true)
    expect(writer.stats()).toMatchObject({ queuedUnits: 0, queuedDocs: 0 })
    expect(await stuck).toMatchObject({ outcome: 'unknown' })
    gate.resolve()
    await writer.drain()
    expect(writer.stats().pendingEvents).toBe(0)
    expect(collections.daily.calls).toHaveLength(1)
  })

  it('stops retrying at the flush deadline', async () => {
    const { collections, writer, timers } = setup({ writeTimeoutMs: 150, maxRetries: 1000 })
    // every try takes 40 ms (fake time) and hits a duplicate key
    const slowDuplicate = () => new Promise((resolve, reject) => timers.setTimeout(() => reject(writeErrors([0, 11000])), 40))
    for (let i = 0; i < 1000; i++) collections.daily.next(slowDuplicate)
    const answer = writer.submit(unit(['a']))
    await timers.advance(5 + 400)
    expect(await answer).toMatchObject({ outcome: 'unknown' })
    await writer.drain()
    // tries at 5, 45, 85, 125 ms; the one ending at 165 is past the deadline (155): four tries, not a thousand
    expect(collections.daily.calls).toHaveLength(4)
  })
})
