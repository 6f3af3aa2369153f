// The keyed part of a flush: the requests that carry an Idempotency-Key,
// merged and written in one multi-document transaction that also inserts
// their keys, so that a key is recorded exactly when its request's
// increments are. Transaction outcomes map onto the writer's:
//   committed                                   → applied
//   failed before commit (any error)            → not applied: nothing is
//                                                 visible without a commit;
//                                                 so does a statement's reply
//                                                 that counts fewer documents
//                                                 than were sent (aborted)
//   a key already recorded (duplicate key)      → KEY_RECORDED for those
//                                                 requests; the rest retried
//   commit with UnknownTransactionCommitResult  → commit retried; still
//                                                 unknown → unknown
// TransientTransactionError (write conflicts) retries the whole transaction,
// a bounded number of times, like the flush's other retries.
import { mergeWriteUnits } from '../kinds/write-unit.js'
import { operationsOf } from '../writer/write-operations.js'
import { keyRecord } from './idempotency-store.js'
import { APPLIED, KEY_RECORDED, NOT_APPLIED, UNKNOWN, expectEveryOperationDone } from '../writer/write-outcomes.js'

const noop = () => {}
const hasLabel = (err, label) => typeof err?.hasErrorLabel === 'function' && err.hasErrorLabel(label)

function isDuplicateKey (err) {
  if (err?.code === 11000) return true
  return [].concat(err?.writeErrors ?? []).some(e => e?.code === 11000)
}

/** One transaction attempt. → { committed } or { outcome, transient, duplicateKey, err } */
async function attemptTransaction (client, work, { maxCommitRetries, writeOptions, deadline, timeNow }) {
  const session = client.startSession()
  try {
    session.startTransaction(writeOptions?.writeConcern ? { writeConcern: writeOptions.writeConcern } : undefined)
    try {
      await work(session)
    } catch (err) {
      await session.abortTransaction().catch(noop)
      return { outcome: NOT_APPLIED, transient: hasLabel(err, 'TransientTransactionError'), duplicateKey: isDuplicateKey(err), err }
    }
    let uncertain = false
    for (let attempt = 0; ; attempt++) {
      try {
        await session.commitTransaction()
        return { committed: true }
      } catch (err) {
        if (hasLabel(err, 'UnknownTransactionCommitResult')) {
          uncertain = true
          if (attempt < maxCommitRetries && timeNow() < deadline) continue
          return { outcome: UNKNOWN, err }
        }
        // A refusal by the server is definite, unless an earlier attempt may have committed.
        const definite = !uncertain && (hasLabel(err, 'TransientTransactionError') || err?.name === 'MongoServerError')
        return { outcome: definite ? NOT_APPLIED : UNKNOWN, transient: definite && hasLabel(err, 'TransientTransactionError'), err }
      }
    }
  } finally {
    await session.endSession().catch(noop)
  }
}

/**
 * units: queued write units with `idempotency: { id, hash, answer }`.
 * → { outcomes: Map<unit, APPLIED|NOT_APPLIED|UNKNOWN|KEY_RECORDED>, errors, statements, retries }
 */
export async function executeKeyedFlush (units, { client, collections, keyCollection, now, maxRetries = 3, writeOptions = {}, deadline = Infinity, timeNow = () => performance.now() }) {
  const outcomes = new Map()
  const errors = []
  let statements = 0
  let retries = 0
  let pending = units
  for (let attempt = 0; pending.length > 0; attempt++) {
    const merged = mergeWriteUnits(pending)
    const parts = operationsOf(merged, now)
    const keys = pending.map(u => keyRecord(u.idempotency, now))
    statements += keys.length + parts.reduce((n, p) => n + p.operations.length, 0)
    const result = await attemptTransaction(client, async session => {
      // Keys first: a key recorded meanwhile fails the transaction before the increments.
      expectEveryOperationDone(await keyCollection.insertMany(keys, { session, ordered: true }), keys.length)
      for (const { collection, operations } of parts) {
        // an upsert by _id matches or inserts one document: a reply that counts fewer vouches for nothing, so the transaction is aborted
        expectEveryOperationDone(await collections[collection].bulkWrite(operations, { session, ordered: true }), operations.length)
      }
    }, { maxCommitRetries: maxRetries, writeOptions, deadline, timeNow })

    if (result.committed) {
      for (const unit of pending) outcomes.set(unit, APPLIED)
      break
    }
    errors.push(result.err)
    const canRetry = attempt < maxRetries && timeNow() < deadline
    if (result.duplicateKey) {
      // Which keys were recorded by others meanwhile? Those requests were
      // applied once already; the others were not applied by this attempt.
      let recorded
      try {
        const found = await keyCollection.find({ _id: { $in: keys.map(k => k._id) } }, { projection: { _id: 1 } }).toArray()
        recorded = new Set(found.map(d => d._id))
      } catch (err) {
        errors.push(err)
        for (const unit of pending) outcomes.set(unit, NOT_APPLIED)
        break
      }
      for (const unit of pending) if (recorded.has(unit.idempotency.id)) outcomes.set(unit, KEY_RECORDED)
      pending = pending.filter(u => !recorded.has(u.idempotency.id))
      // (a duplicate of an upserted document's _id, with no key recorded, is a race: retried)
    } else if (!(result.transient && canRetry)) {
      for (const unit of pending) outcomes.set(unit, result.outcome)
      break
    }
    if (!canRetry) {
      for (const unit of pending) outcomes.set(unit, NOT_APPLIED)
      break
    }
    retries += pending.length
  }
  return { outcomes, errors, statements, retries }
}
