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
  const q = newQueue(options)
  return {
    /** Queues a unit (see buildWriteUnit); resolves to its one answer, never rejects. */
    submit: unit => new Promise(resolve => enqueue(q, unit, resolve)),
    /** Whether `events` more events would be admitted now */
    hasRoom: events => hasRoom(q, events),
    /** A sender was refused for room before its unit reached the queue (the HTTP door's admission): a gather ends */
    turnedAway: () => stopGathering(q),
    /** Resolves once `events` more events would be admitted (or the queue is closing: submit then refuses) */
    waitForRoom: (events = 1) => waitForRoom(q, events),
    /** Flushes everything queued now, and resolves once nothing is queued or in flight. */
    drain: () => drain(q),
    /**
     * A forced stop: refuses new units and answers every queued one not
     * applied (503) with `reason`, without writing it; a flush in flight is
     * left to finish or be cut. → { events, units } abandoned.
     */
    abandon: reason => abandon(q, reason),
    /** Refuses new units, flushes the queued ones, and resolves when every unit is answered. */
    async close () {
      q.closing = true
      wakeRoomWaiters(q)
      await this.drain()
      clearCutTimer(q)
      stopExpiry(q) // nothing is queued now: no timer may keep the process alive
    },
    /** Events queued or in flight (what MAX_PENDING_EVENTS bounds) */
    pendingEvents: () => q.pendingEvents,
    stats: () => ({ pendingEvents: q.pendingEvents, queuedUnits: q.queuedUnits, queuedDocs: q.queuedDocCount, flushing: Boolean(q.inFlight) })
  }
}

/** The queue's options and state, which the functions below share */
function newQueue (options) {
  const {
    flushIntervalMs, flushMaxDocs, maxPendingEvents, writeTimeoutMs,
    timers = realTimers, runFlush, onAnswer = () => {}, onError = () => {}, canTake = () => null
  } = options
  const q = {
    settings: { flushIntervalMs, flushMaxDocs, writeTimeoutMs }, // flush-policy.js's
    maxPendingEvents,
    writeTimeoutMs,
    timers,
    runFlush,
    onAnswer,
    onError,
    canTake,
    // Units in arrival order from `head` on. An expired unit stays in the
    // array, answered, and is skipped: removal is O(1) even for a full queue.
    queue: [],
    head: 0,
    queuedUnits: 0,
    // per collection, document id → number of queued units holding it: by the ids the units
    // hold (the same strings unit after unit, ../ingest/document-ids.js), no key made per document
    queuedDocs: Object.fromEntries(DOCUMENT_PARTS.map(({ collection }) => [collection, new Map()])),
    queuedDocCount: 0, // distinct documents queued
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
    gather: NO_GATHER, // what the next cut waits for (flush-policy.js gatherAfter)
    // the timers' callbacks, made once
    onCutTimer: null,
    onExpiryTimer: null
  }
  q.onCutTimer = () => { q.cutTimer = null; schedule(q) }
  q.onExpiryTimer = () => expireOverdue(q)
  return q
}

// ── admission ──────────────────────────────────────────────────────────────

/** Queues `unit` answered through `resolve`, or refuses it (answered at once) */
function enqueue (q, unit, resolve) {
  const entry = queueEntry(unit, resolve, q.timers)
  const refuse = reason => {
    entry.events = 0
    answer(q, entry, NOT_APPLIED, reason)
    settle(q, entry)
  }
  if (q.closing) return refuse('the server is shutting down')
  if (!hasRoom(q, unit.events)) {
    refuse(`too many pending events (MAX_PENDING_EVENTS = ${q.maxPendingEvents})`)
    return stopGathering(q)
  }
  const refusal = q.canTake(entry)
  if (refusal) return refuse(refusal)
  q.pendingEvents += unit.events
  entry.queued = true
  q.queue.push(entry)
  q.queuedUnits++
  trackDocs(q, entry, +1)
  if (q.expiryTimer === null) armExpiry(q)
  schedule(q)
}

/** The queue's own fields beside the unit's (no spread: this runs once per request) */
function queueEntry (unit, resolve, timers) {
  const { allKeys } = unitKeys(unit)
  const entry = {
    metrics: unit.metrics,
    events: unit.events,
    idempotency: unit.idempotency,
    settled: unit.settled,
    allKeys,
    resolve,
    answered: false,
    queued: false,
    settledCalled: false,
    enqueuedAt: timers.now()
  }
  // each kind's documents, or a held kind's ids (the same fields in the same order for every entry)
  for (const { collection } of DOCUMENT_PARTS) entry[collection] = unit[collection]
  entry.held = unit.held // a held kind's values (kinds/write-unit.js), built at the flush
  return entry
}

function hasRoom (q, events) {
  return q.pendingEvents + events <= q.maxPendingEvents
}

function waitForRoom (q, events) {
  if (q.closing || hasRoom(q, events)) return Promise.resolve()
  const room = new Promise(resolve => q.roomWaiters.push({ events, resolve }))
  schedule(q) // a gather in progress ends: this sender comes back only once a flush answers
  return room
}

function wakeRoomWaiters (q) {
  if (q.roomWaiters.length === 0) return
  const keep = []
  for (const w of q.roomWaiters) {
    if (q.closing || hasRoom(q, w.events)) w.resolve()
    else keep.push(w)
  }
  q.roomWaiters = keep
}

// ── answers and the queue's bookkeeping ────────────────────────────────────

function answer (q, unit, outcome, reason) {
  if (unit.answered) return
  unit.answered = true
  q.pendingEvents -= unit.events
  const reply = reason ? { outcome, reason } : { outcome }
  unit.resolve(reply)
  try { q.onAnswer(reply, unit.events) } catch (err) { q.onError(err, 'answer observer') }
  wakeRoomWaiters(q)
}

function settle (q, unit) {
  if (unit.settledCalled) return
  unit.settledCalled = true
  try { unit.settled?.() } catch (err) { q.onError(err, 'settled()') }
}

function trackDocs (q, unit, delta) {
  for (const { collection } of DOCUMENT_PARTS) {
    const queued = q.queuedDocs[collection]
    for (const id of unit[collection].keys()) {
      const n = (queued.get(id) ?? 0) + delta
      if (n === 0) {
        queued.delete(id)
        q.queuedDocCount--
      } else {
        if (delta === 1 && n === 1) q.queuedDocCount++ // new in the queue
        queued.set(id, n)
      }
    }
  }
}

function dequeue (q, unit) {
  unit.queued = false
  q.queuedUnits--
  trackDocs(q, unit, -1)
}

/** Drops answered units from the front (clearing their slots) and compacts now and then. */
function oldestQueued (q) {
  while (q.head < q.queue.length && !q.queue[q.head].queued) q.queue[q.head++] = undefined
  if (q.head === q.queue.length) {
    q.queue = []
    q.head = 0
  } else if (q.head > 1024 && q.head * 2 > q.queue.length) {
    q.queue = q.queue.slice(q.head)
    q.head = 0
  }
  return q.queue[q.head]
}

function wakeIdleWaiters (q) {
  if (q.queuedUnits === 0 && !q.inFlight) {
    const waiters = q.idleWaiters
    q.idleWaiters = []
    for (const w of waiters) w()
  }
}

// ── expiry ─────────────────────────────────────────────────────────────────

function expire (q, unit) {
  dequeue(q, unit)
  // its slot may wait for the head; its increments need not
  for (const { collection } of DOCUMENT_PARTS) unit[collection] = null
  unit.held = null
  unit.metrics = null
  answer(q, unit, NOT_APPLIED, `waited in the queue longer than WRITE_TIMEOUT_MS (${q.writeTimeoutMs} ms)`)
  settle(q, unit)
}

/** Answers the queued units that waited writeTimeoutMs, oldest first, and arms the timer for the next one. */
function expireOverdue (q) {
  q.expiryTimer = null
  q.expiryAt = Infinity
  const now = q.timers.now()
  let expired = false
  for (let unit = oldestQueued(q); unit && unit.enqueuedAt + q.writeTimeoutMs <= now; unit = oldestQueued(q)) {
    expire(q, unit)
    expired = true
  }
  armExpiry(q)
  if (expired) wakeIdleWaiters(q)
}

/** Keeps the expiry timer armed for the oldest queued unit (re-armed only when that unit's deadline is earlier) */
function armExpiry (q) {
  const oldest = oldestQueued(q)
  if (!oldest) return
  const at = oldest.enqueuedAt + q.writeTimeoutMs
  if (at >= q.expiryAt) return
  q.timers.clearTimeout(q.expiryTimer)
  q.expiryAt = at
  q.expiryTimer = q.timers.setTimeout(q.onExpiryTimer, Math.max(0, at - q.timers.now()))
}

function stopExpiry (q) {
  q.timers.clearTimeout(q.expiryTimer)
  q.expiryTimer = null
  q.expiryAt = Infinity
}

// ── the cut and the flush ──────────────────────────────────────────────────

/** Asks flush-policy.js whether to cut now, and cuts, or arms the cut timer for when it says (unless one is armed) */
function schedule (q) {
  const oldest = oldestQueued(q)
  const now = q.timers.now()
  const decision = nextCut({
    flushing: q.inFlight !== null,
    oldestAt: oldest?.enqueuedAt,
    queuedUnits: q.queuedUnits,
    queuedDocs: q.queuedDocCount,
    draining: q.draining,
    roomWaiters: q.roomWaiters.length,
    gather: q.gather
  }, now, q.settings)
  if (decision.cut) {
    clearCutTimer(q)
    startFlush(q)
  } else if (decision.wakeAt !== null && !q.cutTimer) {
    q.cutTimer = q.timers.setTimeout(q.onCutTimer, decision.wakeAt - now)
  }
}

function clearCutTimer (q) {
  q.timers.clearTimeout(q.cutTimer)
  q.cutTimer = null
}

/** A sender was turned away for room: the gather ends (flush-policy.js afterRefusal) */
function stopGathering (q) {
  const gather = afterRefusal(q.settings)
  if (gather === null) return
  q.gather = gather
  schedule(q)
}

function drain (q) {
  q.draining = true
  const idle = new Promise(resolve => q.idleWaiters.push(resolve))
  schedule(q)
  wakeIdleWaiters(q)
  return idle.finally(() => { q.draining = false })
}

/** Units from the front while the flush's distinct documents stay ≤ flushMaxDocs (at least one). */
function cut (q) {
  const docs = Object.fromEntries(DOCUMENT_PARTS.map(({ collection }) => [collection, new Set()]))
  let size = 0
  const units = []
  const now = q.timers.now()
  for (let unit = oldestQueued(q); unit; unit = oldestQueued(q)) {
    // overdue but its timer not run yet (timers run late under load): never sent
    if (now - unit.enqueuedAt >= q.writeTimeoutMs) {
      expire(q, unit)
      continue
    }
    let fresh = 0
    for (const { collection } of DOCUMENT_PARTS) for (const id of unit[collection].keys()) if (!docs[collection].has(id)) fresh++
    if (units.length > 0 && size + fresh > q.settings.flushMaxDocs) break
    for (const { collection } of DOCUMENT_PARTS) for (const id of unit[collection].keys()) docs[collection].add(id)
    size += fresh
    dequeue(q, unit)
    units.push(unit)
  }
  return units
}

function startFlush (q) {
  const units = cut(q)
  if (units.length === 0) { // every queued unit was overdue and is answered
    armExpiry(q)
    wakeIdleWaiters(q)
    return
  }
  const startedAt = q.timers.now()
  // the units queued when the flush first answered (null: none before it returned)
  const seen = { queuedWhenAnswered: null }
  q.inFlight = flush(q, units, seen).finally(() => {
    q.inFlight = null
    q.gather = gatherAfter({
      units: units.length, startedAt, returnedAt: q.timers.now(), queuedWhenAnswered: seen.queuedWhenAnswered, queuedUnits: q.queuedUnits
    }, q.settings)
    schedule(q)
    wakeIdleWaiters(q)
  })
}

async function flush (q, units, seen) {
  const answerOwn = (unit, outcome, reason) => {
    if (seen.queuedWhenAnswered === null) seen.queuedWhenAnswered = q.queuedUnits
    answer(q, unit, outcome, reason)
  }
  try {
    await q.runFlush(units, answerOwn)
  } catch (err) {
    q.onError(err, 'flush')
  } finally {
    // whatever happened, every unit of the flush gets its one answer
    for (const unit of units) answer(q, unit, 'unknown', 'the write failed unexpectedly')
    for (const unit of units) settle(q, unit)
  }
}

function abandon (q, reason) {
  q.closing = true
  clearCutTimer(q)
  const abandoned = { events: 0, units: 0 }
  stopExpiry(q)
  for (let unit = oldestQueued(q); unit; unit = oldestQueued(q)) {
    abandoned.events += unit.events
    abandoned.units++
    dequeue(q, unit)
    answer(q, unit, NOT_APPLIED, reason)
    settle(q, unit)
  }
  wakeRoomWaiters(q)
  return abandoned
}
