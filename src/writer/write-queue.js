// The writer's queue (docs/architecture.md#how-a-request-becomes-a-bulkwrite): admission, the
// cut of a flush, and expiry. Requests queue as units and are never split;
// when a flush is cut is flush-policy.js's (docs/adr/0008-adaptive-group-commit.md):
// the queue asks it whenever what it reads changes and applies its answer
// (a cut, or one timer to ask again). Every unit gets exactly one answer
// { outcome, reason? }; the flush itself is the runner's (flush-runner.js).
import { NOT_APPLIED } from './write-outcomes.js'
import { unitKeys } from './write-operations.js'
import { NO_GATHER, afterRefusal, gatherAfter, nextCut } from './flush-policy.js'
import { DOCUMENT_PARTS } from '../kinds/index.js'
import { realTimers } from '../clock.js'

/**
 * options: flushIntervalMs, flushMaxDocs, maxPendingEvents, writeTimeoutMs,
 *   timers ({ now, setTimeout, clearTimeout }),
 *   runFlush(units, answer) → Promise: writes the units and answers each
 *     (answer(unit, outcome, reason)); the queue answers whatever it left unanswered,
 *   onAnswer(answer, events), onError(err, what): observers, never break an answer,
 *   canTake(unit) → reason | null: a refusal the queue does not know (e.g. no key store)
 */
export function createWriteQueue (options) {
  const {
    flushIntervalMs, flushMaxDocs, maxPendingEvents, writeTimeoutMs,
    timers = realTimers, runFlush, onAnswer = () => {}, onError = () => {}, canTake = () => null
  } = options

  // Units in arrival order from `head` on. An expired unit stays in the
  // array, answered, and is skipped: removal is O(1) even for a full queue.
  const state = {
    queue: [],
    head: 0,
    queuedUnits: 0,
    queuedDocs: new Map(), // document key → number of queued units holding it
    pendingEvents: 0, // queued + in flight
    inFlight: null,
    cutTimer: null,
    // One timer for expiry, armed for the oldest queued unit: units queue in
    // arrival order and wait at most writeTimeoutMs each, so the oldest
    // expires first (a timer per unit cost a Timeout and two list
    // operations per request).
    expiryTimer: null,
    expiryAt: Infinity,
    closing: false,
    draining: false,
    idleWaiters: [],
    roomWaiters: [],
    gather: NO_GATHER // what the next cut waits for (flush-policy.js gatherAfter)
  }
  const settings = { flushIntervalMs, flushMaxDocs, writeTimeoutMs } // flush-policy.js's

  function answer (unit, outcome, reason) {
    if (unit.answered) return
    unit.answered = true
    state.pendingEvents -= unit.events
    const reply = reason ? { outcome, reason } : { outcome }
    unit.resolve(reply)
    try { onAnswer(reply, unit.events) } catch (err) { onError(err, 'answer observer') }
    wakeRoomWaiters()
  }

  function settle (unit) {
    if (unit.settledCalled) return
    unit.settledCalled = true
    try { unit.settled?.() } catch (err) { onError(err, 'settled()') }
  }

  function trackDocs (unit, delta) {
    for (const key of unit.docKeys) {
      const n = (state.queuedDocs.get(key) ?? 0) + delta
      if (n === 0) state.queuedDocs.delete(key)
      else state.queuedDocs.set(key, n)
    }
  }

  function dequeue (unit) {
    unit.queued = false
    state.queuedUnits--
    trackDocs(unit, -1)
  }

  /** Drops answered units from the front (clearing their slots) and compacts now and then. */
  function oldestQueued () {
    while (state.head < state.queue.length && !state.queue[state.head].queued) state.queue[state.head++] = undefined
    if (state.head === state.queue.length) {
      state.queue = []
      state.head = 0
    } else if (state.head > 1024 && state.head * 2 > state.queue.length) {
      state.queue = state.queue.slice(state.head)
      state.head = 0
    }
    return state.queue[state.head]
  }

  function expire (unit) {
    dequeue(unit)
    // its slot may wait for the head; its increments need not
    for (const { collection } of DOCUMENT_PARTS) unit[collection] = null
    unit.metrics = null
    answer(unit, NOT_APPLIED, `waited in the queue longer than WRITE_TIMEOUT_MS (${writeTimeoutMs} ms)`)
    settle(unit)
  }

  /** Answers the queued units that waited writeTimeoutMs, oldest first, and arms the timer for the next one. */
  function expireOverdue () {
    state.expiryTimer = null
    state.expiryAt = Infinity
    const now = timers.now()
    let expired = false
    for (let unit = oldestQueued(); unit && unit.enqueuedAt + writeTimeoutMs <= now; unit = oldestQueued()) {
      expire(unit)
      expired = true
    }
    armExpiry()
    if (expired) wakeIdleWaiters()
  }

  /** Keeps the expiry timer armed for the oldest queued unit (re-armed only when that unit's deadline is earlier) */
  function armExpiry () {
    const oldest = oldestQueued()
    if (!oldest) return
    const at = oldest.enqueuedAt + writeTimeoutMs
    if (at >= state.expiryAt) return
    timers.clearTimeout(state.expiryTimer)
    state.expiryAt = at
    state.expiryTimer = timers.setTimeout(expireOverdue, Math.max(0, at - timers.now()))
  }

  /** Units from the front while the flush's distinct documents stay ≤ flushMaxDocs (at least one). */
  function cut () {
    const docs = new Set()
    const units = []
    const now = timers.now()
    for (let unit = oldestQueued(); unit; unit = oldestQueued()) {
      // overdue but its timer not run yet (timers run late under load): never sent
      if (now - unit.enqueuedAt >= writeTimeoutMs) {
        expire(unit)
        continue
      }
      const fresh = unit.docKeys.filter(k => !docs.has(k))
      if (units.length > 0 && docs.size + fresh.length > flushMaxDocs) break
      for (const k of fresh) docs.add(k)
      dequeue(unit)
      units.push(unit)
    }
    return units
  }

  /** Asks flush-policy.js whether to cut now, and cuts, or arms the cut timer for when it says (unless one is armed) */
  function schedule () {
    const oldest = oldestQueued()
    const now = timers.now()
    const decision = nextCut({
      flushing: state.inFlight !== null,
      oldestAt: oldest?.enqueuedAt,
      queuedUnits: state.queuedUnits,
      queuedDocs: state.queuedDocs.size,
      draining: state.draining,
      roomWaiters: state.roomWaiters.length,
      gather: state.gather
    }, now, settings)
    if (decision.cut) {
      timers.clearTimeout(state.cutTimer)
      state.cutTimer = null
      startFlush()
    } else if (decision.wakeAt !== null && !state.cutTimer) {
      state.cutTimer = timers.setTimeout(() => { state.cutTimer = null; schedule() }, decision.wakeAt - now)
    }
  }

  /** A sender was turned away for room: the gather ends (flush-policy.js afterRefusal) */
  function stopGathering () {
    const gather = afterRefusal(settings)
    if (gather === null) return
    state.gather = gather
    schedule()
  }

  function startFlush () {
    const units = cut()
    if (units.length === 0) { // every queued unit was overdue and is answered
      armExpiry()
      wakeIdleWaiters()
      return
    }
    const startedAt = timers.now()
    // the units queued when the flush first answered (null: none before it returned)
    const seen = { queuedWhenAnswered: null }
    state.inFlight = flush(units, seen).finally(() => {
      state.inFlight = null
      state.gather = gatherAfter({
        units: units.length, startedAt, returnedAt: timers.now(), queuedWhenAnswered: seen.queuedWhenAnswered, queuedUnits: state.queuedUnits
      }, settings)
      schedule()
      wakeIdleWaiters()
    })
  }

  async function flush (units, seen) {
    const answerOwn = (unit, outcome, reason) => {
      if (seen.queuedWhenAnswered === null) seen.queuedWhenAnswered = state.queuedUnits
      answer(unit, outcome, reason)
    }
    try {
      await runFlush(units, answerOwn)
    } catch (err) {
      onError(err, 'flush')
    } finally {
      // whatever happened, every unit of the flush gets its one answer
      for (const unit of units) answer(unit, 'unknown', 'the write failed unexpectedly')
      for (const unit of units) settle(unit)
    }
  }

  function stopExpiry () {
    timers.clearTimeout(state.expiryTimer)
    state.expiryTimer = null
    state.expiryAt = Infinity
  }

  function wakeIdleWaiters () {
    if (state.queuedUnits === 0 && !state.inFlight) {
      const waiters = state.idleWaiters
      state.idleWaiters = []
      for (const w of waiters) w()
    }
  }

  function hasRoom (events) {
    return state.pendingEvents + events <= maxPendingEvents
  }

  function wakeRoomWaiters () {
    if (state.roomWaiters.length === 0) return
    const keep = []
    for (const w of state.roomWaiters) {
      if (state.closing || hasRoom(w.events)) w.resolve()
      else keep.push(w)
    }
    state.roomWaiters = keep
  }

  return {
    /** Queues a unit (see buildWriteUnit); resolves to its one answer, never rejects. */
    submit (unit) {
      return new Promise(resolve => {
        const { docKeys, allKeys } = unitKeys(unit)
        // the queue's own fields beside the unit's (no spread: this runs once per request)
        const entry = {
          metrics: unit.metrics,
          events: unit.events,
          idempotency: unit.idempotency,
          settled: unit.settled,
          docKeys,
          allKeys,
          resolve,
          answered: false,
          queued: false,
          settledCalled: false,
          enqueuedAt: timers.now()
        }
        // each kind's document maps (the same fields in the same order for every entry)
        for (const { collection } of DOCUMENT_PARTS) entry[collection] = unit[collection]
        const refuse = reason => {
          entry.events = 0
          answer(entry, NOT_APPLIED, reason)
          settle(entry)
        }
        if (state.closing) return refuse('the server is shutting down')
        if (!hasRoom(unit.events)) {
          refuse(`too many pending events (MAX_PENDING_EVENTS = ${maxPendingEvents})`)
          return stopGathering()
        }
        const refusal = canTake(entry)
        if (refusal) return refuse(refusal)
        state.pendingEvents += unit.events
        entry.queued = true
        state.queue.push(entry)
        state.queuedUnits++
        trackDocs(entry, +1)
        if (state.expiryTimer === null) armExpiry()
        schedule()
      })
    },
    /** Whether `events` more events would be admitted now */
    hasRoom,
    /** A sender was refused for room before its unit reached the queue (the HTTP door's admission): a gather ends */
    turnedAway: stopGathering,
    /** Resolves once `events` more events would be admitted (or the queue is closing: submit then refuses) */
    waitForRoom (events = 1) {
      if (state.closing || hasRoom(events)) return Promise.resolve()
      const room = new Promise(resolve => state.roomWaiters.push({ events, resolve }))
      schedule() // a gather in progress ends: this sender comes back only once a flush answers
      return room
    },
    /** Flushes everything queued now, and resolves once nothing is queued or in flight. */
    drain () {
      state.draining = true
      const idle = new Promise(resolve => state.idleWaiters.push(resolve))
      schedule()
      wakeIdleWaiters()
      return idle.finally(() => { state.draining = false })
    },
    /**
     * A forced stop: refuses new units and answers every queued one not
     * applied (503) with `reason`, without writing it; a flush in flight is
     * left to finish or be cut. → { events, units } abandoned.
     */
    abandon (reason) {
      state.closing = true
      timers.clearTimeout(state.cutTimer)
      state.cutTimer = null
      const abandoned = { events: 0, units: 0 }
      stopExpiry()
      for (let unit = oldestQueued(); unit; unit = oldestQueued()) {
        abandoned.events += unit.events
        abandoned.units++
        dequeue(unit)
        answer(unit, NOT_APPLIED, reason)
        settle(unit)
      }
      wakeRoomWaiters()
      return abandoned
    },
    /** Refuses new units, flushes the queued ones, and resolves when every unit is answered. */
    async close () {
      state.closing = true
      wakeRoomWaiters()
      await this.drain()
      timers.clearTimeout(state.cutTimer)
      state.cutTimer = null
      stopExpiry() // nothing is queued now: no timer may keep the process alive
    },
    /** Events queued or in flight (what MAX_PENDING_EVENTS bounds) */
    pendingEvents: () => state.pendingEvents,
    stats () {
      return { pendingEvents: state.pendingEvents, queuedUnits: state.queuedUnits, queuedDocs: state.queuedDocs.size, flushing: Boolean(state.inFlight) }
    }
  }
}
