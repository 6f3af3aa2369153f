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

function unitKeys (unit) {
  const keys = []
  for (const id of unit.daily.keys()) keys.push('d:' + id)
  for (const id of unit.monthly.keys()) keys.push('m:' + id)
  for (const name of unit.metrics.keys()) keys.push('r:' + name)
  return keys
}

/**
 * collections: { daily, monthly, metrics } (driver collections or fakes)
 * options: flushIntervalMs, flushMaxDocs, maxPendingEvents, writeTimeoutMs,
 *   maxRetries, clock ({ now() }), logger, observer (optional hooks:
 *   flushed({ durationMs, docs, events, units, statements, retries }), answered(answer, events)),
 *   writesRetried (the driver retries writes: see wasNeverSent),
 *   keyedFlush (units, { now, maxRetries, writeOptions }) → { outcomes: Map<unit, outcome>, errors, statements, retries }:
 *     writes the units that carry `idempotency` (see idempotency-flush.js); without it such units get 503.
 * A unit may carry `settled()`, called once this writer will not apply it any more
 * (answered before a flush, or its flush ended — later than its answer after a watchdog 504).
 */
export function createCoalescingWriter (collections, options) {
  const {
    flushIntervalMs, flushMaxDocs, maxPendingEvents, writeTimeoutMs,
    maxRetries = 3, clock, logger, observer = {}, writeOptions, writesRetried = false, keyedFlush = null
  } = options

  let queue = [] // units in arrival order
  const queuedDocs = new Map() // 'd:'/'m:' key → number of queued units holding it
  let pendingEvents = 0 // queued + in flight
  let inFlight = null // promise of the running flush
  let cutTimer = null
  let closing = false
  let draining = false
  let idleWaiters = []

  function answer (unit, result, reason) {
    if (unit.answered) return
    unit.answered = true
    clearTimeout(unit.queueTimer)
    pendingEvents -= unit.events
    const reply = { ...ANSWERS[result] }
    if (reason) reply.reason = reason
    observer.answered?.(reply, unit.events)
    unit.resolve(reply)
  }

  function settle (unit) {
    if (unit.settledCalled) return
    unit.settledCalled = true
    try { unit.settled?.() } catch (err) { logger.error({ err }, 'settled() threw') }
  }

  function trackDocs (unit, delta) {
    for (const key of unit.docKeys) {
      if (key[0] === 'r') continue
      const n = (queuedDocs.get(key) ?? 0) + delta
      if (n === 0) queuedDocs.delete(key)
      else queuedDocs.set(key, n)
    }
  }

  function expire (unit) {
    const i = queue.indexOf(unit)
    if (i === -1) return
    queue.splice(i, 1)
    trackDocs(unit, -1)
    answer(unit, NOT_APPLIED, `waited in the queue longer than WRITE_TIMEOUT_MS (${writeTimeoutMs} ms)`)
    settle(unit)
    notifyIfIdle()
  }

  /** Units from the front while the flush's distinct documents stay ≤ flushMaxDocs (at least one). */
  function cut () {
    const docs = new Set()
    let n = 0
    for (; n < queue.length; n++) {
      const keys = queue[n].docKeys.filter(k => k[0] !== 'r' && !docs.has(k))
      if (n > 0 && docs.size + keys.length > flushMaxDocs) break
      for (const k of keys) docs.add(k)
    }
    const units = queue.slice(0, n)
    queue = queue.slice(n)
    for (const unit of units) {
      trackDocs(unit, -1)
      clearTimeout(unit.queueTimer)
    }
    return units
  }

  function schedule () {
    if (inFlight || queue.length === 0) return
    const oldestAge = performance.now() - queue[0].enqueuedAt
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
    const started = performance.now()
    // Keyed requests (Idempotency-Key) go in a transaction of their own, beside the others.
    const keyed = units.filter(u => u.idempotency)
    const plain = keyed.length ? units.filter(u => !u.idempotency) : units
    const merged = mergeWriteUnits(plain)
    const events = merged.events + keyed.reduce((n, u) => n + u.events, 0)
    // The flush must end within writeTimeoutMs for its requests; the driver
    // timeouts bound the operation itself, this bounds the answers.
    let watchdog
    const overdue = new Promise(resolve => {
      watchdog = setTimeout(resolve, writeTimeoutMs, null)
    })
    const now = clock.now()
    const sending = Promise.all([
      executeFlush(merged, collections, { now, maxRetries, writeOptions, writesRetried }),
      keyed.length ? keyedFlush(keyed, { now, maxRetries, writeOptions }) : null
    ]).then(([plainResult, keyedResult]) => ({ plainResult, keyedResult }), err => ({ failed: err }))
    const result = await Promise.race([sending, overdue])
    if (result === null) {
      logger.error({ units: units.length, events }, 'flush did not end within WRITE_TIMEOUT_MS; answering 504')
      for (const unit of units) answer(unit, UNKNOWN, 'the database did not acknowledge the write in time')
      await sending
      for (const unit of units) settle(unit)
      return
    }
    clearTimeout(watchdog)
    if (result.failed) {
      logger.error({ err: result.failed }, 'flush failed unexpectedly')
      for (const unit of units) answer(unit, UNKNOWN, 'the write failed unexpectedly')
      for (const unit of units) settle(unit)
      return
    }
    const { plainResult, keyedResult } = result
    for (const err of plainResult.errors) logger.warn({ err }, 'flush had failed operations')
    for (const err of keyedResult?.errors ?? []) logger.warn({ err }, 'keyed flush (transaction) had a failed attempt')
    for (const unit of plain) {
      const outcome = combineOutcomes(unit.docKeys.map(k => plainResult.outcomes.get(k) ?? UNKNOWN))
      answer(unit, outcome, REASONS[outcome])
    }
    for (const unit of keyed) {
      const outcome = keyedResult.outcomes.get(unit) ?? UNKNOWN
      answer(unit, outcome, REASONS[outcome])
    }
    for (const unit of units) settle(unit)
    observer.flushed?.({
      durationMs: performance.now() - started,
      docs: merged.daily.size + merged.monthly.size + keyed.reduce((n, u) => n + u.daily.size + u.monthly.size, 0),
      events,
      units: units.length,
      statements: plainResult.statements + (keyedResult?.statements ?? 0),
      retries: plainResult.retries + (keyedResult?.retries ?? 0)
    })
  }

  function notifyIfIdle () {
    if (queue.length === 0 && !inFlight) {
      const waiters = idleWaiters
      idleWaiters = []
      for (const w of waiters) w()
    }
  }

  return {
    /** Queues a unit (see buildWriteUnit); resolves to its one answer, never rejects. */
    submit (unit) {
      return new Promise(resolve => {
        const entry = { ...unit, docKeys: unitKeys(unit), resolve, answered: false, enqueuedAt: performance.now() }
        const refuse = reason => {
          entry.events = 0
          answer(entry, NOT_APPLIED, reason)
          settle(entry)
        }
        if (closing) return refuse('the server is shutting down')
        if (pendingEvents + unit.events > maxPendingEvents) return refuse(`too many pending events (MAX_PENDING_EVENTS = ${maxPendingEvents})`)
        if (entry.idempotency && !keyedFlush) return refuse('Idempotency-Key needs transactions, which this deployment lacks')
        pendingEvents += unit.events
        queue.push(entry)
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
    },
    stats () {
      return { pendingEvents, queuedUnits: queue.length, queuedDocs: queuedDocs.size, flushing: Boolean(inFlight) }
    }
  }
}
