// The writer's flush runner (docs/architecture.md#how-a-request-becomes-a-bulkwrite): writes one
// cut of units and answers each from the outcomes of its own operations.
// Plain units are merged into one $inc map per document and sent as one
// unordered bulkWrite per collection (flush-executor.js); units carrying an
// Idempotency-Key go in a transaction of their own beside them
// (idempotency-flush.js). The answers come within WRITE_TIMEOUT_MS: the
// retries stop at that deadline, and a watchdog answers `unknown` for
// whatever is still running then.
import { documentsOf, mergeWriteUnits } from '../kinds/write-unit.js'
import { DOCUMENT_PARTS } from '../kinds/index.js'
import { isCounterKind } from '../bucket/metric-kinds.js'
import { executeFlush } from './flush-executor.js'
import { docKey } from './write-operations.js'
import { APPLIED, NOT_APPLIED, UNKNOWN, combineOutcomes } from './write-outcomes.js'
import { realTimers } from '../clock.js'

const REASONS = {
  [NOT_APPLIED]: 'the database could not be reached',
  [UNKNOWN]: 'the database did not acknowledge every write'
}

/**
 * collections: { daily, monthly, metrics }
 * options: writeTimeoutMs, maxRetries, clock ({ now() }: the time written to the registry),
 *   timers, logger, writeOptions, writesRetried (the driver resends writes: see wasNeverSent),
 *   bulkUpdates (how the server takes single-document updates: db/capabilities.js),
 *   keyedFlush(units, { now, maxRetries, writeOptions, deadline, timeNow }) → { outcomes: Map<unit, outcome>, errors, statements, retries },
 *   onFlushed({ durationMs, docs, events, units, statements, retries }),
 *   registryCache (registry-write-cache.js, optional): registry updates it covers are left out
 * → run(units, answer): writes the units, calls answer(unit, outcome, reason) once per unit
 */
export function createFlushRunner (collections, options) {
  const {
    writeTimeoutMs, maxRetries = 3, clock, timers = realTimers, logger,
    writeOptions, writesRetried = false, bulkUpdates, keyedFlush = null, onFlushed = () => {}, registryCache = null
  } = options

  /** `merged` without the registry updates the cache covers (a copy when any is left out), and their keys */
  function leaveOutCovered (merged, now) {
    const covered = []
    if (!registryCache) return { toWrite: merged, covered }
    const metrics = new Map()
    let marked = false
    for (const [name, seen] of merged.metrics) {
      // counters only are preallocated, no other kind is marked busy (docs/adr/0034-preallocate-busy-counters-only.md; docs/adr/0044-gauges-last-by-event-time.md)
      const busyDay = isCounterKind(seen.kind) ? registryCache.busyDayToMark(name, now) : null
      if (busyDay !== null) {
        metrics.set(name, { ...seen, busyDay })
        marked = true
      } else if (registryCache.covers(name, seen, now)) covered.push(docKey('metrics', name))
      else metrics.set(name, seen)
    }
    return { toWrite: covered.length || marked ? { ...merged, metrics } : merged, covered }
  }

  function remember (seenByName, { outcomes, allApplied }, now) {
    if (!registryCache) return
    for (const [name, seen] of seenByName) {
      if (allApplied || outcomes.get(docKey('metrics', name)) === APPLIED) registryCache.record(name, seen, now)
    }
  }

  return async function run (units, answer) {
    const started = timers.now()
    const keyed = units.filter(u => u.idempotency)
    const plain = keyed.length ? units.filter(u => !u.idempotency) : units
    let merged = mergeWriteUnits(plain)
    const events = merged.events + keyed.reduce((n, u) => n + u.events, 0)
    const docs = documentsOf(merged) + keyed.reduce((n, u) => n + documentsOf(u), 0)
    const deadline = started + writeTimeoutMs
    let watchdog
    const overdue = new Promise(resolve => {
      watchdog = timers.setTimeout(resolve, writeTimeoutMs, null)
    })
    const now = clock.now()
    let { toWrite, covered } = leaveOutCovered(merged, now)
    const sending = Promise.allSettled([
      executeFlush(toWrite, collections, { now, maxRetries, writeOptions, writesRetried, bulkUpdates, deadline, timeNow: timers.now }),
      keyed.length ? keyedFlush(keyed, { now, maxRetries, writeOptions, deadline, timeNow: timers.now }) : null
    ])
    // executeFlush built its operations before it first waited: the plain units' documents and the
    // merge's are not read again, and are not held while the database answers (a flush of timer
    // values held megabytes of them; docs/benchmarks.md)
    const written = toWrite.metrics
    merged = toWrite = null
    for (const unit of plain) {
      for (const { collection } of DOCUMENT_PARTS) unit[collection] = null
      unit.held = null
    }
    const result = await Promise.race([sending, overdue])
    if (result === null) {
      logger.error({ units: units.length, events }, 'flush did not end within WRITE_TIMEOUT_MS; answering unknown')
      for (const unit of units) answer(unit, UNKNOWN, 'the database did not acknowledge the write in time')
      await sending // the next flush waits for this one to end: one in flight
      return
    }
    timers.clearTimeout(watchdog)
    const [plainSettled, keyedSettled] = result
    const plainResult = plainSettled.status === 'fulfilled' ? plainSettled.value : null
    if (plainResult) remember(written, plainResult, now)
    // a left-out registry update had nothing to write: it says nothing about a unit's fate
    const coveredKeys = plainResult?.allApplied ? null : new Set(covered)
    const keyedResult = keyedSettled.status === 'fulfilled' ? keyedSettled.value : null
    for (const failed of [plainSettled, keyedSettled]) {
      if (failed.status === 'rejected') logger.error({ err: failed.reason }, 'flush failed unexpectedly')
    }
    for (const err of plainResult?.errors ?? []) logger.warn({ err }, 'flush had failed operations')
    for (const err of keyedResult?.errors ?? []) logger.warn({ err }, 'keyed flush (transaction) had a failed attempt')
    for (const unit of plain) {
      // every operation applied: so was every unit (none is looked up key by key)
      if (plainResult?.allApplied) {
        answer(unit, APPLIED)
        continue
      }
      const keys = coveredKeys.size ? unit.allKeys.filter(k => !coveredKeys.has(k)) : unit.allKeys
      const outcome = plainResult ? combineOutcomes(keys.map(k => plainResult.outcomes.get(k) ?? UNKNOWN)) : UNKNOWN
      answer(unit, outcome, REASONS[outcome])
    }
    for (const unit of keyed) {
      const outcome = keyedResult?.outcomes.get(unit) ?? UNKNOWN
      answer(unit, outcome, REASONS[outcome])
    }
    onFlushed({
      durationMs: timers.now() - started,
      docs,
      events,
      units: units.length,
      statements: (plainResult?.statements ?? 0) + (keyedResult?.statements ?? 0),
      retries: (plainResult?.retries ?? 0) + (keyedResult?.retries ?? 0)
    })
  }
}
