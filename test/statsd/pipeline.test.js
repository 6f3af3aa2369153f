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

/** Counter totals per metric (distribution events left out) */
const total = (batches) => {
  const sums = {}
  for (const b of batches) for (const e of b) if (e.kind === undefined) sums[e.metric] = (sums[e.metric] ?? 0) + e.value
  return sums
}

/** Per distribution metric: value → total weight, from every batch */
const weights = (batches) => {
  const out = {}
  for (const b of batches) {
    for (const e of b) {
      if (e.kind !== 'distribution') continue
      out[e.metric] ??= {}
      out[e.metric][e.value] = (out[e.metric][e.value] ?? 0) + e.weight
    }
  }
  return out
}

describe('createStatsdPipeline', () => {
  it('sums lines per metric per minute and submits them once per interval', async () => {
    const { pipeline, timers, ingest, drops } = setup()
    for (let i = 0; i < 500; i++) pipeline.accept('a:1|c\nb:2|ms\n')
    await timers.settle()
    expect(ingest.batches).toHaveLength(0)
    await timers.advance(1000)
    expect(ingest.batches).toHaveLength(1)
    expect(ingest.batches[0]).toEqual([
      { metric: 'a', value: 500, time: T0 },
      { metric: 'b', value: 2, time: T0, kind: 'distribution', weight: 500 }
    ])
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

describe('createStatsdPipeline: timers as distributions', () => {
  it('a sample rate weighs the value: @0.1 stands for 10 values, and the weights add', async () => {
    const { pipeline, timers, ingest, drops } = setup()
    pipeline.accept('lat:5|ms|@0.1\nlat:5|ms|@0.1\nlat:5|ms|@0.1\nlat:5|ms\nlat:7|h|@0.25\nlat:7|d|@0.5\n')
    await timers.advance(1000)
    expect(ingest.batches).toEqual([[
      { metric: 'lat', value: 5, time: T0, kind: 'distribution', weight: 31 },
      { metric: 'lat', value: 7, time: T0, kind: 'distribution', weight: 6 }
    ]])
    expect(drops).toEqual({})
  })

  it('a packed line mixing c and ms, in a packet with other lines: counters summed, timer values weighed', async () => {
    const { pipeline, timers, ingest, drops } = setup()
    pipeline.accept('api:1|c:87|ms:2|c:87|ms|@0.5\nother:3|ms\napi:4|c\n')
    await timers.advance(1000)
    expect(ingest.batches).toHaveLength(1)
    expect(ingest.batches[0]).toEqual(expect.arrayContaining([
      { metric: 'api', value: 7, time: T0 },
      { metric: 'api', value: 87, time: T0, kind: 'distribution', weight: 3 },
      { metric: 'other', value: 3, time: T0, kind: 'distribution', weight: 1 }
    ]))
    expect(ingest.batches[0]).toHaveLength(3)
    expect(drops).toEqual({})
  })

  it('the same value 10,000 times, in one packet or in 10,000, is one event of weight 10,000', async () => {
    for (const packets of [1, 10_000]) {
      const { pipeline, timers, ingest } = setup()
      if (packets === 1) pipeline.accept(Array.from({ length: 10_000 }, () => 'api.latency:42|ms').join('\n'))
      else for (let i = 0; i < 10_000; i++) pipeline.accept('api.latency:42|ms\n')
      expect(pipeline.held).toBe(1)
      await timers.advance(1000)
      expect(ingest.batches).toEqual([[{ metric: 'api.latency', value: 42, time: T0, kind: 'distribution', weight: 10_000 }]])
    }
  })

  it('hostile timer values: each a counted drop with its reason; the values beside them kept', async () => {
    const { pipeline, timers, ingest, drops } = setup()
    const hostile = {
      'h.t:NaN|ms': 'bad_value',
      'h.t:Infinity|ms': 'bad_value',
      'h.t:-Infinity|d': 'bad_value',
      'h.t:1e308|ms': 'bad_value',
      'h.t:-1e308|h': 'bad_value',
      'h.t:-1|ms': 'bad_value',
      'h.t:|ms': 'bad_value',
      'h.t:1|ms|@0': 'bad_sample_rate',
      'h.t:1|ms|@-1': 'bad_sample_rate',
      'h.t:1|ms|@1e-300': 'bad_sample_rate', // weight 1e300
      'h.t:1|ms|@5e-324': 'bad_sample_rate', // weight Infinity
      'h.t:1|ms|@NaN': 'bad_sample_rate',
      'h.t:1|ms|x': 'bad_sample_rate',
      '-h.t:1|ms': 'invalid_name',
      'h.t:1|ms|#env:prod': null // tags dropped, the value kept
    }
    const expected = {}
    for (const reason of Object.values(hostile)) expected[reason ?? 'tags'] = (expected[reason ?? 'tags'] ?? 0) + 1
    const lines = Object.keys(hostile).flatMap(line => [line, 'h.t:5|ms'])
    // kept beside them: -0 (as 0), 1e-300 and a negative histogram value
    lines.push('h.t:-0|ms', 'h.t:1e-300|ms', 'h.t:-2|h', 'h.t:0|d')
    pipeline.accept(lines.join('\n'))
    await timers.advance(1000)
    expect(drops).toEqual(expected)
    expect(weights(ingest.batches)).toEqual({ 'h.t': { 5: 15, 1: 1, 0: 2, 1e-300: 1, '-2': 1 } })
    const zero = ingest.batches.flat().find(e => e.value === 0)
    expect(Object.is(zero.value, 0)).toBe(true) // never -0
    for (const e of ingest.batches.flat()) {
      expect(Number.isFinite(e.value) && Number.isFinite(e.weight) && e.weight > 0 && e.weight <= 1e15).toBe(true)
    }
  })

  it('UDP: distinct values take places in the batch as distinct names do; past maxEvents they are dropped as overload', async () => {
    const ingest = fakeIngest({ room: false })
    const { pipeline, timers, drops } = setup({ ingest, maxEvents: 5 })
    // 5 distinct values fill the batch, which is taken by a flush that waits for the writer
    pipeline.accept(Array.from({ length: 5 }, (_, v) => `lat:${v}|ms`).join('\n'))
    await timers.settle()
    expect(pipeline.held).toBe(0)
    // 5 more fill it again; the next 1,000 distinct values are each an overload drop
    pipeline.accept(Array.from({ length: 1005 }, (_, v) => `lat:${100 + v}|ms`).join('\n'))
    expect(pipeline.held).toBe(5)
    expect(drops).toEqual({ overload: 1000 })
    // values already held still add up (their weight), however full the batch
    pipeline.accept(Array.from({ length: 1000 }, () => 'lat:100|ms').join('\n'))
    expect(pipeline.held).toBe(5)
    expect(drops).toEqual({ overload: 1000 })
    ingest.setRoom(true)
    await timers.advance(1000)
    expect(weights(ingest.batches)).toEqual({ lat: { 0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 100: 1001, 101: 1, 102: 1, 103: 1, 104: 1 } })
    expect(ingest.batches.every(b => b.length <= 5)).toBe(true)
  })

  it('TCP: distinct values fill the batch as distinct names do: full means wait for room, nothing dropped', async () => {
    const ingest = fakeIngest({ room: false })
    const { pipeline, timers, drops } = setup({ ingest, maxEvents: 5, lossless: true })
    pipeline.accept(Array.from({ length: 5 }, (_, v) => `lat:${v}|ms`).join('\n'))
    await timers.settle()
    pipeline.accept(Array.from({ length: 5 }, (_, v) => `lat:${10 + v}|ms`).join('\n'))
    expect(pipeline.full()).toBe(true)
    let resumed = false
    pipeline.whenRoom().then(() => { resumed = true })
    await timers.settle()
    expect(resumed).toBe(false)
    ingest.setRoom(true)
    await timers.advance(1000)
    expect(resumed).toBe(true)
    expect(Object.keys(weights(ingest.batches).lat).map(Number).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 10, 11, 12, 13, 14])
    expect(drops).toEqual({})
  })

  it('a lost distribution event counts the values merged into it', async () => {
    // a name turned away (per name) loses exactly its values; the rest of the batch is kept
    const refusing = fakeIngest()
    refusing.answers.push({ outcome: 'applied', accepted: 1, refusedMetrics: ['new.lat'] })
    const a = setup({ ingest: refusing })
    a.pipeline.accept('new.lat:1|ms\nnew.lat:1|ms|@0.1\nnew.lat:2|ms\nknown:1|c\n')
    await a.timers.advance(1000)
    expect(a.drops).toEqual({ registry_full: 3 })
    // a batch not applied (UDP) loses every value in it, however merged
    const failing = fakeIngest()
    failing.answers.push({ outcome: 'not_applied', reason: 'the database could not be reached' })
    const b = setup({ ingest: failing })
    b.pipeline.accept('lat:1|ms:1|ms:2|ms\nlat:1|ms|@0.5\nc:1|c:1|c\n')
    await b.timers.advance(1000)
    expect(b.drops).toEqual({ not_applied: 6 })
  })
})
