// The writer's queue alone (src/writer/write-queue.js): admission, the cut of
// a flush and expiry, with a recording runFlush in place of the database and
// injected timers deciding every order.
import { describe, expect, it } from 'vitest'
import { buildWriteUnit } from '../../src/kinds/write-unit.js'
import { createWriteQueue } from '../../src/writer/write-queue.js'
import { fakeTimers } from '../helpers/fake-timers.js'

const T = Date.UTC(2026, 10, 21, 10, 0)
const unit = (...metrics) => buildWriteUnit(metrics.map(metric => ({ metric, value: 1, time: T })))

function setup (options = {}) {
  const timers = fakeTimers()
  const flushes = [] // per flush: { metrics, finish }: the test decides when each flush ends
  const queue = createWriteQueue({
    flushIntervalMs: 0,
    flushMaxDocs: 1000,
    maxPendingEvents: 10,
    writeTimeoutMs: 1000,
    timers,
    runFlush: (units, answer) => new Promise(resolve => {
      flushes.push({
        metrics: units.map(u => [...u.metrics.keys()]),
        finish: () => { for (const u of units) answer(u, 'applied'); resolve() }
      })
    }),
    ...options
  })
  return { queue, timers, flushes }
}

describe('write queue', () => {
  it('adaptive (0 ms): an idle queue flushes at once; units arriving meanwhile ride the next flush together', async () => {
    const { queue, timers, flushes } = setup()
    const a = queue.submit(unit('a'))
    await timers.settle()
    expect(flushes.map(f => f.metrics)).toEqual([[['a']]])
    const b = queue.submit(unit('b'))
    const c = queue.submit(unit('c'))
    await timers.settle()
    expect(flushes).toHaveLength(1) // one flush in flight at a time
    flushes[0].finish()
    await timers.settle()
    expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b'], ['c']]])
    flushes[1].finish()
    expect(await Promise.all([a, b, c])).toEqual([{ outcome: 'applied' }, { outcome: 'applied' }, { outcome: 'applied' }])
  })

  describe('adaptive (0 ms): after a flush returns, the next cut gathers the senders it answered', () => {
    it('waits until as many units are queued as were queued then plus those it answered, then cuts at once', async () => {
      const { queue, timers, flushes } = setup()
      queue.submit(unit('a')) // an idle queue: at once
      await timers.settle()
      queue.submit(unit('b'))
      queue.submit(unit('c'))
      await timers.advance(20)
      flushes[0].finish() // a's flush took 20 ms; b and c wait for a's sender (3 units), 10 ms at most
      await timers.advance(5)
      expect(flushes).toHaveLength(1)
      queue.submit(unit('d')) // a's sender again
      await timers.settle()
      expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b'], ['c'], ['d']]])
    })

    it('waits half the returned flush\'s duration at most', async () => {
      const { queue, timers, flushes } = setup()
      queue.submit(unit('a'))
      await timers.settle()
      queue.submit(unit('b'))
      await timers.advance(20)
      flushes[0].finish()
      await timers.advance(9)
      expect(flushes).toHaveLength(1)
      await timers.advance(1)
      expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b']]])
    })

    it('a unit arriving after the window, or at an idle writer, is flushed at once', async () => {
      const { queue, timers, flushes } = setup()
      queue.submit(unit('a'))
      queue.submit(unit('b'))
      await timers.settle()
      expect(flushes.map(f => f.metrics)).toEqual([[['a']]])
      await timers.advance(20)
      flushes[0].finish() // b queued: waits for a's sender until 30
      await timers.advance(10)
      expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b']]])
      await timers.advance(40)
      flushes[1].finish() // a flush of one that took 40 ms, and nothing queued: gathers until 90 for one unit
      await timers.settle()
      queue.submit(unit('c')) // that one unit: at once
      await timers.settle()
      expect(flushes).toHaveLength(3)
      flushes[2].finish()
      await timers.advance(1000) // idle
      queue.submit(unit('d'))
      await timers.settle()
      expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b']], [['c']], [['d']]])
    })

    it('never gathers past half the oldest queued unit\'s WRITE_TIMEOUT_MS', async () => {
      const { queue, timers, flushes } = setup({ writeTimeoutMs: 100 })
      queue.submit(unit('a'))
      await timers.settle()
      const b = queue.submit(unit('b')) // queued at 0: gathers until 50 at the latest
      await timers.advance(40)
      flushes[0].finish() // took 40 ms: the window would end at 60
      await timers.advance(9)
      expect(flushes).toHaveLength(1)
      await timers.advance(1)
      expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b']]])
      flushes[1].finish()
      expect(await b).toEqual({ outcome: 'applied' })
    })

    it('FLUSH_MAX_DOCS queued, or a drain, cuts at once', async () => {
      const full = setup({ flushMaxDocs: 2 })
      full.queue.submit(unit('a'))
      await full.timers.settle()
      full.queue.submit(unit('b')) // its daily and monthly documents: the bound
      await full.timers.advance(20)
      full.flushes[0].finish()
      await full.timers.settle()
      expect(full.flushes.map(f => f.metrics)).toEqual([[['a']], [['b']]])

      const draining = setup()
      draining.queue.submit(unit('a'))
      await draining.timers.settle()
      draining.queue.submit(unit('b'))
      await draining.timers.advance(20)
      draining.flushes[0].finish()
      await draining.timers.settle()
      expect(draining.flushes).toHaveLength(1) // gathering
      draining.queue.drain()
      await draining.timers.settle()
      expect(draining.flushes.map(f => f.metrics)).toEqual([[['a']], [['b']]])
    })

    it('with FLUSH_INTERVAL_MS set, nothing is gathered: the interval alone decides', async () => {
      const { queue, timers, flushes } = setup({ flushIntervalMs: 5 })
      queue.submit(unit('a'))
      await timers.advance(5)
      queue.submit(unit('b'))
      await timers.advance(20)
      flushes[0].finish() // b has waited 20 ms ≥ 5: at once
      await timers.settle()
      expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b']]])
    })

    it('counts the senders from when the flush answered them: those back before it returned (a watchdog\'s answer, then the driver\'s tail) are not waited for again', async () => {
      const held = [] // per flush: { answerAll, finish }, apart as the runner's watchdog does them
      const { queue, timers } = setup({
        runFlush: (units, answer) => new Promise(resolve => {
          held.push({ metrics: units.map(u => [...u.metrics.keys()]), answerAll: () => { for (const u of units) answer(u, 'unknown') }, finish: resolve })
        })
      })
      const a = queue.submit(unit('a'))
      await timers.settle()
      await timers.advance(1000)
      held[0].answerAll() // the watchdog (WRITE_TIMEOUT_MS): a is answered, the flush is still in flight
      expect(await a).toEqual({ outcome: 'unknown' })
      queue.submit(unit('a')) // a's sender again, while the flush is still in flight
      await timers.advance(200)
      held[0].finish() // returns at 1200: a's sender is back already (0 queued when answered + 1 answered)
      await timers.settle()
      expect(held.map(f => f.metrics)).toEqual([[['a']], [['a']]])
    })

    it('a sender turned away for MAX_PENDING_EVENTS (by the queue or the HTTP door\'s admission), or waiting for room, ends the gather: it cannot come back until a flush answers', async () => {
      for (const how of ['refused', 'turned away', 'waiting']) {
        const { queue, timers, flushes } = setup({ maxPendingEvents: 10 })
        queue.submit(unit('a'))
        await timers.settle()
        for (const m of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) queue.submit(unit(m)) // 9 events pending
        await timers.advance(20)
        flushes[0].finish() // 8 queued: gathers for a's sender until 30
        await timers.settle()
        expect(flushes).toHaveLength(1)
        if (how === 'refused') {
          expect(await queue.submit(unit('x', 'y', 'z'))).toMatchObject({ outcome: 'not_applied' }) // a's sender: 11 > 10
        } else if (how === 'turned away') {
          queue.turnedAway() // admission.js: no room for the events its body can hold
        } else {
          queue.waitForRoom(3) // StatsD's TCP door, its reading paused
        }
        await timers.settle()
        expect(flushes.map(f => f.metrics.length)).toEqual([1, 8])
      }
    })

    it('a gather window that abandon or close ends leaves no timer behind', async () => {
      for (const how of ['close', 'abandon']) {
        const { queue, timers, flushes } = setup()
        queue.submit(unit('a'))
        await timers.settle()
        const b = queue.submit(unit('b'))
        await timers.advance(20)
        flushes[0].finish() // b gathers until 30: a cut timer is armed
        await timers.settle()
        expect(flushes).toHaveLength(1)
        const closed = how === 'close' ? queue.close() : queue.abandon('stopping')
        await timers.settle()
        if (how === 'close') {
          flushes[1].finish() // close cuts at once
          await closed
          expect(await b).toEqual({ outcome: 'applied' })
        } else {
          expect(await b).toEqual({ outcome: 'not_applied', reason: 'stopping' })
        }
        expect(timers.pendingTimers()).toBe(0)
      }
    })

    it('the WRITE_TIMEOUT_MS cap follows the oldest unit still queued: one expired during the flush does not end the gather', async () => {
      const { queue, timers, flushes } = setup({ writeTimeoutMs: 100 })
      queue.submit(unit('a'))
      await timers.settle()
      const b = queue.submit(unit('b')) // queued at 0: expires at 100
      await timers.advance(80)
      const c = queue.submit(unit('c')) // queued at 80: gathers until 130 at the latest
      await timers.advance(20)
      expect(await b).toEqual({ outcome: 'not_applied', reason: 'waited in the queue longer than WRITE_TIMEOUT_MS (100 ms)' })
      flushes[0].finish() // returns at 100 having taken 100 ms: c gathers for a's sender until min(150, 80 + 50)
      await timers.advance(29)
      expect(flushes).toHaveLength(1)
      await timers.advance(1)
      expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['c']]])
      flushes[1].finish()
      expect(await c).toEqual({ outcome: 'applied' })
    })
  })

  it('with FLUSH_INTERVAL_MS the cut waits until the oldest unit is that old', async () => {
    const { queue, timers, flushes } = setup({ flushIntervalMs: 10 })
    queue.submit(unit('a'))
    await timers.advance(9)
    expect(flushes).toHaveLength(0)
    queue.submit(unit('b'))
    await timers.advance(1)
    expect(flushes.map(f => f.metrics)).toEqual([[['a'], ['b']]])
  })

  it('FLUSH_MAX_DOCS cuts a flush early and bounds its distinct documents, never splitting a unit', async () => {
    // each one-metric unit holds one daily and one monthly document
    const { queue, timers, flushes } = setup({ flushIntervalMs: 1000, flushMaxDocs: 4 })
    queue.submit(unit('a'))
    queue.submit(unit('b', 'c')) // 4 documents: with a's 2 it exceeds the bound
    await timers.settle()
    expect(flushes.map(f => f.metrics)).toEqual([[['a']]])
    flushes[0].finish()
    await timers.settle()
    expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b', 'c']]])
  })

  it('refuses past MAX_PENDING_EVENTS with not_applied naming the limit; hasRoom and waitForRoom follow the answers', async () => {
    const { queue, timers, flushes } = setup({ maxPendingEvents: 2 })
    queue.submit(unit('a', 'b'))
    expect(queue.hasRoom(1)).toBe(false)
    expect(await queue.submit(unit('c'))).toEqual({ outcome: 'not_applied', reason: 'too many pending events (MAX_PENDING_EVENTS = 2)' })
    let roomAgain = false
    queue.waitForRoom(1).then(() => { roomAgain = true })
    await timers.settle()
    expect(roomAgain).toBe(false)
    flushes[0].finish()
    await timers.settle()
    expect(roomAgain).toBe(true)
    expect(queue.hasRoom(2)).toBe(true)
  })

  it('a unit queued longer than WRITE_TIMEOUT_MS is answered not_applied and never flushed', async () => {
    const { queue, timers, flushes } = setup({ writeTimeoutMs: 100 })
    queue.submit(unit('a')) // in flight, held by the test
    const late = queue.submit(unit('b'))
    await timers.advance(100)
    expect(await late).toEqual({ outcome: 'not_applied', reason: 'waited in the queue longer than WRITE_TIMEOUT_MS (100 ms)' })
    flushes[0].finish()
    await timers.settle()
    expect(flushes.map(f => f.metrics)).toEqual([[['a']]])
    expect(queue.stats()).toEqual({ pendingEvents: 0, queuedUnits: 0, queuedDocs: 0, flushing: false })
  })

  it('each queued unit expires at its own deadline, one timer serving them in arrival order', async () => {
    const { queue, timers, flushes } = setup({ writeTimeoutMs: 100 })
    queue.submit(unit('a')) // in flight, held by the test
    const b = queue.submit(unit('b'))
    await timers.advance(60)
    const c = queue.submit(unit('c'))
    let cAnswer = null
    c.then(answer => { cAnswer = answer })
    await timers.advance(40) // b's deadline; c has waited 40 ms
    expect(await b).toEqual({ outcome: 'not_applied', reason: 'waited in the queue longer than WRITE_TIMEOUT_MS (100 ms)' })
    expect(cAnswer).toBe(null)
    expect(queue.stats().queuedUnits).toBe(1)
    await timers.advance(59)
    expect(cAnswer).toBe(null)
    await timers.advance(1) // c's deadline
    expect(cAnswer).toEqual({ outcome: 'not_applied', reason: 'waited in the queue longer than WRITE_TIMEOUT_MS (100 ms)' })
    flushes[0].finish()
    await timers.settle()
    expect(flushes.map(f => f.metrics)).toEqual([[['a']]])
  })

  it('a unit a flush took is not expired by the timer armed for it; the next queued unit keeps its own deadline', async () => {
    const { queue, timers, flushes } = setup({ writeTimeoutMs: 100 })
    const a = queue.submit(unit('a')) // in flight
    const b = queue.submit(unit('b'))
    await timers.advance(50)
    flushes[0].finish() // b rides the next flush before its deadline, once the gather for a's sender (25 ms) is over
    await timers.advance(25)
    expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b']]])
    const c = queue.submit(unit('c')) // queued at 75, behind b's flush
    await timers.advance(50) // b's old deadline (100) passes: b is in flight, c has waited 50 ms
    expect(queue.stats().queuedUnits).toBe(1)
    flushes[1].finish()
    await timers.advance(25)
    expect(await b).toEqual({ outcome: 'applied' })
    expect(flushes.map(f => f.metrics)).toEqual([[['a']], [['b']], [['c']]])
    flushes[2].finish()
    await timers.settle()
    expect(await a).toEqual({ outcome: 'applied' })
    expect(await c).toEqual({ outcome: 'applied' })
  })

  it.each([0, 1000])('stats() counts the distinct queued documents (FLUSH_INTERVAL_MS=%i: kept per unit, or counted when asked)', async (flushIntervalMs) => {
    const { queue, timers, flushes } = setup({ flushIntervalMs, writeTimeoutMs: 10_000 })
    queue.submit(unit('a'))
    await timers.advance(flushIntervalMs) // 'a' in flight
    queue.submit(unit('a', 'b'))
    queue.submit(unit('b'))
    expect(queue.stats()).toMatchObject({ queuedUnits: 2, queuedDocs: 4, flushing: true }) // a and b: a daily and a monthly each
    flushes[0].finish()
    await timers.advance(flushIntervalMs)
    expect(queue.stats()).toMatchObject({ queuedUnits: 0, queuedDocs: 0 })
  })

  it('a unit overdue when a flush is cut is answered not_applied, not sent, even before its timer ran', async () => {
    let t = 0
    const late = { now: () => t, setTimeout: () => 0, clearTimeout () {} } // timers that never run: a stalled loop
    const { queue, flushes } = setup({ writeTimeoutMs: 100, timers: late })
    queue.submit(unit('a')) // in flight
    const b = queue.submit(unit('b'))
    await new Promise(resolve => setImmediate(resolve))
    t = 100 // b's deadline passes; its timer has not run
    flushes[0].finish()
    expect(await b).toEqual({ outcome: 'not_applied', reason: 'waited in the queue longer than WRITE_TIMEOUT_MS (100 ms)' })
    await new Promise(resolve => setImmediate(resolve))
    expect(flushes.map(f => f.metrics)).toEqual([[['a']]]) // no flush of b, and no empty flush
    expect(queue.stats()).toEqual({ pendingEvents: 0, queuedUnits: 0, queuedDocs: 0, flushing: false })
  })

  it.each(['close', 'abandon'])('%s leaves no timer behind (none keeps the process alive)', async (how) => {
    const { queue, timers, flushes } = setup({ writeTimeoutMs: 3000 })
    const a = queue.submit(unit('a'))
    await timers.settle()
    flushes[0].finish()
    expect(await a).toEqual({ outcome: 'applied' })
    if (how === 'close') await queue.close()
    else queue.abandon('stopping')
    await timers.settle()
    expect(timers.pendingTimers()).toBe(0)
  })

  it('a flush that throws answers each of its units unknown, once', async () => {
    const { queue } = setup({ runFlush: async () => { throw new Error('boom') } })
    expect(await queue.submit(unit('a'))).toEqual({ outcome: 'unknown', reason: 'the write failed unexpectedly' })
  })

  it('close flushes what is queued, then refuses new units', async () => {
    const { queue, timers, flushes } = setup({ flushIntervalMs: 1000 })
    const queued = queue.submit(unit('a'))
    const closed = queue.close()
    await timers.settle()
    expect(flushes).toHaveLength(1)
    flushes[0].finish()
    await closed
    expect(await queued).toEqual({ outcome: 'applied' })
    expect(await queue.submit(unit('b'))).toEqual({ outcome: 'not_applied', reason: 'the server is shutting down' })
  })
})
