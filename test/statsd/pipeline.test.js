import { describe, expect, it } from 'vitest'
import { createStatsdPipeline } from '../../src/statsd/pipeline.js'
import { fakeTimers } from '../helpers/fake-timers.js'

const T0 = Date.UTC(2026, 0, 15, 10, 30, 0)

/** An ingest service double that records batches and answers as told */
function fakeIngest ({ room = true } = {}) {
  const batches = []
  const answers = []
  let roomNow = room
  let roomWaiters = []
  return {
    batches,
    answers, // outcomes to give, in order; then 'applied'
    setRoom (value) {
      roomNow = value
      if (value) { for (const r of roomWaiters) r(); roomWaiters = [] }
    },
    hasRoom: () => roomNow,
    waitForRoom: () => new Promise(resolve => roomWaiters.push(resolve)),
    async submit (events) {
      batches.push(events)
      return answers.shift() ?? { outcome: 'applied', accepted: events.length }
    }
  }
}

function setup ({ lossless = false, maxEvents = 100, ingest = fakeIngest() } = {}) {
  const timers = fakeTimers(0)
  const drops = {}
  const pipeline = createStatsdPipeline({
    ingest,
    clock: { now: () => T0 + timers.now() },
    timers,
    flushIntervalMs: 1000,
    maxEvents,
    lossless,
    onDrop: (reason, values) => { drops[reason] = (drops[reason] ?? 0) + values }
  })
  return { pipeline, timers, ingest, drops }
}

const total = (batches) => {
  const sums = {}
  for (const b of batches) for (const e of b) sums[e.metric] = (sums[e.metric] ?? 0) + e.value
  return sums
}

describe('createStatsdPipeline', () => {
  it('sums lines per metric per minute and submits them once per interval', async () => {
    const { pipeline, timers, ingest, drops } = setup()
    for (let i = 0; i < 500; i++) pipeline.accept('a:1|c\nb:2|ms\n')
    await timers.settle()
    expect(ingest.batches).toHaveLength(0)
    await timers.advance(1000)
    expect(ingest.batches).toHaveLength(1)
    expect(ingest.batches[0]).toEqual(expect.arrayContaining([
      { metric: 'a', value: 500, time: T0 },
      { metric: 'b.count', value: 500, time: T0 },
      { metric: 'b.sum', value: 1000, time: T0 }
    ]))
    expect(ingest.batches[0]).toHaveLength(3)
    expect(drops).toEqual({})
    expect(timers.pendingTimers()).toBe(0)
  })

  it('counts every drop by reason, in values', async () => {
    const { pipeline, timers, drops } = setup()
    pipeline.accept('g:1|g\ns:x|s\nbad\nt:1|c|#a:b\nx:1|c:2|q:3|c\n')
    await timers.advance(1000)
    expect(drops).toEqual({ gauge: 1, set: 1, malformed: 1, tags: 1, unknown_type: 1 })
  })

  it('UDP: when full, new metrics are dropped as overload; known metrics still add up', async () => {
    const ingest = fakeIngest({ room: false })
    const { pipeline, timers, drops } = setup({ ingest, maxEvents: 2 })
    pipeline.accept('a:1|c\nb:1|c')
    await timers.settle() // full: the flush waits for room
    // a and b were taken by the flush that waits for the writer; c and d fit
    pipeline.accept('c:1|c\nd:1|c\ne:1|c\nf:1|c\ng:1|c\n')
    pipeline.accept('c:5|c\nx:1|ms\n')
    expect(pipeline.held).toBe(2)
    expect(drops).toEqual({ overload: 4 })
    ingest.setRoom(true)
    await timers.advance(1000)
    expect(total(ingest.batches)).toEqual({ a: 1, b: 1, c: 6, d: 1 })
  })

  it('TCP: full means wait for room (whenRoom), and nothing is dropped', async () => {
    const ingest = fakeIngest({ room: false })
    const { pipeline, timers, drops } = setup({ ingest, maxEvents: 2, lossless: true })
    pipeline.accept('a:1|c\nb:1|c\nc:1|c')
    // full: the batch was taken at once; its submit waits for the writer
    expect(pipeline.full()).toBe(false)
    pipeline.accept('d:1|c\ne:1|c')
    expect(pipeline.full()).toBe(true)
    let resumed = false
    pipeline.whenRoom().then(() => { resumed = true })
    await timers.settle()
    expect(resumed).toBe(false) // one submit at a time
    ingest.setRoom(true)
    await timers.advance(1000)
    expect(resumed).toBe(true)
    expect(total(ingest.batches)).toEqual({ a: 1, b: 1, c: 1, d: 1, e: 1 })
    expect(drops).toEqual({})
  })

  it('TCP: a batch not applied is retried; UDP counts it as not_applied', async () => {
    for (const lossless of [true, false]) {
      const ingest = fakeIngest()
      ingest.answers.push({ outcome: 'not_applied', reason: 'the database could not be reached' })
      const { pipeline, timers, drops } = setup({ ingest, lossless })
      pipeline.accept('a:1|c\na:1|c:1|c\n')
      await timers.advance(1000)
      await timers.advance(1000)
      if (lossless) {
        expect(ingest.batches).toHaveLength(2)
        expect(ingest.batches[1]).toEqual([{ metric: 'a', value: 3, time: T0 }])
        expect(drops).toEqual({})
      } else {
        expect(ingest.batches).toHaveLength(1)
        expect(drops).toEqual({ not_applied: 3 })
      }
    }
  })

  it('a rejected or unknown batch is counted by its reason', async () => {
    const ingest = fakeIngest()
    ingest.answers.push({ outcome: 'rejected', reason: 'registry_full', message: 'full' }, { outcome: 'unknown', reason: 'timeout' })
    const { pipeline, timers, drops } = setup({ ingest, lossless: true })
    pipeline.accept('a:1|c\nb:1|ms\n')
    await timers.advance(1000)
    pipeline.accept('a:1|c\n')
    await timers.advance(1000)
    expect(drops).toEqual({ registry_full: 2, unknown: 1 })
  })

  it('close submits what is held', async () => {
    const { pipeline, timers, ingest } = setup()
    pipeline.accept('a:1|c\n')
    await pipeline.close()
    expect(total(ingest.batches)).toEqual({ a: 1 })
    expect(timers.pendingTimers()).toBe(0)
  })

  it('a new minute is a new event', async () => {
    const { pipeline, timers, ingest } = setup()
    pipeline.accept('a:1|c\n')
    await timers.advance(59_999)
    pipeline.accept('a:1|c\n')
    await timers.advance(1)
    pipeline.accept('a:1|c\n')
    await timers.advance(1000)
    expect(ingest.batches.flat()).toEqual([{ metric: 'a', value: 1, time: T0 }, { metric: 'a', value: 1, time: T0 + 59_999 - 59_999 % 60_000 }, { metric: 'a', value: 1, time: T0 + 60_000 }])
  })
})
