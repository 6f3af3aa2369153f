// The group-commit writer (DESIGN §1). Requests queue as units; a flush is
// cut when the oldest queued unit is FLUSH_INTERVAL_MS old or FLUSH_MAX_DOCS
// distinct documents are queued; at most one flush is in flight. Every
// submitted unit gets exactly one answer: { status: 200 | 503 | 504, outcome }.
import { mergeWriteUnits } from '../bucket/increments.js'
import { APPLIED, NOT_APPLIED, UNKNOWN, combineOutcomes } from './write-outcomes.js'
import { executeFlush } from './flush-executor.js'
import { KEY_RECORDED } from './idempotency-flush.js'

const ANSWERS = {
  [APPLIED]: { status: 200, outcome: 'applied' },
  [NOT_APPLIED]: { status: 503, outcome: 'not_applied' },
  [UNKNOWN]: { status: 504, outcome: 'unknown' },
  // a keyed request whose key another request recorded meanwhile (nothing applied by this one)
  [KEY_RECORDED]: { status: 409, outcome: 'key_recorded' }
}

const REASONS = {
  [NOT_APPLIED]: 'the database could not be reached',
  [UNKNOWN]: 'the database did not acknowledge every write'
}

/** The keys of a unit's operations: documents ('d:'/'m:', counted for FLUSH_MAX_DOCS) and registry entries ('r:') */
function unitKeys (unit) {
  const docKeys = []
  for (const id of unit.daily.keys()) docKeys.push('d:' + id)
  for (const id of unit.monthly.keys()) docKeys.push('m:' + id)
  const allKeys = docKeys.slice()
  for (const name of unit.metrics.keys()) allKeys.push('r:' + name)
  return { docKeys, allKeys }
}

/**
 * collections: { daily, monthly, metrics } (driver collections or fakes)
 * options: flushIntervalMs, flushMaxDocs, maxPendingEvents, writeTimeoutMs,
 *   maxRetries, clock ({ now() }), logger, observer (optional hooks:
 *   flushed({ durationMs, docs, events, units, statements, retries }), answered(answer, events)),
 *   writesRetried (the driver retries writes: see wasNeverSent),
 *   keyedFlush (units, { now, maxRetries, writeOptions, deadline }) → { outcomes: Map<unit, outcome>, errors, statements, retries }:
 *     writes the units that carry `idempotency` (see idempotency-flush.js); without it such units get 503.
 * A unit may carry `settled()`, called once this writer will not apply it any more
 * (answered before a flush, or its flush ended — later than its answer after a watchdog 504).
 */
export function createCoalescingWriter (collections, options) {
  const {
    flushIntervalMs, flushMaxDocs, maxPendingEvents, writeTimeoutMs,
    maxRetries = 3, clock, logger, observer = {}, writeOptions, writesRetried = false, keyedFlush = null
  } = options

  // Units in arrival order from `head` on. A unit that expired stays in the
  // array, answered, and is skipped: removal is O(1) even for a full queue.
  let queue = []
  let head = 0
  let queuedUnits = 0
  const queuedDocs = new Map() // 'd:'/'m:' key → number of queued units holding it
  let pendingEvents = 0 // queued + in flight
  let inFlight = null // promise of the running flush
  let cutTimer = null
  let closing = false
  let draining = false
  let idleWaiters = []

  /** Calls an observer hook; a hook that throws is logged, never breaks an answer. */
  function notify (hook, ...args) {
    try {
      observer[hook]?.(...args)
    } catch (err) {
      logger.error({ err, hook }, 'observer hook threw')
    }
  }

  function answer (unit, result, reason) {
    if (unit.answered) return
    unit.answered = true
    clearTimeout(unit.queueTimer)
    pendingEvents -= unit.events
    const reply = { ...ANSWERS[result] }
    if (reason) reply.reason = reason
    unit.resolve(reply)
    notify('answered', reply, unit.events)
  }

  function settle (unit) {
    if (unit.settledCalled) return
    unit.settledCalled = true
    try { unit.settled?.() } catch (err) { logger.error({ err }, 'settled() threw') }
  }

  function trackDocs (unit, delta) {
    for (const key of unit.docKeys) {
      const n = (queuedDocs.get(key) ?? 0) + delta
      if (n === 0) queuedDocs.delete(key)
      else queuedDocs.set(key, n)
    }
  }

  function dequeue (unit) {
    unit.queued = false
    queuedUnits--
    trackDocs(unit, -1)
    clearTimeout(unit.queueTimer)
  }

  /** Drops the units no longer queued from the front (their slots are cleared, so
   *  nothing keeps their increments alive) and compacts the array now and then. */
  function oldestQueued () {
    while (head < queue.length && !queue[head].queued) queue[head++] = undefined
    if (head === queue.length) {
      queue = []
      head = 0
    } else if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head)
      head = 0
    }
    return queue[head]
  }

  function expire (unit) {
    if (!unit.queued) return
    dequeue(unit)
    unit.daily = unit.monthly = unit.metrics = null // its slot may wait for the head; its increments need not
    answer(unit, NOT_APPLIED, `waited in the queue longer than WRITE_TIMEOUT_MS (${writeTimeoutMs} ms)`)
    settle(unit)
    notifyIfIdle()
  }

  /** Units from the front while the flush's distinct documents stay ≤ flushMaxDocs (at least one). */
  function cut () {
    const docs = new Set()
    const units = []
    for (let unit = oldestQueued(); unit; unit = oldestQueued()) {
      const fresh = unit.docKeys.filter(k => !docs.has(k))
      if (units.length > 0 && docs.size + fresh.length > flushMaxDocs) break
      for (const k of fresh) docs.add(k)
      dequeue(unit)
      units.push(unit)
    }
    return units
  }

  function schedule () {
    if (inFlight) return
    const oldest = oldestQueued()
    if (!oldest) return
    const oldestAge = performance.now() - oldest.enqueuedAt
    if (draining || queuedDocs.size >= flushMaxDocs || oldestAge >= flushIntervalMs) {
      clearTimeout(cutTimer)
      cutTimer = null
      startFlush()
    } else if (!cutTimer) {
      cutTimer = setTimeout(() => { cutTimer = null; schedule() }, flushIntervalMs - oldestAge)
    }
  }

  function startFlush () {
    const units = cut()
    inFlight = runFlush(units).finally(() => {
      inFlight = null
      schedule()
      notifyIfIdle()
    })
  }

  async function runFlush (units) {
    try {
      await sendAndAnswer(units)
    } catch (err) {
      logger.error({ err }, 'flush failed unexpectedly')
    } finally {
      // whatever happened, every unit of the flush gets its one answer
      for (const unit of units) answer(unit, UNKNOWN, 'the write failed unexpectedly')
      for (const unit of units) settle(unit)
    }
  }

  async function sendAndAnswer (units) {
    const started = performance.now()
    // Keyed requests (Idempotency-Key) go in a transaction of their own, beside the others.
    const keyed = units.filter(u => u.idempotency)
    const plain = keyed.length ? units.filter(u => !u.idempotency) : units
    const merged = mergeWriteUnits(plain)
    const events = merged.events + keyed.reduce((n, u) => n + u.events, 0)
    // The answers come within writeTimeoutMs (the watchdog); the retries stop
    // at the same deadline and the driver timeouts bound each attempt.
    const deadline = started + writeTimeoutMs
    let watchdog
    const overdue = new Promise(resolve => {
      watchdog = setTimeout(resolve, writeTimeoutMs, null)
    })
    const now = clock.now()
    const sending = Promise.allSettled([
      executeFlush(merged, collections, { now, maxRetries, writeOptions, writesRetried, deadline }),
      keyed.length ? keyedFlush(keyed, { now, maxRetries, writeOptions, deadline }) : null
    ])
    const result = await Promise.race([sending, overdue])
    if (result === null) {
      logger.error({ units: units.length, events }, 'flush did not end within WRITE_TIMEOUT_MS; answering 504')
      for (const unit of units) answer(unit, UNKNOWN, 'the database did not acknowledge the write in time')
      await sending // the next flush waits for this one to end: one in flight
      return
    }
    clearTimeout(watchdog)
    const [plainSettled, keyedSettled] = result
    const plainResult = plainSettled.status === 'fulfilled' ? plainSettled.value : null
    const keyedResult = keyedSettled.status === 'fulfilled' ? keyedSettled.value : null
    for (const failed of [plainSettled, keyedSettled]) {
      if (failed.status === 'rejected') logger.error({ err: failed.reason }, 'flush failed unexpectedly')
    }
    for (const err of plainResult?.errors ?? []) logger.warn({ err }, 'flush had failed operations')
    for (const err of keyedResult?.errors ?? []) logger.warn({ err }, 'keyed flush (transaction) had a failed attempt')
    for (const unit of plain) {
      const outcome = plainResult ? combineOutcomes(unit.allKeys.map(k => plainResult.outcomes.get(k) ?? UNKNOWN)) : UNKNOWN
      answer(unit, outcome, REASONS[outcome])
    }
    for (const unit of keyed) {
      const outcome = keyedResult?.outcomes.get(unit) ?? UNKNOWN
      answer(unit, outcome, REASONS[outcome])
    }
    notify('flushed', {
      durationMs: performance.now() - started,
      docs: merged.daily.size + merged.monthly.size + keyed.reduce((n, u) => n + u.daily.size + u.monthly.size, 0),
      events,
      units: units.length,
      statements: (plainResult?.statements ?? 0) + (keyedResult?.statements ?? 0),
      retries: (plainResult?.retries ?? 0) + (keyedResult?.retries ?? 0)
    })
  }

  function notifyIfIdle () {
    if (queuedUnits === 0 && !inFlight) {
      const waiters = idleWaiters
      idleWaiters = []
      for (const w of waiters) w()
    }
  }

  return {
    /** Queues a unit (see buildWriteUnit); resolves to its one answer, never rejects. */
    submit (unit) {
      return new Promise(resolve => {
        const entry = { ...unit, ...unitKeys(unit), resolve, answered: false, queued: false, enqueuedAt: performance.now() }
        const refuse = reason => {
          entry.events = 0
          answer(entry, NOT_APPLIED, reason)
          settle(entry)
        }
        if (closing) return refuse('the server is shutting down')
        if (pendingEvents + unit.events > maxPendingEvents) return refuse(`too many pending events (MAX_PENDING_EVENTS = ${maxPendingEvents})`)
        if (entry.idempotency && !keyedFlush) return refuse('Idempotency-Key needs transactions, which this deployment lacks')
        pendingEvents += unit.events
        entry.queued = true
        queue.push(entry)
        queuedUnits++
        trackDocs(entry, +1)
        entry.queueTimer = setTimeout(expire, writeTimeoutMs, entry)
        schedule()
      })
    },
    /** Flushes everything queued now, and resolves once nothing is queued or in flight. */
    drain () {
      draining = true
      const idle = new Promise(resolve => idleWaiters.push(resolve))
      schedule()
      notifyIfIdle()
      return idle.finally(() => { draining = false })
    },
    /** Refuses new units, flushes the queued ones, and resolves when every unit is answered. */
    async close () {
      closing = true
      await this.drain()
      clearTimeout(cutTimer)
      cutTimer = null
    },
    stats () {
      return { pendingEvents, queuedUnits, queuedDocs: queuedDocs.size, flushing: Boolean(inFlight) }
    }
  }
}
