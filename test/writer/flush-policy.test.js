// When the queue cuts a flush (src/writer/flush-policy.js,
// docs/adr/0008-adaptive-group-commit.md), as tables: each row names the rule
// it pins. The queue applying these decisions: write-queue.test.js.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { NO_GATHER, afterRefusal, gatherAfter, nextCut } from '../../src/writer/flush-policy.js'

const ADAPTIVE = { flushIntervalMs: 0, flushMaxDocs: 100, writeTimeoutMs: 1000 }
const INTERVAL = { ...ADAPTIVE, flushIntervalMs: 10 }
const CAP_100 = { ...ADAPTIVE, writeTimeoutMs: 100 } // a cap of 50 ms after the oldest unit arrived

// one unit queued at 0, nothing in flight, nothing gathered
const IDLE = { flushing: false, oldestAt: 0, queuedUnits: 1, queuedDocs: 2, draining: false, roomWaiters: 0, gather: NO_GATHER }
// a flush of 1 unit ran 0 → 20 and answered with 2 queued: the next cut waits for 3 units until 30
const AFTER_BUSY = gatherAfter({ units: 1, startedAt: 0, returnedAt: 20, queuedWhenAnswered: 2, queuedUnits: 2 }, ADAPTIVE)
const GATHERING = { ...IDLE, queuedUnits: 2, queuedDocs: 4, gather: AFTER_BUSY }

const cut = because => ({ cut: true, because, wakeAt: null })
const wait = (because, wakeAt) => ({ cut: false, because, wakeAt })

describe('flush policy: nextCut(state, now, settings)', () => {
  it.each([
    // either mode
    { rule: 'a flush in flight: no cut, nothing to wait for (asked again when it returns)', state: { ...GATHERING, flushing: true }, now: 20, settings: ADAPTIVE, expected: wait('a flush in flight', null) },
    { rule: 'a flush in flight, even draining and full: no cut (one in flight at a time)', state: { ...IDLE, flushing: true, draining: true, queuedDocs: 100 }, now: 0, settings: INTERVAL, expected: wait('a flush in flight', null) },
    { rule: 'nothing queued: no cut, nothing to wait for (asked again when a unit is queued)', state: { ...IDLE, oldestAt: undefined, queuedUnits: 0, queuedDocs: 0, draining: true }, now: 0, settings: ADAPTIVE, expected: wait('nothing queued', null) },

    // adaptive (FLUSH_INTERVAL_MS = 0)
    { rule: 'adaptive, idle (never flushed): cuts at once', state: IDLE, now: 0, settings: ADAPTIVE, expected: cut('gathered') },
    { rule: 'adaptive, idle (a refusal ended the gather): cuts at once', state: { ...GATHERING, gather: afterRefusal(ADAPTIVE) }, now: 20, settings: ADAPTIVE, expected: cut('gathered') },
    { rule: 'adaptive, gathering: one unit short of those queued when it answered plus those it answered, waits for half the flush\'s duration', state: GATHERING, now: 20, settings: ADAPTIVE, expected: wait('gather window', 30) },
    { rule: 'adaptive, gathering: as many units queued as it waits for cuts at once', state: { ...GATHERING, queuedUnits: 3 }, now: 20, settings: ADAPTIVE, expected: cut('gathered') },
    { rule: 'adaptive, gathering: more units queued than it waits for cuts at once', state: { ...GATHERING, queuedUnits: 7 }, now: 20, settings: ADAPTIVE, expected: cut('gathered') },
    { rule: 'adaptive, gathering: 1 ms before half the flush\'s duration still waits', state: GATHERING, now: 29, settings: ADAPTIVE, expected: wait('gather window', 30) },
    { rule: 'adaptive, gathering: at half the flush\'s duration exactly, cuts', state: GATHERING, now: 30, settings: ADAPTIVE, expected: cut('gather window') },
    { rule: 'adaptive, idle (the window passed long ago): cuts at once', state: GATHERING, now: 1000, settings: ADAPTIVE, expected: cut('gather window') },
    { rule: 'adaptive, gathering: one document short of FLUSH_MAX_DOCS still waits', state: { ...GATHERING, queuedDocs: 99 }, now: 20, settings: ADAPTIVE, expected: wait('gather window', 30) },
    { rule: 'adaptive, gathering: FLUSH_MAX_DOCS documents queued cuts at once', state: { ...GATHERING, queuedDocs: 100 }, now: 20, settings: ADAPTIVE, expected: cut('FLUSH_MAX_DOCS') },
    { rule: 'adaptive, gathering: a drain cuts at once', state: { ...GATHERING, draining: true }, now: 20, settings: ADAPTIVE, expected: cut('draining') },
    { rule: 'adaptive, gathering: a sender waiting for room cuts at once (it comes back only once a flush answers)', state: { ...GATHERING, roomWaiters: 1 }, now: 20, settings: ADAPTIVE, expected: cut('a sender waiting for room') },
    { rule: 'adaptive, cap: a window ending past half the oldest unit\'s WRITE_TIMEOUT_MS waits until the cap', state: { ...GATHERING, gather: { units: 3, until: 60 } }, now: 40, settings: CAP_100, expected: wait('WRITE_TIMEOUT_MS cap', 50) },
    { rule: 'adaptive, cap: 1 ms before it still waits', state: { ...GATHERING, gather: { units: 3, until: 60 } }, now: 49, settings: CAP_100, expected: wait('WRITE_TIMEOUT_MS cap', 50) },
    { rule: 'adaptive, cap: at the cap exactly, cuts', state: { ...GATHERING, gather: { units: 3, until: 60 } }, now: 50, settings: CAP_100, expected: cut('WRITE_TIMEOUT_MS cap') },
    { rule: 'adaptive, cap: the window ending at the cap exactly, the window decides', state: { ...GATHERING, gather: { units: 3, until: 50 } }, now: 40, settings: CAP_100, expected: wait('gather window', 50) },
    { rule: 'adaptive, cap: it follows the oldest unit still queued (one queued at 80: 130)', state: { ...GATHERING, oldestAt: 80, gather: { units: 3, until: 150 } }, now: 100, settings: CAP_100, expected: wait('WRITE_TIMEOUT_MS cap', 130) },

    // FLUSH_INTERVAL_MS > 0: no gather
    { rule: 'interval: the oldest unit younger than FLUSH_INTERVAL_MS waits until it is that old', state: IDLE, now: 0, settings: INTERVAL, expected: wait('FLUSH_INTERVAL_MS', 10) },
    { rule: 'interval: 1 ms before it still waits', state: IDLE, now: 9, settings: INTERVAL, expected: wait('FLUSH_INTERVAL_MS', 10) },
    { rule: 'interval: the oldest unit exactly FLUSH_INTERVAL_MS old cuts', state: IDLE, now: 10, settings: INTERVAL, expected: cut('FLUSH_INTERVAL_MS') },
    { rule: 'interval: the oldest unit older than that (queued behind a flush) cuts at once', state: IDLE, now: 20, settings: INTERVAL, expected: cut('FLUSH_INTERVAL_MS') },
    { rule: 'interval: one document short of FLUSH_MAX_DOCS waits for the interval', state: { ...IDLE, queuedDocs: 99 }, now: 0, settings: INTERVAL, expected: wait('FLUSH_INTERVAL_MS', 10) },
    { rule: 'interval: FLUSH_MAX_DOCS documents queued cuts before the interval', state: { ...IDLE, queuedDocs: 100 }, now: 0, settings: INTERVAL, expected: cut('FLUSH_MAX_DOCS') },
    { rule: 'interval: a drain cuts before the interval', state: { ...IDLE, draining: true }, now: 0, settings: INTERVAL, expected: cut('draining') },
    { rule: 'interval: a sender waiting for room does not cut early (no gather to end)', state: { ...IDLE, roomWaiters: 1 }, now: 0, settings: INTERVAL, expected: wait('FLUSH_INTERVAL_MS', 10) },
    { rule: 'interval: a gather is never waited for, the interval alone decides', state: { ...IDLE, gather: { units: 5, until: 1000 } }, now: 10, settings: INTERVAL, expected: cut('FLUSH_INTERVAL_MS') }
  ])('$rule', ({ state, now, settings, expected }) => {
    expect(nextCut(state, now, settings)).toEqual(expected)
  })
})

describe('flush policy: gatherAfter(flush, settings)', () => {
  it.each([
    { rule: 'waits for the units queued when it answered plus those it answered, until half its duration after it returned', flush: { units: 1, startedAt: 0, returnedAt: 20, queuedWhenAnswered: 2, queuedUnits: 2 }, settings: ADAPTIVE, expected: { units: 3, until: 30 } },
    { rule: 'a flush that answered nothing before returning: the units queued when it returned', flush: { units: 4, startedAt: 100, returnedAt: 140, queuedWhenAnswered: null, queuedUnits: 2 }, settings: ADAPTIVE, expected: { units: 6, until: 160 } },
    { rule: 'senders back between its answer (a watchdog at 1000) and its return (1200) are not waited for twice', flush: { units: 1, startedAt: 0, returnedAt: 1200, queuedWhenAnswered: 0, queuedUnits: 1 }, settings: ADAPTIVE, expected: { units: 1, until: 1800 } },
    { rule: 'a flush that took no time leaves no window', flush: { units: 1, startedAt: 50, returnedAt: 50, queuedWhenAnswered: 0, queuedUnits: 0 }, settings: ADAPTIVE, expected: { units: 1, until: 50 } },
    { rule: 'a positive FLUSH_INTERVAL_MS gathers nothing', flush: { units: 1, startedAt: 0, returnedAt: 20, queuedWhenAnswered: 2, queuedUnits: 2 }, settings: INTERVAL, expected: NO_GATHER }
  ])('$rule', ({ flush, settings, expected }) => {
    expect(gatherAfter(flush, settings)).toEqual(expected)
  })
})

describe('flush policy: afterRefusal(settings)', () => {
  it.each([
    { rule: 'adaptive: a sender refused or turned away for room ends the gather', settings: ADAPTIVE, expected: NO_GATHER },
    { rule: 'a positive FLUSH_INTERVAL_MS: nothing gathers, nothing changes', settings: INTERVAL, expected: null }
  ])('$rule', ({ settings, expected }) => {
    expect(afterRefusal(settings)).toBe(expected)
  })
})

describe('flush policy: properties', () => {
  const anyState = fc.record({
    flushing: fc.boolean(),
    oldestAt: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined }),
    queuedUnits: fc.integer({ min: 1, max: 50 }),
    queuedDocs: fc.integer({ min: 0, max: 200 }),
    draining: fc.boolean(),
    roomWaiters: fc.integer({ min: 0, max: 2 }),
    gather: fc.oneof(fc.constant(NO_GATHER), fc.record({ units: fc.integer({ min: 1, max: 50 }), until: fc.integer({ min: 0, max: 20_000 }) }))
  })
  const anySettings = fc.record({
    flushIntervalMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1000 })),
    flushMaxDocs: fc.integer({ min: 1, max: 200 }),
    writeTimeoutMs: fc.integer({ min: 1, max: 10_000 })
  })

  it('never waits past half the oldest unit\'s WRITE_TIMEOUT_MS (adaptive) or its FLUSH_INTERVAL_MS, and never wakes in the past', () => {
    fc.assert(fc.property(anyState, fc.integer({ min: 0, max: 20_000 }), anySettings, (state, now, settings) => {
      const d = nextCut(state, now, settings)
      if (d.cut || d.wakeAt === null) return
      expect(d.wakeAt).toBeGreaterThan(now)
      const bound = settings.flushIntervalMs > 0 ? settings.flushIntervalMs : settings.writeTimeoutMs / 2
      expect(d.wakeAt).toBeLessThanOrEqual(state.oldestAt + bound)
    }))
  })

  it('asked again at its wakeAt with nothing changed, it cuts', () => {
    fc.assert(fc.property(anyState, fc.integer({ min: 0, max: 20_000 }), anySettings, (state, now, settings) => {
      const d = nextCut(state, now, settings)
      if (d.cut || d.wakeAt === null) return
      expect(nextCut(state, d.wakeAt, settings)).toMatchObject({ cut: true, because: d.because })
    }))
  })
})
