import { describe, expect, it } from 'vitest'
import { createStatsdPipeline } from '../../src/statsd/pipeline.js'
import { createGaugeLevels } from '../../src/statsd/gauge-levels.js'
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

function setup ({ lossless = false, maxEvents = 100, ingest = fakeIngest(), gaugeLevels } = {}) {
  const timers = fakeTimers(0)
  const drops = {}
  const pipeline = createStatsdPipeline({
    ingest,
    clock: { now: () => T0 + timers.now() },
    timers,
    flushIntervalMs: 1000,
    maxEvents,
    lossless,
    gaugeLevels,
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
    pipeline.accept('g:1|g\ns:x|s\nbad\nt:1|c|#a:b\nt:1|c:2|c|#a:b,a:c\nx:1|c:2|q:3|c\ng:NaN|g\n')
    await timers.advance(1000)
    expect(drops).toEqual({ set: 1, malformed: 1, bad_tags: 2, unknown_type: 1, bad_value: 1 })
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
      'h.t:1|ms|#env:prod,env:dev': 'bad_tags'
    }
    const expected = {}
    for (const reason of Object.values(hostile)) expected[reason] = (expected[reason] ?? 0) + 1
    const lines = Object.keys(hostile).flatMap(line => [line, 'h.t:5|ms'])
    // kept beside them: -0 (as 0), 1e-300 and a negative histogram value
    lines.push('h.t:-0|ms', 'h.t:1e-300|ms', 'h.t:-2|h', 'h.t:0|d')
    pipeline.accept(lines.join('\n'))
    await timers.advance(1000)
    expect(drops).toEqual(expected)
    expect(weights(ingest.batches)).toEqual({ 'h.t': { 5: 15, 0: 2, 1e-300: 1, '-2': 1 } })
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

describe('createStatsdPipeline: gauges', () => {
  /** Levels whose stored reads answer when told (storedLevel → stored[name]) */
  function storedLevels (stored = {}) {
    const pending = []
    const levels = createGaugeLevels({ maxNames: 1000, storedLevel: (name) => new Promise((resolve, reject) => pending.push({ name, resolve, reject })) })
    return {
      levels,
      pending,
      async answer () {
        await new Promise(resolve => setImmediate(resolve))
        for (const p of pending.splice(0)) p.resolve(stored[p.name] ?? null)
      },
      async fail () {
        await new Promise(resolve => setImmediate(resolve))
        for (const p of pending.splice(0)) p.reject(new Error('down'))
      }
    }
  }
  const gauges = (batches) => batches.flat().filter(e => e.kind === 'gauge')

  it('levels of a minute are one event: count, sum, min, max and the last level by arrival; sample rates ignored', async () => {
    const { pipeline, timers, ingest, drops } = setup()
    pipeline.accept('q.depth:5|g\nq.depth:9|g|@0.1\n')
    await timers.advance(500)
    pipeline.accept('q.depth:2|g:7|g\nother:1|g\n')
    await timers.advance(500)
    expect(gauges(ingest.batches)).toEqual([
      { metric: 'q.depth', value: 7, time: T0 + 500, kind: 'gauge', summary: { count: 4, sum: 23, min: 2, max: 9 } },
      { metric: 'other', value: 1, time: T0 + 500, kind: 'gauge' }
    ])
    expect(drops).toEqual({})
  })

  it('deltas change the level the door holds, in arrival order, across flushes; a delta of a name never seen starts from 0 (nothing stored)', async () => {
    const { pipeline, timers, ingest } = setup()
    pipeline.accept('q:10|g\nq:+3|g\nq:-5|g\n')
    await timers.settle()
    await timers.advance(1000)
    pipeline.accept('q:+1|g\nfresh:-4|g\nfresh:+1|g\n')
    await timers.advance(1000)
    expect(gauges(ingest.batches)).toEqual([
      { metric: 'q', value: 8, time: T0, kind: 'gauge', summary: { count: 3, sum: 31, min: 8, max: 13 } },
      { metric: 'q', value: 9, time: T0 + 1000, kind: 'gauge' },
      { metric: 'fresh', value: -3, time: T0 + 1000, kind: 'gauge', summary: { count: 2, sum: -7, min: -4, max: -3 } }
    ])
  })

  it('a delta of a name whose level is not held waits for the stored level, with every later value of the name, and starts from it', async () => {
    const store = storedLevels({ q: 100 })
    const { pipeline, timers, ingest } = setup({ gaugeLevels: store.levels })
    pipeline.accept('q:+1|g\nc:1|c\n')
    await timers.advance(200)
    pipeline.accept('q:+2|g\nq:50|g\nq:-5|g\n')
    expect(pipeline.parked).toBe(4)
    await timers.advance(1000) // the counter goes on; q waits
    expect(gauges(ingest.batches)).toEqual([])
    expect(total(ingest.batches)).toEqual({ c: 1 })
    await store.answer()
    await timers.advance(1000)
    expect(pipeline.parked).toBe(0)
    // each value at the time it arrived: 101 and the last, 45, arrived 200 ms after the first
    expect(gauges(ingest.batches)).toEqual([{ metric: 'q', value: 45, time: T0 + 200, kind: 'gauge', summary: { count: 4, sum: 101 + 103 + 50 + 45, min: 45, max: 103 } }])
    // held from now on: no more reads
    pipeline.accept('q:+5|g\n')
    expect(store.pending).toHaveLength(0)
    await timers.advance(1000)
    expect(gauges(ingest.batches).at(-1)).toMatchObject({ metric: 'q', value: 50 })
  })

  it('a level arriving in the same millisecond after a take is given the next millisecond: stored, it is the later last', async () => {
    const ingest = fakeIngest()
    const { pipeline, timers } = setup({ ingest, maxEvents: 1 })
    // maxEvents 1: each line fills the batch, which is submitted at once; the clock does not move
    for (const line of ['q:9|g', 'q:2|g', 'q:1|g']) {
      pipeline.accept(line)
      await timers.settle()
    }
    await timers.advance(1000)
    expect(gauges(ingest.batches).map(e => [e.value, e.time])).toEqual([[9, T0], [2, T0 + 1], [1, T0 + 2]])
  })

  it('hostile gauge values and deltas past 1e15 are bad_value drops; the level stays', async () => {
    const { pipeline, timers, ingest, drops } = setup()
    pipeline.accept(['q:9e14|g', 'q:+2e14|g', 'q:NaN|g', 'q:Infinity|g', 'q:1e308|g', 'q:+1e16|g', 'q:-1e308|g', 'q:+1e14|g', 'q:x|g|@0.5', 'q:1|g|0.5'].join('\n'))
    await timers.advance(1000)
    expect(drops).toEqual({ bad_value: 7, bad_sample_rate: 1 })
    expect(gauges(ingest.batches)).toEqual([{ metric: 'q', value: 1e15, time: T0, kind: 'gauge', summary: { count: 2, sum: 1.9e15, min: 9e14, max: 1e15 } }])
  })

  it('close waits for a stored level being read, then submits the parked values', async () => {
    const store = storedLevels({ q: 7 })
    const { pipeline, ingest } = setup({ gaugeLevels: store.levels })
    pipeline.accept('q:+1|g\n')
    const closed = pipeline.close()
    await store.answer()
    await closed
    expect(gauges(ingest.batches)).toEqual([{ metric: 'q', value: 8, time: T0, kind: 'gauge' }])
  })

  it('parked values whose stored level cannot be read are dropped as not_applied', async () => {
    const store = storedLevels()
    const { pipeline, timers, ingest, drops } = setup({ gaugeLevels: store.levels })
    pipeline.accept('q:+1|g\nq:+1|g\nq:4|g\n')
    await store.fail()
    await timers.advance(1000)
    expect(drops).toEqual({ not_applied: 3 })
    expect(gauges(ingest.batches)).toEqual([])
  })

  it('UDP: parked values take places in the batch; past maxEvents new gauges are overload, and their deltas do not move a level', async () => {
    const store = storedLevels()
    const ingest = fakeIngest()
    const { pipeline, timers, drops } = setup({ ingest, maxEvents: 3, gaugeLevels: store.levels })
    pipeline.accept('a:+1|g\nb:+1|g\nc:+1|g\n') // three names parked: full
    expect(pipeline.full()).toBe(true)
    pipeline.accept('d:+1|g\nd:5|g\na:+1|g\n')
    expect(drops).toEqual({ overload: 3 })
    await store.answer()
    await timers.advance(1000)
    expect(gauges(ingest.batches).map(e => [e.metric, e.value])).toEqual([['a', 1], ['b', 1], ['c', 1]])
    expect(store.levels.peek('d')).toBe(undefined)
  })

  it('TCP: parked values fill the batch: full means wait for room, nothing dropped', async () => {
    const store = storedLevels({ a: 10 })
    const { pipeline, timers, ingest, drops } = setup({ maxEvents: 2, lossless: true, gaugeLevels: store.levels })
    pipeline.accept('a:+1|g\nb:+1|g\n')
    expect(pipeline.full()).toBe(true)
    let resumed = false
    pipeline.whenRoom().then(() => { resumed = true })
    await store.answer()
    await timers.advance(1000)
    expect(resumed).toBe(true)
    expect(gauges(ingest.batches).map(e => [e.metric, e.value])).toEqual([['a', 11], ['b', 1]])
    expect(drops).toEqual({})
  })

  it('a gauge refused as another kind\'s name (kind_mismatch) loses exactly its values', async () => {
    const ingest = fakeIngest()
    ingest.answers.push({ outcome: 'applied', accepted: 1, kindConflicts: [{ metric: 'api', stored: 'counter', asked: 'gauge' }] })
    const { pipeline, timers, drops } = setup({ ingest })
    pipeline.accept('api:1|g\napi:2|g\napi:+1|g\napi:1|c\n')
    await timers.advance(1000)
    expect(drops).toEqual({ kind_mismatch: 3 })
  })
})
