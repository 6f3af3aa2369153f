import { describe, expect, it } from 'vitest'
import { buildWriteUnit } from '../../src/bucket/increments.js'
import { hierarchicalLayout } from '../../src/bucket/layouts.js'
import { createCoalescingWriter } from '../../src/store/coalescing-writer.js'
import { deferred, fakeCollection, networkTimeout, serverSelectionError, writeErrors } from './fake-collection.js'

const silent = { info () {}, warn () {}, error () {}, debug () {} }
const T = Date.UTC(2026, 10, 21, 10, 0)

function setup (options = {}) {
  const collections = { daily: fakeCollection(), monthly: fakeCollection(), metrics: fakeCollection() }
  const writer = createCoalescingWriter(collections, {
    flushIntervalMs: 5,
    flushMaxDocs: 1000,
    maxPendingEvents: 1000,
    writeTimeoutMs: 1000,
    clock: { now: () => T },
    logger: silent,
    ...options
  })
  return { collections, writer }
}

const unit = (...events) => buildWriteUnit(events.map(([metric, value = 1, time = T]) => ({ metric, value, time })), hierarchicalLayout)

describe('coalescing writer', () => {
  it('merges concurrent requests into one bulkWrite per collection and answers each', async () => {
    const { collections, writer } = setup()
    const answers = await Promise.all([writer.submit(unit(['a', 1])), writer.submit(unit(['a', 2], ['b', 5]))])
    expect(answers.map(a => a.status)).toEqual([200, 200])
    expect(collections.daily.calls).toHaveLength(1)
    const ops = collections.daily.calls[0].ops.map(o => o.updateOne)
    expect(ops).toHaveLength(2)
    expect(ops[0]).toMatchObject({ filter: { _id: 'a/20261121' }, update: { $inc: { daily: 3, 'hourly.10': 3, 'minute.10.0': 3 } }, upsert: true })
    expect(collections.daily.calls[0].options).toMatchObject({ ordered: false })
    expect(collections.monthly.calls[0].ops).toHaveLength(2)
    expect(collections.metrics.calls[0].ops.map(o => o.updateOne.filter._id)).toEqual(['a', 'b'])
  })

  it('cuts at FLUSH_MAX_DOCS without splitting a request', async () => {
    const { collections, writer } = setup({ flushMaxDocs: 4, flushIntervalMs: 50 })
    const big = unit(['a'], ['b'], ['c']) // 6 documents: 3 daily + 3 monthly
    const answers = await Promise.all([writer.submit(big), writer.submit(unit(['d']))])
    expect(answers.map(a => a.status)).toEqual([200, 200])
    expect(collections.daily.calls.map(c => c.ops.length)).toEqual([3, 1])
  })

  it('keeps one flush in flight; later requests wait for the next', async () => {
    const { collections, writer } = setup()
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const first = writer.submit(unit(['a']))
    await new Promise(resolve => setTimeout(resolve, 30))
    const second = writer.submit(unit(['b']))
    await new Promise(resolve => setTimeout(resolve, 30))
    expect(collections.daily.calls).toHaveLength(1)
    expect(writer.stats()).toMatchObject({ queuedUnits: 1, flushing: true })
    gate.resolve({ ok: 1 })
    expect((await first).status).toBe(200)
    expect((await second).status).toBe(200)
    expect(collections.daily.calls).toHaveLength(2)
  })

  it('retries exactly the operations that hit a duplicate key, and answers 200', async () => {
    const { collections, writer } = setup()
    collections.daily.next(() => { throw writeErrors([1, 11000]) })
    const answers = await Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b']))])
    expect(answers.map(a => a.status)).toEqual([200, 200])
    expect(collections.daily.calls).toHaveLength(2)
    expect(collections.daily.calls[1].ops.map(o => o.updateOne.filter._id)).toEqual(['b/20261121'])
  })

  it('stops retrying after maxRetries and answers 504 for the requests touched', async () => {
    const { collections, writer } = setup({ maxRetries: 2 })
    for (let i = 0; i < 3; i++) collections.daily.next(() => { throw writeErrors([0, 11000]) })
    const [a, b] = await Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b']))])
    expect(collections.daily.calls).toHaveLength(3)
    expect(a).toMatchObject({ status: 504, outcome: 'unknown' })
    expect(b).toMatchObject({ status: 200 })
  })

  it('answers 504 for a definite non-retryable failure of part of a request', async () => {
    const { collections, writer } = setup()
    collections.monthly.next(() => { throw writeErrors([0, 2]) })
    const answer = await writer.submit(unit(['a']))
    expect(answer).toMatchObject({ status: 504, outcome: 'unknown' })
    expect(collections.monthly.calls).toHaveLength(1)
  })

  it('answers 503 not_applied when no server could be selected', async () => {
    const { collections, writer } = setup()
    for (const c of Object.values(collections)) c.next(() => { throw serverSelectionError() })
    expect(await writer.submit(unit(['a']))).toMatchObject({ status: 503, outcome: 'not_applied' })
  })

  it('answers 504 unknown when the write was sent and not acknowledged', async () => {
    const { collections, writer } = setup()
    collections.daily.next(() => { throw networkTimeout() })
    expect(await writer.submit(unit(['a']))).toMatchObject({ status: 504, outcome: 'unknown' })
  })

  it('answers 503 at once when the queue is full', async () => {
    const { collections, writer } = setup({ maxPendingEvents: 3 })
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const first = writer.submit(unit(['a'], ['a'], ['a']))
    const refused = await writer.submit(unit(['b']))
    expect(refused).toMatchObject({ status: 503, outcome: 'not_applied' })
    expect(refused.reason).toMatch(/MAX_PENDING_EVENTS/)
    gate.resolve({ ok: 1 })
    expect((await first).status).toBe(200)
    expect(writer.stats().pendingEvents).toBe(0)
  })

  it('removes a request that waited past WRITE_TIMEOUT_MS (503) and bounds the stuck flush (504)', async () => {
    const { collections, writer } = setup({ writeTimeoutMs: 200 })
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const stuck = writer.submit(unit(['a']))
    await new Promise(resolve => setTimeout(resolve, 20))
    const waiting = writer.submit(unit(['b']))
    expect(await waiting).toMatchObject({ status: 503, outcome: 'not_applied' })
    expect(await stuck).toMatchObject({ status: 504, outcome: 'unknown' })
    gate.resolve({ ok: 1 })
    await writer.drain()
    // the expired request was never sent
    expect(collections.daily.calls.flatMap(c => c.ops.map(o => o.updateOne.filter._id))).toEqual(['a/20261121'])
  })

  it('close flushes what is queued, answers everything, then refuses', async () => {
    const { collections, writer } = setup({ flushIntervalMs: 60_000 })
    const pending = [writer.submit(unit(['a'])), writer.submit(unit(['b']))]
    await writer.close()
    expect((await Promise.all(pending)).map(a => a.status)).toEqual([200, 200])
    expect(collections.daily.calls).toHaveLength(1)
    expect(await writer.submit(unit(['c']))).toMatchObject({ status: 503, outcome: 'not_applied' })
  })

  it('answers every request even when an observer hook throws', async () => {
    const { writer } = setup({ observer: { answered () { throw new Error('hook') }, flushed () { throw new Error('hook') } } })
    const answers = await Promise.all([writer.submit(unit(['a'])), writer.submit(unit(['b']))])
    expect(answers.map(a => a.status)).toEqual([200, 200])
    await writer.drain()
    expect(writer.stats()).toMatchObject({ pendingEvents: 0, queuedUnits: 0, flushing: false })
  })

  it('answers plain requests from their own result when the keyed half of a flush throws', async () => {
    const keyedFlush = async () => { throw new Error('startSession failed') }
    const { collections, writer } = setup({ keyedFlush })
    const keyedUnit = { ...unit(['k']), idempotency: { id: 'key-1' } }
    const [plain, keyed] = await Promise.all([writer.submit(unit(['a'])), writer.submit(keyedUnit)])
    expect(plain).toMatchObject({ status: 200 })
    expect(keyed).toMatchObject({ status: 504, outcome: 'unknown' })
    expect(collections.daily.calls.flatMap(c => c.ops.map(o => o.updateOne.filter._id))).toEqual(['a/20261121'])
  })

  it('expires a long queue behind a stuck flush, answering each request once', async () => {
    const { collections, writer } = setup({ writeTimeoutMs: 300, maxPendingEvents: 10_000 })
    const gate = deferred()
    collections.daily.next(() => gate.promise)
    const stuck = writer.submit(unit(['a']))
    await new Promise(resolve => setTimeout(resolve, 20))
    const waiting = Array.from({ length: 3000 }, (_, i) => writer.submit(unit([`m${i % 50}`])))
    expect(writer.stats().queuedUnits).toBe(3000)
    const answers = await Promise.all(waiting)
    expect(answers.every(a => a.status === 503 && a.outcome === 'not_applied')).toBe(true)
    expect(writer.stats()).toMatchObject({ queuedUnits: 0, queuedDocs: 0 })
    expect(await stuck).toMatchObject({ status: 504 })
    gate.resolve({ ok: 1 })
    await writer.drain()
    expect(writer.stats().pendingEvents).toBe(0)
    expect(collections.daily.calls).toHaveLength(1)
  })

  it('stops retrying at the flush deadline', async () => {
    const { collections, writer } = setup({ writeTimeoutMs: 150, maxRetries: 1000 })
    const slowDuplicate = () => new Promise((resolve, reject) => setTimeout(() => reject(writeErrors([0, 11000])), 40))
    for (let i = 0; i < 1000; i++) collections.daily.next(slowDuplicate)
    expect(await writer.submit(unit(['a']))).toMatchObject({ status: 504 })
    await writer.drain()
    // 40 ms a try, deadline 150 ms: a handful of tries, not a thousand
    expect(collections.daily.calls.length).toBeLessThanOrEqual(6)
  })
})
