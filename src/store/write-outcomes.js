// How a bulkWrite's failure maps onto what happened to each operation
// (DESIGN §1). Pure: takes the error, returns per-operation outcomes.

export const APPLIED = 'applied'
export const NOT_APPLIED = 'not_applied'
export const UNKNOWN = 'unknown'

// Codes of per-operation write errors worth sending again: two upserts of a
// new _id raced (11000), or a write conflict (112).
export const RETRYABLE_WRITE_CODES = new Set([11000, 112])

// Errors raised before the operation left this process: nothing was applied.
const NEVER_SENT = new Set([
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError'
])

export function wasNeverSent (err) {
  return NEVER_SENT.has(err?.name) || (err?.name === 'MongoNetworkError' && err.beforeHandshake === true)
}

/**
 * Classifies a failed bulkWrite of `count` operations.
 * → { outcomes: Array<APPLIED|NOT_APPLIED|UNKNOWN>, retry: number[] (indexes worth sending again) }
 */
export function classifyBulkWriteError (err, count) {
  if (wasNeverSent(err)) return { outcomes: new Array(count).fill(NOT_APPLIED), retry: [] }
  const writeErrors = err?.name === 'MongoBulkWriteError' ? [].concat(err.writeErrors ?? []) : []
  if (writeErrors.length === 0) {
    // Sent, and no per-operation answer: a network error, a timeout, or a
    // driver error after an earlier batch went through.
    return { outcomes: new Array(count).fill(UNKNOWN), retry: [] }
  }
  // Per-operation write errors are definite: those operations were not
  // applied, the others were — unless the write concern was not satisfied.
  const others = hasWriteConcernError(err) ? UNKNOWN : APPLIED
  const outcomes = new Array(count).fill(others)
  const retry = []
  for (const writeError of writeErrors) {
    outcomes[writeError.index] = NOT_APPLIED
    if (RETRYABLE_WRITE_CODES.has(writeError.code)) retry.push(writeError.index)
  }
  return { outcomes, retry }
}

function hasWriteConcernError (err) {
  try {
    return Boolean(err.result?.getWriteConcernError?.() ?? err.writeConcernError)
  } catch {
    return true
  }
}

/** A request's answer from the outcomes of the operations holding its increments */
export function combineOutcomes (outcomes) {
  let applied = 0
  let notApplied = 0
  for (const o of outcomes) {
    if (o === APPLIED) applied++
    else if (o === NOT_APPLIED) notApplied++
  }
  if (applied === outcomes.length) return APPLIED
  if (notApplied === outcomes.length) return NOT_APPLIED
  return UNKNOWN
}
