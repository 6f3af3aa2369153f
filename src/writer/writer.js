// The group-commit writer: the queue (write-queue.js) feeding the flush
// runner (flush-runner.js). It speaks outcomes (write-outcomes.js), never
// HTTP; what happens is published to `telemetry` (flushed, answered).
import { createFlushRunner } from './flush-runner.js'
import { createRegistryWriteCache } from './registry-write-cache.js'
import { createWriteQueue } from './write-queue.js'
import { realTimers } from '../clock.js'

/**
 * collections: { daily, monthly, metrics }
 * options: flushIntervalMs, flushMaxDocs, maxPendingEvents, writeTimeoutMs, maxRetries,
 *   clock, timers, logger, writeOptions, writesRetried, bulkUpdates, keyedFlush (see flush-runner.js),
 *   telemetry ({ publish(name, payload) }, optional),
 *   registryCache (default: a registry-write-cache.js of its own, marking metrics busy after busyMinutes; null: every flush rewrites every registry entry)
 * A unit may carry `settled()`, called once this writer will not apply it any more.
 */
export function createWriter (collections, options) {
  const { timers = realTimers, logger, telemetry } = options
  // set at construction or later by the Idempotency-Key service (src/idempotency/plugin.js), which sits above the writer
  let keyedFlush = options.keyedFlush ?? null
  const publish = (name, payload) => telemetry?.publish(name, payload)
  const registryCache = options.registryCache === undefined ? createRegistryWriteCache({ busyMinutes: options.busyMinutes }) : options.registryCache
  const runFlush = createFlushRunner(collections, { ...options, timers, registryCache, keyedFlush: (units, flushOptions) => keyedFlush(units, flushOptions), onFlushed: stats => publish('flushed', stats) })
  const queue = createWriteQueue({
    ...options,
    timers,
    runFlush,
    onAnswer: (answer, events) => publish('answered', { outcome: answer.outcome, reason: answer.reason, events }),
    onError: (err, what) => logger.error({ err }, `writer: ${what} threw`),
    canTake: unit => unit.idempotency && !keyedFlush ? 'Idempotency-Key needs transactions, which this deployment lacks' : null
  })
  /** A deleted registry entry: the next flush naming the metric writes it again */
  queue.forgetRegistryEntry = name => registryCache?.forget(name)
  /** Where transactions exist: how keyed units (Idempotency-Key) are written, in transactions of their own */
  queue.useKeyedFlush = fn => { keyedFlush = fn }
  return queue
}
