// Sends one flush: one unordered bulkWrite per collection, in parallel, and
// retries exactly the operations that failed definitely with a retryable
// code, a bounded number of times. A collection's lone update goes as the
// driver's updateOne: the same statement in the same command, without the
// bulk's bookkeeping (docs/adr/0077-lone-update-as-update-one.md).
import { APPLIED, classifyBulkWriteError, classifyUpdateOneError, expectEveryOperationDone } from './write-outcomes.js'
import { operationsOf } from './write-operations.js'

const asSent = (operations) => operations

/** The one `updateOne` of `sent` (operations as sent), or null */
const loneUpdate = sent => sent.length === 1 ? sent[0].updateOne ?? null : null

/**
 * Sends `sent` (operations as sent) to `collection`: a lone update as
 * updateOne, else one unordered bulkWrite. Every operation is an upsert by
 * `_id`, which matches or inserts one document: an answer that counts fewer
 * throws (expectEveryOperationDone), classified unknown.
 */
async function send (collection, sent, writeOptions) {
  const lone = loneUpdate(sent)
  const result = lone === null
    ? await collection.bulkWrite(sent, { ordered: false, ...writeOptions })
    : await collection.updateOne(lone.filter, lone.update, { upsert: lone.upsert, ...writeOptions })
  expectEveryOperationDone(result, sent.length)
}

/**
 * Sends `operations` (keyed by `keys`) to `collection`, retrying definite
 * retryable failures up to maxRetries times. Resolves (never rejects) to
 * { outcomes: Map<key, outcome>, allApplied, statements, retries }:
 * allApplied, every operation applied (outcomes then left empty: a flush
 * answered whole needs no outcome per document). bulkUpdates: how the
 * server takes single-document updates (db/capabilities.js bulkUpdatesFor).
 */
export async function bulkWriteWithRetries (collection, keys, operations, { maxRetries = 3, writeOptions = {}, writesRetried = false, bulkUpdates = asSent, deadline = Infinity, timeNow = () => performance.now() } = {}) {
  const outcomes = new Map()
  let pendingKeys = keys
  let pendingOps = operations
  let statements = 0
  let retries = 0
  let error = null
  let allApplied = true // every operation not applied so far is being sent again
  for (let attempt = 0; pendingOps.length > 0; attempt++) {
    statements += pendingOps.length
    const sent = bulkUpdates(pendingOps)
    try {
      await send(collection, sent, writeOptions)
      if (attempt > 0) for (const key of pendingKeys) outcomes.set(key, APPLIED)
      break
    } catch (err) {
      const { outcomes: result, retry } = loneUpdate(sent) === null
        ? classifyBulkWriteError(err, pendingOps.length, { writesRetried })
        : classifyUpdateOneError(err, { writesRetried })
      pendingKeys.forEach((key, i) => outcomes.set(key, result[i]))
      if (result.reduce((n, o) => n + (o === APPLIED ? 0 : 1), 0) !== retry.length) allApplied = false
      if (retry.length === 0 || attempt >= maxRetries || timeNow() >= deadline) {
        error = err
        allApplied = false
        break
      }
      retries += retry.length
      pendingKeys = retry.map(i => pendingKeys[i])
      pendingOps = retry.map(i => pendingOps[i])
    }
  }
  if (allApplied) outcomes.clear()
  return { outcomes, allApplied, statements, retries, error }
}

/**
 * Writes a merged flush (see mergeWriteUnits) to the three collections in
 * parallel. → { outcomes: Map<'d:'|'m:'|'r:' + id, outcome>, allApplied, statements, retries, errors }
 * (allApplied: every operation applied, and outcomes empty)
 */
export async function executeFlush (merged, collections, { now, maxRetries, writeOptions, writesRetried, bulkUpdates, deadline, timeNow } = {}) {
  const keysOf = [] // each collection's keys (not its operations: nothing here holds them while the database answers)
  const results = await Promise.all(operationsOf(merged, now).map(({ collection, keys, operations }) => {
    keysOf.push(keys)
    return bulkWriteWithRetries(collections[collection], keys, operations, { maxRetries, writeOptions, writesRetried, bulkUpdates, deadline, timeNow })
  }))
  const allApplied = results.every(r => r.allApplied)
  const outcomes = new Map()
  let statements = 0
  let retries = 0
  const errors = []
  for (const [i, r] of results.entries()) {
    if (!allApplied && r.allApplied) for (const k of keysOf[i]) outcomes.set(k, APPLIED)
    for (const [k, v] of r.outcomes) outcomes.set(k, v)
    statements += r.statements
    retries += r.retries
    if (r.error) errors.push(r.error)
  }
  return { outcomes, allApplied, statements, retries, errors }
}
